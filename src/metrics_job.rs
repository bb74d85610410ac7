//! One metric over a corpus, as the BLEU page asks the metrics worker for it: a JSON request in, a
//! JSON result out. Each metric is its own job, so a failure in one leaves the others' results.

use serde_json::{json, Value};
use wgslate_metrics::compare::{self, CompareOptions};
use wgslate_metrics::meteor::{self, Stemmer};
use wgslate_metrics::signature::{self, Resampling};
use wgslate_metrics::significance::{self, Scorer};
use wgslate_metrics::{
    per, plural, pystr, wer, Bleu, BleuOptions, BleuStats, Chrf, ChrfOptions, Meteor, Smoothing, Ter, TerOptions,
    Tokenize, WordNet,
};

/// Lines between progress reports.
const CHUNK: usize = 200;
pub const BOOTSTRAP_SAMPLES: usize = 1000;
pub const BOOTSTRAP_SEED: u32 = 12345;

/// The inputs of every job: checked lines and the BLEU options.
pub struct Corpus {
    pub hyps: Vec<String>,
    pub refs: Vec<Vec<String>>,
    pub second: Option<Vec<String>>,
    pub tokenize: String,
    pub lowercase: bool,
    pub smoothing: String,
    /// The hypotheses' language (ISO 639-1), which chooses METEOR's stemmer and synonyms.
    pub language: String,
}

impl Corpus {
    pub fn request(&self, metric: &str) -> String {
        json!({ "metric": metric, "hyps": self.hyps, "refs": self.refs, "second": self.second,
                "tokenize": self.tokenize, "lowercase": self.lowercase, "smoothing": self.smoothing,
                "language": self.language })
        .to_string()
    }

    fn from_request(v: &Value) -> Result<Self, String> {
        let lines =
            |v: &Value| -> Option<Vec<String>> { v.as_array()?.iter().map(|s| s.as_str().map(String::from)).collect() };
        let text = |k: &str| v[k].as_str().map(String::from).ok_or(format!("request has no {k}"));
        Ok(Self {
            hyps: lines(&v["hyps"]).ok_or("request has no hypotheses")?,
            refs: v["refs"]
                .as_array()
                .and_then(|r| r.iter().map(lines).collect())
                .ok_or("request has no references")?,
            second: lines(&v["second"]),
            tokenize: text("tokenize")?,
            lowercase: v["lowercase"].as_bool().unwrap_or(false),
            smoothing: text("smoothing")?,
            language: v["language"].as_str().unwrap_or("en").to_string(),
        })
    }

    pub fn bleu_options(&self, effective_order: bool) -> Result<BleuOptions, String> {
        bleu_options(&self.tokenize, self.lowercase, &self.smoothing, effective_order)
    }

    fn segment_refs(&self, i: usize) -> Vec<&str> {
        self.refs.iter().map(|s| s[i].as_str()).collect()
    }
}

/// The page's BLEU settings as options; sentence BLEU uses the effective order.
pub fn bleu_options(
    tokenize: &str,
    lowercase: bool,
    smoothing: &str,
    effective_order: bool,
) -> Result<BleuOptions, String> {
    Ok(BleuOptions {
        tokenize: Tokenize::parse(tokenize)?,
        lowercase,
        smoothing: Smoothing::parse(smoothing, None)?,
        max_ngram_order: 4,
        effective_order,
    })
}

/// The job a request (`Corpus::request`) asks for, parsed once.
pub fn parse(request: &str) -> Result<Value, String> {
    serde_json::from_str(request).map_err(|e| format!("bad request: {e}"))
}

/// Whether the job is METEOR with WordNet synonyms, which needs the synonym table.
pub fn needs_wordnet(v: &Value) -> bool {
    v["metric"] == "meteor" && Stemmer::for_language(v["language"].as_str().unwrap_or("en")).uses_wordnet()
}

/// Runs the job `v`, calling `progress` with the share done after each chunk of lines.
/// `wordnet` is the synonym table, where `needs_wordnet` said it is needed.
pub fn run(
    v: &Value,
    wordnet: Option<std::sync::Arc<WordNet>>,
    progress: &mut dyn FnMut(f64),
) -> Result<Value, String> {
    let corpus = Corpus::from_request(v)?;
    let metric = v["metric"].as_str().unwrap_or_default();
    let mut result = match metric {
        "bleu" => bleu(&corpus, progress),
        "chrf" => chrf(&corpus, progress),
        "ter" => ter(&corpus, progress),
        "wer" => error_rate(&corpus, progress, false),
        "per" => error_rate(&corpus, progress, true),
        "meteor" => meteor_job(&corpus, wordnet, progress),
        "compare" => compare_job(&corpus),
        other => Err(format!("unknown metric {other:?}")),
    }?;
    // Named, so a result can never be shown under another metric.
    result["metric"] = metric.into();
    Ok(result)
}

/// Per-line statistics of `hyps`, reporting progress over `share` of the job starting at `done`.
fn per_line<T>(
    n: usize,
    progress: &mut dyn FnMut(f64),
    (done, share): (f64, f64),
    mut line: impl FnMut(usize) -> T,
) -> Vec<T> {
    let mut out = Vec::with_capacity(n);
    for start in (0..n).step_by(CHUNK) {
        out.extend((start..(start + CHUNK).min(n)).map(&mut line));
        progress(done + share * out.len() as f64 / n as f64);
    }
    out
}

fn stats_row(s: &BleuStats) -> Vec<f64> {
    [s.sys_len, s.ref_len].iter().chain(&s.correct).chain(&s.total).map(|&v| v as f64).collect()
}

fn bleu(c: &Corpus, progress: &mut dyn FnMut(f64)) -> Result<Value, String> {
    let corpus = Bleu::new(c.bleu_options(false)?);
    let sentence = Bleu::new(c.bleu_options(true)?);
    let n = c.hyps.len();
    let share = if c.second.is_some() { 0.5 } else { 1.0 };
    let stats = per_line(n, progress, (0.0, share), |i| corpus.segment_stats(&c.hyps[i], &c.segment_refs(i)));
    let lines: Vec<f64> = stats.iter().map(|s| sentence.compute(s).score).collect();
    let mut sum = BleuStats::zeros(4);
    stats.iter().for_each(|s| sum.add(s));
    let b = corpus.compute(&sum);
    let paired = match &c.second {
        None => Value::Null,
        Some(sys) => {
            let sys_stats = per_line(n, progress, (0.5, 0.5), |i| corpus.segment_stats(&sys[i], &c.segment_refs(i)));
            let mut sum2 = BleuStats::zeros(4);
            sys_stats.iter().for_each(|s| sum2.add(s));
            let sys_score = corpus.compute(&sum2).score;
            let (base_rows, sys_rows): (Vec<_>, Vec<_>) =
                (stats.iter().map(stats_row).collect(), sys_stats.iter().map(stats_row).collect());
            let scorer = Scorer::Bleu(&corpus.options);
            let p = significance::paired_bootstrap(
                &base_rows,
                &sys_rows,
                b.score,
                sys_score,
                &scorer,
                BOOTSTRAP_SAMPLES,
                &[BOOTSTRAP_SEED],
            )?;
            json!({ "sys_score": sys_score, "identical": sys == &c.hyps, "baseline_mean": p.baseline.mean, "baseline_ci": p.baseline.ci,
                    "system_mean": p.system.mean, "system_ci": p.system.ci, "p_value": p.p_value })
        }
    };
    // As sacreBLEU's paired test signs its BLEU: resamples and seed first.
    let resampling = match c.second {
        Some(_) => Resampling { bootstrap: Some(BOOTSTRAP_SAMPLES), seed: Some(BOOTSTRAP_SEED.to_string()) },
        None => Resampling::default(),
    };
    Ok(json!({
        "score": b.score, "precisions": b.precisions, "counts": b.counts, "totals": b.totals, "bp": b.bp,
        "ratio": b.ratio(), "sys_len": b.sys_len, "ref_len": b.ref_len,
        "signature": signature::bleu(&corpus.options, Some(c.refs.len()), &resampling).to_string(),
        "lines": lines, "paired": paired,
    }))
}

fn chrf(c: &Corpus, progress: &mut dyn FnMut(f64)) -> Result<Value, String> {
    let chrf = Chrf::new(ChrfOptions::default());
    let stats = per_line(c.hyps.len(), progress, (0.0, 1.0), |i| chrf.segment_stats(&c.hyps[i], &c.segment_refs(i)));
    let mut sum = vec![0f64; stats.first().map_or(18, Vec::len)];
    stats.iter().for_each(|s| sum.iter_mut().zip(s).for_each(|(a, b)| *a += *b as f64));
    let sig = signature::chrf(&chrf.options, Some(c.refs.len()), &Resampling::default()).to_string();
    Ok(json!({ "name": chrf.name(), "score": chrf.f_score(&sum), "signature": sig }))
}

fn ter(c: &Corpus, progress: &mut dyn FnMut(f64)) -> Result<Value, String> {
    let ter = Ter::new(TerOptions::default());
    // TER's shift search is the slow one: report after every line.
    let n = c.hyps.len();
    let mut stats = Vec::with_capacity(n);
    for i in 0..n {
        stats.push(ter.segment_stats(&c.hyps[i], &c.segment_refs(i)));
        progress((i + 1) as f64 / n as f64);
    }
    let (e, r) = stats.iter().fold((0.0, 0.0), |(e, r), s| (e + s[0], r + s[1]));
    let sig = signature::ter(&ter.options, Some(c.refs.len()), &Resampling::default()).to_string();
    Ok(json!({ "name": "TER", "score": ter.compute(e, r), "signature": sig }))
}

/// WER or PER: the corpus figure and each line's, against the first reference (as the CLI).
fn error_rate(c: &Corpus, progress: &mut dyn FnMut(f64), position_independent: bool) -> Result<Value, String> {
    let first = c.refs.first().ok_or("no reference")?;
    let stats = per_line(c.hyps.len(), progress, (0.0, 1.0), |i| {
        if position_independent {
            let s = per::sentence_stats(&c.hyps[i], &first[i]);
            [s.errors, s.ref_len, s.hyp_len]
        } else {
            let s = wer::sentence_stats(&c.hyps[i], &first[i]);
            [s.edits, s.ref_len, s.hyp_len]
        }
    });
    let rate = |[e, r, h]: [usize; 3]| {
        if position_independent {
            per::score(e as f64, r as f64)
        } else {
            wer::score(e as f64, r as f64, h as f64)
        }
    };
    let sum = stats.iter().fold([0; 3], |a, s| [a[0] + s[0], a[1] + s[1], a[2] + s[2]]);
    let resampling = Resampling::default();
    let (name, sig) =
        if position_independent { ("PER", signature::per(&resampling)) } else { ("WER", signature::wer(&resampling)) };
    let lines: Vec<f64> = stats.into_iter().map(rate).collect();
    Ok(json!({ "name": name, "score": rate(sum), "signature": sig.to_string(), "lines": lines,
               "first_reference_only": c.refs.len() > 1 }))
}

fn meteor_job(
    c: &Corpus,
    wordnet: Option<std::sync::Arc<WordNet>>,
    progress: &mut dyn FnMut(f64),
) -> Result<Value, String> {
    let stemmer = Stemmer::for_language(&c.language);
    let wordnet = match wordnet {
        Some(w) => w,
        None if stemmer.uses_wordnet() => return Err("METEOR for English needs WordNet's synonym table".into()),
        None => std::sync::Arc::new(WordNet::empty()),
    };
    let m = Meteor::new(stemmer, wordnet);
    let lines = per_line(c.hyps.len(), progress, (0.0, 1.0), |i| m.sentence_score(&c.hyps[i], &c.segment_refs(i)));
    let sig = signature::meteor(stemmer, Some(c.refs.len()), &Resampling::default()).to_string();
    let score = meteor::corpus_score(&lines);
    let lines: Vec<f64> = lines.into_iter().map(|s| 100.0 * s).collect();
    Ok(json!({ "name": "METEOR", "score": score, "signature": sig, "lines": lines }))
}

/// Where the hypothesis and the second system differ, against the first reference, as `wgslate
/// compare --json` reports it (frequencies counted in that reference).
fn compare_job(c: &Corpus) -> Result<Value, String> {
    let second = c.second.as_ref().ok_or("the comparison needs a second system")?;
    let first = c.refs.first().ok_or("no reference")?;
    let comparison = compare::compare(&strs(first), &strs(&c.hyps), &strs(second), &CompareOptions::default())?;
    Ok(comparison.to_json(["hypothesis", "second system"], "reference"))
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Hypotheses, reference streams and the optional second system, as lines.
pub type CheckedInputs = (Vec<String>, Vec<Vec<String>>, Option<Vec<String>>);

/// The user's text as lines, checked: hypotheses, reference streams, optional second system.
pub fn check_inputs(hyp: &str, refs: &[String], hyp2: &str) -> Result<CheckedInputs, String> {
    // Blank lines are segments, as in sacreBLEU: only a box with nothing at all is missing input.
    if hyp.is_empty() {
        return Err("Paste or drop the system output: one sentence per line.".into());
    }
    let hyps = pystr::lines(hyp);
    let mut streams = Vec::new();
    for (k, r) in refs.iter().enumerate() {
        if r.is_empty() && refs.len() == 1 {
            return Err("Paste or drop the reference: one sentence per line, as many lines as the hypothesis.".into());
        }
        if r.is_empty() {
            return Err(format!("Reference {} is empty: paste or drop it, or remove the box.", k + 1));
        }
        let lines = pystr::lines(r);
        if lines.len() != hyps.len() {
            return Err(format!(
                "Line counts differ: the hypothesis has {} but reference {} has {}. Each line is one segment.",
                plural(hyps.len(), "line"),
                k + 1,
                lines.len()
            ));
        }
        streams.push(lines);
    }
    if streams.is_empty() {
        return Err("Add at least one reference.".into());
    }
    let second = if hyp2.is_empty() {
        None
    } else {
        let lines = pystr::lines(hyp2);
        if lines.len() != hyps.len() {
            return Err(format!(
                "Line counts differ: the second system has {} but the hypothesis has {}.",
                plural(lines.len(), "line"),
                hyps.len()
            ));
        }
        Some(lines)
    };
    Ok((hyps, streams, second))
}

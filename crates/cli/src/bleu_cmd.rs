//! `wgslate bleu`: sacreBLEU's scoring command line, same numbers and output formats.

use wgslate_metrics::signature::{self, Resampling, Signature};
use wgslate_metrics::significance::{self, Interval, Scorer};
use wgslate_metrics::*;

use crate::bleu_args::{BleuArgs, Encoding};
use crate::pyfmt::{self, Json};
use crate::table;

/// The bootstrap's seed: its words for numpy's SeedSequence, and its text for the signature, which
/// sacreBLEU writes as given for `--confidence` (`str(seed).lower()` of the variable) and as the
/// parsed integer for `--paired-bs` (`str(self._seed).lower()`): "007" there is "7".
struct Seed {
    label: String,
    paired_label: String,
    words: Vec<u32>,
}

/// SACREBLEU_SEED as sacreBLEU reads it: unset means 12345, "none" (any case) fresh entropy.
fn bootstrap_seed(var: Option<&str>) -> Result<Seed, String> {
    let Some(text) = var else {
        return Ok(Seed { label: "12345".into(), paired_label: "12345".into(), words: vec![12345] });
    };
    let label = text.to_lowercase();
    if label == "none" {
        return Ok(Seed { paired_label: label.clone(), label, words: os_entropy() });
    }
    let digits = text.trim().trim_start_matches('+');
    let words = numpy::seed_words(digits)
        .ok_or_else(|| format!("SACREBLEU_SEED must be a non-negative integer or None, not '{text}'"))?;
    let paired_label = match digits.trim_start_matches('0') {
        "" => "0".to_string(),
        d => d.to_string(),
    };
    Ok(Seed { label, paired_label, words })
}

/// 128 bits that differ from run to run, as numpy draws from the OS for an unseeded generator.
fn os_entropy() -> Vec<u32> {
    use std::hash::{BuildHasher, Hasher};
    let mut words = Vec::new();
    for k in 0..2u64 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(k);
        h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
        let v = h.finish();
        words.extend([v as u32, (v >> 32) as u32]);
    }
    words
}

use wgslate_metrics::pystr::lines as split_lines;

/// A table cell: its text, and its value in the JSON output.
type Cell = (String, Json);

/// A file's text; a name ending in `.gz` is gunzipped first, as sacreBLEU's `smart_open` does.
pub fn read_text(path: &str, encoding: Encoding) -> Result<String, String> {
    encoding.decode(path, read_bytes(path)?)
}

/// All of standard input's bytes.
pub fn read_standard_input() -> Result<Vec<u8>, String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).map_err(|e| format!("cannot read standard input: {e}"))?;
    Ok(bytes)
}

/// A file's bytes; a name ending in .gz is gunzipped.
pub fn read_bytes(path: &str) -> Result<Vec<u8>, String> {
    let mut bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    // An empty file is empty text, as Python's gzip.open reads it.
    if path.ends_with(".gz") && !bytes.is_empty() {
        let mut plain = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&bytes[..]), &mut plain).map_err(|e| {
            if bytes.starts_with(&[0x1f, 0x8b]) {
                format!("{path} is a damaged or cut-short gzip file ({e})")
            } else {
                format!("{path} is not a gzip file ({e})")
            }
        })?;
        bytes = plain;
    }
    Ok(bytes)
}

/// sacreBLEU's verbose BLEU: "70.4/46.6/33.1/23.7 (BP = 0.969 ratio = 0.969 hyp_len = 11 ref_len = 12)".
pub fn bleu_verbose(s: &BleuScore) -> String {
    let prec = s.precisions.iter().map(|&p| pystr::fixed(p, 1)).collect::<Vec<_>>().join("/");
    let (bp, ratio) = (pystr::fixed(s.bp, 3), pystr::fixed(s.ratio(), 3));
    format!("{prec} (BP = {bp} ratio = {ratio} hyp_len = {} ref_len = {})", s.sys_len, s.ref_len)
}

enum Metric {
    Bleu(BleuOptions),
    Chrf(Chrf),
    Ter(Ter),
    Wer,
    Per,
    Meteor(Meteor),
}

/// WordNet 3.0 for English METEOR: $WGSLATE_WORDNET (Debian's folder or the page's compact table)
/// or Debian's /usr/share/wordnet.
pub fn load_wordnet() -> Result<WordNet, String> {
    let path = std::env::var("WGSLATE_WORDNET").unwrap_or_else(|_| "/usr/share/wordnet".into());
    let p = std::path::Path::new(&path);
    let found = if p.is_file() {
        std::fs::read(p).map_err(|e| format!("cannot read {path}: {e}")).and_then(|b| WordNet::from_bytes(&b))
    } else {
        WordNet::from_dir(p)
    };
    found.map_err(|e| {
        format!("METEOR for English needs WordNet 3.0 ({e}): install Debian's wordnet-base or set WGSLATE_WORDNET")
    })
}

/// One metric's corpus result.
struct Scored {
    name: String,
    score: f64,
    verbose: Option<String>,
    stats: Vec<Vec<f64>>,
}

impl Metric {
    fn new(name: &str, a: &BleuArgs, sentence: bool) -> Result<Self, String> {
        Ok(match name {
            "bleu" => Metric::Bleu(BleuOptions {
                tokenize: Tokenize::parse(a.tokenize.as_deref().unwrap_or("13a"))?,
                lowercase: a.lowercase,
                smoothing: Smoothing::parse(&a.smooth_method, a.smooth_value)?,
                max_ngram_order: 4,
                effective_order: sentence,
            }),
            "chrf" => Metric::Chrf(Chrf::new(ChrfOptions {
                char_order: a.chrf_char_order,
                word_order: a.chrf_word_order,
                beta: a.chrf_beta,
                lowercase: a.chrf_lowercase,
                whitespace: a.chrf_whitespace,
                eps_smoothing: a.chrf_eps_smoothing,
            })),
            "wer" => Metric::Wer,
            "per" => Metric::Per,
            "meteor" => {
                let stemmer = meteor::Stemmer::for_language(a.target_language.as_deref().unwrap_or("en"));
                let wordnet = if stemmer.uses_wordnet() { load_wordnet()? } else { WordNet::empty() };
                Metric::Meteor(Meteor::new(stemmer, std::sync::Arc::new(wordnet)))
            }
            _ => Metric::Ter(Ter::new(TerOptions {
                normalized: a.ter_normalized,
                no_punct: a.ter_no_punct,
                asian_support: a.ter_asian_support,
                case_sensitive: a.ter_case_sensitive,
            })),
        })
    }

    fn sort_key(&self) -> &'static str {
        match self {
            Metric::Bleu(_) => "BLEU",
            Metric::Chrf(_) => "CHRF",
            Metric::Ter(_) => "TER",
            Metric::Wer => "WER",
            Metric::Per => "PER",
            Metric::Meteor(_) => "METEOR",
        }
    }

    fn signature(&self, nrefs: usize, r: &Resampling) -> Signature {
        match self {
            Metric::Bleu(o) => signature::bleu(o, Some(nrefs), r),
            Metric::Chrf(c) => signature::chrf(&c.options, Some(nrefs), r),
            Metric::Ter(t) => signature::ter(&t.options, Some(nrefs), r),
            Metric::Wer => signature::wer(r),
            Metric::Per => signature::per(r),
            Metric::Meteor(m) => signature::meteor(m.stemmer, Some(nrefs), r),
        }
    }

    fn scorer(&self) -> Scorer<'_> {
        match self {
            Metric::Bleu(o) => Scorer::Bleu(o),
            Metric::Chrf(c) => Scorer::Chrf(c),
            Metric::Ter(_) => Scorer::Ter,
            Metric::Wer => Scorer::Wer,
            Metric::Per => Scorer::Per,
            Metric::Meteor(_) => Scorer::Meteor,
        }
    }

    /// The corpus score; an error where sacreBLEU raises (a negative BLEU precision).
    fn score(&self, hyps: &[&str], refs: &[Vec<&str>]) -> Result<Scored, String> {
        Ok(match self {
            Metric::Bleu(o) => {
                let bleu = Bleu::new(o.clone());
                let per_seg = bleu.corpus_stats(hyps, refs);
                let mut sum = BleuStats::zeros(o.max_ngram_order);
                per_seg.iter().for_each(|s| sum.add(s));
                let s = bleu.compute(&sum);
                o.smoothing.negative_precision(s.precisions.iter().copied())?;
                let verbose = bleu_verbose(&s);
                let stats = per_seg
                    .iter()
                    .map(|st| {
                        [st.sys_len, st.ref_len].iter().chain(&st.correct).chain(&st.total).map(|&v| v as f64).collect()
                    })
                    .collect();
                Scored { name: "BLEU".into(), score: s.score, verbose: Some(verbose), stats }
            }
            Metric::Chrf(c) => {
                let stats: Vec<Vec<f64>> =
                    c.corpus_stats(hyps, refs).into_iter().map(|s| s.into_iter().map(|v| v as f64).collect()).collect();
                let mut sum = vec![0f64; stats.first().map_or(0, Vec::len)];
                stats.iter().for_each(|s| sum.iter_mut().zip(s).for_each(|(a, b)| *a += b));
                Scored { name: c.name(), score: c.f_score(&sum), verbose: None, stats }
            }
            Metric::Ter(t) => {
                let stats: Vec<Vec<f64>> = t.corpus_stats(hyps, refs).into_iter().map(|s| s.to_vec()).collect();
                let (e, r) = stats.iter().fold((0.0, 0.0), |(e, r), s| (e + s[0], r + s[1]));
                Scored { name: "TER".into(), score: t.compute(e, r), verbose: None, stats }
            }
            Metric::Wer => {
                let per_line = wer::corpus_stats(hyps, refs);
                let mut sum = wer::WerStats::default();
                per_line.iter().for_each(|s| sum.add(s));
                let score = wer::score(sum.edits as f64, sum.ref_len as f64, sum.hyp_len as f64);
                let verbose = format!("(edits = {} ref_len = {} hyp_len = {})", sum.edits, sum.ref_len, sum.hyp_len);
                let stats = per_line.into_iter().map(wer::WerStats::to_vec).collect();
                Scored { name: "WER".into(), score, verbose: Some(verbose), stats }
            }
            Metric::Per => {
                let per_line = per::corpus_stats(hyps, refs);
                let mut sum = per::PerStats::default();
                per_line.iter().for_each(|s| sum.add(s));
                let score = per::score(sum.errors as f64, sum.ref_len as f64);
                let verbose = format!(
                    "(errors = {} matches = {} ref_len = {} hyp_len = {})",
                    sum.errors, sum.matches, sum.ref_len, sum.hyp_len
                );
                let stats = per_line.into_iter().map(per::PerStats::to_vec).collect();
                Scored { name: "PER".into(), score, verbose: Some(verbose), stats }
            }
            Metric::Meteor(m) => {
                let scores = m.corpus_stats(hyps, refs);
                let score = meteor::corpus_score(&scores);
                let stats = scores.into_iter().map(|s| vec![s, 1.0]).collect();
                Scored { name: "METEOR".into(), score, verbose: None, stats }
            }
        })
    }
}

/// sacreBLEU's `Score.format`.
fn format_score(s: &Scored, ci: Option<Interval>, a: &BleuArgs, sig: &Signature, json: bool) -> String {
    let w = a.width;
    let mut sc = pystr::fixed(s.score, w);
    // sacreBLEU shows the interval only when the bootstrap mean is above zero.
    let conf = ci.filter(|c| c.mean > 0.0).map(|c| (pystr::fixed(c.mean, w), pystr::fixed(c.ci, w)));
    if let Some((m, c)) = &conf {
        sc += &format!(" (μ = {m} ± {c})");
    }
    if a.score_only {
        return sc;
    }
    if json {
        let mut d = vec![
            ("name".to_string(), Json::Str(s.name.clone())),
            ("score".into(), Json::Raw(pyfmt::rounded(s.score, w))),
            ("signature".into(), Json::Str(sig.format(false))),
        ];
        if let Some((m, c)) = &conf {
            d.push(("confidence_mean".into(), Json::Raw(pyfmt::repr(m.parse().unwrap()))));
            d.push(("confidence_var".into(), Json::Raw(pyfmt::repr(c.parse().unwrap()))));
            d.push(("confidence".into(), Json::Str(format!("μ = {m} ± {c}"))));
        }
        if let Some(v) = &s.verbose {
            d.push(("verbose_score".into(), Json::Str(v.clone())));
        }
        for (k, _, v) in &sig.fields {
            d.push((k.to_string(), Json::Str(v.clone())));
        }
        return Json::Obj(d).dumps(1);
    }
    let mut line = format!("{}|{} = {sc}", s.name, sig.format(a.short));
    if let Some(v) = &s.verbose {
        line += &format!(" {v}");
    }
    line
}

pub fn print_single(results: Vec<String>, format: &str) {
    if format == "json" {
        if results.len() > 1 {
            println!("[\n{}\n]", results.join(",\n"));
        } else {
            println!("{}", results[0]);
        }
        return;
    }
    // sacreBLEU's `print_single_results`, quirks included: lines without '=' are printed at once;
    // the split points of the others are then zipped with the results from the first one on (not
    // with the lines they came from), and Python slices with a negative index from the end.
    let mut cuts: Vec<i64> = Vec::new();
    for line in &results {
        match line.find('=') {
            Some(byte) => cuts.push(line[..byte].chars().count() as i64 - 1),
            None => println!("{line}"),
        }
    }
    let width = cuts.iter().copied().max().unwrap_or(0).max(0) as usize;
    for (&cut, line) in cuts.iter().zip(&results) {
        let chars: Vec<char> = line.chars().collect();
        let cut = if cut < 0 {
            chars.len().saturating_sub(cut.unsigned_abs() as usize)
        } else {
            (cut as usize).min(chars.len())
        };
        let (left, right): (String, String) = (chars[..cut].iter().collect(), chars[cut..].iter().collect());
        // Padded by hand: the formatter's `>width$` takes at most 65 535.
        println!("{}{left}{right}", " ".repeat(width.saturating_sub(cut)));
    }
}

const PAIRED_EXPLANATION: &str = " - Each system is pairwise compared to {BASE}.
   Actual system score / bootstrap estimated true mean / 95% CI are provided for each metric.

 - Null hypothesis: the system and the baseline translations are essentially
   generated by the same underlying process. For a given system and the baseline,
   the p-value is roughly the probability of the absolute score difference (delta)
   or higher occurring due to chance, under the assumption that the null hypothesis is correct.

 - Assuming a significance threshold of 0.05, the null hypothesis can be rejected
   for p-values < 0.05 (marked with \"*\"). This means that the delta is unlikely to be attributed
   to chance, hence the system is significantly \"different\" than the baseline.
   Otherwise, the p-values are highlighted in red.

 - NOTE: Significance does not tell whether a system is \"better\" than the baseline but rather
   emphasizes the \"difference\" of the systems in terms of the replicability of the delta.
";

fn print_signatures(sigs: &[(String, String)]) {
    println!("-----------------\nMetric signatures\n-----------------");
    for (name, sig) in sigs {
        println!(" - {name:<10} {sig}");
    }
}

pub fn run(mut a: BleuArgs) -> Result<(), String> {
    if a.sentence_level && a.metrics.len() > 1 {
        return Err("Only one metric can be used in sentence-level mode.".into());
    }
    // sacreBLEU keys its metrics by name: a repeated one counts once, where it first appears.
    let given = std::mem::take(&mut a.metrics);
    a.metrics = given.iter().enumerate().filter(|(k, m)| !given[..*k].contains(m)).map(|(_, m)| m.clone()).collect();
    if a.refs.is_empty() {
        return Err("I need one or more reference files, given before -i/--input.".into());
    }
    if a.num_refs != 1 && a.refs.len() > 1 {
        return Err(
            "--num-refs splits one tab-delimited reference file; it cannot be used with several reference files."
                .into(),
        );
    }
    // One list per reference, grown as lines show them: --num-refs may be any number until a line
    // is seen to hold that many fields.
    let mut refs: Vec<Vec<String>> = vec![Vec::new(); a.refs.len()];
    for (r, path) in a.refs.iter().enumerate() {
        for (lineno, line) in split_lines(&read_text(path, a.encoding)?).into_iter().enumerate() {
            if a.num_refs == 1 {
                refs[r].push(line);
            } else {
                let parts: Vec<&str> = line.splitn(a.num_refs, '\t').collect();
                if parts.len() != a.num_refs {
                    return Err(format!(
                        "{path} line {}: expected {} tab-separated references, found {}",
                        lineno + 1,
                        a.num_refs,
                        parts.len()
                    ));
                }
                refs.resize(a.num_refs, Vec::new());
                for (k, p) in parts.into_iter().enumerate() {
                    refs[k].push(p.to_string());
                }
            }
        }
    }
    let (systems, mut names): (Vec<Vec<String>>, Vec<String>) = match &a.inputs {
        Some(files) if !files.is_empty() => {
            let mut systems = Vec::new();
            let mut names: Vec<String> = Vec::new();
            for f in files {
                if names.contains(f) {
                    if a.paired_bs && f == &names[0] {
                        continue;
                    }
                    return Err(format!("'{f}' already used to name a system."));
                }
                systems.push(split_lines(&read_text(f, a.encoding)?));
                names.push(f.clone());
            }
            (systems, names)
        }
        Some(_) => return Err("argument -i/--input: expected at least one file".into()),
        None => {
            let text = a.encoding.decode("standard input", read_standard_input()?)?;
            // Python reads standard input with universal newlines ("\r" and "\r\n" end lines too),
            // unlike files, and does not rstrip the first line's fields one by one.
            let lines = split_lines(&text.replace("\r\n", "\n").replace('\r', "\n"));
            let n = lines.first().map_or(1, |l| l.split('\t').count());
            let mut systems = vec![Vec::new(); n];
            for (i, line) in lines.iter().enumerate() {
                let fields: Vec<&str> = line.split('\t').collect();
                if fields.len() != n {
                    return Err("the number of tab-delimited fields in the input stream differ across lines.".into());
                }
                for (k, f) in fields.into_iter().enumerate() {
                    systems[k].push(if i == 0 { f } else { pystr::rstrip(f) }.to_string());
                }
            }
            (systems, (1..=n).map(|i| format!("System {i}")).collect())
        }
    };
    if a.paired_bs {
        if a.inputs.is_none() {
            names = std::iter::once("Baseline".to_string())
                .chain((1..names.len()).map(|i| format!("System {i}")))
                .collect();
        } else {
            names[0] = format!("Baseline: {}", names[0]);
        }
    }
    let num_sys = systems.len();
    if a.sentence_level && num_sys > 1 {
        return Err("Only one system can be evaluated in sentence-level mode.".into());
    }
    if a.sentence_level && (a.confidence || a.paired_bs) {
        return Err("Statistical tests are unavailable in sentence-level mode.".into());
    }
    if a.paired_bs && num_sys == 1 {
        return Err("Paired tests require multiple input systems given to --input (-i).".into());
    }
    if num_sys > 1 && a.confidence {
        return Err("Use paired tests (--paired-bs) for multiple systems.".into());
    }
    for (s, name) in systems.iter().zip(&names) {
        if s.is_empty() {
            return Err(format!("{name} contains no sentence"));
        }
        for (k, r) in refs.iter().enumerate() {
            if r.len() != s.len() {
                return Err(format!(
                    "System and reference streams have different lengths: {name} has {}, reference {} has {}.",
                    wgslate_metrics::plural(s.len(), "line"),
                    k + 1,
                    r.len()
                ));
            }
        }
    }
    let ref_view: Vec<Vec<&str>> = refs.iter().map(|r| r.iter().map(String::as_str).collect()).collect();
    let nrefs = refs.len();
    let mut metrics: Vec<Metric> =
        a.metrics.iter().map(|m| Metric::new(m, &a, a.sentence_level)).collect::<Result<_, _>>()?;

    if a.sentence_level {
        let m = &metrics[0];
        let sig = m.signature(nrefs, &Resampling::default());
        for (i, h) in systems[0].iter().enumerate() {
            let seg_refs: Vec<Vec<&str>> = ref_view.iter().map(|r| vec![r[i]]).collect();
            let s = m.score(&[h.as_str()], &seg_refs)?;
            println!("{}", format_score(&s, None, &a, &sig, false));
        }
        return Ok(());
    }

    // sacreBLEU's --detail splits a test set by original language; its JSON would be broken by that
    // text, so it prints text, and local files have nothing to split.
    if a.detail && a.format == "json" {
        a.format = "text".into();
    }
    let hyp_views: Vec<Vec<&str>> = systems.iter().map(|s| s.iter().map(String::as_str).collect()).collect();
    if num_sys == 1 {
        metrics.sort_by_key(|m| m.sort_key());
        let mut results = Vec::new();
        for m in &metrics {
            let s = m.score(&hyp_views[0], &ref_view)?;
            let (ci, resampling) = if a.confidence && a.confidence_n > 1 {
                let seed = bootstrap_seed(a.seed.as_deref())?;
                let ci = significance::confidence(&s.stats, &m.scorer(), a.confidence_n, &seed.words)?;
                (Some(ci), Resampling { bootstrap: Some(a.confidence_n), seed: Some(seed.label) })
            } else {
                (None, Resampling::default())
            };
            let sig = m.signature(nrefs, &resampling);
            results.push(format_score(&s, ci, &a, &sig, a.format == "json"));
        }
        print_single(results, &a.format);
        if a.detail {
            println!("No subset information found. Consider using --origlang argument.");
        }
        return Ok(());
    }

    if !a.paired_bs {
        metrics.sort_by_key(|m| m.sort_key());
    }
    let seed = if a.paired_bs { Some(bootstrap_seed(a.seed.as_deref())?) } else { None };
    // One per metric: (header, cells per system, signature).
    let mut columns: Vec<(String, Vec<Cell>, String)> = Vec::new();
    for m in &metrics {
        let scored: Vec<Scored> = hyp_views.iter().map(|h| m.score(h, &ref_view)).collect::<Result<_, _>>()?;
        let name = scored[0].name.clone();
        if let Some(seed) = &seed {
            let resampling = Resampling { bootstrap: Some(a.paired_bs_n), seed: Some(seed.paired_label.clone()) };
            let sig = m.signature(nrefs, &resampling).format(a.short);
            let mut cells = Vec::new();
            let base = &scored[0];
            let mut baseline_ci = None;
            for (k, s) in scored.iter().enumerate().skip(1) {
                let r = significance::paired_bootstrap(
                    &base.stats,
                    &s.stats,
                    base.score,
                    s.score,
                    &m.scorer(),
                    a.paired_bs_n,
                    &seed.words,
                )?;
                baseline_ci.get_or_insert(r.baseline);
                let w = a.width;
                let star = if r.p_value > 0.05 { "" } else { "*" };
                let f = |x| pystr::fixed(x, w);
                // sacreBLEU breaks the line before the p-value only in the text table.
                let brk = if a.format == "latex" { ' ' } else { '\n' };
                let text = format!(
                    "{} ({} ± {}){brk}(p = {:.4}){star}",
                    f(s.score),
                    f(r.system.mean),
                    f(r.system.ci),
                    r.p_value
                );
                let json = Json::Obj(vec![
                    ("score".into(), Json::Raw(pyfmt::repr(s.score))),
                    ("p_value".into(), Json::Raw(pyfmt::repr(r.p_value))),
                    ("mean".into(), Json::Raw(pyfmt::repr(r.system.mean))),
                    ("ci".into(), Json::Raw(pyfmt::repr(r.system.ci))),
                ]);
                cells.push((k, text, json));
            }
            let b = baseline_ci.expect("paired mode has at least two systems");
            let w = a.width;
            let mut all = vec![(
                format!("{} ({} ± {})", pystr::fixed(base.score, w), pystr::fixed(b.mean, w), pystr::fixed(b.ci, w)),
                Json::Obj(vec![
                    ("score".into(), Json::Raw(pyfmt::repr(base.score))),
                    ("p_value".into(), Json::Null),
                    ("mean".into(), Json::Raw(pyfmt::repr(b.mean))),
                    ("ci".into(), Json::Raw(pyfmt::repr(b.ci))),
                ]),
            )];
            all.extend(cells.into_iter().map(|(_, t, j)| (t, j)));
            columns.push((name, all, sig));
        } else {
            let sig = m.signature(nrefs, &Resampling::default()).format(a.short);
            let cells = scored
                .iter()
                .map(|s| {
                    let t = pystr::fixed(s.score, a.width);
                    (t.clone(), Json::Str(t))
                })
                .collect();
            columns.push((name, cells, sig));
        }
    }
    if a.format == "json" {
        let list = (0..num_sys)
            .map(|i| {
                let mut obj = vec![("system".to_string(), Json::Str(names[i].clone()))];
                for (name, cells, _) in &mut columns {
                    obj.push((name.clone(), std::mem::replace(&mut cells[i].1, Json::Null)));
                }
                Json::Obj(obj)
            })
            .collect();
        // sacreBLEU writes its table's JSON with json.dumps' default ensure_ascii, unlike a single system's.
        println!("{}", Json::List(list).dumps_ascii(4));
        return Ok(());
    }
    let suffix = if a.paired_bs { " (μ ± 95% CI)" } else { "" };
    let headers: Vec<String> =
        std::iter::once("System".to_string()).chain(columns.iter().map(|(n, _, _)| format!("{n}{suffix}"))).collect();
    let rows: Vec<Vec<String>> = (0..num_sys)
        .map(|i| std::iter::once(names[i].clone()).chain(columns.iter().map(|(_, c, _)| c[i].0.clone())).collect())
        .collect();
    let table =
        if a.format == "latex" { table::latex_booktabs(&headers, &rows) } else { table::fancy_grid(&headers, &rows) };
    println!("{table}\n");
    if a.paired_bs {
        let msg = format!("Paired bootstrap resampling test with {} resampling trials", a.paired_bs_n);
        let rule = "-".repeat(msg.chars().count());
        println!("{rule}\n{msg}\n{rule}");
        println!("{}", PAIRED_EXPLANATION.replace("{BASE}", &names[0]));
    }
    print_signatures(&columns.iter().map(|(n, _, s)| (n.clone(), s.clone())).collect::<Vec<_>>());
    Ok(())
}

//! Decoding flags shared by `translate` and `eval`.

use wgslate_decode::settings::checked_number;
use wgslate_decode::{BeamConfig, LengthLimits, LengthPenalty, SamplingConfig, Scoring, Search, Settings};

pub const DECODE_USAGE: &str =
    "decoding: [--best] [--beam K] [--lenpen A] [--lenpen-kind avg|gnmt] [--coverage B] [--end-penalty G]
          [--min-len N] [--max-len-a A] [--max-len-b B] [--nbest N] [--no-repeat-ngram N]
          [--sample] [--temperature T] [--top-k K] [--top-p P] [--seed S] [--samples N]";

/// The decoding flags: the search, and whether `--best` asked for its n-best to be reranked with
/// the reverse direction's model (found through the models' index when `--rerank DIR` is not given).
pub struct Decoding {
    pub search: Search,
    pub best_reranks: bool,
}

/// Parses the decoding flags out of `args`, returning them and the flags it did not use.
pub fn parse(args: &[String]) -> Result<(Decoding, Vec<String>), String> {
    let mut rest = Vec::new();
    let mut best_reranks = false;
    let (mut beam, mut lenpen, mut kind, mut coverage, mut end, mut nbest, mut no_repeat) =
        (1usize, 0f32, "gnmt".to_string(), 0f32, 0f32, 1usize, 0usize);
    let (mut sample, mut temperature, mut top_k, mut top_p, mut seed, mut samples) =
        (false, 1f32, 0usize, 1f32, 0u64, 1usize);
    let mut limits = LengthLimits::default();
    // The last flag given of each search, to refuse one that the chosen search would ignore; --best
    // overrides the beam flags it sets, not --nbest or --no-repeat-ngram.
    let (mut sampling_flag, mut beam_flag, mut list_flag) = (None::<&str>, None::<&str>, None::<&str>);
    let mut seen: Vec<&str> = Vec::new();
    let mut i = 0;
    /// A flag's value checked against its range (`wgslate_decode::settings`, the one source of the
    /// limits, which the page's URL and form also use).
    fn setting(flag: &str, key: &str, v: Option<&String>) -> Result<f64, String> {
        let v = v.ok_or_else(|| format!("{flag} needs a value"))?;
        checked_number(key, v).map_err(|e| format!("{flag}: {e}"))
    }
    while i < args.len() {
        let a = args[i].as_str();
        let v = args.get(i + 1);
        let mut takes_value = true;
        match a {
            "--temperature" | "--top-k" | "--top-p" | "--seed" | "--samples" => sampling_flag = Some(a),
            "--beam" | "--lenpen" | "--lenpen-kind" | "--coverage" | "--end-penalty" => beam_flag = Some(a),
            "--nbest" | "--no-repeat-ngram" => list_flag = Some(a),
            _ => {}
        }
        let mut decoding = true;
        match a {
            "--beam" => beam = setting(a, "beam", v)? as usize,
            "--lenpen" => lenpen = setting(a, "lp", v)? as f32,
            "--lenpen-kind" => {
                kind = v.ok_or("--lenpen-kind needs avg or gnmt")?.clone();
                if kind != "avg" && kind != "gnmt" {
                    return Err(format!("--lenpen-kind: '{kind}' is not avg or gnmt"));
                }
            }
            "--coverage" => coverage = setting(a, "cov", v)? as f32,
            "--end-penalty" => end = setting(a, "end", v)? as f32,
            "--min-len" => limits.min_len = setting(a, "min-len", v)? as usize,
            "--max-len-a" => limits.a = setting(a, "a", v)? as f32,
            "--max-len-b" => limits.b = setting(a, "b", v)? as usize,
            "--nbest" => nbest = setting(a, "nbest", v)? as usize,
            "--no-repeat-ngram" => no_repeat = setting(a, "no-repeat-ngram", v)? as usize,
            "--temperature" => temperature = setting(a, "t", v)? as f32,
            "--top-k" => top_k = setting(a, "k", v)? as usize,
            "--top-p" => top_p = setting(a, "p", v)? as f32,
            "--seed" => seed = setting(a, "seed", v)? as u64,
            "--samples" => samples = setting(a, "samples", v)? as usize,
            "--sample" => {
                sample = true;
                takes_value = false;
            }
            // The page's "Best quality" button: its search settings, no end penalty, no sampling;
            // flags after it override them.
            "--best" => {
                let best = Settings::default().with_best_quality();
                (beam, kind, lenpen, coverage, end, sample) =
                    (best.beam, best.lenpen_kind, best.lenpen, best.coverage, best.end_penalty, best.sample);
                best_reranks = best.rerank;
                // Its beam is a preset a later --sample may override, not a flag the user gave.
                beam_flag = None;
                takes_value = false;
            }
            _ => {
                rest.push(args[i].clone());
                (takes_value, decoding) = (false, false);
            }
        }
        // A decoding flag given twice would drop its first value without a word (--best is a preset:
        // a flag after it overrides its part, which is not a repeat).
        if decoding && seen.contains(&a) {
            return Err(format!("{a} is given twice: give it once"));
        }
        seen.push(a);
        i += if takes_value { 2 } else { 1 };
    }
    if nbest > beam && sample {
        return Err(format!("--nbest {nbest} lists a beam's hypotheses, and --sample draws samples instead: give --samples {nbest} for {nbest} of them"));
    }
    if nbest > beam {
        return Err(format!("--nbest {nbest} lists more hypotheses than the beam keeps: add --beam {nbest} or more"));
    }
    if seen.contains(&"--lenpen-kind") && lenpen == 0.0 {
        return Err("--lenpen-kind chooses the form of the length penalty, which is off: add --lenpen A".into());
    }
    if limits.a == 0.0 && limits.b == 0 {
        return Err("--max-len-a 0 --max-len-b 0 leaves no room for a word (the search still wrote one word): make one of them more".into());
    }
    if limits.a == 0.0 && limits.min_len > limits.b {
        return Err(format!(
            "--min-len {} is longer than the longest output allowed (--max-len-a 0 --max-len-b {})",
            limits.min_len, limits.b
        ));
    }
    if samples > 1 && !sample {
        return Err("--samples N draws N samples: add --sample".into());
    }
    match (sample, sampling_flag, beam_flag.or(list_flag)) {
        (false, Some(flag), _) => return Err(format!("{flag} shapes sampling, which is off: add --sample")),
        (true, _, Some(flag)) => {
            return Err(format!("{flag} shapes beam search, but --sample draws samples instead: give one search"))
        }
        _ => {}
    }
    let search = if sample {
        Search::Sample(SamplingConfig {
            temperature,
            top_k,
            top_p,
            seed,
            samples: samples.max(1),
            limits,
            want_attention: false,
        })
    } else if beam > 1 || lenpen != 0.0 || coverage != 0.0 || end != 0.0 || nbest > 1 || no_repeat > 0 {
        let length_penalty = LengthPenalty::from_alpha(lenpen, &kind);
        Search::Beam(BeamConfig {
            beam,
            limits,
            scoring: Scoring { length_penalty, coverage, end_penalty: end },
            nbest,
            no_repeat_ngram: no_repeat,
            want_attention: false,
        })
    } else {
        Search::Greedy(limits)
    };
    Ok((Decoding { search, best_reranks }, rest))
}

/// How many outputs per input the flags ask `translate` to print: the n-best, the samples, or one.
pub fn outputs_asked(search: &Search) -> usize {
    match search {
        Search::Beam(b) => b.nbest,
        Search::Sample(s) => s.samples,
        Search::Greedy(_) => 1,
    }
}

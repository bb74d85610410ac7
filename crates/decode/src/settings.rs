//! Translation settings (search and its penalties) and the one place that checks them: the page's
//! URL and form go through [`Settings::set`], so a shared link cannot hold a value the form refuses.

use crate::{BeamConfig, LengthLimits, LengthPenalty, SamplingConfig, Scoring, Search};

#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub model: String,
    pub beam: usize,
    pub lenpen_kind: String,
    pub lenpen: f32,
    pub coverage: f32,
    pub end_penalty: f32,
    pub max_len_a: f32,
    pub max_len_b: usize,
    pub sample: bool,
    pub temperature: f32,
    pub top_k: usize,
    pub top_p: f32,
    pub seed: u64,
    /// Rerank a beam search's n-best with the model of the opposite direction (weight
    /// [`RERANK_WEIGHT`]); no effect on greedy search or sampling.
    pub rerank: bool,
    /// Which engine the page runs: auto (the WGSL engine on a hardware WebGPU adapter, else the
    /// CPU engine), gpu or cpu.
    pub backend: String,
    /// What the Search view's translation begins with ("Begin the translation with…"); empty: nothing.
    pub prefix: String,
}

/// The longest prefix a link or the form takes, in characters (the model's outputs are shorter).
pub const MAX_PREFIX_CHARS: usize = 1000;

impl Default for Settings {
    fn default() -> Self {
        Self {
            model: "en-de/transformer".into(),
            beam: 1,
            lenpen_kind: "gnmt".into(),
            lenpen: 0.0,
            coverage: 0.0,
            end_penalty: 0.0,
            max_len_a: 2.0,
            max_len_b: 10,
            sample: false,
            temperature: 1.0,
            top_k: 0,
            top_p: 1.0,
            seed: 0,
            rerank: false,
            backend: "auto".into(),
            prefix: String::new(),
        }
    }
}

/// The search the page's "Best quality" button and the CLI's `--best` choose: beam 4 whose n-best
/// is reranked with the opposite direction's model (weight [`RERANK_WEIGHT`]), no length or
/// coverage penalty. Chosen on val (0eb57bb, 2026-11-27), where it beat the preset before it (beam
/// 4, GNMT α 1, coverage 0.2) for each of the four en → de models measured (docs/models.md,
/// "Decoding on test_2016_flickr").
/// Keys and values as in a link.
pub const BEST_QUALITY: [(&str, &str); 2] = [("beam", "4"), ("rerank", "true")];

/// The weight of log P(source | hypothesis) when a beam's n-best is reranked with the model of the
/// opposite direction (the page's "rerank" setting, the CLI's `--rerank` default): chosen on val
/// (README, "Decoding on test_2016_flickr").
pub const RERANK_WEIGHT: f32 = 0.5;

/// A numeric setting's key (in the URL and the form, or for the CLI-only flags their name) and its
/// allowed range.
struct Range {
    key: &'static str,
    what: &'static str,
    min: f64,
    max: f64,
    integer: bool,
}

const fn range(key: &'static str, what: &'static str, min: f64, max: f64, integer: bool) -> Range {
    Range { key, what, min, max, integer }
}

/// Every numeric setting's range, the single source of the limits. β ≥ 0 keeps the coverage term
/// at most 0, which the beam search's upper bound (`penalties::Scoring::upper_bound`) relies on.
const RANGES: [Range; 15] = [
    range("beam", "beam width", 1.0, 16.0, true),
    range("lp", "length penalty α", 0.0, 5.0, false),
    range("cov", "coverage β", 0.0, 5.0, false),
    range("end", "end penalty γ", -5.0, 5.0, false),
    range("a", "max length a", 0.0, 10.0, false),
    range("b", "max length b", 0.0, 200.0, true),
    range("t", "temperature", 0.01, 10.0, false),
    range("k", "top-k", 0.0, 100_000.0, true),
    range("p", "top-p", 0.01, 1.0, false),
    range("seed", "seed", 0.0, 9_007_199_254_740_991.0, true),
    // Not a search setting but limited the same way: how many test sentences to evaluate.
    range("n", "number of sentences", 1.0, 1000.0, true),
    // The CLI's flags that the page does not offer.
    range("min-len", "minimum length", 0.0, 200.0, true),
    range("nbest", "n-best size", 1.0, 16.0, true),
    range("no-repeat-ngram", "no-repeat n-gram size", 0.0, 10.0, true),
    range("samples", "number of samples", 1.0, 100.0, true),
];

/// `text`'s bytes with each `%XY` escape replaced by the byte it names; a `%` without two hex digits
/// stays as it is (as URLSearchParams reads it). Not necessarily UTF-8: a link cut inside a character
/// leaves part of one.
pub fn percent_decoded(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |k: usize| b.get(i + k).and_then(|&c| (c as char).to_digit(16));
        match (b[i], hex(1), hex(2)) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            _ => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    out
}

/// The smallest and largest value `key` takes (for the page's number boxes' `min` and `max`).
pub fn bounds(key: &str) -> Option<(f64, f64)> {
    RANGES.iter().find(|r| r.key == key).map(|r| (r.min, r.max))
}

/// How a refusal of a name that is no setting begins.
const UNKNOWN: &str = "unknown setting";

/// The refusal of a and b both 0 (`a·|source| + b = 0` for every source: the search gave one word anyway).
const NO_ROOM: &str = "max length a and b are both 0, which leaves no room for a word: make one of them more";

/// `value` as a number for `key`, or why not.
pub fn checked_number(key: &str, value: &str) -> Result<f64, String> {
    let r = RANGES.iter().find(|r| r.key == key).ok_or_else(|| format!("{UNKNOWN} '{key}'"))?;
    let x: f64 = value.trim().parse().map_err(|_| format!("{} must be a number, not '{value}'", r.what))?;
    // The fractional settings are kept as f32, which holds "1e-50" as 0 (and f64 "1e-400"): a value the user
    // did not write. Only what is written as zero means zero, and it is 0, not -0.
    let mantissa = value.trim().split(['e', 'E']).next().unwrap_or("");
    if x as f32 == 0.0 && mantissa.contains(|c: char| ('1'..='9').contains(&c)) {
        return Err(format!("{} {value} is too small to hold (it would read as 0); write 0", r.what));
    }
    let x = if x == 0.0 { 0.0 } else { x };
    if !x.is_finite() || x < r.min || x > r.max {
        return Err(format!("{} must be between {} and {}, not {value}", r.what, r.min, r.max));
    }
    if r.integer && x.fract() != 0.0 {
        return Err(format!("{} must be a whole number, not {value}", r.what));
    }
    Ok(x)
}

impl Settings {
    /// Sets one setting from its URL/form text; out-of-range or malformed values are refused and
    /// leave the setting as it was.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "model" => {
                let ok = value.split_once('/').is_some_and(|(pair, arch)| {
                    !pair.is_empty() && !arch.is_empty() && !value.contains(['\\', '?', '#']) && !value.contains("..")
                });
                if !ok {
                    return Err(format!("model must look like en-de/transformer, not '{value}'"));
                }
                self.model = value.to_string();
            }
            "lpk" => match value {
                "gnmt" | "avg" => self.lenpen_kind = value.to_string(),
                _ => return Err(format!("length penalty kind must be gnmt or avg, not '{value}'")),
            },
            "prefix" => {
                let n = value.chars().count();
                if n > MAX_PREFIX_CHARS {
                    return Err(format!("prefix must be at most {MAX_PREFIX_CHARS} characters, not {n}"));
                }
                self.prefix = value.to_string();
            }
            "backend" => match value {
                "auto" | "gpu" | "cpu" => self.backend = value.to_string(),
                _ => return Err(format!("backend must be auto, gpu or cpu, not '{value}'")),
            },
            "sample" | "rerank" => {
                let on = match value {
                    "true" => true,
                    "false" => false,
                    _ => return Err(format!("{key} must be true or false, not '{value}'")),
                };
                if key == "sample" {
                    self.sample = on
                } else {
                    self.rerank = on
                }
            }
            _ => {
                let x = checked_number(key, value)?;
                let no_room = match key {
                    "a" => x == 0.0 && self.max_len_b == 0,
                    "b" => x == 0.0 && self.max_len_a == 0.0,
                    _ => false,
                };
                if no_room {
                    return Err(NO_ROOM.into());
                }
                match key {
                    "beam" => self.beam = x as usize,
                    "lp" => self.lenpen = x as f32,
                    "cov" => self.coverage = x as f32,
                    "end" => self.end_penalty = x as f32,
                    "a" => self.max_len_a = x as f32,
                    "b" => self.max_len_b = x as usize,
                    "t" => self.temperature = x as f32,
                    "k" => self.top_k = x as usize,
                    "p" => self.top_p = x as f32,
                    "seed" => self.seed = x as u64,
                    _ => return Err(format!("{UNKNOWN} '{key}'")),
                }
            }
        }
        Ok(())
    }

    /// Settings and text from decoded `key=value` pairs, and one message per value refused (one
    /// per key given several times, and the same refusal once).
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> (Settings, String, Vec<String>) {
        let (mut s, mut text, mut problems) = (Settings::default(), String::new(), Vec::<String>::new());
        // Per key, in the order first met: how many times it was given and the value used (the last accepted).
        struct Given<'v> {
            key: &'v str,
            times: usize,
            used: Option<&'v str>,
        }
        let mut given: Vec<Given> = Vec::new();
        // An a or b refused only because the other is 0 so far ("a=0&b=0&a=1"): tried again once every
        // pair is read, unless a later value of its key was taken. Its key, value and the value used before it.
        let mut waiting: Vec<(&str, &str, Option<&str>)> = Vec::new();
        for (k, v) in pairs {
            let replaced = waiting.iter().position(|w| w.0 == k).map(|i| waiting.remove(i));
            let accepted = if k == "text" {
                text = v.to_string();
                true
            } else if let Err(e) = s.set(k, v) {
                if e == NO_ROOM {
                    let used_before = match replaced {
                        Some((_, _, before)) => before,
                        None => given.iter().find(|g| g.key == k).and_then(|g| g.used),
                    };
                    waiting.push((k, v, used_before));
                    true
                } else {
                    if !problems.contains(&e) {
                        problems.push(e);
                    }
                    waiting.extend(replaced);
                    false
                }
            } else {
                true
            };
            let used = accepted.then_some(v);
            match given.iter_mut().find(|g| g.key == k) {
                Some(g) => (g.times, g.used) = (g.times + 1, used.or(g.used)),
                None => given.push(Given { key: k, times: 1, used }),
            }
        }
        for (k, v, used_before) in waiting {
            if let Err(e) = s.set(k, v) {
                problems.push(e);
                given.iter_mut().filter(|g| g.key == k).for_each(|g| g.used = used_before);
            }
        }
        // A key given twice (`beam=4&beam=8`): the last one counts, as URLSearchParams' get()
        // would not, so say which. (When none was accepted, the refusal says it all; a text is
        // not quoted, it is in the box.)
        for Given { key, times, used } in given {
            let Some(used) = used.filter(|_| times > 1) else { continue };
            let others = match times {
                2 => "other value (given twice".to_string(),
                n => format!("other values (given {n} times"),
            };
            let which = if key == "text" { "the last is used".to_string() } else { format!("{used:?} is used") };
            problems.push(format!("{key}'s {others}; {which})"));
        }
        // Once, after the last unknown name ("temp=0.7"): the ones a link takes.
        if let Some(last) = problems.iter_mut().rev().find(|p| p.starts_with(UNKNOWN)) {
            let keys: Vec<&str> = Settings::default().all_pairs().into_iter().map(|(k, _)| k).collect();
            last.push_str(&format!(" (a link's settings are {} and text)", keys.join(", ")));
        }
        (s, text, problems)
    }

    /// The `key=value` pairs that differ from the defaults (the text is not among them).
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let d = Settings::default().all_pairs();
        self.all_pairs().into_iter().zip(d).filter(|((_, v), (_, dv))| v != dv).map(|(kv, _)| kv).collect()
    }

    /// Every setting as `(key, value)`, defaults included.
    pub fn all_pairs(&self) -> Vec<(&'static str, String)> {
        vec![
            ("model", self.model.clone()),
            ("beam", self.beam.to_string()),
            ("lpk", self.lenpen_kind.clone()),
            ("lp", self.lenpen.to_string()),
            ("cov", self.coverage.to_string()),
            ("end", self.end_penalty.to_string()),
            ("a", self.max_len_a.to_string()),
            ("b", self.max_len_b.to_string()),
            ("sample", self.sample.to_string()),
            ("t", self.temperature.to_string()),
            ("k", self.top_k.to_string()),
            ("p", self.top_p.to_string()),
            ("seed", self.seed.to_string()),
            ("rerank", self.rerank.to_string()),
            ("backend", self.backend.clone()),
            ("prefix", self.prefix.clone()),
        ]
    }

    /// These settings with the search of [`BEST_QUALITY`]: the greedy settings of [`Self::with_greedy`]
    /// (so no end penalty and no sampling) with its values set.
    pub fn with_best_quality(&self) -> Settings {
        let mut s = self.with_greedy();
        for (key, value) in BEST_QUALITY {
            // Cannot fire on any input: `set` checks the key and the value, both constants here (and
            // for a or b the other, which BEST_QUALITY leaves alone), and
            // `the_best_quality_preset_is_a_beam_search_and_greedy_undoes_it` applies them.
            s.set(key, value).expect("BEST_QUALITY is within the settings' ranges");
        }
        s
    }

    /// These settings with the fastest search: greedy, no penalties, no sampling (the defaults).
    /// What is kept is listed, so a search setting added later is reset too.
    pub fn with_greedy(&self) -> Settings {
        Settings {
            model: self.model.clone(),
            max_len_a: self.max_len_a,
            max_len_b: self.max_len_b,
            temperature: self.temperature,
            top_k: self.top_k,
            top_p: self.top_p,
            seed: self.seed,
            backend: self.backend.clone(),
            ..Settings::default()
        }
    }

    pub fn limits(&self) -> LengthLimits {
        LengthLimits { a: self.max_len_a, b: self.max_len_b, min_len: 0 }
    }

    pub fn search(&self) -> Search {
        if self.sample {
            return Search::Sample(self.sampling());
        }
        if self.beam <= 1 && self.lenpen == 0.0 && self.coverage == 0.0 && self.end_penalty == 0.0 {
            return Search::Greedy(self.limits());
        }
        Search::Beam(self.beam_search(self.beam))
    }

    /// The search in a few words, as a result names it: "greedy", "beam 4", "beam 4, reranked",
    /// "sampling".
    pub fn search_label(&self) -> String {
        self.search().label(self.reranks())
    }

    /// Whether the search's n-best is reranked: the setting is on and the search can be.
    pub fn reranks(&self) -> bool {
        self.rerank && self.search_can_rerank()
    }

    /// The settings as they act on a translation: a rerank box that cannot apply counts as off, so
    /// ticking or unticking it under greedy search or sampling changes nothing to re-translate; the
    /// prefix is the Search view's alone (the other views translate without it).
    pub fn effective(&self) -> Settings {
        Settings { rerank: self.reranks(), prefix: String::new(), ..self.clone() }
    }

    /// Whether the search is a beam of two or more (greedy search and sampling have nothing to reorder).
    pub fn search_can_rerank(&self) -> bool {
        matches!(self.search(), Search::Beam(b) if b.beam >= 2)
    }

    /// Beam search of the given width with these settings' scoring; the n-best is the whole beam.
    pub fn beam_search(&self, beam: usize) -> BeamConfig {
        let scoring = Scoring {
            length_penalty: LengthPenalty::from_alpha(self.lenpen, &self.lenpen_kind),
            coverage: self.coverage,
            end_penalty: self.end_penalty,
        };
        BeamConfig {
            beam: beam.max(1),
            limits: self.limits(),
            scoring,
            nbest: beam.max(1),
            no_repeat_ngram: 0,
            want_attention: false,
        }
    }

    pub fn sampling(&self) -> SamplingConfig {
        SamplingConfig {
            temperature: self.temperature,
            top_k: self.top_k,
            top_p: self.top_p,
            seed: self.seed,
            samples: 1,
            limits: self.limits(),
            want_attention: false,
        }
    }
}

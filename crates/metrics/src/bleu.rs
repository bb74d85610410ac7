//! BLEU as sacreBLEU computes it: statistics per segment, summed, then smoothed.

use std::collections::HashMap;

use crate::pystr;
use crate::tokenizers::Tokenize;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Smoothing {
    None,
    Floor(f64),
    AddK(f64),
    Exp,
}

impl Smoothing {
    /// sacreBLEU's `smooth_method` with an optional `smooth_value` (defaults: floor 0.1, add-k 1).
    pub fn parse(method: &str, value: Option<f64>) -> Result<Self, String> {
        Ok(match method {
            "none" => Smoothing::None,
            "exp" => Smoothing::Exp,
            "floor" => Smoothing::Floor(value.unwrap_or(0.1)),
            "add-k" => Smoothing::AddK(value.unwrap_or(1.0)),
            other => return Err(format!("unknown smoothing method '{other}' (choose from none, floor, add-k, exp)")),
        })
    }
    /// Where sacreBLEU stops with "math domain error": a negative smoothing value (only floor and
    /// add-k take one) made one of `precisions` negative, and BLEU takes its log.
    pub fn negative_precision(&self, precisions: impl IntoIterator<Item = f64>) -> Result<(), String> {
        match precisions.into_iter().any(|p| p < 0.0) {
            false => Ok(()),
            true => Err(format!(
                "-s {} -sv {:?} makes an n-gram precision negative, and its log is undefined (sacreBLEU stops with \
                 \"math domain error\"); give a smoothing value of 0 or more",
                self.name(),
                match self {
                    Smoothing::Floor(v) | Smoothing::AddK(v) => *v,
                    _ => f64::NAN,
                }
            )),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Smoothing::None => "none",
            Smoothing::Floor(_) => "floor",
            Smoothing::AddK(_) => "add-k",
            Smoothing::Exp => "exp",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct BleuOptions {
    pub tokenize: Tokenize,
    pub lowercase: bool,
    pub smoothing: Smoothing,
    pub max_ngram_order: usize,
    pub effective_order: bool,
}

impl Default for BleuOptions {
    fn default() -> Self {
        Self {
            tokenize: Tokenize::Thirteen,
            lowercase: false,
            smoothing: Smoothing::Exp,
            max_ngram_order: 4,
            effective_order: false,
        }
    }
}

/// Sufficient statistics: lengths and per-order matched / total n-gram counts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BleuStats {
    pub sys_len: u64,
    pub ref_len: u64,
    pub correct: Vec<u64>,
    pub total: Vec<u64>,
}

impl BleuStats {
    pub fn zeros(order: usize) -> Self {
        Self { sys_len: 0, ref_len: 0, correct: vec![0; order], total: vec![0; order] }
    }
    pub fn add(&mut self, other: &BleuStats) {
        self.sys_len += other.sys_len;
        self.ref_len += other.ref_len;
        for (a, b) in self.correct.iter_mut().zip(&other.correct) {
            *a += b;
        }
        for (a, b) in self.total.iter_mut().zip(&other.total) {
            *a += b;
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct BleuScore {
    pub score: f64,
    /// Matched n-gram counts (after add-k smoothing, as sacreBLEU reports them).
    pub counts: Vec<f64>,
    pub totals: Vec<f64>,
    pub precisions: Vec<f64>,
    pub bp: f64,
    pub sys_len: u64,
    pub ref_len: u64,
}

impl BleuScore {
    pub fn ratio(&self) -> f64 {
        if self.ref_len > 0 {
            self.sys_len as f64 / self.ref_len as f64
        } else {
            0.0
        }
    }
}

pub struct Bleu {
    pub options: BleuOptions,
}

type Ngrams<'a> = HashMap<&'a [String], u64>;

fn ngrams(tokens: &[String], max_order: usize) -> Ngrams<'_> {
    let mut map = HashMap::new();
    for n in 1..=max_order {
        for w in tokens.windows(n) {
            *map.entry(w).or_insert(0) += 1;
        }
    }
    map
}

fn my_log(x: f64) -> f64 {
    if x == 0.0 {
        -9_999_999_999.0
    } else {
        x.ln()
    }
}

impl Bleu {
    pub fn new(options: BleuOptions) -> Self {
        Self { options }
    }

    /// Lowercases (if asked), strips trailing whitespace and tokenizes, as sacreBLEU does.
    pub fn preprocess(&self, sentence: &str) -> Vec<String> {
        let s = if self.options.lowercase { pystr::lower(sentence) } else { sentence.to_string() };
        let tokenized = self.options.tokenize.apply(pystr::rstrip(&s));
        pystr::split(&tokenized).map(str::to_string).collect()
    }

    pub fn segment_stats(&self, hyp: &str, refs: &[&str]) -> BleuStats {
        let order = self.options.max_ngram_order;
        let hyp_tokens = self.preprocess(hyp);
        let ref_tokens: Vec<Vec<String>> = refs.iter().map(|r| self.preprocess(r)).collect();
        let mut ref_ngrams: Ngrams = HashMap::new();
        for r in &ref_tokens {
            for (g, c) in ngrams(r, order) {
                let e = ref_ngrams.entry(g).or_insert(0);
                *e = (*e).max(c);
            }
        }
        let hyp_len = hyp_tokens.len() as u64;
        let mut closest: Option<(u64, u64)> = None;
        for r in &ref_tokens {
            let len = r.len() as u64;
            let diff = len.abs_diff(hyp_len);
            closest = match closest {
                None => Some((diff, len)),
                Some((d, l)) if diff < d || (diff == d && len < l) => Some((diff, len)),
                keep => keep,
            };
        }
        let mut stats = BleuStats::zeros(order);
        stats.sys_len = hyp_len;
        stats.ref_len = closest.map(|c| c.1).unwrap_or(0);
        for (g, c) in ngrams(&hyp_tokens, order) {
            let n = g.len() - 1;
            stats.total[n] += c;
            if let Some(&rc) = ref_ngrams.get(g) {
                stats.correct[n] += c.min(rc);
            }
        }
        stats
    }

    pub fn compute(&self, stats: &BleuStats) -> BleuScore {
        let order = self.options.max_ngram_order;
        let mut correct: Vec<f64> = stats.correct.iter().map(|&c| c as f64).collect();
        let mut total: Vec<f64> = stats.total.iter().map(|&c| c as f64).collect();
        let (sys_len, ref_len) = (stats.sys_len, stats.ref_len);
        let bp = if sys_len < ref_len {
            if sys_len > 0 {
                (1.0 - ref_len as f64 / sys_len as f64).exp()
            } else {
                0.0
            }
        } else {
            1.0
        };
        let mut precisions = vec![0.0; order];
        let done = |score, correct, total, precisions| BleuScore {
            score,
            counts: correct,
            totals: total,
            precisions,
            bp,
            sys_len,
            ref_len,
        };
        if correct.iter().all(|&c| c == 0.0) {
            return done(0.0, correct, total, precisions);
        }
        let mut smooth_mteval = 1.0;
        let mut eff_order = order;
        for n in 0..order {
            if let Smoothing::AddK(k) = self.options.smoothing {
                if n > 0 {
                    correct[n] += k;
                    total[n] += k;
                }
            }
            if total[n] == 0.0 {
                break;
            }
            if self.options.effective_order {
                eff_order = n + 1;
            }
            if correct[n] == 0.0 {
                match self.options.smoothing {
                    Smoothing::Exp => {
                        smooth_mteval *= 2.0;
                        precisions[n] = 100.0 / (smooth_mteval * total[n]);
                    }
                    Smoothing::Floor(v) => precisions[n] = 100.0 * v / total[n],
                    _ => {}
                }
            } else {
                precisions[n] = 100.0 * correct[n] / total[n];
            }
        }
        let score = bp * (precisions[..eff_order].iter().map(|&p| my_log(p)).sum::<f64>() / eff_order as f64).exp();
        done(score, correct, total, precisions)
    }

    /// The hypothesis tokens and, per token, the longest matched n-gram order covering it (0: none),
    /// counting matches with the same clipping as the statistics.
    pub fn matched_orders(&self, hyp: &str, refs: &[&str]) -> (Vec<String>, Vec<usize>) {
        let order = self.options.max_ngram_order;
        let hyp_tokens = self.preprocess(hyp);
        let ref_tokens: Vec<Vec<String>> = refs.iter().map(|r| self.preprocess(r)).collect();
        let mut budget: HashMap<&[String], u64> = HashMap::new();
        for r in &ref_tokens {
            for (g, c) in ngrams(r, order) {
                let e = budget.entry(g).or_insert(0);
                *e = (*e).max(c);
            }
        }
        let mut best = vec![0; hyp_tokens.len()];
        for n in 1..=order.min(hyp_tokens.len()) {
            for (i, w) in hyp_tokens.windows(n).enumerate() {
                if let Some(left) = budget.get_mut(w) {
                    if *left > 0 {
                        *left -= 1;
                        best[i..i + n].iter_mut().for_each(|b| *b = (*b).max(n));
                    }
                }
            }
        }
        (hyp_tokens, best)
    }

    /// Corpus BLEU: `refs` holds reference streams, each parallel to `hyps`.
    pub fn corpus_stats(&self, hyps: &[&str], refs: &[Vec<&str>]) -> Vec<BleuStats> {
        hyps.iter()
            .enumerate()
            .map(|(i, h)| {
                let seg_refs: Vec<&str> = refs.iter().map(|s| s[i]).collect();
                self.segment_stats(h, &seg_refs)
            })
            .collect()
    }

    pub fn corpus_score(&self, hyps: &[&str], refs: &[Vec<&str>]) -> BleuScore {
        let mut sum = BleuStats::zeros(self.options.max_ngram_order);
        for s in self.corpus_stats(hyps, refs) {
            sum.add(&s);
        }
        self.compute(&sum)
    }
}

//! chrF and chrF++ (Popović 2015, 2017) as sacreBLEU computes them.

use std::collections::HashMap;

use crate::numpy::Num;
use crate::pystr;

#[derive(Debug, Clone, PartialEq)]
pub struct ChrfOptions {
    pub char_order: usize,
    pub word_order: usize,
    pub beta: i64,
    pub lowercase: bool,
    pub whitespace: bool,
    pub eps_smoothing: bool,
}

impl Default for ChrfOptions {
    fn default() -> Self {
        Self { char_order: 6, word_order: 0, beta: 2, lowercase: false, whitespace: false, eps_smoothing: false }
    }
}

pub struct Chrf {
    pub options: ChrfOptions,
}

type Counts = HashMap<Vec<char>, u64>;

fn char_ngrams(line: &str, max_order: usize, whitespace: bool) -> Vec<Counts> {
    let chars: Vec<char> =
        if whitespace { line.chars().collect() } else { pystr::split(line).flat_map(|w| w.chars()).collect() };
    (1..=max_order)
        .map(|n| {
            let mut c = HashMap::new();
            for w in chars.windows(n) {
                *c.entry(w.to_vec()).or_insert(0) += 1;
            }
            c
        })
        .collect()
}

fn word_ngrams(words: &[String], n: usize) -> Counts {
    // Words are joined with a separator no word contains, so word n-grams and char n-grams never mix.
    let mut c = HashMap::new();
    for w in words.windows(n) {
        *c.entry(w.join("\u{0}").chars().collect()).or_insert(0) += 1;
    }
    c
}

const PUNCTS: &str = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

/// chrF++'s word splitting: one leading or trailing ASCII punctuation mark becomes its own word.
fn remove_punctuation(sent: &str) -> Vec<String> {
    let mut out = Vec::new();
    for w in pystr::split(sent) {
        let chars: Vec<char> = w.chars().collect();
        if chars.len() == 1 {
            out.push(w.to_string());
        } else if PUNCTS.contains(chars[chars.len() - 1]) {
            out.push(chars[..chars.len() - 1].iter().collect());
            out.push(chars[chars.len() - 1].to_string());
        } else if PUNCTS.contains(chars[0]) {
            out.push(chars[0].to_string());
            out.push(chars[1..].iter().collect());
        } else {
            out.push(w.to_string());
        }
    }
    out
}

fn match_stats(hyp: &Counts, reference: &Counts) -> [u64; 3] {
    let (mut matched, mut hyp_count) = (0, 0);
    for (g, &c) in hyp {
        hyp_count += c;
        if let Some(&r) = reference.get(g) {
            matched += c.min(r);
        }
    }
    [if reference.is_empty() { 0 } else { hyp_count }, reference.values().sum(), matched]
}

impl Chrf {
    pub fn new(options: ChrfOptions) -> Self {
        Self { options }
    }

    fn order(&self) -> usize {
        self.options.char_order + self.options.word_order
    }

    pub fn name(&self) -> String {
        format!("chrF{}{}", self.options.beta, "+".repeat(self.options.word_order))
    }

    fn ngrams(&self, sent: &str) -> Vec<Counts> {
        let s = if self.options.lowercase { pystr::lower(sent) } else { sent.to_string() };
        let mut all = char_ngrams(&s, self.options.char_order, self.options.whitespace);
        if self.options.word_order > 0 {
            let words = remove_punctuation(&s);
            all.extend((1..=self.options.word_order).map(|n| word_ngrams(&words, n)));
        }
        all
    }

    /// Per order: [hyp n-grams, ref n-grams, matches], for the reference with the best F-score.
    pub fn segment_stats(&self, hyp: &str, refs: &[&str]) -> Vec<u64> {
        let hyp_ngrams = self.ngrams(hyp);
        let mut best: Vec<u64> = Vec::new();
        let mut best_f = -1.0;
        for r in refs {
            let ref_ngrams = self.ngrams(r);
            let stats: Vec<u64> = hyp_ngrams.iter().zip(&ref_ngrams).flat_map(|(h, r)| match_stats(h, r)).collect();
            let f = self.f_score(&stats.iter().map(|&v| v as f64).collect::<Vec<_>>());
            if f > best_f {
                best_f = f;
                best = stats;
            }
        }
        best
    }

    pub fn f_score(&self, stats: &[f64]) -> f64 {
        self.f_score_num(&stats.iter().map(|&v| Num::Py(v)).collect::<Vec<_>>()).value()
    }

    /// sacreBLEU's `_compute_f_score`, with Python-float / float32 semantics (see [`Num`]).
    pub fn f_score_num(&self, stats: &[Num]) -> Num {
        let eps = Num::Py(1e-16);
        let b2 = self.options.beta as f64 * self.options.beta as f64;
        let (factor, one_plus) = (Num::Py(b2), Num::Py(1.0 + b2));
        let zero = Num::Py(0.0);
        let (mut score, mut avg_prec, mut avg_rec, mut effective) = (zero, zero, zero, 0);
        for i in 0..self.order() {
            let (n_hyp, n_ref, n_match) = (stats[3 * i], stats[3 * i + 1], stats[3 * i + 2]);
            let prec = if n_hyp.value() > 0.0 { n_match / n_hyp } else { eps };
            let rec = if n_ref.value() > 0.0 { n_match / n_ref } else { eps };
            let denom = factor * prec + rec;
            score = score + if denom.value() > 0.0 { one_plus * prec * rec / denom } else { eps };
            if n_hyp.value() > 0.0 && n_ref.value() > 0.0 {
                avg_prec = avg_prec + prec;
                avg_rec = avg_rec + rec;
                effective += 1;
            }
        }
        if self.options.eps_smoothing {
            return Num::Py(100.0) * score / Num::Py(self.order() as f64);
        }
        if effective == 0 {
            avg_prec = zero;
            avg_rec = zero;
        } else {
            avg_prec = avg_prec / Num::Py(effective as f64);
            avg_rec = avg_rec / Num::Py(effective as f64);
        }
        if (avg_prec + avg_rec).value() != 0.0 {
            let s = one_plus * avg_prec * avg_rec;
            Num::Py(100.0) * (s / (factor * avg_prec + avg_rec))
        } else {
            zero
        }
    }

    pub fn corpus_stats(&self, hyps: &[&str], refs: &[Vec<&str>]) -> Vec<Vec<u64>> {
        hyps.iter()
            .enumerate()
            .map(|(i, h)| self.segment_stats(h, &refs.iter().map(|s| s[i]).collect::<Vec<_>>()))
            .collect()
    }

    pub fn corpus_score(&self, hyps: &[&str], refs: &[Vec<&str>]) -> f64 {
        let mut sum = vec![0f64; 3 * self.order()];
        for s in self.corpus_stats(hyps, refs) {
            for (a, b) in sum.iter_mut().zip(s) {
                *a += b as f64;
            }
        }
        self.f_score(&sum)
    }
}

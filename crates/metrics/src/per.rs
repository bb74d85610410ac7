//! Position-independent word error rate (PER), as Moses' `PerScorer` and Debian's
//! apertium-eval-translator define it: per line, errors = max(hypothesis words, reference words) −
//! the words the two share as bags (each word counts as often as it is in both); the corpus figure
//! is all errors over all reference words, ×100. Words and the reference used are WER's (jiwer's
//! whitespace rules, the first reference stream), so PER ≤ WER on every line.

use std::collections::HashMap;

use crate::wer::jiwer_words;

/// One line's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PerStats {
    pub errors: usize,
    pub ref_len: usize,
    pub hyp_len: usize,
    pub matches: usize,
}

impl PerStats {
    pub fn add(&mut self, other: &PerStats) {
        self.errors += other.errors;
        self.ref_len += other.ref_len;
        self.hyp_len += other.hyp_len;
        self.matches += other.matches;
    }

    pub fn to_vec(self) -> Vec<f64> {
        vec![self.errors as f64, self.ref_len as f64]
    }
}

/// Words the two bags share, each as many times as it is in both.
pub fn bag_matches<T: std::hash::Hash + Eq>(hyp: &[T], reference: &[T]) -> usize {
    let mut counts: HashMap<&T, usize> = HashMap::new();
    for r in reference {
        *counts.entry(r).or_default() += 1;
    }
    hyp.iter()
        .filter(|h| match counts.get_mut(h) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        })
        .count()
}

pub fn sentence_stats(hyp: &str, reference: &str) -> PerStats {
    let (h, r) = (jiwer_words(hyp), jiwer_words(reference));
    let matches = bag_matches(&h, &r);
    PerStats { errors: h.len().max(r.len()) - matches, ref_len: r.len(), hyp_len: h.len(), matches }
}

/// Per line, against the first reference stream.
pub fn corpus_stats(hyps: &[&str], refs: &[Vec<&str>]) -> Vec<PerStats> {
    hyps.iter().enumerate().map(|(i, h)| sentence_stats(h, refs.first().map_or("", |r| r[i]))).collect()
}

/// ×100. With no reference words at all the rate is undefined: 100 where the hypotheses have
/// words, 0 where they have none (sacreBLEU's rule for TER).
pub fn score(errors: f64, ref_len: f64) -> f64 {
    if ref_len > 0.0 {
        100.0 * errors / ref_len
    } else if errors > 0.0 {
        100.0
    } else {
        0.0
    }
}

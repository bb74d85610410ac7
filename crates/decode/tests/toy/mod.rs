//! A toy step model whose outputs depend only on the source and the prefix, and a brute-force
//! search over it: the searches' tests run on it.
#![allow(dead_code)]

use wgslate_decode::*;

pub const EOS: u32 = 2;
pub const BOS: u32 = 1;
pub const WORDS: [u32; 3] = [3, 4, 5];

pub fn hash(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ceb9fe1a85ec53);
    x ^ (x >> 33)
}

pub fn key(source: &[u32], prefix: &[u32]) -> u64 {
    source.iter().chain([99].iter()).chain(prefix).fold(7u64, |h, &t| hash(h ^ t as u64))
}

/// Log-probs over 6 tokens (0 pad, 1 BOS never emitted) for a prefix.
pub fn log_probs(source: &[u32], prefix: &[u32]) -> Vec<f32> {
    let k = key(source, prefix);
    let mut logits: Vec<f32> = (0..6).map(|i| ((hash(k + i) % 1000) as f32 / 250.0) - 2.0).collect();
    logits[0] = f32::NEG_INFINITY;
    logits[1] = f32::NEG_INFINITY;
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let lse = max + logits.iter().map(|l| (l - max).exp()).sum::<f32>().ln();
    logits.iter().map(|l| l - lse).collect()
}

pub fn attention(source: &[u32], prefix: &[u32]) -> Vec<f32> {
    let k = key(source, prefix) ^ 0xabc;
    let w: Vec<f32> = (0..source.len() as u64).map(|i| ((hash(k + i) % 1000) as f32 / 300.0).exp()).collect();
    let s: f32 = w.iter().sum();
    w.iter().map(|x| x / s).collect()
}

pub struct Toy {
    pub sources: Vec<Vec<u32>>,
    /// per row: (source index, prefix)
    pub rows: Vec<(usize, Vec<u32>)>,
    pub max_len: usize,
    /// Every log-probability NaN: nothing a search can rank.
    pub broken: bool,
}

impl StepModel for Toy {
    fn vocab_size(&self) -> usize {
        6
    }
    fn bos(&self) -> u32 {
        BOS
    }
    fn eos(&self) -> u32 {
        EOS
    }
    fn max_output_len(&self) -> usize {
        self.max_len
    }
    fn start(&mut self, sources: &[Vec<u32>]) -> Result<(), String> {
        self.sources = sources.to_vec();
        self.rows = (0..sources.len()).map(|i| (i, vec![])).collect();
        Ok(())
    }
    fn step(&mut self, tokens: &[u32], want_attention: bool) -> Result<StepOutput, String> {
        assert_eq!(tokens.len(), self.rows.len());
        for (row, &t) in self.rows.iter_mut().zip(tokens) {
            if t != BOS {
                row.1.push(t);
            } else {
                assert!(row.1.is_empty(), "BOS only starts a row");
            }
        }
        let lp = self
            .rows
            .iter()
            .flat_map(|(s, p)| log_probs(&self.sources[*s], p))
            .map(|v| if self.broken { f32::NAN } else { v })
            .collect();
        let att = want_attention.then(|| self.rows.iter().map(|(s, p)| attention(&self.sources[*s], p)).collect());
        Ok(StepOutput { log_probs: lp, attention: att })
    }
    fn select_rows(&mut self, rows: &[usize]) -> Result<(), String> {
        self.rows = rows.iter().map(|&r| self.rows[r].clone()).collect();
        Ok(())
    }
}

pub fn toy(max_len: usize) -> Toy {
    Toy { sources: vec![], rows: vec![], max_len, broken: false }
}

/// Every output of 1 to `max_len` tokens with its score: EOS-terminated, or cut at max_len.
pub fn brute_force(source: &[u32], max_len: usize, scoring: &Scoring) -> (Vec<u32>, f32) {
    let mut best = (vec![], f32::NEG_INFINITY);
    let mut stack = vec![vec![]];
    while let Some(prefix) = stack.pop() {
        let (mut lp, mut att) = (0f32, vec![]);
        for j in 0..prefix.len() {
            lp += log_probs(source, &prefix[..j])[prefix[j] as usize];
            att.push(attention(source, &prefix[..j]));
        }
        if prefix.len() == max_len {
            let s = scoring.score(lp, prefix.len(), source.len(), &att);
            if s > best.1 {
                best = (prefix.clone(), s);
            }
            continue;
        }
        let lp_end = lp + log_probs(source, &prefix)[EOS as usize];
        let mut att_end = att.clone();
        att_end.push(attention(source, &prefix));
        let s = scoring.score(lp_end, prefix.len() + 1, source.len(), &att_end);
        // A source with words (more than its EOS) never ends on the empty output.
        if s > best.1 && (!prefix.is_empty() || source.len() <= 1) {
            best = (prefix.clone(), s);
        }
        for w in WORDS {
            let mut p = prefix.clone();
            p.push(w);
            stack.push(p);
        }
    }
    best
}

pub fn limits(max_len: usize) -> LengthLimits {
    LengthLimits { a: 0.0, b: max_len, min_len: 0 }
}

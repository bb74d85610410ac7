//! Translation Edit Rate with tercom's shift search, as sacreBLEU's `lib_ter` implements it
//! (beam-limited edit distance, greedy shifts, the same tie-breaking and candidate limits).

pub use crate::ter_tokenizer::TerOptions;
use crate::{pystr, ter_tokenizer};

const MAX_SHIFT_SIZE: usize = 10;
const MAX_SHIFT_DIST: usize = 50;
const BEAM_WIDTH: usize = 25;
const MAX_SHIFT_CANDIDATES: usize = 1000;
const INF: u64 = 10_000_000_000_000_000;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Nop,
    Sub,
    Ins,
    Del,
    Undef,
}

/// Beam edit distance of a hypothesis against a fixed reference; returns (distance, trace).
fn edit_distance(hyp: &[&str], reference: &[&str]) -> (u64, Vec<Op>) {
    let (nh, nr) = (hyp.len(), reference.len());
    let mut dist = vec![vec![(INF, Op::Undef); nr + 1]; nh + 1];
    for (j, cell) in dist[0].iter_mut().enumerate() {
        *cell = (j as u64, Op::Ins);
    }
    let ratio = if nh > 0 { nr as f64 / nh as f64 } else { 1.0 };
    let beam = if (BEAM_WIDTH as f64) < ratio / 2.0 { (ratio / 2.0 + BEAM_WIDTH as f64).ceil() as i64 } else { BEAM_WIDTH as i64 };
    for i in 1..=nh {
        let diag = (i as f64 * ratio).floor() as i64;
        let min_j = (diag - beam).max(0) as usize;
        let mut max_j = ((diag + beam) as usize).min(nr + 1);
        if i == nh {
            max_j = nr + 1;
        }
        for j in min_j..max_j {
            if j == 0 {
                dist[i][0] = (dist[i - 1][0].0 + 1, Op::Del);
                continue;
            }
            let (cost_sub, op_sub) = if hyp[i - 1] == reference[j - 1] { (0, Op::Nop) } else { (1, Op::Sub) };
            let candidates = [(dist[i - 1][j - 1].0 + cost_sub, op_sub), (dist[i - 1][j].0 + 1, Op::Del), (dist[i][j - 1].0 + 1, Op::Ins)];
            for (cost, op) in candidates {
                if dist[i][j].0 > cost {
                    dist[i][j] = (cost, op);
                }
            }
        }
    }
    let mut trace = Vec::new();
    let (mut i, mut j) = (nh, nr);
    while i > 0 || j > 0 {
        let op = dist[i][j].1;
        trace.push(op);
        match op {
            Op::Sub | Op::Nop => {
                i -= 1;
                j -= 1;
            }
            Op::Ins => j -= 1,
            Op::Del => i -= 1,
            Op::Undef => break,
        }
    }
    trace.reverse();
    (dist[nh][nr].0, trace)
}

/// From the (flipped) trace: reference position → hypothesis position, and error flags.
fn alignment(trace: &[Op]) -> (Vec<i64>, Vec<u8>, Vec<u8>) {
    let mut ph = -1i64;
    let (mut align, mut ref_err, mut hyp_err) = (Vec::new(), Vec::new(), Vec::new());
    for &op in trace {
        // The trace is flipped (insertions and deletions swapped) as in sacreBLEU.
        match op {
            Op::Nop | Op::Sub => {
                ph += 1;
                align.push(ph);
                let e = u8::from(op == Op::Sub);
                hyp_err.push(e);
                ref_err.push(e);
            }
            Op::Del => {
                // flipped: an insertion
                ph += 1;
                hyp_err.push(1);
            }
            Op::Ins => {
                // flipped: a deletion
                align.push(ph);
                ref_err.push(1);
            }
            Op::Undef => {}
        }
    }
    (align, ref_err, hyp_err)
}

fn perform_shift<'a>(words: &[&'a str], start: usize, length: usize, target: usize) -> Vec<&'a str> {
    let mut out = Vec::with_capacity(words.len());
    if target < start {
        out.extend_from_slice(&words[..target]);
        out.extend_from_slice(&words[start..start + length]);
        out.extend_from_slice(&words[target..start]);
        out.extend_from_slice(&words[start + length..]);
    } else if target > start + length {
        out.extend_from_slice(&words[..start]);
        out.extend_from_slice(&words[start + length..target]);
        out.extend_from_slice(&words[start..start + length]);
        out.extend_from_slice(&words[target..]);
    } else {
        out.extend_from_slice(&words[..start]);
        out.extend_from_slice(&words[start + length..length + target]);
        out.extend_from_slice(&words[start..start + length]);
        out.extend_from_slice(&words[length + target..]);
    }
    out
}

/// One greedy shift: the best (gain, length, -start, -target, words) candidate.
fn best_shift<'a>(hyp: &[&'a str], reference: &[&str], checked: &mut usize) -> (i64, Vec<&'a str>) {
    let (pre_score, trace) = edit_distance(hyp, reference);
    let (align, ref_err, hyp_err) = alignment(&trace);
    let mut best: Option<(i64, usize, i64, i64, Vec<&str>)> = None;
    let (nh, nr) = (hyp.len(), reference.len());
    'outer: for start_h in 0..nh {
        for start_r in 0..nr {
            if start_r.abs_diff(start_h) > MAX_SHIFT_DIST {
                continue;
            }
            let mut length = 0;
            while hyp[start_h + length] == reference[start_r + length] && length < MAX_SHIFT_SIZE {
                length += 1;
                // The candidate (start_h, start_r, length):
                let skip = hyp_err[start_h..start_h + length].iter().all(|&e| e == 0)
                    || ref_err[start_r..start_r + length].iter().all(|&e| e == 0)
                    || (start_h as i64 <= align[start_r] && align[start_r] < (start_h + length) as i64);
                if !skip {
                    let mut prev_idx = -1i64;
                    for offset in -1i64..length as i64 {
                        let pos = start_r as i64 + offset;
                        let idx = if pos == -1 {
                            0
                        } else if (pos as usize) < align.len() {
                            align[pos as usize] + 1
                        } else {
                            break;
                        };
                        if idx == prev_idx {
                            continue;
                        }
                        prev_idx = idx;
                        let shifted = perform_shift(hyp, start_h, length, idx as usize);
                        let gain = pre_score as i64 - edit_distance(&shifted, reference).0 as i64;
                        let cand = (gain, length, -(start_h as i64), -idx, shifted);
                        *checked += 1;
                        if best.as_ref().is_none_or(|b| cand > *b) {
                            best = Some(cand);
                        }
                    }
                    if *checked >= MAX_SHIFT_CANDIDATES {
                        break 'outer;
                    }
                }
                if nh == start_h + length || nr == start_r + length {
                    break;
                }
            }
        }
    }
    match best {
        None => (0, hyp.to_vec()),
        Some((gain, _, _, _, words)) => (gain, words),
    }
}

/// (number of edits, reference length) for tokenized word sequences.
pub fn edits(hyp: &[&str], reference: &[&str]) -> (u64, usize) {
    if reference.is_empty() {
        return (hyp.len() as u64, 0);
    }
    let mut words = hyp.to_vec();
    let mut shifts = 0;
    let mut checked = 0;
    loop {
        let (delta, shifted) = best_shift(&words, reference, &mut checked);
        if checked >= MAX_SHIFT_CANDIDATES || delta <= 0 {
            break;
        }
        shifts += 1;
        words = shifted;
    }
    (shifts + edit_distance(&words, reference).0, reference.len())
}

pub struct Ter {
    pub options: TerOptions,
}

impl Ter {
    pub fn new(options: TerOptions) -> Self {
        Self { options }
    }

    pub fn preprocess(&self, sent: &str) -> String {
        ter_tokenizer::tokenize(pystr::rstrip(sent), &self.options)
    }

    /// [best number of edits, average reference length].
    pub fn segment_stats(&self, hyp: &str, refs: &[&str]) -> [f64; 2] {
        let h = self.preprocess(hyp);
        let hw: Vec<&str> = pystr::split(&h).collect();
        let mut best = INF;
        let mut ref_total = 0usize;
        for r in refs {
            let r = self.preprocess(r);
            let rw: Vec<&str> = pystr::split(&r).collect();
            let (e, len) = edits(&hw, &rw);
            ref_total += len;
            best = best.min(e);
        }
        [best as f64, ref_total as f64 / refs.len().max(1) as f64]
    }

    pub fn corpus_stats(&self, hyps: &[&str], refs: &[Vec<&str>]) -> Vec<[f64; 2]> {
        hyps.iter().enumerate().map(|(i, h)| self.segment_stats(h, &refs.iter().map(|s| s[i]).collect::<Vec<_>>())).collect()
    }

    /// (score, total edits, total reference length) from summed statistics.
    pub fn compute(&self, edits: f64, ref_len: f64) -> f64 {
        100.0 * if ref_len > 0.0 { edits / ref_len } else if edits > 0.0 { 1.0 } else { 0.0 }
    }

    pub fn corpus_score(&self, hyps: &[&str], refs: &[Vec<&str>]) -> (f64, f64, f64) {
        let (mut e, mut r) = (0.0, 0.0);
        for s in self.corpus_stats(hyps, refs) {
            e += s[0];
            r += s[1];
        }
        (self.compute(e, r), e, r)
    }
}

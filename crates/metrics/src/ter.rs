//! Translation Edit Rate with tercom's shift search, as sacreBLEU's `lib_ter` implements it
//! (beam-limited edit distance, greedy shifts, the same tie-breaking and candidate limits).

use crate::ter_edit::{scratch_rows, EditMatrix, Op, INF};
pub use crate::ter_tokenizer::TerOptions;
use crate::{pystr, ter_tokenizer};

const MAX_SHIFT_SIZE: usize = 10;
const MAX_SHIFT_DIST: usize = 50;
const MAX_SHIFT_CANDIDATES: usize = 1000;

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
        // Shift within the shifted phrase. Python clamps `words[a:b]` to the list, so `length + target`
        // may run past the end here (sacreBLEU's `_perform_shift`, third branch).
        let end = (length + target).min(words.len());
        out.extend_from_slice(&words[..start]);
        out.extend_from_slice(&words[(start + length).min(end)..end]);
        out.extend_from_slice(&words[start..start + length]);
        out.extend_from_slice(&words[end..]);
    }
    out
}

/// One greedy shift: the best (gain, length, -start, -target, words) candidate.
fn best_shift<'a>(hyp: &[&'a str], reference: &'a [&'a str], checked: &mut usize) -> (i64, Vec<&'a str>) {
    let matrix = EditMatrix::new(hyp, reference);
    let pre_score = matrix.distance();
    let (align, ref_err, hyp_err) = alignment(&matrix.trace());
    let mut scratch = scratch_rows();
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
                        let gain = pre_score as i64 - matrix.distance_of(&shifted, &mut scratch) as i64;
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
pub fn edits<'a>(hyp: &[&'a str], reference: &'a [&'a str]) -> (u64, usize) {
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
    (shifts + EditMatrix::new(&words, reference).distance(), reference.len())
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
            // sacreBLEU's TER tokenizes each reference twice (when caching references and again
            // when extracting their words); only visible where tokenizing is not idempotent.
            let r = self.preprocess(&self.preprocess(r));
            let rw: Vec<&str> = pystr::split(&r).collect();
            let (e, len) = edits(&hw, &rw);
            ref_total += len;
            best = best.min(e);
        }
        [best as f64, ref_total as f64 / refs.len().max(1) as f64]
    }

    pub fn corpus_stats(&self, hyps: &[&str], refs: &[Vec<&str>]) -> Vec<[f64; 2]> {
        hyps.iter()
            .enumerate()
            .map(|(i, h)| self.segment_stats(h, &refs.iter().map(|s| s[i]).collect::<Vec<_>>()))
            .collect()
    }

    /// (score, total edits, total reference length) from summed statistics.
    pub fn compute(&self, edits: f64, ref_len: f64) -> f64 {
        100.0
            * if ref_len > 0.0 {
                edits / ref_len
            } else if edits > 0.0 {
                1.0
            } else {
                0.0
            }
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

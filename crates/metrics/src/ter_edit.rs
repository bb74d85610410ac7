//! TER's beam-limited edit distance against a fixed reference (sacreBLEU's `BeamEditDistance`).
//!
//! Only a band of each row around the length-scaled diagonal is computed; cells outside it are
//! "infinite", exactly as in sacreBLEU, so results (and their quirks) are the same. Storing just the
//! band, and restarting a shifted hypothesis from the first row where it differs from the one whose
//! matrix is kept, is what makes long lines fast: sacreBLEU reaches a similar reuse with a prefix cache.

const BEAM_WIDTH: i64 = 25;
pub(crate) const INF: u64 = 10_000_000_000_000_000;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Op {
    Nop,
    Sub,
    Ins,
    Del,
    Undef,
}

/// Which columns of each row are computed, for hypotheses of one length.
#[derive(Clone, Copy)]
struct Band {
    ratio: f64,
    beam: i64,
    n_hyp: usize,
    n_ref: usize,
}

impl Band {
    fn new(n_hyp: usize, n_ref: usize) -> Self {
        let ratio = if n_hyp > 0 { n_ref as f64 / n_hyp as f64 } else { 1.0 };
        let beam = if (BEAM_WIDTH as f64) < ratio / 2.0 {
            (ratio / 2.0 + BEAM_WIDTH as f64).ceil() as i64
        } else {
            BEAM_WIDTH
        };
        Self { ratio, beam, n_hyp, n_ref }
    }

    /// Columns `lo..hi` of row `i` (row 0, the reference's insertions, is whole).
    fn columns(&self, i: usize) -> (usize, usize) {
        if i == 0 {
            return (0, self.n_ref + 1);
        }
        let diag = (i as f64 * self.ratio).floor() as i64;
        let lo = (diag - self.beam).max(0) as usize;
        let hi =
            if i == self.n_hyp { self.n_ref + 1 } else { (diag + self.beam).clamp(0, self.n_ref as i64 + 1) as usize };
        (lo, hi.max(lo))
    }
}

/// One row's band: cost and operation of columns `lo..lo + cells.len()`.
#[derive(Clone, Default)]
pub(crate) struct Row {
    lo: usize,
    cost: Vec<u64>,
    op: Vec<Op>,
}

impl Row {
    fn cost(&self, j: usize) -> u64 {
        j.checked_sub(self.lo).and_then(|k| self.cost.get(k)).copied().unwrap_or(INF)
    }

    fn op(&self, j: usize) -> Op {
        j.checked_sub(self.lo).and_then(|k| self.op.get(k)).copied().unwrap_or(Op::Undef)
    }
}

/// Fills `row` (row `i` of the matrix of `hyp`) from the previous row, keeping sacreBLEU's order of
/// preference: match/substitution, then deletion, then insertion, each replacing only a strictly
/// larger cost.
fn fill_row(band: &Band, hyp: &[&str], reference: &[&str], i: usize, prev: &Row, row: &mut Row, with_ops: bool) {
    let (lo, hi) = band.columns(i);
    row.lo = lo;
    row.cost.clear();
    row.cost.resize(hi - lo, INF);
    row.op.clear();
    if with_ops {
        row.op.resize(hi - lo, Op::Undef);
    }
    for j in lo..hi {
        let k = j - lo;
        if j == 0 {
            row.cost[k] = prev.cost(0) + 1;
            if with_ops {
                row.op[k] = Op::Del;
            }
            continue;
        }
        let (sub_cost, sub_op) = if hyp[i - 1] == reference[j - 1] { (0, Op::Nop) } else { (1, Op::Sub) };
        let left = if k > 0 { row.cost[k - 1] } else { INF };
        let options = [(prev.cost(j - 1) + sub_cost, sub_op), (prev.cost(j) + 1, Op::Del), (left + 1, Op::Ins)];
        for (cost, op) in options {
            if row.cost[k] > cost {
                row.cost[k] = cost;
                if with_ops {
                    row.op[k] = op;
                }
            }
        }
    }
}

/// The full banded matrix of one hypothesis, kept so that shifted variants of it can restart from
/// the rows they share.
pub(crate) struct EditMatrix<'a> {
    reference: &'a [&'a str],
    hyp: Vec<&'a str>,
    band: Band,
    rows: Vec<Row>,
}

impl<'a> EditMatrix<'a> {
    pub(crate) fn new(hyp: &[&'a str], reference: &'a [&'a str]) -> Self {
        let band = Band::new(hyp.len(), reference.len());
        let mut rows = Vec::with_capacity(hyp.len() + 1);
        rows.push(Row { lo: 0, cost: (0..=reference.len() as u64).collect(), op: vec![Op::Ins; reference.len() + 1] });
        for i in 1..=hyp.len() {
            let mut row = Row::default();
            fill_row(&band, hyp, reference, i, &rows[i - 1], &mut row, true);
            rows.push(row);
        }
        Self { reference, hyp: hyp.to_vec(), band, rows }
    }

    pub(crate) fn distance(&self) -> u64 {
        self.rows[self.hyp.len()].cost(self.reference.len())
    }

    /// The edit operations from the start (sacreBLEU's trace, before it is flipped).
    pub(crate) fn trace(&self) -> Vec<Op> {
        let mut trace = Vec::new();
        let (mut i, mut j) = (self.hyp.len(), self.reference.len());
        while i > 0 || j > 0 {
            let op = self.rows[i].op(j);
            trace.push(op);
            match op {
                Op::Sub | Op::Nop => (i, j) = (i - 1, j - 1),
                Op::Ins if j > 0 => j -= 1,
                Op::Del if i > 0 => i -= 1,
                // sacreBLEU raises "unknown operation" here; it needs a matrix the beam left
                // unreachable, which the band's widening for unequal lengths prevents.
                _ => break,
            }
        }
        trace.reverse();
        trace
    }

    /// Distance of `other` (same length as this hypothesis), computed from the first row where the
    /// two differ; `scratch` holds two rows between calls.
    pub(crate) fn distance_of(&self, other: &[&str], scratch: &mut [Row; 2]) -> u64 {
        debug_assert_eq!(other.len(), self.hyp.len());
        let same = self.hyp.iter().zip(other).take_while(|(a, b)| a == b).count();
        if same == other.len() {
            return self.distance();
        }
        let [a, b] = scratch;
        let (mut prev, mut row) = (a, b);
        fill_row(&self.band, other, self.reference, same + 1, &self.rows[same], prev, false);
        for i in same + 2..=other.len() {
            fill_row(&self.band, other, self.reference, i, prev, row, false);
            std::mem::swap(&mut prev, &mut row);
        }
        prev.cost(self.reference.len())
    }
}

/// Scratch rows for [`EditMatrix::distance_of`].
pub(crate) fn scratch_rows() -> [Row; 2] {
    [Row::default(), Row::default()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<&str> {
        s.split(' ').filter(|w| !w.is_empty()).collect()
    }

    /// Full (unbanded) Levenshtein distance, for sequences short enough that the band covers all.
    fn levenshtein(a: &[&str], b: &[&str]) -> u64 {
        let mut prev: Vec<u64> = (0..=b.len() as u64).collect();
        for (i, x) in a.iter().enumerate() {
            let mut row = vec![i as u64 + 1];
            for (j, y) in b.iter().enumerate() {
                row.push((prev[j] + u64::from(x != y)).min(prev[j + 1] + 1).min(row[j] + 1));
            }
            prev = row;
        }
        prev[b.len()]
    }

    #[test]
    fn short_sequences_get_the_exact_distance() {
        let cases = [("", "a b"), ("a b", ""), ("a b c", "a c"), ("x y z", "a b c"), ("a a b", "a b a")];
        for (h, r) in cases {
            let (h, r) = (words(h), words(r));
            assert_eq!(EditMatrix::new(&h, &r).distance(), levenshtein(&h, &r), "{h:?} {r:?}");
        }
    }

    #[test]
    fn restarting_from_a_shared_prefix_equals_computing_from_scratch() {
        let mut state = 7u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let pool = ["a", "b", "c", "d"];
        for _ in 0..300 {
            let len_r = next(120) as usize;
            let len_h = 1 + next(120) as usize;
            let r: Vec<&str> = (0..len_r).map(|_| pool[next(4) as usize]).collect();
            let h: Vec<&str> = (0..len_h).map(|_| pool[next(4) as usize]).collect();
            let mut other = h.clone();
            let at = next(len_h as u64) as usize;
            other[at..].reverse();
            let base = EditMatrix::new(&h, &r);
            let mut scratch = scratch_rows();
            assert_eq!(base.distance_of(&other, &mut scratch), EditMatrix::new(&other, &r).distance());
        }
    }
}

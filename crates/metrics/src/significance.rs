//! Bootstrap confidence intervals and the paired bootstrap test, as sacreBLEU 2.6.0 runs them:
//! numpy's RNG, statistics summed in float32, scores computed with Python/numpy promotion rules.

use crate::bleu::{BleuOptions, Smoothing};
use crate::chrf::Chrf;
use crate::numpy::{self, Num};

/// A metric's score from summed (float32) sufficient statistics.
pub enum Scorer<'a> {
    Bleu(&'a BleuOptions),
    Chrf(&'a Chrf),
    Ter,
    /// [edits, reference words, hypothesis words]
    Wer,
    /// [errors, reference words]
    Per,
    /// [sentence score, 1]: the mean of the resampled lines' scores
    Meteor,
}

fn my_log(x: f64) -> f64 {
    if x == 0.0 {
        -9_999_999_999.0
    } else {
        x.ln()
    }
}

impl Scorer<'_> {
    /// The score of summed statistics; an error where sacreBLEU raises (a negative BLEU precision).
    pub fn score(&self, stats: &[Num]) -> Result<Num, String> {
        Ok(match self {
            Scorer::Bleu(o) => bleu_score(o, stats)?,
            Scorer::Chrf(c) => c.f_score_num(stats),
            Scorer::Ter => {
                let (edits, ref_len) = (stats[0], stats[1]);
                let rate = if ref_len.value() > 0.0 {
                    edits / ref_len
                } else if edits.value() > 0.0 {
                    Num::Py(1.0)
                } else {
                    Num::Py(0.0)
                };
                Num::Py(100.0) * rate
            }
            Scorer::Wer => Num::Py(crate::wer::score(stats[0].value(), stats[1].value(), stats[2].value())),
            Scorer::Per => Num::Py(crate::per::score(stats[0].value(), stats[1].value())),
            Scorer::Meteor => {
                Num::Py(if stats[1].value() > 0.0 { 100.0 * stats[0].value() / stats[1].value() } else { 0.0 })
            }
        })
    }
}

/// sacreBLEU's `compute_bleu` (corpus level, no effective order) on [sys, ref, correct…, total…].
fn bleu_score(o: &BleuOptions, stats: &[Num]) -> Result<Num, String> {
    let order = o.max_ngram_order;
    // sacreBLEU passes int(stats[0]) and int(stats[1]): the lengths are Python ints.
    let (sys_len, ref_len) = (Num::Py(stats[0].value().trunc()), Num::Py(stats[1].value().trunc()));
    let mut correct = stats[2..2 + order].to_vec();
    let mut total = stats[2 + order..2 + 2 * order].to_vec();
    let bp = if sys_len.value() < ref_len.value() {
        if sys_len.value() > 0.0 {
            (Num::Py(1.0) - ref_len / sys_len).value().exp()
        } else {
            0.0
        }
    } else {
        1.0
    };
    if correct.iter().all(|c| c.value() == 0.0) {
        return Ok(Num::Py(0.0));
    }
    let mut precisions = vec![Num::Py(0.0); order];
    let mut smooth = Num::Py(1.0);
    for n in 0..order {
        if let Smoothing::AddK(k) = o.smoothing {
            if n > 0 {
                correct[n] = correct[n] + Num::Py(k);
                total[n] = total[n] + Num::Py(k);
            }
        }
        if total[n].value() == 0.0 {
            break;
        }
        if correct[n].value() == 0.0 {
            match o.smoothing {
                Smoothing::Exp => {
                    smooth = smooth * Num::Py(2.0);
                    precisions[n] = Num::Py(100.0) / (smooth * total[n]);
                }
                Smoothing::Floor(v) => precisions[n] = Num::Py(100.0 * v) / total[n],
                _ => {}
            }
        } else {
            precisions[n] = Num::Py(100.0) * correct[n] / total[n];
        }
    }
    o.smoothing.negative_precision(precisions.iter().map(|p| p.value()))?;
    Ok(Num::Py(bp * (precisions.iter().map(|p| my_log(p.value())).sum::<f64>() / order as f64).exp()))
}

/// Scores of `n_samples` resamples (with replacement) of the segments, drawn as sacreBLEU does.
pub fn resample(stats: &[Vec<f64>], scorer: &Scorer, n_samples: usize, seed: &[u32]) -> Result<Vec<Num>, String> {
    let n = stats.len();
    let idx = numpy::choice(seed, n, n_samples * n);
    let width = stats.first().map_or(0, |s| s.len());
    let rows: Vec<Vec<f32>> = stats.iter().map(|r| r.iter().map(|&v| v as f32).collect()).collect();
    idx.chunks(n.max(1))
        .map(|sample| {
            let mut acc = vec![0f32; width];
            for &i in sample {
                for (a, v) in acc.iter_mut().zip(&rows[i]) {
                    *a += v;
                }
            }
            scorer.score(&acc.iter().map(|&v| Num::F32(v)).collect::<Vec<_>>())
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Mean of the resampled scores.
    pub mean: f64,
    /// Half-width of the 95 % interval.
    pub ci: f64,
}

fn sorted(scores: &[Num]) -> Vec<Num> {
    let mut s = scores.to_vec();
    s.sort_by(|a, b| a.value().total_cmp(&b.value()));
    s
}

fn half_width(s: &[Num]) -> Num {
    let lower = s.len() / 40;
    let upper = s.len() - lower - 1;
    Num::Py(0.5) * (s[upper] - s[lower])
}

/// Exact mean (Neumaier-compensated sum), then the value's own type, as `statistics.mean` does.
fn statistics_mean(s: &[Num]) -> f64 {
    if s.iter().any(|v| !v.value().is_finite()) {
        // `statistics` adds infinities and NaN as plain floats (an exact sum would make inf − inf).
        let mean = s.iter().map(|v| v.value()).sum::<f64>() / s.len() as f64;
        return if s.first().is_some_and(|v| v.is_f32()) { mean as f32 as f64 } else { mean };
    }
    let (mut sum, mut comp) = (0f64, 0f64);
    for v in s {
        let x = v.value();
        let t = sum + x;
        comp += if sum.abs() >= x.abs() { (sum - t) + x } else { (x - t) + sum };
        sum = t;
    }
    let mean = (sum + comp) / s.len() as f64;
    if s.first().is_some_and(|v| v.is_f32()) {
        mean as f32 as f64
    } else {
        mean
    }
}

/// `np.array(scores)`: float32 only when every score is a float32 scalar; one Python float among
/// them (TER's or BLEU's zero branches return one) makes the whole array float64.
enum Array {
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl Array {
    fn new(scores: &[Num]) -> Self {
        if scores.iter().all(|v| v.is_f32()) {
            Array::F32(scores.iter().map(|v| v.value() as f32).collect())
        } else {
            Array::F64(scores.iter().map(|v| v.value()).collect())
        }
    }

    /// `estimate_ci`: sorted, mean, half the distance between the 2.5 % and 97.5 % scores.
    fn interval(&self) -> Interval {
        /// The sorted scores' 97.5 % and 2.5 % points, as `estimate_ci` indexes them.
        fn bounds<T: Copy>(s: &[T]) -> (T, T) {
            let k = s.len() / 40;
            (s[s.len() - k - 1], s[k])
        }
        match self {
            Array::F32(v) => {
                let mut s = v.clone();
                s.sort_by(f32::total_cmp);
                let (upper, lower) = bounds(&s);
                Interval { mean: (numpy::pairwise_sum(&s) / s.len() as f32) as f64, ci: (0.5 * (upper - lower)) as f64 }
            }
            Array::F64(v) => {
                let mut s = v.clone();
                s.sort_by(f64::total_cmp);
                let (upper, lower) = bounds(&s);
                Interval { mean: numpy::pairwise_sum(&s) / s.len() as f64, ci: 0.5 * (upper - lower) }
            }
        }
    }
}

/// `stats = |sys - bl| - mean(|sys - bl|)`, then how many exceed `real` (a Python float, which
/// NEP 50 casts to float32 against a float32 array).
fn count_above(sys: &Array, bl: &Array, real: f64) -> usize {
    fn count<T: Copy + PartialOrd + std::ops::Sub<Output = T>>(d: Vec<T>, mean: T, real: T) -> usize {
        d.into_iter().filter(|&x| x - mean > real).count()
    }
    match (sys, bl) {
        (Array::F32(s), Array::F32(b)) => {
            let d: Vec<f32> = s.iter().zip(b).map(|(x, y)| (x - y).abs()).collect();
            let mean = numpy::pairwise_sum(&d) / d.len() as f32;
            count(d, mean, real as f32)
        }
        _ => {
            let wide = |a: &Array| match a {
                Array::F32(v) => v.iter().map(|&x| x as f64).collect::<Vec<f64>>(),
                Array::F64(v) => v.clone(),
            };
            let d: Vec<f64> = wide(sys).iter().zip(wide(bl)).map(|(x, y)| (x - y).abs()).collect();
            let mean = numpy::pairwise_sum(&d) / d.len() as f64;
            count(d, mean, real)
        }
    }
}

/// `--confidence`: sacreBLEU's `Score.estimate_ci` over the bootstrap scores.
pub fn confidence(stats: &[Vec<f64>], scorer: &Scorer, n_samples: usize, seed: &[u32]) -> Result<Interval, String> {
    let s = sorted(&resample(stats, scorer, n_samples, seed)?);
    Ok(Interval { mean: statistics_mean(&s), ci: half_width(&s).value() })
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedResult {
    pub baseline: Interval,
    pub system: Interval,
    pub p_value: f64,
}

/// `--paired-bs`: both systems resampled with the same indices; p-value of the absolute difference.
pub fn paired_bootstrap(
    baseline: &[Vec<f64>],
    system: &[Vec<f64>],
    baseline_score: f64,
    system_score: f64,
    scorer: &Scorer,
    n_samples: usize,
    seed: &[u32],
) -> Result<PairedResult, String> {
    let bl = Array::new(&resample(baseline, scorer, n_samples, seed)?);
    let sys = Array::new(&resample(system, scorer, n_samples, seed)?);
    let count = count_above(&sys, &bl, (baseline_score - system_score).abs());
    Ok(PairedResult {
        baseline: bl.interval(),
        system: sys.interval(),
        p_value: (count + 1) as f64 / (n_samples + 1) as f64,
    })
}

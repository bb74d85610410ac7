//! The fused ops' hand-written backward passes (`crates/model/src/ops.rs`) against two references
//! we did not derive by hand: central finite differences of plain f64 formulas, and candle's
//! composite ops differentiated by candle's autograd. Each op is checked through a random weighted
//! sum of its outputs, on random shapes with the edge cases: one column, large logits, label
//! smoothing 0 and 0.1, the padding id and the last id as targets, identical rows for the symmetric KL.

use candle_core::{DType, Device, Tensor, Var, D};
use wgslate_model::ops::{
    layer_norm, log_softmax_last_dim, smoothed_cross_entropy, softmax_last_dim, symmetric_kl, LAYER_NORM_EPS,
};

const SHAPES: [(usize, usize); 6] = [(1, 1), (3, 1), (1, 2), (2, 7), (4, 33), (3, 257)];

struct Rng(u64);

impl Rng {
    fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
    fn values(&mut self, n: usize, scale: f64) -> Vec<f64> {
        (0..n).map(|_| scale * self.uniform()).collect()
    }
}

fn softmax_f64(row: &[f64]) -> Vec<f64> {
    let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = row.iter().map(|v| (v - max).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|v| v / s).collect()
}

fn log_softmax_f64(row: &[f64]) -> Vec<f64> {
    softmax_f64(row).iter().map(|p| p.ln()).collect()
}

fn normalize_f64(row: &[f64]) -> Vec<f64> {
    let n = row.len() as f64;
    let mean = row.iter().sum::<f64>() / n;
    let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    row.iter().map(|v| (v - mean) / (var + LAYER_NORM_EPS as f64).sqrt()).collect()
}

/// −Σ q·log p with q = (1 − eps)·onehot(target) + eps/V.
fn smoothed_ce_f64(row: &[f64], target: usize, eps: f64) -> f64 {
    let lp = log_softmax_f64(row);
    let v = row.len() as f64;
    -(1.0 - eps) * lp[target] - eps * lp.iter().sum::<f64>() / v
}

/// d/dx of Σ weights · f(x), by central differences in f64.
fn finite_differences(f: &dyn Fn(&[f64]) -> Vec<f64>, x: &[f64], weights: &[f64]) -> Vec<f64> {
    let loss = |x: &[f64]| f(x).iter().zip(weights).map(|(a, b)| a * b).sum::<f64>();
    (0..x.len())
        .map(|i| {
            let h = 1e-5 * x[i].abs().max(1.0);
            let (mut up, mut down) = (x.to_vec(), x.to_vec());
            up[i] += h;
            down[i] -= h;
            (loss(&up) - loss(&down)) / (2.0 * h)
        })
        .collect()
}

/// d/dx of Σ weights · op(x), by candle's backward pass.
fn candle_gradient(
    op: &dyn Fn(&Tensor) -> candle_core::Result<Tensor>,
    x: &[f64],
    shape: (usize, usize),
    weights: &[f64],
) -> Vec<f64> {
    let to32 = |v: &[f64]| v.iter().map(|&a| a as f32).collect::<Vec<f32>>();
    let var = Var::from_tensor(&Tensor::from_vec(to32(x), shape, &Device::Cpu).unwrap()).unwrap();
    let y = op(var.as_tensor()).unwrap();
    let w = Tensor::from_vec(to32(weights), y.shape(), &Device::Cpu).unwrap();
    let grads = (y * w).unwrap().sum_all().unwrap().backward().unwrap();
    let g = grads.get(var.as_tensor()).expect("a gradient for the input");
    g.flatten_all().unwrap().to_vec1::<f32>().unwrap().into_iter().map(f64::from).collect()
}

fn assert_close(what: &str, got: &[f64], want: &[f64], tolerance: f64) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tolerance * w.abs().max(1.0), "{what}: element {i}: {g} against {w}");
    }
}

/// The op's gradient (`analytic`, from its backward pass) against finite differences of the f64
/// formula and against candle's autograd of the composite.
fn assert_gradient(
    what: &str,
    analytic: &[f64],
    formula: &dyn Fn(&[f64]) -> Vec<f64>,
    composite: &dyn Fn(&Tensor) -> candle_core::Result<Tensor>,
    x: &[f64],
    shape: (usize, usize),
    weights: &[f64],
) {
    assert_close(
        &format!("{what}: gradient against finite differences"),
        analytic,
        &finite_differences(formula, x, weights),
        2e-3,
    );
    assert_close(
        &format!("{what}: gradient against candle's composite"),
        analytic,
        &candle_gradient(composite, x, shape, weights),
        1e-4,
    );
}

fn per_row(f: fn(&[f64]) -> Vec<f64>, cols: usize) -> impl Fn(&[f64]) -> Vec<f64> {
    move |x: &[f64]| x.chunks(cols).flat_map(f).collect()
}

/// The fused op against the f64 formula (values and finite differences) and a candle composite.
fn check_op(
    name: &str,
    fused: &dyn Fn(&Tensor) -> candle_core::Result<Tensor>,
    composite: &dyn Fn(&Tensor) -> candle_core::Result<Tensor>,
    formula: fn(&[f64]) -> Vec<f64>,
    scales: &[f64],
) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for (rows, cols) in SHAPES {
        for &scale in scales {
            let what = format!("{name} {rows}×{cols} scale {scale}");
            let x = rng.values(rows * cols, scale);
            let weights = rng.values(rows * cols, 1.0);
            let f = per_row(formula, cols);
            let values = fused(
                &Tensor::from_vec(x.iter().map(|&v| v as f32).collect::<Vec<f32>>(), (rows, cols), &Device::Cpu)
                    .unwrap(),
            )
            .unwrap();
            let values: Vec<f64> =
                values.flatten_all().unwrap().to_vec1::<f32>().unwrap().into_iter().map(f64::from).collect();
            assert_close(&format!("{what}: values"), &values, &f(&x), 1e-5);
            let analytic = candle_gradient(fused, &x, (rows, cols), &weights);
            assert_gradient(&what, &analytic, &f, &composite, &x, (rows, cols), &weights);
        }
    }
}

#[test]
fn softmax_gradient() {
    check_op("softmax", &softmax_last_dim, &|x| candle_nn::ops::softmax(x, D::Minus1), softmax_f64, &[1.0, 30.0]);
}

#[test]
fn log_softmax_gradient() {
    check_op(
        "log-softmax",
        &log_softmax_last_dim,
        &|x| candle_nn::ops::log_softmax(x, D::Minus1),
        log_softmax_f64,
        &[1.0, 30.0],
    );
}

#[test]
fn layer_norm_gradient() {
    let plain = |x: &Tensor| {
        let ones = Tensor::ones(x.dim(1)?, DType::F32, x.device())?;
        layer_norm(x, &ones, &ones.zeros_like()?)
    };
    let composite = |x: &Tensor| {
        let centred = x.broadcast_sub(&x.mean_keepdim(D::Minus1)?)?;
        let var = centred.sqr()?.mean_keepdim(D::Minus1)?;
        centred.broadcast_div(&(var + LAYER_NORM_EPS as f64)?.sqrt()?)
    };
    check_op("layer norm", &plain, &composite, normalize_f64, &[1.0, 20.0]);
}

#[test]
fn smoothed_cross_entropy_gradient() {
    let mut rng = Rng(7);
    for (rows, cols) in SHAPES {
        for eps in [0.0f32, 0.1] {
            for scale in [1.0, 30.0] {
                // Targets: the padding id 0, the last id, and random ones.
                let targets: Vec<u32> = (0..rows)
                    .map(|r| match r % 3 {
                        0 => 0,
                        1 => cols as u32 - 1,
                        _ => (rng.uniform().abs() * cols as f64) as u32 % cols as u32,
                    })
                    .collect();
                let t = Tensor::new(targets.as_slice(), &Device::Cpu).unwrap();
                let x = rng.values(rows * cols, scale);
                let weights = rng.values(rows, 1.0);
                let what = format!("smoothed CE {rows}×{cols} eps {eps} scale {scale}");
                let formula = |x: &[f64]| {
                    x.chunks(cols)
                        .zip(&targets)
                        .map(|(row, &t)| smoothed_ce_f64(row, t as usize, eps as f64))
                        .collect::<Vec<f64>>()
                };
                let fused = |x: &Tensor| smoothed_cross_entropy(x, &t, eps);
                let composite = |x: &Tensor| {
                    let lp = candle_nn::ops::log_softmax(x, D::Minus1)?;
                    let picked = lp.gather(&t.unsqueeze(1)?, 1)?.squeeze(1)?;
                    (picked * -(1.0 - eps as f64))? - (lp.mean(D::Minus1)? * eps as f64)?
                };
                let analytic = candle_gradient(&fused, &x, (rows, cols), &weights);
                let values = fused(
                    &Tensor::from_vec(x.iter().map(|&v| v as f32).collect::<Vec<f32>>(), (rows, cols), &Device::Cpu)
                        .unwrap(),
                )
                .unwrap();
                let values: Vec<f64> = values.to_vec1::<f32>().unwrap().into_iter().map(f64::from).collect();
                assert_close(&format!("{what}: values"), &values, &formula(&x), 1e-5);
                assert_gradient(&what, &analytic, &formula, &composite, &x, (rows, cols), &weights);
            }
        }
    }
}

/// KL(p‖q) + KL(q‖p) straight from the definition.
fn symmetric_kl_f64(a: &[f64], b: &[f64]) -> f64 {
    let (la, lb) = (log_softmax_f64(a), log_softmax_f64(b));
    la.iter().zip(&lb).map(|(x, y)| (x.exp() - y.exp()) * (x - y)).sum()
}

#[test]
fn symmetric_kl_gradient() {
    let mut rng = Rng(11);
    for (rows, cols) in SHAPES {
        for scale in [1.0, 30.0] {
            // The op's two inputs stacked as one (2·rows × cols) matrix, so one gradient covers both.
            let mut x = rng.values(2 * rows * cols, scale);
            // One pair of identical rows: zero divergence, zero gradient.
            x.copy_within(0..cols, rows * cols);
            let weights = rng.values(rows, 1.0);
            let what = format!("symmetric KL {rows}×{cols} scale {scale}");
            let formula = |x: &[f64]| {
                let (a, b) = x.split_at(rows * cols);
                a.chunks(cols).zip(b.chunks(cols)).map(|(ra, rb)| symmetric_kl_f64(ra, rb)).collect::<Vec<f64>>()
            };
            let halves = |x: &Tensor| -> candle_core::Result<(Tensor, Tensor)> {
                Ok((x.narrow(0, 0, rows)?, x.narrow(0, rows, rows)?))
            };
            let fused = |x: &Tensor| {
                let (a, b) = halves(x)?;
                symmetric_kl(&a, &b)
            };
            let composite = |x: &Tensor| {
                let (a, b) = halves(x)?;
                let (la, lb) =
                    (candle_nn::ops::log_softmax(&a, D::Minus1)?, candle_nn::ops::log_softmax(&b, D::Minus1)?);
                ((la.exp()? - lb.exp()?)? * (la - lb)?)?.sum(D::Minus1)
            };
            let input =
                Tensor::from_vec(x.iter().map(|&v| v as f32).collect::<Vec<f32>>(), (2 * rows, cols), &Device::Cpu)
                    .unwrap();
            let values: Vec<f64> =
                fused(&input).unwrap().to_vec1::<f32>().unwrap().into_iter().map(f64::from).collect();
            assert_close(&format!("{what}: values"), &values, &formula(&x), 1e-5);
            assert_eq!(values[0], 0.0, "{what}: identical rows");
            let analytic = candle_gradient(&fused, &x, (2 * rows, cols), &weights);
            assert!(
                analytic[..cols].iter().chain(&analytic[rows * cols..rows * cols + cols]).all(|g| *g == 0.0),
                "{what}"
            );
            assert_gradient(&what, &analytic, &formula, &composite, &x, (2 * rows, cols), &weights);
        }
    }
}

//! Fused CPU ops with hand-written backward passes.
//!
//! candle 0.11's fused softmax / LayerNorm have no backward (gradients are silently `None`), and the
//! composite versions are slow on CPU. These ops run one pass over each row and give exact gradients.
//! Tests in `tests/ops.rs` compare them with candle's composite ops, values and gradients.

use candle_core::{CpuStorage, CustomOp1, CustomOp2, Layout, Result, Shape, Tensor};

fn rows<'a>(storage: &'a CpuStorage, layout: &Layout) -> Result<(&'a [f32], usize)> {
    let (start, end) = layout
        .contiguous_offsets()
        .ok_or_else(|| candle_core::Error::Msg("fused op needs a contiguous tensor".into()))?;
    let data = &storage.as_slice::<f32>()?[start..end];
    let width = *layout.dims().last().unwrap_or(&1);
    Ok((data, width))
}

fn to_tensor(data: Vec<f32>, like: &Tensor) -> Result<Tensor> {
    Tensor::from_vec(data, like.shape(), like.device())
}

fn host(t: &Tensor) -> Result<Vec<f32>> {
    t.contiguous()?.flatten_all()?.to_vec1::<f32>()
}

struct Softmax;

impl CustomOp1 for Softmax {
    fn name(&self) -> &'static str {
        "wgslate-softmax"
    }
    fn cpu_fwd(&self, s: &CpuStorage, l: &Layout) -> Result<(CpuStorage, Shape)> {
        let (x, w) = rows(s, l)?;
        let mut out = vec![0f32; x.len()];
        for (xr, yr) in x.chunks(w).zip(out.chunks_mut(w)) {
            softmax_row(xr, yr);
        }
        Ok((CpuStorage::F32(out), l.shape().clone()))
    }
    fn bwd(&self, _x: &Tensor, y: &Tensor, g: &Tensor) -> Result<Option<Tensor>> {
        let w = y.dim(candle_core::D::Minus1)?;
        let (yv, gv) = (host(y)?, host(g)?);
        let mut dx = vec![0f32; yv.len()];
        for ((yr, gr), dr) in yv.chunks(w).zip(gv.chunks(w)).zip(dx.chunks_mut(w)) {
            let dot: f32 = yr.iter().zip(gr).map(|(a, b)| a * b).sum();
            for i in 0..w {
                dr[i] = yr[i] * (gr[i] - dot);
            }
        }
        Ok(Some(to_tensor(dx, y)?))
    }
}

pub fn softmax_row(x: &[f32], y: &mut [f32]) {
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0f32;
    for (o, &v) in y.iter_mut().zip(x) {
        *o = (v - max).exp();
        sum += *o;
    }
    let inv = 1.0 / sum;
    y.iter_mut().for_each(|o| *o *= inv);
}

/// Softmax over the last dimension (f32, contiguous), with backward.
pub fn softmax_last_dim(x: &Tensor) -> Result<Tensor> {
    x.contiguous()?.apply_op1(Softmax)
}

/// log Σ exp(x), shifted by the maximum.
fn log_sum_exp(x: &[f32]) -> f32 {
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    max + x.iter().map(|v| (v - max).exp()).sum::<f32>().ln()
}

struct LogSoftmax;

impl CustomOp1 for LogSoftmax {
    fn name(&self) -> &'static str {
        "wgslate-log-softmax"
    }
    fn cpu_fwd(&self, s: &CpuStorage, l: &Layout) -> Result<(CpuStorage, Shape)> {
        let (x, w) = rows(s, l)?;
        let mut out = vec![0f32; x.len()];
        for (xr, yr) in x.chunks(w).zip(out.chunks_mut(w)) {
            let lse = log_sum_exp(xr);
            for (o, &v) in yr.iter_mut().zip(xr) {
                *o = v - lse;
            }
        }
        Ok((CpuStorage::F32(out), l.shape().clone()))
    }
    fn bwd(&self, _x: &Tensor, y: &Tensor, g: &Tensor) -> Result<Option<Tensor>> {
        let w = y.dim(candle_core::D::Minus1)?;
        let (yv, gv) = (host(y)?, host(g)?);
        let mut dx = vec![0f32; yv.len()];
        for ((yr, gr), dr) in yv.chunks(w).zip(gv.chunks(w)).zip(dx.chunks_mut(w)) {
            let sum: f32 = gr.iter().sum();
            for i in 0..w {
                dr[i] = gr[i] - yr[i].exp() * sum;
            }
        }
        Ok(Some(to_tensor(dx, y)?))
    }
}

/// Log-softmax over the last dimension (f32, contiguous), with backward.
pub fn log_softmax_last_dim(x: &Tensor) -> Result<Tensor> {
    x.contiguous()?.apply_op1(LogSoftmax)
}

pub const LAYER_NORM_EPS: f32 = 1e-5;

/// (x - mean) / sqrt(var + eps) over the last dimension.
struct Normalize;

fn row_stats(x: &[f32]) -> (f32, f32) {
    let n = x.len() as f32;
    let mean = x.iter().sum::<f32>() / n;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
    (mean, 1.0 / (var + LAYER_NORM_EPS).sqrt())
}

impl CustomOp1 for Normalize {
    fn name(&self) -> &'static str {
        "wgslate-normalize"
    }
    fn cpu_fwd(&self, s: &CpuStorage, l: &Layout) -> Result<(CpuStorage, Shape)> {
        let (x, w) = rows(s, l)?;
        let mut out = vec![0f32; x.len()];
        for (xr, yr) in x.chunks(w).zip(out.chunks_mut(w)) {
            let (mean, rstd) = row_stats(xr);
            for (o, &v) in yr.iter_mut().zip(xr) {
                *o = (v - mean) * rstd;
            }
        }
        Ok((CpuStorage::F32(out), l.shape().clone()))
    }
    fn bwd(&self, x: &Tensor, y: &Tensor, g: &Tensor) -> Result<Option<Tensor>> {
        let w = y.dim(candle_core::D::Minus1)?;
        let (xv, yv, gv) = (host(x)?, host(y)?, host(g)?);
        let n = w as f32;
        let mut dx = vec![0f32; yv.len()];
        for (((xr, yr), gr), dr) in xv.chunks(w).zip(yv.chunks(w)).zip(gv.chunks(w)).zip(dx.chunks_mut(w)) {
            let (_, rstd) = row_stats(xr);
            let mean_g = gr.iter().sum::<f32>() / n;
            let mean_gy = gr.iter().zip(yr).map(|(a, b)| a * b).sum::<f32>() / n;
            for i in 0..w {
                dr[i] = rstd * (gr[i] - mean_g - yr[i] * mean_gy);
            }
        }
        Ok(Some(to_tensor(dx, y)?))
    }
}

/// LayerNorm over the last dimension: normalize (fused, with backward) then scale and shift.
pub fn layer_norm(x: &Tensor, gamma: &Tensor, beta: &Tensor) -> Result<Tensor> {
    x.contiguous()?.apply_op1(Normalize)?.broadcast_mul(gamma)?.broadcast_add(beta)
}

/// Label-smoothed cross-entropy per row, from logits (N×V) and targets (N, u32).
/// Smoothing spreads `eps` uniformly over the vocabulary: q = (1-eps)·onehot + eps/V.
struct SmoothedCrossEntropy {
    eps: f32,
}

impl SmoothedCrossEntropy {
    fn row(&self, logits: &[f32], target: usize) -> (f32, f32) {
        let lse = log_sum_exp(logits);
        let v = logits.len() as f32;
        let mean_lp = logits.iter().sum::<f32>() / v - lse;
        let lp_t = logits[target] - lse;
        (-(1.0 - self.eps) * lp_t - self.eps * mean_lp, lse)
    }
}

impl CustomOp2 for SmoothedCrossEntropy {
    fn name(&self) -> &'static str {
        "wgslate-smoothed-ce"
    }
    fn cpu_fwd(&self, s1: &CpuStorage, l1: &Layout, s2: &CpuStorage, l2: &Layout) -> Result<(CpuStorage, Shape)> {
        let (x, w) = rows(s1, l1)?;
        let (ts, te) =
            l2.contiguous_offsets().ok_or_else(|| candle_core::Error::Msg("targets must be contiguous".into()))?;
        let targets = &s2.as_slice::<u32>()?[ts..te];
        let out: Vec<f32> = x.chunks(w).zip(targets).map(|(r, &t)| self.row(r, t as usize).0).collect();
        let n = out.len();
        Ok((CpuStorage::F32(out), Shape::from(n)))
    }
    fn bwd(
        &self,
        logits: &Tensor,
        targets: &Tensor,
        _res: &Tensor,
        g: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let w = logits.dim(1)?;
        let xv = host(logits)?;
        let tv = targets.to_vec1::<u32>()?;
        let gv = host(g)?;
        let mut dx = vec![0f32; xv.len()];
        let uniform = self.eps / w as f32;
        for (((xr, &t), &gr), dr) in xv.chunks(w).zip(&tv).zip(&gv).zip(dx.chunks_mut(w)) {
            let (_, lse) = self.row(xr, t as usize);
            for i in 0..w {
                dr[i] = gr * ((xr[i] - lse).exp() - uniform);
            }
            dr[t as usize] -= gr * (1.0 - self.eps);
        }
        Ok((Some(to_tensor(dx, logits)?), None))
    }
}

/// Per-row label-smoothed cross-entropy: logits (N×V, f32), targets (N, u32) → (N).
pub fn smoothed_cross_entropy(logits: &Tensor, targets: &Tensor, eps: f32) -> Result<Tensor> {
    logits.contiguous()?.apply_op2(&targets.contiguous()?, SmoothedCrossEntropy { eps })
}

/// KL(p‖q) + KL(q‖p) per row, p and q the softmax of logits a and b (N×V) → (N). With
/// l = log-softmax: ∂/∂a = p ⊙ (lp − lq − KL(p‖q)) + p − q, and the same with a and b swapped.
struct SymmetricKl;

/// One row's log-probabilities and probabilities.
fn distribution(x: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let lse = log_sum_exp(x);
    let log_p: Vec<f32> = x.iter().map(|v| v - lse).collect();
    let p = log_p.iter().map(|l| l.exp()).collect();
    (log_p, p)
}

/// KL(p‖q) from log-probabilities and p.
fn kl(lp: &[f32], p: &[f32], lq: &[f32]) -> f32 {
    lp.iter().zip(p).zip(lq).map(|((a, pa), b)| pa * (a - b)).sum()
}

impl CustomOp2 for SymmetricKl {
    fn name(&self) -> &'static str {
        "wgslate-symmetric-kl"
    }
    fn cpu_fwd(&self, s1: &CpuStorage, l1: &Layout, s2: &CpuStorage, l2: &Layout) -> Result<(CpuStorage, Shape)> {
        let ((a, w), (b, _)) = (rows(s1, l1)?, rows(s2, l2)?);
        let out: Vec<f32> = a
            .chunks(w)
            .zip(b.chunks(w))
            .map(|(ra, rb)| {
                let ((lp, p), (lq, q)) = (distribution(ra), distribution(rb));
                kl(&lp, &p, &lq) + kl(&lq, &q, &lp)
            })
            .collect();
        let n = out.len();
        Ok((CpuStorage::F32(out), Shape::from(n)))
    }
    fn bwd(&self, a: &Tensor, b: &Tensor, _res: &Tensor, g: &Tensor) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let w = a.dim(1)?;
        let (av, bv, gv) = (host(a)?, host(b)?, host(g)?);
        let (mut da, mut db) = (vec![0f32; av.len()], vec![0f32; bv.len()]);
        for ((((ra, rb), &gr), dra), drb) in
            av.chunks(w).zip(bv.chunks(w)).zip(&gv).zip(da.chunks_mut(w)).zip(db.chunks_mut(w))
        {
            let ((lp, p), (lq, q)) = (distribution(ra), distribution(rb));
            let (pq, qp) = (kl(&lp, &p, &lq), kl(&lq, &q, &lp));
            for i in 0..w {
                dra[i] = gr * (p[i] * (lp[i] - lq[i] - pq) + p[i] - q[i]);
                drb[i] = gr * (q[i] * (lq[i] - lp[i] - qp) + q[i] - p[i]);
            }
        }
        Ok((Some(to_tensor(da, a)?), Some(to_tensor(db, b)?)))
    }
}

/// Symmetric KL between the softmax distributions of two logit matrices (N×V, f32) → (N), with backward.
pub fn symmetric_kl(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.dims() != b.dims() || a.rank() != 2 {
        candle_core::bail!(
            "symmetric KL needs two N×V logit matrices of one shape, got {:?} and {:?}",
            a.dims(),
            b.dims()
        );
    }
    a.contiguous()?.apply_op2(&b.contiguous()?, SymmetricKl)
}

//! Adam with global-norm gradient clipping and a state that can be saved and restored.

use candle_core::{Result, Tensor, Var};

use crate::parallel::Grads;

pub struct Adam {
    pub params: Vec<(String, Var)>,
    pub m: Vec<Tensor>,
    pub v: Vec<Tensor>,
    pub step: usize,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
}

impl Adam {
    pub fn new(mut params: Vec<(String, Var)>) -> Result<Self> {
        params.sort_by(|a, b| a.0.cmp(&b.0));
        let zeros = |p: &Var| p.as_tensor().zeros_like();
        let m = params.iter().map(|(_, p)| zeros(p)).collect::<Result<_>>()?;
        let v = params.iter().map(|(_, p)| zeros(p)).collect::<Result<_>>()?;
        Ok(Self { params, m, v, step: 0, beta1: 0.9, beta2: 0.98, eps: 1e-9 })
    }

    /// Adam over every variable of the map.
    pub fn for_varmap(varmap: &candle_nn::VarMap) -> Result<Self> {
        Self::new(varmap.data().lock().unwrap().iter().map(|(k, v)| (k.clone(), v.clone())).collect())
    }

    /// Global L2 norm of the gradients (parameters without a gradient count as zero).
    pub fn grad_norm(&self, grads: &Grads) -> Result<f64> {
        let mut sq = 0f64;
        for g in grads.iter().flatten() {
            sq += g.sqr()?.sum_all()?.to_scalar::<f32>()? as f64;
        }
        Ok(sq.sqrt())
    }

    /// One update; gradients are scaled so their global norm is at most `clip`. Returns the norm.
    /// `workers` threads each update a share of the parameters (candle's element-wise CPU ops run
    /// on the calling thread).
    pub fn update(&mut self, grads: &Grads, lr: f64, clip: f64, workers: usize) -> Result<f64> {
        let norm = self.grad_norm(grads)?;
        let scale = if norm > clip && norm > 0.0 { clip / norm } else { 1.0 };
        self.step += 1;
        let h = Hyper {
            beta1: self.beta1,
            beta2: self.beta2,
            eps: self.eps,
            bc1: 1.0 - self.beta1.powi(self.step as i32),
            bc2: 1.0 - self.beta2.powi(self.step as i32),
            lr,
            scale,
        };
        let per = self.params.len().div_ceil(workers.max(1)).max(1);
        let jobs =
            self.params.chunks(per).zip(self.m.chunks_mut(per)).zip(self.v.chunks_mut(per)).zip(grads.chunks(per));
        std::thread::scope(|s| {
            let handles: Vec<_> = jobs.map(|(((p, m), v), g)| s.spawn(move || h.apply(p, m, v, g))).collect();
            handles.into_iter().try_for_each(|j| {
                j.join().unwrap_or_else(|_| Err(candle_core::Error::Msg("an optimizer thread panicked".into())))
            })
        })?;
        Ok(norm)
    }
}

#[derive(Clone, Copy)]
struct Hyper {
    beta1: f64,
    beta2: f64,
    eps: f64,
    bc1: f64,
    bc2: f64,
    lr: f64,
    scale: f64,
}

impl Hyper {
    fn apply(
        &self,
        params: &[(String, Var)],
        m: &mut [Tensor],
        v: &mut [Tensor],
        grads: &[Option<Tensor>],
    ) -> Result<()> {
        for (i, (_, p)) in params.iter().enumerate() {
            let Some(g) = &grads[i] else { continue };
            let g = (g * self.scale)?;
            m[i] = ((&m[i] * self.beta1)? + (&g * (1.0 - self.beta1))?)?;
            v[i] = ((&v[i] * self.beta2)? + (g.sqr()? * (1.0 - self.beta2))?)?;
            let denom = ((&v[i] / self.bc2)?.sqrt()? + self.eps)?;
            let delta = ((&m[i] / self.bc1)? / denom)?;
            p.set(&(p.as_tensor() - (delta * self.lr)?)?)?;
        }
        Ok(())
    }
}

//! Adam with global-norm gradient clipping and a state that can be saved and restored.

use candle_core::{backprop::GradStore, Result, Tensor, Var};

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

    /// Global L2 norm of the gradients (parameters without a gradient count as zero).
    pub fn grad_norm(&self, grads: &GradStore) -> Result<f64> {
        let mut sq = 0f64;
        for (_, p) in &self.params {
            if let Some(g) = grads.get(p.as_tensor()) {
                sq += g.sqr()?.sum_all()?.to_scalar::<f32>()? as f64;
            }
        }
        Ok(sq.sqrt())
    }

    /// One update; gradients are scaled so their global norm is at most `clip`. Returns the norm.
    pub fn update(&mut self, grads: &GradStore, lr: f64, clip: f64) -> Result<f64> {
        let norm = self.grad_norm(grads)?;
        let scale = if norm > clip && norm > 0.0 { clip / norm } else { 1.0 };
        self.step += 1;
        let bc1 = 1.0 - self.beta1.powi(self.step as i32);
        let bc2 = 1.0 - self.beta2.powi(self.step as i32);
        for (i, (_, p)) in self.params.iter().enumerate() {
            let Some(g) = grads.get(p.as_tensor()) else { continue };
            let g = (g * scale)?;
            self.m[i] = ((&self.m[i] * self.beta1)? + (&g * (1.0 - self.beta1))?)?;
            self.v[i] = ((&self.v[i] * self.beta2)? + (g.sqr()? * (1.0 - self.beta2))?)?;
            let denom = ((&self.v[i] / bc2)?.sqrt()? + self.eps)?;
            let delta = ((&self.m[i] / bc1)? / denom)?;
            p.set(&(p.as_tensor() - (delta * lr)?)?)?;
        }
        Ok(norm)
    }
}

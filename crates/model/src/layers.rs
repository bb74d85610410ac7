//! Small building blocks shared by both architectures.

use candle_core::{DType, Device, Module, Result, Tensor, D};
use candle_nn::{Init, VarBuilder};

use crate::ops;

pub struct LayerNorm {
    pub gamma: Tensor,
    pub beta: Tensor,
}

impl LayerNorm {
    pub fn new(dim: usize, vb: VarBuilder) -> Result<Self> {
        Ok(Self {
            gamma: vb.get_with_hints(dim, "weight", Init::Const(1.0))?,
            beta: vb.get_with_hints(dim, "bias", Init::Const(0.0))?,
        })
    }
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        ops::layer_norm(x, &self.gamma, &self.beta)
    }
}

/// y = x Wᵀ + b with W stored (out × in) as PyTorch does.
pub struct Linear {
    /// (out, in), or (in, out) when `transposed`.
    pub weight: Tensor,
    pub bias: Option<Tensor>,
    pub transposed: bool,
}

impl Linear {
    pub fn new(input: usize, output: usize, bias: bool, vb: VarBuilder) -> Result<Self> {
        let bound = 1.0 / (input as f64).sqrt();
        let weight = vb.get_with_hints((output, input), "weight", Init::Uniform { lo: -bound, up: bound })?;
        let bias =
            if bias { Some(vb.get_with_hints(output, "bias", Init::Uniform { lo: -bound, up: bound })?) } else { None };
        Ok(Self::from_weights(weight, bias))
    }

    /// Loaded weights (not a training variable) are stored transposed once: candle's CPU matmul
    /// repacks the rows of a transposed view on every call, a fifth of the CPU engine's time in
    /// WebAssembly.
    pub fn from_weights(weight: Tensor, bias: Option<Tensor>) -> Self {
        match weight.is_variable() {
            true => Self { weight, bias, transposed: false },
            false => match transposed_copy(&weight) {
                Ok(t) => Self { weight: t, bias, transposed: true },
                Err(_) => Self { weight, bias, transposed: false },
            },
        }
    }

    fn weight_in_out(&self) -> Result<Tensor> {
        if self.transposed {
            Ok(self.weight.clone())
        } else {
            self.weight.t()
        }
    }
}

/// `w` transposed into its own contiguous storage.
pub fn transposed_copy(w: &Tensor) -> Result<Tensor> {
    w.t()?.contiguous()
}

impl Module for Linear {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let w = self.weight_in_out()?;
        let y = match x.rank() {
            2 => x.matmul(&w)?,
            _ => {
                let Some((&features, lead)) = x.dims().split_last() else {
                    return Err(candle_core::Error::Msg("a linear layer needs at least one dimension".into()));
                };
                let out_dims: Vec<usize> = lead.iter().copied().chain([w.dim(1)?]).collect();
                x.reshape((lead.iter().product::<usize>(), features))?.matmul(&w)?.reshape(out_dims)?
            }
        };
        match &self.bias {
            Some(b) => y.broadcast_add(b),
            None => Ok(y),
        }
    }
}

pub fn embedding_table(vocab: usize, dim: usize, vb: VarBuilder) -> Result<Tensor> {
    vb.get_with_hints((vocab, dim), "weight", Init::Randn { mean: 0.0, stdev: (dim as f64).powf(-0.5) })
}

/// Looks up rows of `table` for a (B, T) tensor of token ids → (B, T, dim).
pub fn lookup(table: &Tensor, tokens: &Tensor) -> Result<Tensor> {
    let (b, t) = tokens.dims2()?;
    let d = table.dim(1)?;
    table.index_select(&tokens.flatten_all()?, 0)?.reshape((b, t, d))
}

/// Inverted dropout: `x` times a constant mask of 0 and 1/(1-p). The mask comes from one pass of a
/// small xorshift generator; candle_nn's version takes five tensor passes (uniform draw, broadcast
/// compare, cast, scale, multiply) and was a visible share of a CPU training step.
pub fn dropout(x: &Tensor, p: f32, train: bool) -> Result<Tensor> {
    if !(train && p > 0.0) {
        return Ok(x.clone());
    }
    if p >= 1.0 {
        return x.zeros_like();
    }
    x * dropout_mask(x.elem_count(), p)?.to_dtype(x.dtype())?.reshape(x.shape())?.to_device(x.device())?
}

fn dropout_mask(n: usize, p: f32) -> Result<Tensor> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    // splitmix64 of a call counter seeds each mask, so masks differ between calls and threads.
    let mut z = CALLS.fetch_add(1, Ordering::Relaxed).wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    let mut state = (z ^ (z >> 31)) | 1;
    let threshold = (p as f64 * u32::MAX as f64) as u32;
    let keep = 1.0 / (1.0 - p);
    let mask: Vec<f32> = (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if ((state >> 32) as u32) < threshold {
                0.0
            } else {
                keep
            }
        })
        .collect();
    Tensor::from_vec(mask, n, &Device::Cpu)
}

/// Additive bias that removes padded source positions: (B, S) mask of 1/0 → (B, S) of 0/-1e9.
pub fn padding_bias(mask: &Tensor) -> Result<Tensor> {
    (mask.ones_like()? - mask)? * -1e9
}

/// Sinusoidal position table (max_len × d), as in Vaswani et al.
pub fn sinusoids(max_len: usize, d: usize, device: &Device) -> Result<Tensor> {
    let mut data = vec![0f32; max_len * d];
    for pos in 0..max_len {
        for i in 0..d / 2 {
            let angle = pos as f64 / 10000f64.powf(2.0 * i as f64 / d as f64);
            data[pos * d + 2 * i] = angle.sin() as f32;
            data[pos * d + 2 * i + 1] = angle.cos() as f32;
        }
    }
    Tensor::from_vec(data, (max_len, d), device)
}

pub fn causal_bias(t: usize, device: &Device) -> Result<Tensor> {
    let data: Vec<f32> = (0..t * t).map(|i| if i % t > i / t { -1e9 } else { 0.0 }).collect();
    Tensor::from_vec(data, (1, 1, t, t), device)
}

pub fn log_softmax(x: &Tensor) -> Result<Tensor> {
    ops::log_softmax_last_dim(x)
}

pub fn to_f32(t: &Tensor) -> Result<Tensor> {
    if t.dtype() == DType::F32 {
        Ok(t.clone())
    } else {
        t.to_dtype(DType::F32)
    }
}

pub fn last_dim(t: &Tensor) -> Result<usize> {
    t.dim(D::Minus1)
}

/// (B, T, in) · (in, out) → (B, T, out) as one 2-D matmul.
pub fn matmul_3d(x: &Tensor, w: &Tensor) -> Result<Tensor> {
    let (b, t, i) = x.dims3()?;
    x.reshape((b * t, i))?.matmul(w)?.reshape((b, t, w.dim(1)?))
}

//! A GRU decoder step in one dispatch (gru_step.wgsl): its weights packed into the two buffers the
//! kernel binds, and its launch parameters.

use crate::layer::{MatrixData, Packer};
use crate::{Gpu, KernelParams};

/// Which GRU shapes the one-dispatch step takes (its workgroup arrays' sizes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GruStepShape {
    pub emb: usize,
    /// The encoder memory's width (both directions).
    pub mem: usize,
    pub hidden: usize,
    /// The keys' width: the attention width (additive) or the hidden width (dot, general).
    pub key_dim: usize,
    pub additive: bool,
}

impl GruStepShape {
    /// gru_step.wgsl keeps [emb; context] (≤ 768), h and h' (≤ 512 each) and the additive query
    /// (≤ 256) in workgroup memory; dot and general scores read keys as wide as h.
    pub fn fits(&self) -> bool {
        // The products' inner widths are read as vec4.
        let inner = [self.emb, self.mem, self.hidden];
        inner.iter().all(|w| w % 4 == 0 && *w > 0)
            && self.key_dim > 0
            && self.emb <= 256
            && self.mem <= 512
            && self.hidden <= 512
            && if self.additive { self.key_dim <= 256 } else { self.key_dim == self.hidden }
    }

    /// The matrices' (rows, columns), in [`MATRICES`] order (the query only for additive scores).
    pub fn matrix_shapes(&self) -> Vec<(usize, usize)> {
        let h = self.hidden;
        let mut shapes = vec![(3 * h, self.emb + self.mem), (3 * h, h), (self.emb, h + self.mem + self.emb)];
        if self.additive {
            shapes.push((self.key_dim, h));
        }
        shapes
    }
}

/// The step's matrices: W_ih, W_hh, the output product, and the additive query.
pub const MATRICES: [&str; 4] = ["decoder.w_ih", "decoder.w_hh", "output.weight", "attention.query.weight"];

/// What the step multiplies and adds: matrices in [`MATRICES`] order, b_ih, b_hh, the output
/// bias, and the additive score's v (empty otherwise).
pub struct GruStepTensors {
    pub matrices: Vec<MatrixData>,
    pub b_ih: Vec<f32>,
    pub b_hh: Vec<f32>,
    pub b_out: Vec<f32>,
    pub v: Vec<f32>,
}

/// The step's weights on the device and where the kernel finds each part.
pub struct GruStep {
    pub shape: GruStepShape,
    pub(crate) weights: wgpu::Buffer,
    pub(crate) prm: wgpu::Buffer,
    /// Words 8..20 of the launch parameters (see `Step` in the shader).
    offsets: [u32; 12],
    pub(crate) weight_bytes: u64,
}

impl GruStep {
    pub fn upload(gpu: &Gpu, params: &KernelParams, shape: GruStepShape, t: &GruStepTensors) -> Result<Self, String> {
        if !shape.fits() {
            return Err(format!("a GRU step of {shape:?} does not fit one dispatch"));
        }
        let shapes = shape.matrix_shapes();
        if t.matrices.len() != shapes.len() {
            return Err(format!("a GRU step of {shape:?} has {} matrices", shapes.len()));
        }
        let h = shape.hidden;
        let vectors = [("b_ih", &t.b_ih, 3 * h), ("b_hh", &t.b_hh, 3 * h), ("output.bias", &t.b_out, shape.emb)];
        let v_len = if shape.additive { shape.key_dim } else { 0 };
        for (name, v, n) in vectors.into_iter().chain([("attention.v", &t.v, v_len)]) {
            if v.len() != n {
                return Err(format!("{name} has {} values, not {n}", v.len()));
            }
        }
        let mut pack = Packer::new(params);
        // Words: w_q, w_ih, w_hh, w_out, s_q, s_ih, s_hh, s_out, b_ih, b_hh, b_out, v.
        let mut offsets = [0u32; 12];
        offsets[8] = pack.bias(&t.b_ih);
        offsets[9] = pack.bias(&t.b_hh);
        offsets[10] = pack.bias(&t.b_out);
        offsets[11] = pack.bias(&t.v);
        for (i, (m, &(n, k))) in t.matrices.iter().zip(&shapes).enumerate() {
            // MATRICES order (ih, hh, out, q) to the words' order (q, ih, hh, out).
            let word = (i + 1) % 4;
            (offsets[word], offsets[4 + word]) = pack.matrix(MATRICES[i], m, n, k)?;
        }
        let (weights, prm, weight_bytes) = pack.finish(gpu, "GRU step");
        Ok(Self { shape, weights, prm, offsets, weight_bytes })
    }

    /// The kernel's launch parameters (`Step` in gru_step.wgsl) for `rows` rows over sources of
    /// `s_max` positions.
    pub(crate) fn launch(&self, rows: u32, s_max: u32, capture: bool) -> [u32; 24] {
        let s = self.shape;
        let mut words = [0u32; 24];
        let header = [rows, s.emb as u32, s.mem as u32, s.hidden as u32, s.key_dim as u32, s_max, !s.additive as u32];
        words[..7].copy_from_slice(&header);
        words[7] = capture as u32;
        words[8..20].copy_from_slice(&self.offsets);
        words
    }
}

/// The encoder's recurrence in one dispatch (gru_encoder.wgsl): both directions' W_hh and b_hh packed
/// into the two buffers the kernel binds.
pub struct GruEncoder {
    pub hidden: usize,
    pub(crate) weights: wgpu::Buffer,
    pub(crate) prm: wgpu::Buffer,
    /// Words 4..12 of the launch parameters (see `Encoder` in the shader).
    offsets: [u32; 8],
    pub(crate) weight_bytes: u64,
}

impl GruEncoder {
    /// gru_encoder.wgsl keeps h and h' in workgroup memory.
    pub fn fits(hidden: usize) -> bool {
        hidden > 0 && hidden <= 512 && hidden.is_multiple_of(4)
    }

    /// `w_hh` and `b_hh` of the forward then the backward direction.
    pub fn upload(
        gpu: &Gpu,
        params: &KernelParams,
        hidden: usize,
        w_hh: [&MatrixData; 2],
        b_hh: [&[f32]; 2],
    ) -> Result<Self, String> {
        if !Self::fits(hidden) {
            return Err(format!("a GRU encoder of hidden size {hidden} does not fit one dispatch"));
        }
        let mut pack = Packer::new(params);
        // Words: w_f, w_b, s_f, s_b, b_f, b_b.
        let mut offsets = [0u32; 8];
        for (dir, (w, b)) in w_hh.iter().zip(b_hh).enumerate() {
            if b.len() != 3 * hidden {
                return Err(format!("an encoder b_hh has {} values, not {}", b.len(), 3 * hidden));
            }
            offsets[4 + dir] = pack.bias(b);
            (offsets[dir], offsets[2 + dir]) = pack.matrix("encoder w_hh", w, 3 * hidden, hidden)?;
        }
        let (weights, prm, weight_bytes) = pack.finish(gpu, "GRU encoder");
        Ok(Self { hidden, weights, prm, offsets, weight_bytes })
    }

    /// The kernel's launch parameters for `rows` sources of `s` positions.
    pub(crate) fn launch(&self, rows: u32, s: u32) -> [u32; 12] {
        let mut words = [0u32; 12];
        words[..3].copy_from_slice(&[rows, self.hidden as u32, s]);
        words[4..].copy_from_slice(&self.offsets);
        words
    }
}

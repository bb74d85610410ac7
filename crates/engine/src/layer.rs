//! A Transformer decoder layer as one kernel (`shaders/decoder_layer.wgsl`): its weights packed
//! into two buffers (the matrices in the kernels' storage, everything else as f32), the offsets
//! the kernel reads them at, and its launch parameters.

use crate::{Gpu, KernelParams};

/// Which of a model's shapes the one-dispatch layer takes (its workgroup arrays' sizes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayerShape {
    pub d: usize,
    pub d_ff: usize,
    pub heads: usize,
}

impl LayerShape {
    /// decoder_layer.wgsl keeps a row (d ≤ 256), its Q|K|V (3d ≤ 1024) and its FFN hidden
    /// (d_ff ≤ 1024) in workgroup memory; wider models run a step as separate kernels.
    pub fn fits(&self) -> bool {
        self.d <= 256 && 3 * self.d <= 1024 && self.d_ff <= 1024 && self.heads > 0 && self.d.is_multiple_of(self.heads)
    }

    /// The matrices' (rows, columns), in [`MATRICES`] order.
    pub fn matrix_shapes(&self) -> [(usize, usize); 6] {
        let (d, f) = (self.d, self.d_ff);
        [(3 * d, d), (d, d), (d, d), (d, d), (f, d), (d, f)]
    }
}

/// The layer's matrices in the order the kernel's offsets list them: self-attention's Q|K|V and
/// output, cross-attention's query and output, the FFN's up and down.
pub const MATRICES: [&str; 6] = ["self_attn.qkv", "self_attn.o", "cross_attn.q", "cross_attn.o", "ffn.up", "ffn.down"];

/// One weight matrix (rows × columns, row-major), as the model file holds it.
pub enum MatrixData {
    Dense(Vec<f32>),
    /// int8 values with their f32 scales (per row, or per block of a row: the kernels' int8_block).
    Int8 {
        values: Vec<i8>,
        scales: Vec<f32>,
    },
}

/// What one decoder layer multiplies and adds, in [`MATRICES`] order; `norms` are LN1, LN2, LN3
/// and, for the last layer, the decoder's final norm, each (gamma, beta).
pub struct LayerTensors {
    pub matrices: Vec<MatrixData>,
    pub biases: Vec<Vec<f32>>,
    pub norms: Vec<(Vec<f32>, Vec<f32>)>,
}

/// A layer's weights on the device and where the kernel finds each part.
pub struct DecoderLayer {
    pub shape: LayerShape,
    pub(crate) weights: wgpu::Buffer,
    pub(crate) prm: wgpu::Buffer,
    /// Words 12..36 of the launch parameters (see `Layer` in the shader).
    offsets: [u32; 24],
    pub(crate) last: bool,
    pub(crate) weight_bytes: u64,
}

/// What changes from step to step.
#[derive(Debug, Clone, Copy)]
pub struct LayerStep {
    pub rows: u32,
    /// The step's position (its K and V go there in the cache).
    pub t: u32,
    /// Positions per row of the self-attention cache.
    pub max_len: u32,
    /// Positions per source row of the cross K|V, and of the captured weights.
    pub s_max: u32,
    pub capture: bool,
}

impl DecoderLayer {
    pub fn upload(gpu: &Gpu, params: &KernelParams, shape: LayerShape, t: &LayerTensors) -> Result<Self, String> {
        if !shape.fits() {
            return Err(format!("a decoder layer of {shape:?} does not fit one dispatch"));
        }
        // The last layer also holds the decoder's final norm.
        let last = match t.norms.len() {
            3 => false,
            4 => true,
            _ => return Err("a decoder layer has 3 norms, the last 4".into()),
        };
        if t.matrices.len() != 6 || t.biases.len() != 6 {
            return Err("a decoder layer has 6 matrices and 6 biases".into());
        }
        let mut pack = Packer::new(params);
        let mut offsets = [0u32; 24];
        let shapes = shape.matrix_shapes();
        for (i, (b, &(n, _))) in t.biases.iter().zip(&shapes).enumerate() {
            if b.len() != n {
                return Err(format!("{}'s bias has {} values, not {n}", MATRICES[i], b.len()));
            }
            offsets[6 + i] = pack.bias(b);
        }
        for (i, (g, b)) in t.norms.iter().enumerate() {
            if g.len() != shape.d || b.len() != shape.d {
                return Err(format!("norm {} of a decoder layer is not {} wide", i + 1, shape.d));
            }
            offsets[12 + i] = pack.vector(g);
            pack.vector(b);
        }
        for (i, (m, &(n, k))) in t.matrices.iter().zip(&shapes).enumerate() {
            (offsets[i], offsets[16 + i]) = pack.matrix(MATRICES[i], m, n, k)?;
        }
        let (weights, prm, weight_bytes) = pack.finish(gpu, "decoder layer");
        Ok(Self { shape, weights, prm, offsets, last, weight_bytes })
    }

    /// The kernel's launch parameters (`Layer` in decoder_layer.wgsl).
    pub(crate) fn launch(&self, s: LayerStep) -> [u32; 36] {
        let LayerShape { d, d_ff, heads } = self.shape;
        let dk = d / heads;
        let scale = 1.0 / (dk as f32).sqrt();
        let mut words = [0u32; 36];
        let header = [
            s.rows,
            d as u32,
            d_ff as u32,
            heads as u32,
            dk as u32,
            s.t,
            s.max_len,
            s.s_max,
            s.capture as u32,
            self.last as u32,
            scale.to_bits(),
            0,
        ];
        words[..12].copy_from_slice(&header);
        words[12..].copy_from_slice(&self.offsets);
        words
    }
}

/// Matrices and vectors packed into the two buffers a one-workgroup-a-row kernel binds: the weights
/// (offsets in vec4 numbers; int8 values four to a u32, f16 or f32 otherwise) and `prm` (f32 biases,
/// norms and int8 scales; offsets in floats).
pub(crate) struct Packer<'a> {
    params: &'a KernelParams,
    dense: Vec<f32>,
    int8: Vec<i8>,
    prm: Vec<f32>,
    weight_bytes: u64,
}

impl<'a> Packer<'a> {
    pub fn new(params: &'a KernelParams) -> Self {
        Self { params, dense: Vec::new(), int8: Vec::new(), prm: Vec::new(), weight_bytes: 0 }
    }

    /// A vector in `prm`: its offset.
    pub fn vector(&mut self, v: &[f32]) -> u32 {
        let at = self.prm.len() as u32;
        self.prm.extend_from_slice(v);
        at
    }

    /// A bias, counted among the weight bytes a step reads.
    pub fn bias(&mut self, v: &[f32]) -> u32 {
        self.weight_bytes += 4 * v.len() as u64;
        self.vector(v)
    }

    /// An n×k matrix in the kernels' format: its offset in the weights and its scales' in `prm`
    /// (0 for dense weights).
    pub fn matrix(&mut self, name: &str, m: &MatrixData, n: usize, k: usize) -> Result<(u32, u32), String> {
        // Each matrix starts at a vec4 number: n·k is a multiple of 4 (k is, for the kernels).
        match (m, self.params.int8_block) {
            (MatrixData::Int8 { values, scales }, Some(_)) if values.len() == n * k => {
                let at = (self.int8.len() / 4) as u32;
                self.int8.extend_from_slice(values);
                self.weight_bytes += (n * k + 4 * scales.len()) as u64;
                Ok((at, self.vector(scales)))
            }
            (MatrixData::Dense(values), None) if values.len() == n * k => {
                let at = (self.dense.len() / 4) as u32;
                self.dense.extend_from_slice(values);
                self.weight_bytes += (n * k) as u64 * if self.params.f16_weights { 2 } else { 4 };
                Ok((at, 0))
            }
            _ => Err(format!("{name} is not a {n}×{k} matrix of the kernels' format")),
        }
    }

    /// The weights, `prm`, and the bytes of weights and biases a step reads.
    pub fn finish(self, gpu: &Gpu, label: &str) -> (wgpu::Buffer, wgpu::Buffer, u64) {
        let weights = match self.params.int8_block {
            Some(_) => gpu.storage_u32(&format!("{label} weights"), &crate::pack_int8(&self.int8)),
            None if self.params.f16_weights => gpu.storage_f16(&format!("{label} weights"), &self.dense),
            None => gpu.storage(&format!("{label} weights"), &self.dense),
        };
        (weights, gpu.storage(&format!("{label} parameters"), &self.prm), self.weight_bytes)
    }
}

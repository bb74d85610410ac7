//! Weight-only int8: symmetric, one f16 scale per block of `block` values along each row's last
//! axis (k of a product, d of an embedding row). A block as long as the row is one scale per row.
//! In model.safetensors a quantised matrix `name` is an I8 tensor `name` beside an F16 tensor
//! `name.scale` of shape [rows, k / block]; vectors (biases, norms) stay F16.

use half::f16;

/// How a model's matrices are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightFormat {
    F16,
    /// int8 with one scale per `block` values of a row; `usize::MAX` means one scale per row.
    Int8 {
        block: usize,
    },
}

pub const SCALE_SUFFIX: &str = ".scale";
pub const PER_ROW: usize = usize::MAX;

impl WeightFormat {
    /// Parses `f16`, `int8` (one scale per row, the shipped format) or `int8-N` (blocks of N).
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "f16" => Ok(Self::F16),
            "int8" => Ok(Self::Int8 { block: PER_ROW }),
            _ => match s.strip_prefix("int8-").and_then(|n| n.parse::<usize>().ok()) {
                Some(n) if n >= 4 && n % 4 == 0 => Ok(Self::Int8 { block: n }),
                _ => Err(format!("unknown weight format {s:?} (f16, int8 or int8-N with N a multiple of 4)")),
            },
        }
    }
}

impl std::fmt::Display for WeightFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::F16 => write!(f, "f16"),
            Self::Int8 { block: PER_ROW } => write!(f, "int8, one scale per row"),
            Self::Int8 { block } => write!(f, "int8, one scale per {block} values"),
        }
    }
}

/// The block length used for a row of `k` values: `block` if it divides `k`, else the whole row.
pub fn block_for(k: usize, block: usize) -> usize {
    if block != PER_ROW && block > 0 && k.is_multiple_of(block) {
        block
    } else {
        k.max(1)
    }
}

/// Quantises a row-major [rows, k] matrix; returns the int8 values and the scales ([rows, k / b]).
pub fn quantize(values: &[f32], k: usize, block: usize) -> (Vec<i8>, Vec<f16>) {
    let b = block_for(k, block);
    let mut q = Vec::with_capacity(values.len());
    let mut scales = Vec::with_capacity(values.len() / b);
    for chunk in values.chunks(b) {
        let max = chunk.iter().fold(0f32, |m, v| m.max(v.abs()));
        // The scale is rounded to f16 first, so the quantised values fit the scale that is stored.
        let scale = f16::from_f32(max / 127.0);
        let s = scale.to_f32();
        scales.push(scale);
        q.extend(chunk.iter().map(|v| if s > 0.0 { (v / s).round().clamp(-127.0, 127.0) as i8 } else { 0 }));
    }
    (q, scales)
}

/// Widens int8 values with their scales back to f32. The products are exact in f32 (8 by 11
/// significant bits), which is what the GPU engine's int8 kernels compute in registers, so both
/// engines multiply by the same numbers.
pub fn dequantize(q: &[i8], scales: &[f16], block: usize) -> Vec<f32> {
    q.chunks(block).zip(scales).flat_map(|(chunk, s)| chunk.iter().map(move |&v| v as f32 * s.to_f32())).collect()
}

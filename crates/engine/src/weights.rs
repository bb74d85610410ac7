//! Weight upload shared by the architectures.

use std::collections::HashMap;

use wgslate_model::quant::SCALE_SUFFIX;
use wgslate_model::weights::CheckedWeights;

use crate::layer::MatrixData;
use crate::{Gpu, KernelParams};

/// int8 values packed four to a u32 (little-endian, as the int8 kernels unpack them).
pub fn pack_int8(values: &[i8]) -> Vec<u32> {
    values
        .chunks(4)
        .map(|c| {
            let mut b = [0u8; 4];
            c.iter().enumerate().for_each(|(i, &v)| b[i] = v as u8);
            u32::from_le_bytes(b)
        })
        .collect()
}

/// One tensor or several stacked along their first dimension (fused products such as Q|K|V), as
/// the kernels take it: int8 values with f32 scales where the file holds them so and `int8` (the
/// kernels run int8), else f32 values; and whether it is a matrix.
pub(crate) fn stacked(weights: &CheckedWeights, parts: &[String], int8: bool) -> Result<(MatrixData, bool), String> {
    let quantized: Option<Vec<_>> = parts.iter().map(|n| weights.quantized(n)).collect();
    if let (true, Some(q)) = (int8, quantized) {
        let values = q.iter().flat_map(|q| q.values.iter().copied()).collect();
        let scales = q.iter().flat_map(|q| q.scales.iter().map(|s| s.to_f32())).collect();
        return Ok((MatrixData::Int8 { values, scales }, true));
    }
    let mut data = Vec::new();
    let mut matrix = false;
    for n in parts {
        let (shape, part) = weights.tensor(n).ok_or_else(|| format!("model.safetensors has no tensor {n}"))?;
        matrix = shape.len() == 2;
        data.extend_from_slice(part);
    }
    Ok((MatrixData::Dense(data), matrix))
}

/// Vectors (biases, norms) as the file holds them, stacked: f32 values.
pub(crate) fn dense(weights: &CheckedWeights, parts: &[String]) -> Result<Vec<f32>, String> {
    match stacked(weights, parts, false)? {
        (MatrixData::Dense(v), _) => Ok(v),
        _ => Err(format!("{} is not stored as floats", parts[0])),
    }
}

/// Buffers for [`stacked`] tensors under `name`: int8 matrices as packed values plus f32 scales
/// under `name.scale` when the kernels run int8; other matrices (weights of matmul.wgsl, embedding
/// tables) as f16 when `f16_weights`; everything else (biases, norms, attention vectors) as f32.
pub(crate) fn upload_stacked(
    gpu: &Gpu,
    weights: &CheckedWeights,
    name: &str,
    parts: &[String],
    params: &KernelParams,
) -> Result<Vec<(String, wgpu::Buffer)>, String> {
    Ok(match stacked(weights, parts, params.int8_block.is_some())? {
        (MatrixData::Int8 { values, scales }, _) => vec![
            (name.to_string(), gpu.storage_u32(name, &pack_int8(&values))),
            (format!("{name}{SCALE_SUFFIX}"), gpu.storage(name, &scales)),
        ],
        (MatrixData::Dense(data), true) if params.f16_weights => vec![(name.to_string(), gpu.storage_f16(name, &data))],
        (MatrixData::Dense(data), _) => vec![(name.to_string(), gpu.storage(name, &data))],
    })
}

/// Uploads the named tensors (see [`upload_stacked`]).
pub(crate) fn upload(
    gpu: &Gpu,
    weights: &CheckedWeights,
    names: &[String],
    params: &KernelParams,
) -> Result<HashMap<String, wgpu::Buffer>, String> {
    let mut w = HashMap::new();
    for n in names {
        w.extend(upload_stacked(gpu, weights, n, std::slice::from_ref(n), params)?);
    }
    Ok(w)
}

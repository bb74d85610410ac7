//! Weight upload shared by the architectures.

use std::collections::HashMap;

use wgslate_model::quant::SCALE_SUFFIX;
use wgslate_model::weights::CheckedWeights;

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

/// Buffers for one tensor or for several stacked along their first dimension (fused products
/// such as Q|K|V), under `name`: int8 matrices as packed values plus f32 scales under
/// `name.scale` when the kernels run int8; other matrices (weights of matmul.wgsl, embedding
/// tables) as f16 when `f16_weights`; everything else (biases, norms, attention vectors) as f32.
pub(crate) fn upload_stacked(
    gpu: &Gpu,
    weights: &CheckedWeights,
    name: &str,
    parts: &[String],
    params: &KernelParams,
) -> Result<Vec<(String, wgpu::Buffer)>, String> {
    let missing = |n: &String| format!("model.safetensors has no tensor {n}");
    let quantized: Option<Vec<_>> = parts.iter().map(|n| weights.quantized(n)).collect();
    if let (Some(_), Some(q)) = (params.int8_block, quantized) {
        let values: Vec<i8> = q.iter().flat_map(|q| q.values.iter().copied()).collect();
        let scales: Vec<f32> = q.iter().flat_map(|q| q.scales.iter().map(|s| s.to_f32())).collect();
        return Ok(vec![
            (name.to_string(), gpu.storage_u32(name, &pack_int8(&values))),
            (format!("{name}{SCALE_SUFFIX}"), gpu.storage(name, &scales)),
        ]);
    }
    let mut data = Vec::new();
    let mut matrix = false;
    for n in parts {
        let (shape, part) = weights.tensor(n).ok_or_else(|| missing(n))?;
        matrix = shape.len() == 2;
        data.extend_from_slice(part);
    }
    let buffer = if params.f16_weights && matrix { gpu.storage_f16(name, &data) } else { gpu.storage(name, &data) };
    Ok(vec![(name.to_string(), buffer)])
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

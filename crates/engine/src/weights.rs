//! Weight upload shared by both engines.

use std::collections::HashMap;

use wgslate_model::weights::CheckedWeights;

use crate::Gpu;

/// Uploads the named tensors: matrices (weights of matmul.wgsl, embedding tables) as f16 when
/// `f16_matrices`, everything else (biases, norms, attention vectors) as f32.
pub(crate) fn upload(
    gpu: &Gpu,
    weights: &CheckedWeights,
    names: &[String],
    f16_matrices: bool,
) -> Result<HashMap<String, wgpu::Buffer>, String> {
    let mut w = HashMap::new();
    for n in names {
        let (shape, data) = weights.tensor(n).ok_or_else(|| format!("model.safetensors has no tensor {n}"))?;
        let buf = if f16_matrices && shape.len() == 2 { gpu.storage_f16(n, data) } else { gpu.storage(n, data) };
        w.insert(n.clone(), buf);
    }
    Ok(w)
}

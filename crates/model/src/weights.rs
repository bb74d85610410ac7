//! `model.safetensors` in f16 or int8 (`quant.rs`): names are the VarBuilder paths of the model
//! structs (e.g. `decoder.0.cross_attn.kv.weight`); see the README's weight table.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use candle_core::{DType, Device, Shape, Tensor};
use candle_nn::var_builder::SimpleBackend;
use candle_nn::VarBuilder;
use safetensors::{Dtype, SafeTensors};

use crate::quant::{self, WeightFormat, SCALE_SUFFIX};

/// Tensors from a safetensors file, widened to f32 (int8 ones dequantised), with every name the
/// model asks for recorded.
pub struct CheckedWeights {
    tensors: HashMap<String, (Vec<usize>, Vec<f32>)>,
    /// The int8 matrices as stored: values, f16 scales ([rows, k / block]) and block length.
    quantized: HashMap<String, Quantized>,
    used: Mutex<HashSet<String>>,
    format: WeightFormat,
}

/// An int8 matrix as stored in the file.
pub struct Quantized {
    pub values: Vec<i8>,
    pub scales: Vec<half::f16>,
    /// Values per scale along a row (k for one scale per row).
    pub block: usize,
}

/// NaN or ∞ in a weight (or an int8 scale) makes every translation empty or garbage: a damaged file,
/// said at load rather than as "stopped at the maximum output length" later.
fn all_finite(name: &str, values: &[f32]) -> Result<(), String> {
    match values.iter().filter(|v| !v.is_finite()).count() {
        0 => Ok(()),
        n => Err(format!(
            "model.safetensors: tensor {name} holds {n} values that are not finite (NaN or ∞): the file is damaged"
        )),
    }
}

fn f16_values(data: &[u8]) -> Vec<half::f16> {
    data.chunks_exact(2).map(|b| half::f16::from_le_bytes([b[0], b[1]])).collect()
}

impl CheckedWeights {
    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        let st = SafeTensors::deserialize(bytes)
            .map_err(|e| format!("model.safetensors is truncated or not a safetensors file ({e})"))?;
        let mut tensors = HashMap::new();
        let mut quantized = HashMap::new();
        let mut format = WeightFormat::F16;
        for (name, view) in st.tensors() {
            match view.dtype() {
                Dtype::F16 if name.ends_with(SCALE_SUFFIX) => {
                    let matrix = &name[..name.len() - SCALE_SUFFIX.len()];
                    match st.tensor(matrix) {
                        Ok(m) if m.dtype() == Dtype::I8 => {}
                        _ => return Err(format!("model.safetensors: {name} scales no int8 tensor {matrix}")),
                    }
                }
                Dtype::F16 => {
                    let data: Vec<f32> = f16_values(view.data()).iter().map(|v| v.to_f32()).collect();
                    all_finite(&name, &data)?;
                    tensors.insert(name, (view.shape().to_vec(), data));
                }
                Dtype::I8 => {
                    let shape = view.shape().to_vec();
                    let (rows, k) = match shape[..] {
                        [rows, k] if k > 0 => (rows, k),
                        _ => {
                            return Err(format!(
                                "model.safetensors: int8 tensor {name} has shape {shape:?}; only matrices are int8"
                            ))
                        }
                    };
                    let scale_name = format!("{name}{SCALE_SUFFIX}");
                    let scale = st
                        .tensor(&scale_name)
                        .map_err(|_| format!("model.safetensors: int8 tensor {name} has no {scale_name}"))?;
                    let blocks = match scale.shape()[..] {
                        [r, b] if r == rows && b > 0 && k % b == 0 && scale.dtype() == Dtype::F16 => b,
                        _ => {
                            return Err(format!(
                                "model.safetensors: {scale_name} must be F16 of shape [{rows}, k / block] for k = {k}"
                            ))
                        }
                    };
                    let block = k / blocks;
                    let tensor_format = WeightFormat::Int8 { block: if blocks == 1 { quant::PER_ROW } else { block } };
                    if format != WeightFormat::F16 && format != tensor_format {
                        return Err(format!(
                            "model.safetensors: {name} is {tensor_format} but other tensors are {format}"
                        ));
                    }
                    format = tensor_format;
                    let q: Vec<i8> = view.data().iter().map(|&b| b as i8).collect();
                    let scales = f16_values(scale.data());
                    let data = quant::dequantize(&q, &scales, block);
                    all_finite(&name, &data)?;
                    tensors.insert(name.clone(), (shape, data));
                    quantized.insert(name, Quantized { values: q, scales, block });
                }
                other => {
                    return Err(format!(
                        "model.safetensors: tensor {name} is {other:?}; wgslate reads F16 and I8 weights"
                    ))
                }
            }
        }
        Ok(Self { tensors, quantized, used: Mutex::new(HashSet::new()), format })
    }

    /// f16, or int8 with its block length (the format of the file's matrices).
    pub fn format(&self) -> WeightFormat {
        self.format
    }

    /// A tensor's shape and values (widened to f32), as the GPU engine uploads them.
    pub fn tensor(&self, name: &str) -> Option<(&[usize], &[f32])> {
        self.tensors.get(name).map(|(s, d)| (s.as_slice(), d.as_slice()))
    }

    /// An int8 matrix as stored (None for f16 tensors), for the GPU engine's int8 kernels.
    pub fn quantized(&self, name: &str) -> Option<&Quantized> {
        self.quantized.get(name)
    }

    /// Every tensor name in the file, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.tensors.keys().cloned().collect();
        names.sort();
        names
    }

    /// Names in the file that the model never asked for (the config does not match the file).
    pub fn unused(&self) -> Vec<String> {
        let used = self.used.lock().unwrap();
        let mut names: Vec<String> = self.tensors.keys().filter(|n| !used.contains(*n)).cloned().collect();
        names.sort();
        names
    }
}

pub struct SharedWeights(pub std::sync::Arc<CheckedWeights>);

impl SimpleBackend for SharedWeights {
    fn get(&self, s: Shape, name: &str, _: candle_nn::Init, dtype: DType, dev: &Device) -> candle_core::Result<Tensor> {
        let (shape, data) = self
            .0
            .tensors
            .get(name)
            .ok_or_else(|| candle_core::Error::Msg(format!("model.safetensors has no tensor {name}")))?;
        if shape.as_slice() != s.dims() {
            candle_core::bail!(
                "model.safetensors: tensor {name} has shape {shape:?}, config.json implies {:?}",
                s.dims()
            );
        }
        self.0.used.lock().unwrap().insert(name.to_string());
        Tensor::from_slice(data, shape.as_slice(), dev)?.to_dtype(dtype)
    }
    fn get_unchecked(&self, name: &str, dtype: DType, dev: &Device) -> candle_core::Result<Tensor> {
        let (shape, data) = self
            .0
            .tensors
            .get(name)
            .ok_or_else(|| candle_core::Error::Msg(format!("model.safetensors has no tensor {name}")))?;
        self.0.used.lock().unwrap().insert(name.to_string());
        Tensor::from_slice(data, shape.as_slice(), dev)?.to_dtype(dtype)
    }
    fn contains_tensor(&self, name: &str) -> bool {
        self.0.tensors.contains_key(name)
    }
}

pub fn var_builder(weights: &std::sync::Arc<CheckedWeights>) -> VarBuilder<'static> {
    VarBuilder::from_backend(Box::new(SharedWeights(weights.clone())), DType::F32, Device::Cpu)
}

/// Serialises named f32 tensors as f16 safetensors, sorted by name.
pub fn to_f16_safetensors(tensors: &[(String, Tensor)]) -> Result<Vec<u8>, String> {
    to_safetensors(tensors, WeightFormat::F16)
}

/// Serialises named f32 tensors in `format`, sorted by name: with int8, every matrix is quantised
/// (with its `.scale` tensor) and vectors stay f16.
pub fn to_safetensors(tensors: &[(String, Tensor)], format: WeightFormat) -> Result<Vec<u8>, String> {
    let mut owned: Vec<(String, Dtype, Vec<usize>, Vec<u8>)> = Vec::new();
    for (name, t) in tensors {
        let values = t
            .flatten_all()
            .and_then(|t| t.to_dtype(DType::F32))
            .and_then(|t| t.to_vec1::<f32>())
            .map_err(|e| e.to_string())?;
        let shape = t.dims().to_vec();
        match (format, &shape[..]) {
            (WeightFormat::Int8 { block }, &[rows, k]) if k > 0 => {
                let (q, scales) = quant::quantize(&values, k, block);
                owned.push((name.clone(), Dtype::I8, shape.clone(), q.iter().map(|&v| v as u8).collect()));
                let scale_bytes = scales.iter().flat_map(|s| s.to_le_bytes()).collect();
                owned.push((
                    format!("{name}{SCALE_SUFFIX}"),
                    Dtype::F16,
                    vec![rows, k / quant::block_for(k, block)],
                    scale_bytes,
                ));
            }
            _ => owned.push((
                name.clone(),
                Dtype::F16,
                shape,
                values.iter().flat_map(|v| half::f16::from_f32(*v).to_le_bytes()).collect(),
            )),
        }
    }
    owned.sort_by(|a, b| a.0.cmp(&b.0));
    let views: Vec<(String, safetensors::tensor::TensorView)> = owned
        .iter()
        .map(|(n, d, s, b)| {
            Ok((n.clone(), safetensors::tensor::TensorView::new(*d, s.clone(), b).map_err(|e| e.to_string())?))
        })
        .collect::<Result<_, String>>()?;
    safetensors::serialize(views, None).map_err(|e| e.to_string())
}

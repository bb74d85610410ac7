//! `model.safetensors` in f16: names are the VarBuilder paths of the model structs
//! (e.g. `decoder.0.cross_attn.kv.weight`); see the README's weight table.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use candle_core::{DType, Device, Shape, Tensor};
use candle_nn::var_builder::SimpleBackend;
use candle_nn::VarBuilder;
use safetensors::{Dtype, SafeTensors};

/// f16 tensors from a safetensors file, widened to f32, with every name the model asks for recorded.
pub struct CheckedWeights {
    tensors: HashMap<String, (Vec<usize>, Vec<f32>)>,
    used: Mutex<HashSet<String>>,
}

impl CheckedWeights {
    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        let st = SafeTensors::deserialize(bytes).map_err(|e| format!("model.safetensors is truncated or not a safetensors file ({e})"))?;
        let mut tensors = HashMap::new();
        for (name, view) in st.tensors() {
            if view.dtype() != Dtype::F16 {
                return Err(format!("model.safetensors: tensor {name} is {:?}; wgslate ships weights in F16", view.dtype()));
            }
            let data = view.data().chunks_exact(2).map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32()).collect();
            tensors.insert(name, (view.shape().to_vec(), data));
        }
        Ok(Self { tensors, used: Mutex::new(HashSet::new()) })
    }

    /// A tensor's shape and values (widened to f32), as the GPU engine uploads them.
    pub fn tensor(&self, name: &str) -> Option<(&[usize], &[f32])> {
        self.tensors.get(name).map(|(s, d)| (s.as_slice(), d.as_slice()))
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
        let (shape, data) = self.0.tensors.get(name).ok_or_else(|| candle_core::Error::Msg(format!("model.safetensors has no tensor {name}")))?;
        if shape.as_slice() != s.dims() {
            candle_core::bail!("model.safetensors: tensor {name} has shape {shape:?}, config.json implies {:?}", s.dims());
        }
        self.0.used.lock().unwrap().insert(name.to_string());
        Tensor::from_slice(data, shape.as_slice(), dev)?.to_dtype(dtype)
    }
    fn get_unchecked(&self, name: &str, dtype: DType, dev: &Device) -> candle_core::Result<Tensor> {
        let (shape, data) = self.0.tensors.get(name).ok_or_else(|| candle_core::Error::Msg(format!("model.safetensors has no tensor {name}")))?;
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
    let mut owned: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
    for (name, t) in tensors {
        let values = t.flatten_all().and_then(|t| t.to_dtype(DType::F32)).and_then(|t| t.to_vec1::<f32>()).map_err(|e| e.to_string())?;
        let bytes = values.iter().flat_map(|v| half::f16::from_f32(*v).to_le_bytes()).collect();
        owned.push((name.clone(), t.dims().to_vec(), bytes));
    }
    owned.sort_by(|a, b| a.0.cmp(&b.0));
    let views: Vec<(String, safetensors::tensor::TensorView)> = owned
        .iter()
        .map(|(n, s, b)| Ok((n.clone(), safetensors::tensor::TensorView::new(Dtype::F16, s.clone(), b).map_err(|e| e.to_string())?)))
        .collect::<Result<_, String>>()?;
    safetensors::serialize(views, None).map_err(|e| e.to_string())
}

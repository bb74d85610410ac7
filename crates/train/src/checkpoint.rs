//! Run state on disk: parameters and Adam moments (f32 safetensors) plus progress (JSON).
//! Written to a temporary name and renamed, so a stop mid-write never leaves a broken checkpoint.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{Device, Tensor};
use serde::{Deserialize, Serialize};

use crate::adam::Adam;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Progress {
    pub epoch: usize,
    /// Batches of `epoch` already trained.
    pub batch: usize,
    pub lr_scale: f64,
    pub best_bleu: f64,
    /// `None` until the first validation (JSON has no infinity, so a sentinel would not survive a resume).
    pub best_val_loss: Option<f64>,
    pub bad_epochs: usize,
    pub history: Vec<EpochRecord>,
    pub train_seconds: f64,
}

impl Progress {
    /// The progress of a run that has trained nothing yet.
    pub fn fresh() -> Progress {
        Progress { lr_scale: 1.0, ..Default::default() }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EpochRecord {
    pub epoch: usize,
    pub train_loss: f64,
    pub val_loss: f64,
    pub val_bleu: f64,
    pub tokens_per_second: f64,
    pub seconds: f64,
}

pub fn save(dir: &Path, adam: &Adam, progress: &Progress) -> anyhow::Result<()> {
    let mut tensors: HashMap<String, Tensor> = HashMap::new();
    for (i, (name, p)) in adam.params.iter().enumerate() {
        tensors.insert(format!("param.{name}"), p.as_tensor().clone());
        tensors.insert(format!("m.{name}"), adam.m[i].clone());
        tensors.insert(format!("v.{name}"), adam.v[i].clone());
    }
    tensors.insert("adam.step".into(), Tensor::new(&[adam.step as f32], &Device::Cpu)?);
    let tmp = dir.join("state.safetensors.tmp");
    candle_core::safetensors::save(&tensors, &tmp)?;
    std::fs::rename(&tmp, dir.join("state.safetensors"))?;
    let tmp = dir.join("progress.json.tmp");
    std::fs::write(&tmp, serde_json::to_string_pretty(progress)?)?;
    std::fs::rename(&tmp, dir.join("progress.json"))?;
    Ok(())
}

pub fn load(dir: &Path, adam: &mut Adam) -> anyhow::Result<Progress> {
    let tensors = candle_core::safetensors::load(dir.join("state.safetensors"), &Device::Cpu)?;
    let get = |k: &str| tensors.get(k).cloned().ok_or_else(|| anyhow::anyhow!("checkpoint lacks {k}"));
    for (i, (name, p)) in adam.params.iter().enumerate() {
        p.set(&get(&format!("param.{name}"))?)?;
        adam.m[i] = get(&format!("m.{name}"))?;
        adam.v[i] = get(&format!("v.{name}"))?;
    }
    adam.step = get("adam.step")?.to_vec1::<f32>()?[0] as usize;
    Ok(serde_json::from_str(&std::fs::read_to_string(dir.join("progress.json"))?)?)
}

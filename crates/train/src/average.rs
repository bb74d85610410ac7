//! Checkpoint averaging: the element-wise mean of several exported models (the trainer keeps the
//! last epochs' exports in `<run>/epoch-N/`), written as a new export.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use candle_core::{Device, Tensor};
use wgslate_model::weights::{to_f16_safetensors, CheckedWeights};

/// Epoch exports kept in the run directory (older ones are deleted).
pub const KEPT_EPOCH_EXPORTS: usize = 5;

pub fn epoch_dir(run_dir: &Path, epoch: usize) -> PathBuf {
    run_dir.join(format!("epoch-{epoch}"))
}

/// The run's epoch exports, oldest first.
pub fn epoch_exports(run_dir: &Path) -> anyhow::Result<Vec<(usize, PathBuf)>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(run_dir).with_context(|| format!("reading {}", run_dir.display()))? {
        let path = entry?.path();
        let epoch = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("epoch-"))
            .and_then(|n| n.parse::<usize>().ok());
        if let Some(e) = epoch {
            if path.join("model.safetensors").exists() {
                found.push((e, path));
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Writes the mean of the models in `dirs` to `out` (with the first one's config and tokenizer,
/// which must be the same in all).
pub fn average(dirs: &[PathBuf], out: &Path) -> anyhow::Result<()> {
    let Some(first) = dirs.first() else { bail!("nothing to average") };
    let read = |dir: &Path, file: &str| {
        std::fs::read(dir.join(file)).with_context(|| format!("reading {}", dir.join(file).display()))
    };
    let (config, tokenizer) = (read(first, "config.json")?, read(first, "tokenizer.json")?);
    let mut models = Vec::new();
    for dir in dirs {
        if read(dir, "config.json")? != config || read(dir, "tokenizer.json")? != tokenizer {
            bail!("{} has another config or tokenizer than {}", dir.display(), first.display());
        }
        models.push(
            CheckedWeights::parse(&read(dir, "model.safetensors")?).map_err(|e| anyhow!("{}: {e}", dir.display()))?,
        );
    }
    let names = models[0].names();
    if let Some((_, dir)) = models.iter().zip(dirs).find(|(m, _)| m.names() != names) {
        bail!("{} does not have the tensors of {}", dir.display(), first.display());
    }
    let mut tensors = Vec::new();
    for name in &names {
        let (shape, _) = models[0].tensor(name).expect("listed");
        let mut sum = vec![0f64; shape.iter().product()];
        for (m, dir) in models.iter().zip(dirs) {
            let (s, values) = m.tensor(name).expect("same names");
            if s != shape {
                bail!("{name} has shape {s:?} in {} but {shape:?} in {}", dir.display(), first.display());
            }
            sum.iter_mut().zip(values).for_each(|(a, &v)| *a += v as f64);
        }
        let mean: Vec<f32> = sum.iter().map(|v| (v / models.len() as f64) as f32).collect();
        tensors.push((name.clone(), Tensor::from_vec(mean, shape, &Device::Cpu)?));
    }
    std::fs::create_dir_all(out)?;
    std::fs::write(out.join("model.safetensors"), to_f16_safetensors(&tensors).map_err(|e| anyhow!(e))?)?;
    std::fs::write(out.join("config.json"), config)?;
    std::fs::write(out.join("tokenizer.json"), tokenizer)?;
    Ok(())
}

/// Averages the run's last `k` epoch exports into `out`; returns their epoch numbers.
pub fn average_last(run_dir: &Path, k: usize, out: &Path) -> anyhow::Result<Vec<usize>> {
    let exports = epoch_exports(run_dir)?;
    if k == 0 || exports.len() < k {
        bail!("cannot average the last {k}: {} has {} epoch exports", run_dir.display(), exports.len());
    }
    let last = &exports[exports.len() - k..];
    average(&last.iter().map(|(_, d)| d.clone()).collect::<Vec<_>>(), out)?;
    Ok(last.iter().map(|(e, _)| *e).collect())
}

//! Shipped models: the list in models/index.json, loaded on demand with byte progress and kept.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use wgslate_model::Model;

use crate::browser;

#[derive(Clone, Debug, PartialEq)]
pub struct ModelEntry {
    /// "en-de/transformer"
    pub name: String,
    pub label: String,
}

pub async fn load_index() -> Result<Vec<ModelEntry>, String> {
    let text = browser::fetch_text("models/index.json").await?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("models/index.json: {e}"))?;
    Ok(v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|m| {
                    Some(ModelEntry {
                        name: format!("{}/{}", m["pair"].as_str()?, m["arch"].as_str()?),
                        label: m["label"].as_str()?.to_string(),
                    })
                })
                .collect()
        })
        .unwrap_or_default())
}

thread_local! {
    static LOADED: RefCell<HashMap<String, Arc<Model>>> = RefCell::new(HashMap::new());
}

pub fn cached(name: &str) -> Option<Arc<Model>> {
    LOADED.with(|m| m.borrow().get(name).cloned())
}

/// Fetches the three files (weights with progress), builds the model for the CPU and, when WebGPU
/// works, its GPU engine. Returns the model and the GPU engine's status.
pub async fn load(
    name: &str,
    mut progress: impl FnMut(u64, Option<u64>),
) -> Result<(Arc<Model>, Result<(), String>), String> {
    let base = format!("models/{name}");
    let config = browser::fetch_bytes(&format!("{base}/config.json"), |_, _| {}).await?;
    let tokenizer = browser::fetch_bytes(&format!("{base}/tokenizer.json"), |_, _| {}).await?;
    let weights = browser::fetch_bytes(&format!("{base}/model.safetensors"), &mut progress).await?;
    browser::yield_now().await;
    let model = Arc::new(Model::from_bytes(&config, &weights, &tokenizer).map_err(|e| format!("{name}: {e}"))?);
    browser::yield_now().await;
    let gpu = crate::gpu_engine::prepare(name, &model.config, &weights).await;
    LOADED.with(|m| m.borrow_mut().insert(name.to_string(), model.clone()));
    Ok((model, gpu))
}

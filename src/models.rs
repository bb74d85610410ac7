//! Shipped models: the list in models/index.json (read by the page), and each model loaded on
//! demand with byte progress and kept (in the engine worker).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use wgslate_model::catalog::{self, CatalogEntry};
use wgslate_model::Model;

use crate::browser;

pub async fn load_index() -> Result<Vec<CatalogEntry>, String> {
    catalog::parse(&browser::fetch_text("models/index.json").await?)
}

/// The index, fetched once per worker.
async fn index() -> Result<Vec<CatalogEntry>, String> {
    if let Some(i) = INDEX.with(|i| i.borrow().clone()) {
        return Ok(i);
    }
    let i = load_index().await?;
    INDEX.with(|c| *c.borrow_mut() = Some(i.clone()));
    Ok(i)
}

/// The models `name` stands for: an ensemble's members (from the index), else itself.
pub async fn model_names(name: &str) -> Result<Vec<String>, String> {
    let index = index().await?;
    Ok(index.iter().find(|e| e.name() == name).map_or_else(|| vec![name.to_string()], CatalogEntry::model_names))
}

/// The single model of the opposite direction that reranks `name`'s hypotheses (an ensemble there
/// gives its first member), if the index has one.
pub async fn reverse_model(name: &str) -> Result<Option<String>, String> {
    Ok(catalog::reranker(&index().await?, name))
}

thread_local! {
    /// Models loaded in this worker, and those being loaded (a second job waits for the first).
    static LOADED: RefCell<HashMap<String, Arc<Model>>> = RefCell::new(HashMap::new());
    static LOADING: RefCell<HashSet<String>> = RefCell::new(HashSet::new());
    static INDEX: RefCell<Option<Vec<CatalogEntry>>> = const { RefCell::new(None) };
}

/// The model, fetched (weights with progress, as a share) and built once, with its GPU engine
/// when WebGPU works. The flag is true for the call that loaded it.
pub async fn load(name: &str, mut progress: impl FnMut(f64)) -> Result<(Arc<Model>, bool), String> {
    loop {
        if let Some(m) = LOADED.with(|m| m.borrow().get(name).cloned()) {
            return Ok((m, false));
        }
        if LOADING.with(|l| l.borrow_mut().insert(name.to_string())) {
            break;
        }
        browser::sleep_ms(50).await;
    }
    let result = fetch_and_build(name, &mut progress).await;
    LOADING.with(|l| l.borrow_mut().remove(name));
    let model = result?;
    LOADED.with(|m| m.borrow_mut().insert(name.to_string(), model.clone()));
    Ok((model, true))
}

async fn fetch_and_build(name: &str, progress: &mut impl FnMut(f64)) -> Result<Arc<Model>, String> {
    let base = format!("models/{name}");
    // "Loading …" shows from the first request, not only once the weights start to arrive.
    progress(0.0);
    let config = browser::fetch_bytes(&format!("{base}/config.json"), |_, _| {}).await?;
    let tokenizer = browser::fetch_bytes(&format!("{base}/tokenizer.json"), |_, _| {}).await?;
    let weights = browser::fetch_bytes(&format!("{base}/model.safetensors"), |got, total| {
        progress(total.map_or(0.0, |t| got as f64 / t as f64))
    })
    .await?;
    let model = Arc::new(Model::from_bytes(&config, &weights, &tokenizer).map_err(|e| format!("{name}: {e}"))?);
    crate::gpu_engine::prepare(name, &model.config, &weights).await;
    Ok(model)
}

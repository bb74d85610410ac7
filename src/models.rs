//! Shipped models: the list in models/index.json (read by the page), and each model loaded on
//! demand with byte progress and kept (in the engine worker).

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use wgslate_model::catalog::{self, CatalogEntry};
use wgslate_model::Model;

use crate::{browser, download, engine_worker};

pub async fn load_index() -> Result<Vec<CatalogEntry>, String> {
    catalog::parse(&download::fetch_text("models/index.json").await?)
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
    Ok(catalog::model_names(&index, name))
}

/// The single model of the opposite direction that reranks `name`'s hypotheses (an ensemble there
/// gives its first member), if the index has one.
pub async fn reverse_model(name: &str) -> Result<Option<String>, String> {
    Ok(catalog::reranker(&index().await?, name))
}

thread_local! {
    /// Models loaded in this worker, and those being loaded (a second job waits for the first).
    static LOADED: RefCell<HashMap<String, Arc<Model>>> = RefCell::new(HashMap::new());
    static LOADING: RefCell<HashMap<String, Download>> = RefCell::new(HashMap::new());
    static DOWNLOADS_STARTED: Cell<u64> = const { Cell::new(0) };
    static INDEX: RefCell<Option<Vec<CatalogEntry>>> = const { RefCell::new(None) };
}

/// How long a download nobody waits for goes on before it stops: longer than the pages' debounce
/// (300 ms), since a keystroke cancels the running job at once and sends the next one only then.
const ORPHAN_GRACE_MS: i32 = 2000;

/// A model being fetched: the jobs that need it, and the switch that stops its download once none
/// does (the user chose another model while it came).
struct Download {
    id: u64,
    jobs: HashSet<u64>,
    abort: Option<web_sys::AbortController>,
    /// The share downloaded so far, which the jobs waiting for it report as their own progress
    /// (the page shows only current jobs' news, and the job that started it may be gone).
    share: Option<f64>,
}

/// Marks `names` as needed by `job` before it loads them one by one (an ensemble's members, a
/// reranker), so that a download already under way for a later one is not stopped meanwhile.
pub fn claim(job: u64, names: &[String]) {
    LOADING.with(|l| {
        for (name, download) in l.borrow_mut().iter_mut() {
            if names.contains(name) {
                download.jobs.insert(job);
            }
        }
    });
}

/// The model, fetched (weights with progress, as a share) and built once, with its GPU engine
/// when WebGPU works; `job` is the job that needs it (see `job_cancelled`). The flag is true for
/// the call that loaded it.
pub async fn load(name: &str, job: u64, mut progress: impl FnMut(f64)) -> Result<(Arc<Model>, bool), String> {
    // (share, when) last reported by this job while it waits for another job's download.
    let mut reported: Option<(f64, f64)> = None;
    let abort = loop {
        if let Some(m) = LOADED.with(|m| m.borrow().get(name).cloned()) {
            return Ok((m, false));
        }
        if engine_worker::cancelled(job) {
            return Err(format!("{name}: no longer needed"));
        }
        let started = LOADING.with(|l| {
            let mut l = l.borrow_mut();
            if let Some(d) = l.get_mut(name) {
                d.jobs.insert(job);
                // On a change, and once a second: a page that took the bar away (the job it was for
                // stopped) shows it again for this one.
                let now = browser::now_ms();
                if let Some(share) = d.share.filter(|&s| reported.is_none_or(|(r, t)| r != s || now - t >= 1000.0)) {
                    reported = Some((share, now));
                    progress(share);
                }
                return None;
            }
            let abort = web_sys::AbortController::new().ok();
            let id = DOWNLOADS_STARTED.with(|n| n.replace(n.get() + 1));
            l.insert(name.to_string(), Download { id, jobs: HashSet::from([job]), abort: abort.clone(), share: None });
            Some(abort)
        });
        match started {
            Some(abort) => break abort,
            None => browser::sleep_ms(50).await,
        }
    };
    let signal = abort.as_ref().map(web_sys::AbortController::signal);
    let mut progress = |share| {
        LOADING.with(|l| {
            if let Some(d) = l.borrow_mut().get_mut(name) {
                d.share = Some(share);
            }
        });
        progress(share);
    };
    let result = fetch_and_build(name, signal.as_ref(), &mut progress).await;
    LOADING.with(|l| l.borrow_mut().remove(name));
    let model = result?;
    LOADED.with(|m| m.borrow_mut().insert(name.to_string(), model.clone()));
    Ok((model, true))
}

/// Forgets a cancelled job: a download that no job needs any more stops, unless a job claims it
/// within the grace period.
pub fn job_cancelled(job: u64) {
    let orphans: Vec<(String, u64)> = LOADING.with(|l| {
        let mut l = l.borrow_mut();
        l.iter_mut()
            .filter_map(|(name, d)| (d.jobs.remove(&job) && d.jobs.is_empty()).then(|| (name.clone(), d.id)))
            .collect()
    });
    for (name, id) in orphans {
        wasm_bindgen_futures::spawn_local(async move {
            browser::sleep_ms(ORPHAN_GRACE_MS).await;
            LOADING.with(|l| {
                if let Some(d) = l.borrow().get(&name).filter(|d| d.id == id && d.jobs.is_empty()) {
                    if let Some(abort) = &d.abort {
                        abort.abort();
                    }
                }
            });
        });
    }
}

async fn fetch_and_build(
    name: &str,
    signal: Option<&web_sys::AbortSignal>,
    progress: &mut impl FnMut(f64),
) -> Result<Arc<Model>, String> {
    let base = format!("models/{name}");
    // "Loading …" shows from the first request, not only once the weights start to arrive, with
    // the share of them a stopped or cut download left (it went back to 0 % until the rest came).
    let weights_url = format!("{base}/model.safetensors");
    progress(download::kept_share(&weights_url));
    let config = download::fetch_bytes_until(&format!("{base}/config.json"), signal, |_, _| {}).await?;
    let tokenizer = download::fetch_bytes_until(&format!("{base}/tokenizer.json"), signal, |_, _| {}).await?;
    let weights = download::fetch_bytes_until(&weights_url, signal, |got, total| {
        progress(total.map_or(0.0, |t| got as f64 / t as f64))
    })
    .await?;
    let model = Arc::new(Model::from_bytes(&config, &weights, &tokenizer).map_err(|e| format!("{name}: {e}"))?);
    crate::gpu_engine::prepare(name, &model, &weights).await;
    Ok(model)
}

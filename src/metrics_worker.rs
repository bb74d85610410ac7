//! The metrics worker's side: this same wasm, started in a dedicated worker named "metrics" (www/worker.js),
//! runs one metrics job per message. A panic posts its message before the instance traps, so the
//! page can name it, throw the worker away and keep the other metrics' results.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;

use std::cell::RefCell;
use std::sync::Arc;

use wgslate_metrics::WordNet;

use crate::{download, metrics_job};

/// WordNet's synonym table (`wgslate wordnet`), fetched the first time English METEOR is asked for.
pub const WORDNET_TABLE: &str = "data/wordnet-3.0.bin";

thread_local! {
    static WORDNET: RefCell<Option<Arc<WordNet>>> = const { RefCell::new(None) };
}

/// The synonym table, fetched once (the service worker keeps it for offline use).
async fn wordnet() -> Result<Arc<WordNet>, String> {
    if let Some(w) = WORDNET.with(|w| w.borrow().clone()) {
        return Ok(w);
    }
    let bytes = download::fetch_bytes(WORDNET_TABLE, |_, _| {}).await.map_err(|e| {
        format!("METEOR for English needs WordNet's synonym table, which could not be downloaded ({e}); connect and try again, or choose another output language")
    })?;
    let table = Arc::new(WordNet::from_bytes(&bytes).map_err(|e| format!("WordNet's synonym table is damaged: {e}"))?);
    WORDNET.with(|w| *w.borrow_mut() = Some(table.clone()));
    Ok(table)
}

fn run_job(request: &serde_json::Value, wordnet: Option<Arc<WordNet>>) {
    // At most ten progress messages a second, however many lines there are.
    let mut last = 0.0;
    let mut progress = |share: f64| {
        let now = js_sys::Date::now();
        if now - last >= 100.0 {
            last = now;
            post(serde_json::json!({ "progress": share }));
        }
    };
    match metrics_job::run(request, wordnet, &mut progress) {
        Ok(result) => post(serde_json::json!({ "result": result })),
        Err(e) => post(serde_json::json!({ "error": e })),
    }
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(v: serde_json::Value) {
    let _ = scope().post_message(&JsValue::from_str(&v.to_string()));
}

/// The worker's name ("engine" or "metrics") when this instance runs in a worker, where the page's
/// `main` must not mount the app.
pub fn worker_name() -> Option<String> {
    js_sys::global().dyn_ref::<DedicatedWorkerGlobalScope>().map(DedicatedWorkerGlobalScope::name)
}

pub fn start() {
    std::panic::set_hook(Box::new(|info| post(serde_json::json!({ "panic": info.to_string() }))));
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|ev: web_sys::MessageEvent| {
        let request = match metrics_job::parse(&ev.data().as_string().unwrap_or_default()) {
            Ok(v) => v,
            Err(e) => return post(serde_json::json!({ "error": e })),
        };
        if !metrics_job::needs_wordnet(&request) {
            return run_job(&request, None);
        }
        wasm_bindgen_futures::spawn_local(async move {
            match wordnet().await {
                Ok(w) => run_job(&request, Some(w)),
                Err(e) => post(serde_json::json!({ "error": e })),
            }
        });
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(serde_json::json!({ "ready": true }));
}

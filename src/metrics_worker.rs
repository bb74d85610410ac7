//! The metrics worker's side: this same wasm, started in a dedicated worker named "metrics" (www/worker.js),
//! runs one metrics job per message. A panic posts its message before the instance traps, so the
//! page can name it, throw the worker away and keep the other metrics' results.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;

use crate::metrics_job;

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
        let request = ev.data().as_string().unwrap_or_default();
        // At most ten progress messages a second, however many lines there are.
        let mut last = 0.0;
        let mut progress = |share: f64| {
            let now = js_sys::Date::now();
            if now - last >= 100.0 {
                last = now;
                post(serde_json::json!({ "progress": share }));
            }
        };
        match metrics_job::run(&request, &mut progress) {
            Ok(result) => post(serde_json::json!({ "result": result })),
            Err(e) => post(serde_json::json!({ "error": e })),
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(serde_json::json!({ "ready": true }));
}

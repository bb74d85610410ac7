//! The WGSL engine in the engine worker: one WebGPU device, one engine per loaded model. Any failure (no
//! adapter, a lost device, a shader error) is reported and the page falls back to the CPU engine.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use wgslate_engine::{Gpu, GpuEngine};
use wgslate_model::weights::CheckedWeights;
use wgslate_model::ModelConfig;

use crate::browser;
use crate::engine_jobs::Backend;

enum DeviceState {
    Unknown,
    Ready(Gpu),
    Unavailable(String),
}

thread_local! {
    static DEVICE: RefCell<DeviceState> = const { RefCell::new(DeviceState::Unknown) };
    /// auto, gpu or cpu (the `backend` setting), read when the device is first asked for.
    static PREFERENCE: RefCell<String> = RefCell::new("auto".into());
    static ENGINES: RefCell<HashMap<String, Rc<RefCell<GpuEngine>>>> = RefCell::new(HashMap::new());
    static PREPARE_ERRORS: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
    /// The adapter's name as the browser gives it, for when wgpu's (its description) is empty.
    static ADAPTER_NAME: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Sets the backend the page asked for (auto, gpu or cpu) before the device is first requested.
pub fn set_preference(backend: &str) {
    PREFERENCE.with(|p| *p.borrow_mut() = backend.to_string());
}

fn preference() -> String {
    PREFERENCE.with(|p| p.borrow().clone())
}

/// The WebGPU device, requested once; Err says why the CPU engine is used instead. `auto` takes
/// a hardware adapter only; `gpu` any adapter; `cpu` none.
pub async fn device() -> Result<Gpu, String> {
    let known = DEVICE.with(|d| match &*d.borrow() {
        DeviceState::Ready(g) => Some(Ok(g.clone())),
        DeviceState::Unavailable(e) => Some(Err(e.clone())),
        DeviceState::Unknown => None,
    });
    if let Some(r) = known {
        return r;
    }
    let result = match preference().as_str() {
        "cpu" => Err("chosen in Settings".to_string()),
        chosen => match browser::webgpu_adapter().await {
            Err(reason) => Err(format!("WebGPU unavailable: {reason}")),
            // SwiftShader and the like run every invocation on the CPU, 100× and more slower than
            // the CPU engine on the same machine.
            Ok(adapter) if adapter.fallback && chosen == "auto" => Err(
                "the only WebGPU adapter is a software fallback, slower than this; choose GPU in Settings to use it"
                    .to_string(),
            ),
            Ok(adapter) => {
                ADAPTER_NAME.with(|n| *n.borrow_mut() = adapter.name);
                Gpu::new().await.map_err(|e| format!("WebGPU unavailable: {e}"))
            }
        },
    };
    DEVICE.with(|d| {
        *d.borrow_mut() = match &result {
            Ok(g) => DeviceState::Ready(g.clone()),
            Err(e) => DeviceState::Unavailable(e.clone()),
        }
    });
    result
}

/// Marks the GPU unusable (after an error) so later work goes to the CPU.
pub fn disable(reason: &str) {
    DEVICE.with(|d| *d.borrow_mut() = DeviceState::Unavailable(reason.to_string()));
    ENGINES.with(|e| e.borrow_mut().clear());
}

/// Builds the engine for a loaded model from its weight file bytes (when there is a device); a
/// failure is kept to name in the backend label.
pub async fn prepare(name: &str, config: &ModelConfig, weights: &[u8]) {
    let Ok(gpu) = device().await else { return };
    let built = CheckedWeights::parse(weights).and_then(|checked| GpuEngine::new(&gpu, config, &checked));
    match built {
        Ok(engine) => {
            ENGINES.with(|e| e.borrow_mut().insert(name.to_string(), Rc::new(RefCell::new(engine))));
        }
        Err(e) => {
            let why = format!("the GPU engine could not be built: {e}");
            PREPARE_ERRORS.with(|p| p.borrow_mut().insert(name.to_string(), why));
        }
    }
}

/// The model's GPU engine, if it has one.
pub fn engine(name: &str) -> Option<Rc<RefCell<GpuEngine>>> {
    ENGINES.with(|e| e.borrow().get(name).cloned())
}

/// The backend as the page names it: for a model (its engine may have failed to build), or for
/// none (`""`) the device alone.
pub async fn backend(name: &str) -> Backend {
    let failure = PREPARE_ERRORS.with(|p| p.borrow().get(name).cloned());
    match (device().await, failure) {
        (Err(why), _) | (Ok(_), Some(why)) => Backend::Cpu { why },
        (Ok(g), None) if !g.report.name.trim().is_empty() => Backend::Gpu { adapter: g.report.name.clone() },
        (Ok(_), None) => Backend::Gpu { adapter: ADAPTER_NAME.with(|n| n.borrow().clone()) },
    }
}

//! The WGSL engine in the engine worker: one WebGPU device, one engine per loaded model. Any failure (no
//! adapter, a lost device, a shader error) is reported and the page falls back to the CPU engine.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use wgslate_decode::AsyncStepModel;
use wgslate_engine::layer_probe::{self, PROBE_SENTENCE};
use wgslate_engine::{Gpu, GpuEngine};
use wgslate_model::step::CpuStepper;
use wgslate_model::weights::CheckedWeights;
use wgslate_model::Model;

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
    /// `auto`'s probes: per adapter and model shape, the GPU's and the CPU's ms for the probe.
    static PROBES: RefCell<HashMap<String, (f64, f64)>> = RefCell::new(HashMap::new());
    /// Per model whose GPU engine a probe chose: what the label says of it.
    static NOTES: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
    /// Per model, the ms its GPU engine took to build (pipelines and weights, and on a hardware
    /// adapter choosing its decoder step), for "Measure this device".
    static SETUP_MS: RefCell<HashMap<String, f64>> = RefCell::new(HashMap::new());
    /// Per model whose decoder step (fused or per-op) a probe chose: what the label says of it.
    static STEP_NOTES: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
}

/// A test's stand-in for a slow engine: the worker's global `wgslateProbeStub`, words among "gpu-slow",
/// "cpu-slow", "fused-slow" and "per-op-slow", adds 10 s to that engine's (or decoder step's) measured
/// probe (no waiting), and lets `auto` probe a software adapter (and choose its step as on a hardware one).
fn probe_stub() -> Option<String> {
    js_sys::Reflect::get(&js_sys::global(), &"wgslateProbeStub".into()).ok()?.as_string()
}

/// What the stub adds to the probe of `side`, in ms.
fn stub_ms(side: &str) -> f64 {
    match probe_stub() {
        Some(stub) if stub.split_whitespace().any(|w| w == side) => 10_000.0,
        _ => 0.0,
    }
}

/// Times greedy decoding of `PROBE_TOKENS` tokens of the probe sentence on `engine`, in ms.
async fn time_probe<M: AsyncStepModel + ?Sized>(engine: &mut M, model: &Model) -> Result<f64, String> {
    let source = model.vocab.encode(PROBE_SENTENCE)?;
    layer_probe::time_greedy(engine, &source, &browser::now_ms).await
}

/// `auto`'s choice for a model with a GPU engine: the probe's (GPU ms, CPU ms), measured once per
/// adapter and model shape.
async fn probe(engine: &mut GpuEngine, model: &Model, adapter: &str) -> Result<(f64, f64), String> {
    let key = format!("{adapter}|{:?}", model.config);
    if let Some(known) = PROBES.with(|p| p.borrow().get(&key).copied()) {
        return Ok(known);
    }
    let gpu = time_probe(engine, model).await? + stub_ms("gpu-slow");
    let mut cpu_engine = CpuStepper::new(&model.net, &model.config);
    let cpu = time_probe(&mut cpu_engine, model).await? + stub_ms("cpu-slow");
    PROBES.with(|p| p.borrow_mut().insert(key, (gpu, cpu)));
    Ok((gpu, cpu))
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
            Ok(adapter) if adapter.fallback && chosen == "auto" && probe_stub().is_none() => Err(
                "the only WebGPU adapter is a software fallback, slower than this; choose GPU in Settings to use it"
                    .to_string(),
            ),
            Ok(adapter) => {
                ADAPTER_NAME.with(|n| *n.borrow_mut() = adapter.name);
                // WebGPU reports no device type; a software adapter gets the kernels chosen for one.
                Gpu::new().await.map_err(|e| format!("WebGPU unavailable: {e}")).map(|mut gpu| {
                    if adapter.fallback {
                        gpu.report.device_type = wgslate_engine::wgpu::DeviceType::Cpu;
                    }
                    gpu
                })
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
pub async fn prepare(name: &str, model: &Model, weights: &[u8]) {
    let Ok(gpu) = device().await else { return };
    let t0 = browser::now_ms();
    let built = match CheckedWeights::parse(weights) {
        Ok(checked) => build(name, &gpu, model, &checked).await,
        Err(e) => Err(e),
    };
    SETUP_MS.with(|m| m.borrow_mut().insert(name.to_string(), browser::now_ms() - t0));
    match built {
        // `auto` measures, the first time an adapter and model shape are met, which engine is faster.
        Ok(mut engine) if preference() == "auto" => {
            let adapter = if gpu.report.name.trim().is_empty() {
                ADAPTER_NAME.with(|n| n.borrow().clone())
            } else {
                gpu.report.name.clone()
            };
            match probe(&mut engine, model, &adapter).await {
                Ok((g, c)) if g <= c => {
                    let note = format!("{:.1}× the CPU here", c / g.max(1e-3));
                    NOTES.with(|n| n.borrow_mut().insert(name.to_string(), note));
                    ENGINES.with(|e| e.borrow_mut().insert(name.to_string(), Rc::new(RefCell::new(engine))));
                }
                Ok((g, c)) => {
                    let why =
                        format!("auto: the CPU engine ran {:.1}× the GPU's speed here in a probe", g / c.max(1e-3));
                    PREPARE_ERRORS.with(|p| p.borrow_mut().insert(name.to_string(), why));
                }
                Err(e) => {
                    let why = format!("the GPU engine failed its speed probe: {e}");
                    PREPARE_ERRORS.with(|p| p.borrow_mut().insert(name.to_string(), why));
                }
            }
        }
        Ok(engine) => {
            ENGINES.with(|e| e.borrow_mut().insert(name.to_string(), Rc::new(RefCell::new(engine))));
        }
        Err(e) => {
            let why = format!("the GPU engine could not be built: {e}");
            PREPARE_ERRORS.with(|p| p.borrow_mut().insert(name.to_string(), why));
        }
    }
}

/// The model's engine as `layer_probe::chosen_engine` builds it (on a hardware adapter, the decoder
/// step that decoded a probe faster here; the label then says which).
async fn build(name: &str, gpu: &Gpu, model: &Model, weights: &CheckedWeights) -> Result<GpuEngine, String> {
    STEP_NOTES.with(|n| n.borrow_mut().remove(name));
    let slow = [stub_ms("fused-slow"), stub_ms("per-op-slow")];
    let (engine, times) = layer_probe::chosen_engine(gpu, model, weights, &browser::now_ms, slow).await?;
    if let Some(times) = times {
        STEP_NOTES.with(|n| n.borrow_mut().insert(name.to_string(), times.note()));
    }
    Ok(engine)
}

/// The ms the model's GPU engine took to build (its pipelines' compilation and the weights' upload).
pub fn setup_ms(name: &str) -> Option<f64> {
    SETUP_MS.with(|m| m.borrow().get(name).copied())
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
        (Ok(g), None) => {
            let adapter = match g.report.name.trim().is_empty() {
                false => g.report.name.clone(),
                true => ADAPTER_NAME.with(|n| n.borrow().clone()),
            };
            let notes =
                [NOTES.with(|n| n.borrow().get(name).cloned()), STEP_NOTES.with(|n| n.borrow().get(name).cloned())];
            Backend::Gpu { adapter, note: notes.into_iter().flatten().collect::<Vec<_>>().join("; ") }
        }
    }
}

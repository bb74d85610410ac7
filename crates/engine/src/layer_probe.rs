//! Fused or per-op decoder steps, measured rather than guessed. A fused step (a Transformer's layer,
//! a GRU's whole step) gives each row one workgroup: on a CPU adapter that is the faster path for the
//! Transformer, but at batch 1 a hardware GPU then runs a layer on one of its multiprocessors (an
//! H100 took 0.82 ms a token fused, docs/benchmarks.md). So on a hardware adapter the engine is built
//! both ways, each times the same greedy decode, and the faster is kept.

use wgslate_decode::{greedy_async, AsyncStepModel, LengthLimits};
use wgslate_model::config::ModelConfig;
use wgslate_model::weights::CheckedWeights;
use wgslate_model::Model;

use crate::{Gpu, GpuEngine, KernelParams};

/// The probes' sentence and the tokens they time; the page's CPU-or-GPU probe times the same.
pub const PROBE_SENTENCE: &str = "A man in a blue shirt is walking a dog in the park.";
pub const PROBE_TOKENS: usize = 8;

/// The least of three timed greedy decodes of `PROBE_TOKENS` tokens of `source` on `engine`, in ms
/// of the clock `now`, after one untimed run (which creates pipelines' buffers and bind groups).
pub async fn time_greedy<M: AsyncStepModel + ?Sized>(
    engine: &mut M,
    source: &[u32],
    now: &dyn Fn() -> f64,
) -> Result<f64, String> {
    let limits = LengthLimits { a: 0.0, b: PROBE_TOKENS, min_len: PROBE_TOKENS };
    let sources = [source.to_vec()];
    greedy_async(engine, &sources, limits, false).await?;
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let t0 = now();
        greedy_async(engine, &sources, limits, false).await?;
        best = best.min(now() - t0);
    }
    Ok(best)
}

/// The probe's result: the ms of the fused and of the per-op engine, each with what `slow` added.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepTimes {
    pub fused_ms: f64,
    pub per_op_ms: f64,
}

impl StepTimes {
    /// What the backend label says of the choice.
    pub fn note(&self) -> String {
        let (f, p) = (self.fused_ms.max(1e-3), self.per_op_ms.max(1e-3));
        match f <= p {
            true => format!("fused steps: per-op took {:.1}× as long", p / f),
            false => format!("per-op steps: fused took {:.1}× as long", f / p),
        }
    }
}

/// The model's engine with its decoder step fused for this architecture, or per-op.
fn build(gpu: &Gpu, config: &ModelConfig, weights: &CheckedWeights, fused: bool) -> Result<GpuEngine, String> {
    let base = KernelParams::for_gpu(gpu);
    let params = match config {
        ModelConfig::Transformer(_) => KernelParams { fused_layers: fused, ..base },
        ModelConfig::Gru(_) => KernelParams { fused_gru_step: fused, ..base },
    };
    GpuEngine::with_params(gpu, config, weights, params)
}

/// The model's engine as the CLI and the page run it: on a CPU adapter with the kernels chosen for
/// one (`KernelParams::for_gpu`); on a hardware adapter, or where `slow` makes a side slow (a test's
/// stub), with the step [`probed_engine`] finds faster.
pub async fn chosen_engine(
    gpu: &Gpu,
    model: &Model,
    weights: &CheckedWeights,
    now: &dyn Fn() -> f64,
    slow: [f64; 2],
) -> Result<(GpuEngine, Option<StepTimes>), String> {
    if gpu.report.device_type == wgpu::DeviceType::Cpu && slow == [0.0; 2] {
        return Ok((GpuEngine::new(gpu, &model.config, weights)?, None));
    }
    probed_engine(gpu, model, weights, now, slow).await
}

/// The engine whose decoder step (fused or per-op) decoded the probe sentence faster here, and the
/// times; the per-op engine and no times when the model has no fused step here (its shape, or the
/// device's limits) or the fused engine fails. `slow` adds ms to the fused and the per-op side.
async fn probed_engine(
    gpu: &Gpu,
    model: &Model,
    weights: &CheckedWeights,
    now: &dyn Fn() -> f64,
    slow: [f64; 2],
) -> Result<(GpuEngine, Option<StepTimes>), String> {
    let (config, source) = (&model.config, model.vocab.encode(PROBE_SENTENCE)?);
    let source = source.as_slice();
    let fused = match build(gpu, config, weights, true) {
        Ok(mut engine) if engine.fused() => match time_greedy(&mut engine, source, now).await {
            Ok(ms) => Some((engine, ms + slow[0])),
            Err(_) => None,
        },
        _ => None,
    };
    let mut per_op = build(gpu, config, weights, false)?;
    let Some((fused, fused_ms)) = fused else { return Ok((per_op, None)) };
    let per_op_ms = time_greedy(&mut per_op, source, now).await? + slow[1];
    let times = StepTimes { fused_ms, per_op_ms };
    // A tie goes to the fused step: fewer dispatches.
    Ok((if fused_ms <= per_op_ms { fused } else { per_op }, Some(times)))
}

//! Fused or per-op decoder steps, measured rather than guessed. A fused step (a Transformer's layers,
//! a GRU's whole step) gives each row one workgroup: on a CPU adapter that is the faster path, but at batch 1 a hardware GPU then runs a
//! layer on one of its multiprocessors (an H100 took 0.82 ms a token fused, docs/benchmarks.md). So on a
//! hardware adapter the engine is built both ways, each times the same greedy decode, and the caller
//! keeps the faster.

use wgslate_decode::{greedy_async, LengthLimits};
use wgslate_model::config::ModelConfig;
use wgslate_model::weights::CheckedWeights;

use crate::layer::LayerShape;
use crate::{Gpu, GpuEngine, KernelParams};

/// Whether the model's decoder step has a fused path to choose on this device.
pub fn has_fused_path(gpu: &Gpu, config: &ModelConfig) -> bool {
    match config {
        ModelConfig::Transformer(c) => LayerShape { d: c.d_model, d_ff: c.d_ff, heads: c.n_heads }.fits(),
        ModelConfig::Gru(c) => crate::kernels::binds_gru_step(gpu) && crate::gru::step_shape(c).fits(),
    }
}

/// The probes' sentence and the tokens they time (after one untimed run); the page's CPU-or-GPU
/// probe times the same.
pub const PROBE_SENTENCE: &str = "A man in a blue shirt is walking a dog in the park.";
pub const PROBE_TOKENS: usize = 8;

/// An engine built one way, and the ms its probe took.
pub struct Timed {
    pub engine: GpuEngine,
    pub ms: f64,
}

/// Builds the engine with fused and then with per-op steps and times `tokens` greedy tokens of
/// `source` on each, after one untimed run (which creates the pipelines' buffers and bind groups);
/// `now` is a clock in ms. None when the model has no fused path ([`has_fused_path`]).
pub async fn time_step_paths(
    gpu: &Gpu,
    config: &ModelConfig,
    weights: &CheckedWeights,
    source: &[u32],
    tokens: usize,
    now: &dyn Fn() -> f64,
) -> Result<Option<[Timed; 2]>, String> {
    if !has_fused_path(gpu, config) {
        return Ok(None);
    }
    let limits = LengthLimits { a: 0.0, b: tokens, min_len: tokens };
    let sources = [source.to_vec()];
    let mut timed = Vec::with_capacity(2);
    for fused in [true, false] {
        let params = KernelParams::for_gpu(gpu).with_fused_steps(fused);
        let mut engine = GpuEngine::with_params(gpu, config, weights, params)?;
        greedy_async(&mut engine, &sources, limits, false).await?;
        let t0 = now();
        greedy_async(&mut engine, &sources, limits, false).await?;
        timed.push(Timed { engine, ms: now() - t0 });
    }
    let per_op = timed.pop().expect("two engines");
    let fused = timed.pop().expect("two engines");
    Ok(Some([fused, per_op]))
}

/// The faster of the two (fused on a tie: fewer dispatches).
pub fn faster([fused, per_op]: [Timed; 2]) -> Timed {
    if fused.ms <= per_op.ms {
        fused
    } else {
        per_op
    }
}

//! "Measure this device", in the engine worker: the settings' model timed on its GPU engine and on
//! the CPU engine over the same sentences (ms per token at batch 1, greedy and beam 4; the first
//! token's latency; sentences per second batched; what the GPU is asked per token; whether the
//! tokens agree), and the memory benchmark (many translations of varied length and beam, the
//! worker's wasm memory and the GPU engine's scratch memory sampled as they go).

use std::ops::Range;
use std::sync::Arc;

use wasm_bindgen::JsCast;
use wgslate_decode::{AsyncStepModel, BeamConfig, LengthLimits, Search};
use wgslate_engine::Cost;
use wgslate_model::step::CpuStepper;
use wgslate_model::translate::{translate_with_async, Translation};
use wgslate_model::Model;

use crate::engine_jobs::{settings_of, Backend, Event, GpuSpeed, MemoryPoint, Speed, TokenCost};
use crate::engine_worker::{load, lock, Checked};
use crate::{browser, gpu_engine};

/// The most sentences a measurement times (the page sends the direction's first test sentences).
pub const MEASURED_SENTENCES: usize = 8;
/// The memory benchmark's largest run, and how often it samples.
pub const MAX_MEMORY_TRANSLATIONS: usize = 1000;
const MEMORY_SAMPLE_EVERY: usize = 50;

/// The parts the page asks for, one job each, so that it shows the samples as they come and a Stop
/// keeps them: each part ends at a sample (the first translation, every 50th, the last).
pub fn memory_parts(n: usize) -> Vec<Range<usize>> {
    let samples = (1..=n).filter(|&t| t == 1 || t == n || t % MEMORY_SAMPLE_EVERY == 0);
    samples.scan(0, |from, end| Some(std::mem::replace(from, end)..end)).collect()
}

/// The engine worker's wasm memory, in bytes.
pub fn wasm_memory_bytes() -> f64 {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    memory.buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length() as f64
}

fn beam4() -> Search {
    Search::Beam(BeamConfig { beam: 4, ..Default::default() })
}

/// Output tokens of each sentence's best output, EOS included.
fn tokens_out(done: &[Translation]) -> usize {
    done.iter().map(|t| t.outputs.first().map_or(0, |o| o.1.tokens.len()) + 1).sum()
}

fn best_tokens(done: &[Translation]) -> Vec<Vec<u32>> {
    done.iter().map(|t| t.outputs.first().map(|o| o.1.tokens.clone()).unwrap_or_default()).collect()
}

/// Runs `search` over `texts` one sentence at a time: (the translations, ms per output token).
async fn timed<M: AsyncStepModel + ?Sized>(
    engine: &mut M,
    model: &Model,
    texts: &[String],
    search: &Search,
) -> Result<(Vec<Translation>, f64), String> {
    let t0 = browser::now_ms();
    let done = translate_with_async(engine, model, texts, search, 1, false).await?;
    let ms = (browser::now_ms() - t0) / tokens_out(&done).max(1) as f64;
    Ok((done, ms))
}

fn per_token(c: Cost, tokens: usize) -> TokenCost {
    let per = |v: u64| v as f64 / tokens.max(1) as f64;
    TokenCost {
        dispatches: per(c.dispatches),
        submissions: per(c.submissions),
        readbacks: per(c.readbacks),
        bytes_read: per(c.bytes_read),
    }
}

fn backend_label(backend: &Backend) -> String {
    match backend {
        Backend::Gpu { adapter, note } if note.is_empty() => format!("GPU (WebGPU: {adapter})"),
        Backend::Gpu { adapter, note } => format!("GPU (WebGPU: {adapter}; {note})"),
        Backend::Cpu { why } => format!("CPU ({why})"),
    }
}

/// The settings' model, the name its GPU engine is kept under, and the model.
async fn one_model(id: u64, settings: &[(String, String)]) -> Result<(String, String, Arc<Model>), String> {
    let s = settings_of(settings);
    let models = load(id, &s).await?;
    let names = crate::models::model_names(&s.model).await?;
    match (models.len(), names.first()) {
        (1, Some(member)) => Ok((s.model.clone(), member.clone(), models[0].clone())),
        _ => Err("measure one model at a time: choose a single model (not an ensemble) in Settings".into()),
    }
}

fn checked_texts(texts: &[String]) -> Result<&[String], String> {
    match texts.len() {
        0 => Err("no sentences to measure with: the direction's test set could not be loaded".into()),
        n => Ok(&texts[..n.min(MEASURED_SENTENCES)]),
    }
}

/// The `Measure` job.
// The engine's RefCell is the lock, as in the engine worker's jobs.
#[allow(clippy::await_holding_refcell_ref)]
pub async fn speed(id: u64, settings: &[(String, String)], texts: &[String]) -> Result<Event, String> {
    let texts = checked_texts(texts)?;
    let (name, engine_name, model) = one_model(id, settings).await?;
    let backend = gpu_engine::backend(&engine_name).await;
    let mut cpu = CpuStepper::new(&model.net, &model.config);
    let mut cpu_engine = Checked::new(id, &mut cpu);
    let (cpu_greedy, cpu_greedy_ms) = timed(&mut cpu_engine, &model, texts, &Search::default()).await?;
    let (cpu_beam, cpu_beam_ms) = timed(&mut cpu_engine, &model, texts, &beam4()).await?;
    let gpu = match gpu_engine::engine(&engine_name) {
        None => None,
        Some(engine) => {
            let mut guard = lock(&engine).await;
            let gpu = guard.gpu().clone();
            let mut e = Checked::new(id, &mut *guard);
            // The first sentence's first token: once to create what a first run creates, then timed.
            let one = Search::Greedy(LengthLimits { a: 0.0, b: 1, min_len: 0 });
            translate_with_async(&mut e, &model, &texts[..1], &one, 1, false).await?;
            let t0 = browser::now_ms();
            translate_with_async(&mut e, &model, &texts[..1], &one, 1, false).await?;
            let first_token_ms = browser::now_ms() - t0;
            let before = gpu.cost();
            let (greedy, greedy_ms) = timed(&mut e, &model, texts, &Search::default()).await?;
            let greedy_cost = per_token(gpu.cost() - before, tokens_out(&greedy));
            let before = gpu.cost();
            let (beam, beam_ms) = timed(&mut e, &model, texts, &beam4()).await?;
            let beam4_cost = per_token(gpu.cost() - before, tokens_out(&beam));
            let many: Vec<String> = texts.iter().cycle().take(4 * texts.len()).cloned().collect();
            let t0 = browser::now_ms();
            translate_with_async(&mut e, &model, &many, &Search::default(), 8, false).await?;
            let sentences_per_second_batched = many.len() as f64 / ((browser::now_ms() - t0) / 1000.0).max(1e-6);
            let equal = |a: &[Translation], b: &[Translation]| {
                best_tokens(a).iter().zip(best_tokens(b)).filter(|(x, y)| **x == *y).count()
            };
            Some(GpuSpeed {
                setup_ms: gpu_engine::setup_ms(&engine_name),
                first_token_ms,
                greedy_ms_per_token: greedy_ms,
                beam4_ms_per_token: beam_ms,
                sentences_per_second_batched,
                greedy_cost,
                beam4_cost,
                greedy_equal: equal(&greedy, &cpu_greedy),
                beam4_equal: equal(&beam, &cpu_beam),
            })
        }
    };
    Ok(Event::Measured(Box::new(Speed {
        model: name,
        backend: backend_label(&backend),
        sentences: texts.len(),
        cpu_greedy_ms_per_token: cpu_greedy_ms,
        cpu_beam4_ms_per_token: cpu_beam_ms,
        gpu,
        wasm_memory_bytes: wasm_memory_bytes(),
    })))
}

/// The `Memory` job: translations `part` (numbered from 0) of the memory benchmark, where translation
/// i is sentence i (every third one the sentences joined, a long input) with beam 1, 2, 4, 8 or 16 in
/// turn, on the GPU engine when the model has one; sampled after the part's last translation.
#[allow(clippy::await_holding_refcell_ref)]
pub async fn memory(
    id: u64,
    settings: &[(String, String)],
    texts: &[String],
    part: Range<usize>,
) -> Result<Event, String> {
    if part.is_empty() || part.end > MAX_MEMORY_TRANSLATIONS {
        let (first, last) = (part.start.saturating_add(1), part.end);
        return Err(format!(
            "a part of the memory benchmark is one or more of its translations 1 to {MAX_MEMORY_TRANSLATIONS}, not {first} to {last}"
        ));
    }
    let texts = checked_texts(texts)?;
    let (_, engine_name, model) = one_model(id, settings).await?;
    let backend = backend_label(&gpu_engine::backend(&engine_name).await);
    let long = texts.join(" ");
    // On the CPU engine a stepper per part, as a translation job has one per job.
    let mut cpu = CpuStepper::new(&model.net, &model.config);
    let engine = gpu_engine::engine(&engine_name);
    for i in part.clone() {
        let text = if i % 3 == 2 { long.clone() } else { texts[i % texts.len()].clone() };
        let search = match [1, 2, 4, 8, 16][i % 5] {
            1 => Search::default(),
            beam => Search::Beam(BeamConfig { beam, ..Default::default() }),
        };
        let one = std::slice::from_ref(&text);
        match &engine {
            Some(engine) => {
                let mut guard = lock(engine).await;
                translate_with_async(&mut Checked::new(id, &mut *guard), &model, one, &search, 1, false).await?;
            }
            None => {
                translate_with_async(&mut Checked::new(id, &mut cpu), &model, one, &search, 1, false).await?;
            }
        }
    }
    let (gpu_scratch_bytes, gpu_objects) = match &engine {
        Some(engine) => {
            let guard = lock(engine).await;
            (Some(guard.scratch_bytes() as f64), Some(guard.objects_created()))
        }
        None => (None, None),
    };
    let point = MemoryPoint { translations: part.end, wasm_bytes: wasm_memory_bytes(), gpu_scratch_bytes, gpu_objects };
    Ok(Event::Memory { point, backend })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_parts_end_at_the_samples_and_cover_the_run_once() {
        assert_eq!(memory_parts(1), vec![0..1]);
        assert_eq!(memory_parts(7), vec![0..1, 1..7]);
        assert_eq!(memory_parts(50), vec![0..1, 1..50]);
        assert_eq!(memory_parts(51), vec![0..1, 1..50, 50..51]);
        assert_eq!(memory_parts(120), vec![0..1, 1..50, 50..100, 100..120]);
        assert!(memory_parts(0).is_empty());
        let parts = memory_parts(MAX_MEMORY_TRANSLATIONS);
        assert_eq!(parts.len(), 21);
        assert!(parts.windows(2).all(|w| w[0].end == w[1].start && !w[1].is_empty()));
        assert_eq!(parts.last().map(|p| p.end), Some(MAX_MEMORY_TRANSLATIONS));
    }
}

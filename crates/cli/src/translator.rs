//! What `translate` and `eval` translate with: the engines, made once (a GPU engine's weight upload
//! is its slow part) and used for every chunk of the input, so that `translate` writes each chunk
//! as it is done; and, with `--rerank`, the reverse model's engine.

use wgslate_decode::{block_on, forced_scores, Blocking, Ensemble, ForcedScore, Search, StepModel};
use wgslate_engine::layer_probe::chosen_engine;
use wgslate_engine::Gpu;
use wgslate_model::rerank::rerank_async;
use wgslate_model::step::CpuStepper;
use wgslate_model::translate::{translate_from_async, Translation};
use wgslate_model::weights::CheckedWeights;
use wgslate_model::Model;

/// The reverse model that reorders each beam's n-best, and its weight.
pub struct Reranker<'a> {
    pub dir: &'a str,
    pub model: &'a Model,
    pub weight: f32,
}

/// A reverse model on its engine, ready to rescore.
struct Rescorer<'a> {
    engine: Box<dyn StepModel + 'a>,
    model: &'a Model,
    weight: f32,
}

pub struct Translator<'a> {
    stepper: Box<dyn StepModel + 'a>,
    model: &'a Model,
    search: Search,
    batch: usize,
    rescorer: Option<Rescorer<'a>>,
    /// The backend used, as `eval` reports it.
    pub backend: String,
}

impl<'a> Translator<'a> {
    /// Every model in `models` (from `dirs`) on `backend`: an ensemble when there are several.
    pub fn new(
        backend: &str,
        dirs: &[String],
        models: &'a [Model],
        search: &Search,
        batch: usize,
        reranker: Option<Reranker<'a>>,
    ) -> Result<Self, String> {
        let (mut members, mut name) = engines(backend, dirs, models)?;
        let stepper: Box<dyn StepModel + 'a> = match members.len() {
            1 => members.pop().expect("one member"),
            n => {
                name = format!("{name}, ensemble of {n}");
                Box::new(Ensemble::new(members)?)
            }
        };
        let rescorer = match reranker {
            None => None,
            Some(Reranker { dir, model, weight }) => {
                let (mut engine, _) =
                    engines(backend, std::slice::from_ref(&dir.to_string()), std::slice::from_ref(model))?;
                name = format!("{name}, reranked by {dir} with weight {weight}");
                Some(Rescorer { engine: engine.pop().expect("one engine"), model, weight })
            }
        };
        Ok(Self { stepper, model: &models[0], search: search.clone(), batch, rescorer, backend: name })
    }

    /// Each target's per-subword log-probabilities and ranks as the translation of its source
    /// (subword ids, the sources' with EOS, the targets' without).
    pub fn score(&mut self, sources: &[Vec<u32>], targets: &[Vec<u32>]) -> Result<Vec<ForcedScore>, String> {
        let mut out = Vec::with_capacity(sources.len());
        for (s, t) in sources.chunks(self.batch).zip(targets.chunks(self.batch)) {
            out.extend(forced_scores(self.stepper.as_mut(), s, t)?);
        }
        Ok(out)
    }

    /// `texts` translated (and reranked, with a reverse model), in their order.
    pub fn translate(&mut self, texts: &[String]) -> Result<Vec<Translation>, String> {
        self.translate_from(texts, &[])
    }

    /// `texts` translated, `texts[i]`'s output beginning with `prefixes[i]` (no prefixes: none).
    pub fn translate_from(&mut self, texts: &[String], prefixes: &[Vec<u32>]) -> Result<Vec<Translation>, String> {
        let (model, search, batch) = (self.model, &self.search, self.batch);
        let mut out =
            block_on(translate_from_async(self.stepper.as_mut(), model, texts, prefixes, search, batch, false))?;
        if let Some(Rescorer { engine, model, weight }) = &mut self.rescorer {
            block_on(rerank_async(engine.as_mut(), model, texts, &mut out, *weight, self.batch))?;
        }
        Ok(out)
    }
}

/// The step models to translate with on the backend asked for: `gpu` (the WGSL engine), `cpu`
/// (the candle reference), or `auto` (the WGSL engine on a hardware adapter; the CPU reference when
/// there is none or the only one is a CPU emulation such as lavapipe, where it is 10–30× slower
/// than candle). One per model; several make an ensemble. Also returns the backend's name.
fn engines<'a>(
    backend: &str,
    dirs: &[String],
    models: &'a [Model],
) -> Result<(Vec<Box<dyn StepModel + 'a>>, String), String> {
    let cpu = |why: String| {
        let members =
            models.iter().map(|m| Box::new(CpuStepper::new(&m.net, &m.config)) as Box<dyn StepModel>).collect();
        Ok((members, why))
    };
    if backend == "cpu" {
        return cpu("cpu".into());
    }
    let gpu = match Gpu::new_blocking() {
        Ok(g) => g,
        Err(e) if backend == "auto" => {
            eprintln!("wgslate: {e}; using the CPU");
            return cpu("cpu".into());
        }
        Err(e) => return Err(format!("{e} (--backend auto or cpu translates on the CPU)")),
    };
    if gpu.report.device_type == wgslate_engine::wgpu::DeviceType::Cpu {
        if backend == "auto" {
            return cpu(format!("cpu (auto: the only adapter, {}, is a CPU emulation)", gpu.report.name));
        }
        // Asked for, so run there; but it is no GPU, and the CPU reference is 2–14× faster (README's
        // `bench` table, lavapipe against candle; said once: a reranker's engines come here too).
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            eprintln!(
                "wgslate: the only adapter, {}, is a CPU emulation: --backend cpu (or auto) translates several times faster",
                gpu.report.name
            )
        });
    }
    let mut members: Vec<Box<dyn StepModel>> = Vec::new();
    for (dir, model) in dirs.iter().zip(models) {
        let bytes = std::fs::read(format!("{dir}/model.safetensors")).map_err(|e| format!("{dir}: {e}"))?;
        let weights = CheckedWeights::parse(&bytes)?;
        // On a hardware GPU, the decoder step (fused or per-op) that decoded a probe faster there.
        let t0 = std::time::Instant::now();
        let now = || t0.elapsed().as_secs_f64() * 1e3;
        let (engine, _) = block_on(chosen_engine(&gpu, model, &weights, &now, [0.0; 2]))?;
        members.push(Box::new(Blocking(engine)));
    }
    Ok((members, format!("gpu ({}, {:?})", gpu.report.name, gpu.report.device_type)))
}

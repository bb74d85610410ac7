//! The engine worker: this same wasm, started in a dedicated worker named "engine", holds the loaded
//! models and runs every translation (CPU or WebGPU), so the page's thread only renders. Jobs check
//! for cancellation before every decoder step and yield to the worker's event loop every 50 ms, so
//! a newer job or a Stop is answered within one step.

use std::cell::{RefCell, RefMut};
use std::collections::HashSet;
use std::sync::Arc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;
use wgslate_decode::{
    forced_scores_async, settings::RERANK_WEIGHT, trace_search_async, AsyncEnsemble, AsyncStepModel, ChainedPicks,
    Ensemble, ForcedScore, Hypothesis, Prefixed, Search, Settings, StepModel, StepOutput, TopKOutput, Trace,
};
use wgslate_engine::GpuEngine;
use wgslate_model::attention::{attention_maps, MAX_SIDE};
use wgslate_model::rerank::rerank_async;
use wgslate_model::step::CpuStepper;
use wgslate_model::translate::{
    check_prefix, encode_prefix, encode_sources, special_tokens_refused, translate_with_async, Notices, Translation,
};
use wgslate_model::Model;

use crate::engine_jobs::{
    settings_of, Backend, Event, Job, Lab, Output, Reply, Request, Scored, SearchChoice, ATTENTION_OF_ONE_MODEL,
    COMPARE_MIN_BEAM,
};
use crate::{browser, gpu_engine, models};

thread_local! {
    static CANCELLED: RefCell<HashSet<u64>> = RefCell::new(HashSet::new());
}

fn post(reply: &Reply) {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let text = serde_json::to_string(reply).unwrap_or_default();
    let _ = scope.post_message(&JsValue::from_str(&text));
}

fn send(id: u64, event: Event) {
    post(&Reply::Event { id, event });
}

pub fn cancelled(id: u64) -> bool {
    CANCELLED.with(|c| c.borrow().contains(&id))
}

pub fn start() {
    std::panic::set_hook(Box::new(|info| post(&Reply::Panic(info.to_string()))));
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|ev: web_sys::MessageEvent| {
        match serde_json::from_str::<Request>(&ev.data().as_string().unwrap_or_default()) {
            Ok(Request::Cancel { id }) => {
                CANCELLED.with(|c| c.borrow_mut().insert(id));
                models::job_cancelled(id);
            }
            Ok(Request::Run { id, job }) => wasm_bindgen_futures::spawn_local(async move {
                let event = match run(id, job).await {
                    Ok(event) => event,
                    Err(_) if cancelled(id) => Event::Cancelled,
                    Err(e) => Event::Failed(e),
                };
                CANCELLED.with(|c| c.borrow_mut().remove(&id));
                send(id, event);
            }),
            Err(e) => post(&Reply::Panic(format!("the engine worker got a message it cannot read: {e}"))),
        }
    });
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(&Reply::Ready);
}

/// Runs one job to its last event (`Finished`, `Attention`), sending the others on the way.
async fn run(id: u64, job: Job) -> Result<Event, String> {
    match job {
        Job::Backend { backend } => {
            gpu_engine::set_preference(&backend);
            send(id, Event::Backend { backend: gpu_engine::backend("").await, members: 0 });
            Ok(Event::Finished { notices: Notices::default(), search_ms: None })
        }
        Job::Load { settings } => {
            load(id, &settings_of(&settings)).await?;
            Ok(Event::Finished { notices: Notices::default(), search_ms: None })
        }
        Job::Translate { settings, texts, search, batch } => {
            let s = settings_of(&settings);
            let models = load(id, &s).await?;
            let model = &models[0];
            // Compare's fixed searches stay plain; the Translate view's (and its evaluation's) follow the setting.
            let rerank = matches!(search, SearchChoice::Settings) && s.reranks();
            let search = match search {
                SearchChoice::Settings => s.search(),
                SearchChoice::Greedy => Search::Greedy(s.limits()),
                SearchChoice::Beam => Search::Beam(s.beam_search(s.beam.max(COMPARE_MIN_BEAM))),
                SearchChoice::Sample => Search::Sample(s.sampling()),
            };
            // Without the reverse model (offline, not kept) the beam's own best still translates.
            let reverse = match rerank {
                true => load_reverse(id, &s.model)
                    .await
                    .map_err(|e| send(id, Event::RerankSkipped(format!("{e}; translated without reranking"))))
                    .ok(),
                false => None,
            };
            // After both downloads: the time the search (and rerank) took.
            let search_from = crate::browser::now_ms();
            let mut told = Notices::default();
            for (n, chunk) in texts.chunks(batch.max(1)).enumerate() {
                let mut done = translate_chunk(id, &s.model, &models, chunk, &search, batch).await?;
                if let Some((reverse_name, reverse_model)) = &reverse {
                    rerank_chunk(id, reverse_name, reverse_model, chunk, &mut done, batch).await?;
                }
                let sentences = done.iter().map(|t| outputs(model, t)).collect();
                let first = n * batch.max(1);
                let notices = Notices::of(model, chunk, &done).renumbered(|i| first + i);
                told.merge(notices.clone());
                send(id, Event::Done { first, sentences, notices });
            }
            Ok(Event::Finished { notices: told, search_ms: Some(crate::browser::now_ms() - search_from) })
        }
        Job::Lab { settings, text, candidate } => lab(id, &settings, &text, &candidate).await,
        Job::Measure { settings, texts } => crate::device_measure::speed(id, &settings, &texts).await,
        Job::Memory { settings, texts, translations } => {
            crate::device_measure::memory(id, &settings, &texts, translations).await
        }
        Job::Attention { settings, text } => {
            let s = settings_of(&settings);
            let models = load(id, &s).await?;
            if models.len() > 1 {
                return Err(ATTENTION_OF_ONE_MODEL.into());
            }
            let model = &models[0];
            let texts = std::slice::from_ref(&text);
            // The search runs on the chosen backend, as Translate's does; the maps of every layer
            // and head come from the CPU reference's forced decoding of its output.
            let mut out = translate_chunk(id, &s.model, &models, texts, &s.search(), 1).await?;
            // The output the Translate view shows: a Best quality beam is reranked there too.
            if s.reranks() {
                let (reverse_name, reverse_model) = load_reverse(id, &s.model).await.inspect_err(|e| {
                    send(id, Event::LoadFailed(e.clone()));
                })?;
                rerank_chunk(id, &reverse_name, &reverse_model, texts, &mut out, 1).await?;
            }
            let notices = Notices::of(model, texts, &out);
            let h = &out.first().and_then(|t| t.outputs.first()).ok_or("the search found no translation")?.1;
            let source_ids = encode_sources(model, texts)?.remove(0).0;
            // Pooled here: the full maps of a long input are tens of MB to send and parse.
            let maps = attention_maps(model, &source_ids, &h.tokens)?.pooled(MAX_SIDE);
            let mut target = model.vocab.token_strings(&h.tokens);
            target.push("</s>".into());
            Ok(Event::Attention { maps, source: model.vocab.token_strings(&source_ids), target, notices })
        }
    }
}

/// The Search view's job: the search's trace from the prefix, and the candidate's forced score.
async fn lab(id: u64, settings: &[(String, String)], text: &str, candidate: &str) -> Result<Event, String> {
    let s = settings_of(settings);
    let models = load(id, &s).await?;
    let model = &models[0];
    let texts = [text.to_string()];
    let (source_ids, cut) = encode_sources(model, &texts)?.pop().ok_or("no sentence to search")?;
    let prefix = encode_prefix(model, &s.prefix)?;
    let search = s.search();
    check_prefix(model, &search, source_ids.len(), &prefix)?;
    let candidate_ids = match candidate.trim() {
        "" => None,
        c => Some({
            let mut ids = model.vocab.encode(c)?;
            ids.pop(); // EOS: scoring adds it
            special_tokens_refused(model, &ids, "the translation to score")?;
            ids
        }),
    };
    let input = LabInput {
        source: source_ids.clone(),
        prefix: prefix.clone(),
        search: search.clone(),
        candidate: candidate_ids.clone(),
    };
    let Worked::Lab(hyps, trace, scored) = on_engine(id, &s.model, &models, Work::Lab(&input)).await? else {
        return Err("the engine answered another job".into());
    };
    let mut ids: Vec<u32> = trace.nodes.iter().skip(1).map(|n| n.token).collect();
    ids.sort_unstable();
    ids.dedup();
    let words = ids.iter().zip(model.vocab.token_strings(&ids)).map(|(&t, w)| (t, w)).collect();
    let translation = Translation {
        source_ids,
        truncated: cut,
        outputs: hyps.into_iter().map(|h| (model.vocab.decode(&h.tokens), h)).collect(),
    };
    let notices = Notices::of(model, &texts, std::slice::from_ref(&translation));
    let candidate = scored.zip(candidate_ids).map(|(f, ids)| {
        let kept = f.token_log_probs.len().saturating_sub(1);
        let mut shown: Vec<u32> = ids.iter().copied().take(kept).collect();
        shown.push(wgslate_model::config::EOS_ID);
        let mut subwords = model.vocab.token_strings(&shown);
        if let Some(last) = subwords.last_mut() {
            *last = "</s>".into();
        }
        Scored {
            subwords,
            total: f.total(),
            cut: ids.len() - kept,
            unseen: model.vocab.unseen_chars(candidate),
            token_log_probs: f.token_log_probs,
            ranks: f.ranks,
        }
    });
    Ok(Event::Lab(Box::new(Lab {
        source: model.vocab.token_strings(&translation.source_ids),
        trace,
        words,
        outputs: outputs(model, &translation),
        search: search.label(false),
        prefix_len: prefix.len(),
        candidate,
        notices,
    })))
}

/// The model of the opposite direction, for reranking (loaded on first use, with its progress).
/// The caller says why when there is none.
async fn load_reverse(id: u64, name: &str) -> Result<(String, Arc<Model>), String> {
    let reverse = models::reverse_model(name)
        .await?
        .ok_or_else(|| format!("{name} has no model of the opposite direction to rerank with"))?;
    let progress = |share| send(id, Event::Loading { model: reverse.clone(), share });
    let (model, _) = models::load(&reverse, id, progress)
        .await
        .map_err(|e| format!("Could not load {reverse} to rerank with: {e}"))?;
    let status = format!("{name} loaded, {reverse} to rerank with: weights {}", model.weight_format);
    send(id, Event::Loaded { status, models: vec![reverse.clone()], partial: false });
    Ok((reverse, model))
}

/// Reorders each sentence's n-best with the reverse model, scored on its GPU engine when it has
/// one, else on the CPU reference.
// The engine's RefCell is the lock, as in `translate_chunk`.
#[allow(clippy::await_holding_refcell_ref)]
async fn rerank_chunk(
    id: u64,
    reverse: &str,
    model: &Model,
    texts: &[String],
    done: &mut [Translation],
    batch: usize,
) -> Result<(), String> {
    // `rerank_async` changes `done` only once every score is in, so a GPU failure leaves it as it was.
    if let Some(engine) = gpu_engine::engine(reverse) {
        let mut guard = lock(&engine).await;
        let result = rerank_async(&mut Checked::new(id, &mut *guard), model, texts, done, RERANK_WEIGHT, batch).await;
        drop(guard);
        browser::yield_now().await;
        if let Some(finished) = unless_gpu_failed(id, result, 1) {
            return finished;
        }
    }
    let mut stepper = CpuStepper::new(&model.net, &model.config);
    rerank_async(&mut Checked::new(id, &mut stepper), model, texts, done, RERANK_WEIGHT, batch).await
}

/// The job's model (or an ensemble's members), each loaded once per worker; the first job to need
/// one reports its download. A failure is reported with the backend's label again without an
/// earlier ensemble's "ensemble of N" (no model is loaded for the job).
pub(crate) async fn load(id: u64, s: &Settings) -> Result<Vec<Arc<Model>>, String> {
    let result = load_models(id, s).await;
    if let Err(e) = &result {
        send(id, Event::LoadFailed(format!("Could not load the model: {e}")));
        send(id, Event::Backend { backend: gpu_engine::backend("").await, members: 0 });
    }
    result
}

async fn load_models(id: u64, s: &Settings) -> Result<Vec<Arc<Model>>, String> {
    gpu_engine::set_preference(&s.backend);
    let names = models::model_names(&s.model).await?;
    models::claim(id, &names);
    let mut loaded = Vec::with_capacity(names.len());
    let n = names.len();
    for (i, name) in names.iter().enumerate() {
        // An ensemble's download is one bar over its members, named by the ensemble (it started again
        // at 0 % per member, naming a model the picker does not show).
        let shown = if n > 1 { format!("{} (member {} of {n}: {name})", s.model, i + 1) } else { name.clone() };
        let progress = |share| send(id, Event::Loading { model: shown.clone(), share: (i as f64 + share) / n as f64 });
        // Every job says so (not only the one that loaded it): the page shows news only from current jobs.
        let (model, _) = models::load(name, id, progress).await?;
        let status = format!("{name} loaded: weights {}", model.weight_format);
        send(id, Event::Loaded { status, models: vec![name.clone()], partial: n > 1 });
        loaded.push(model);
    }
    if names.len() > 1 {
        let formats: Vec<String> = loaded.iter().map(|m| m.weight_format.to_string()).collect();
        let same = formats.windows(2).all(|w| w[0] == w[1]);
        let weights = if same { formats[0].clone() } else { formats.join(" / ") };
        let status = format!("{} loaded ({}): weights {weights}", s.model, names.join(" + "));
        send(id, Event::Loaded { status, models: names.clone(), partial: false });
    }
    // An ensemble runs on the GPU only when every member has a GPU engine.
    let shown = names.iter().find(|n| gpu_engine::engine(n).is_none()).unwrap_or(&names[0]);
    send(id, Event::Backend { backend: gpu_engine::backend(shown).await, members: names.len() });
    Ok(loaded)
}

/// What a job asks of an engine: a translation, or the Search view's traced search and scoring.
enum Work<'a> {
    Translate { texts: &'a [String], search: &'a Search, batch: usize },
    Lab(&'a LabInput),
}

struct LabInput {
    source: Vec<u32>,
    prefix: Vec<u32>,
    search: Search,
    candidate: Option<Vec<u32>>,
}

enum Worked {
    Translated(Vec<Translation>),
    Lab(Vec<Hypothesis>, Trace, Option<ForcedScore>),
}

/// Does `work` on one engine (a GPU engine, an ensemble, the CPU reference).
async fn work_on<M: AsyncStepModel + ?Sized>(engine: &mut M, model: &Model, work: &Work<'_>) -> Result<Worked, String> {
    match work {
        Work::Translate { texts, search, batch } => {
            translate_with_async(engine, model, texts, search, *batch, false).await.map(Worked::Translated)
        }
        Work::Lab(input) => {
            let (hyps, trace) = {
                let mut forced = Prefixed::new(&mut *engine, vec![input.prefix.clone()]);
                trace_search_async(&mut forced, &input.source, &input.search).await?
            };
            let scored = match &input.candidate {
                Some(ids) => {
                    let sources = std::slice::from_ref(&input.source);
                    forced_scores_async(engine, sources, std::slice::from_ref(ids)).await?.pop()
                }
                None => None,
            };
            Ok(Worked::Lab(hyps, trace, scored))
        }
    }
}

/// Translates on the model's GPU engine when it has one, else (or after a GPU failure, which is
/// reported and turns the GPU off) on the CPU reference.
async fn translate_chunk(
    id: u64,
    name: &str,
    models: &[Arc<Model>],
    texts: &[String],
    search: &Search,
    batch: usize,
) -> Result<Vec<Translation>, String> {
    match on_engine(id, name, models, Work::Translate { texts, search, batch }).await? {
        Worked::Translated(done) => Ok(done),
        Worked::Lab(..) => Err("the engine answered another job".into()),
    }
}

/// Does `work` on the model's GPU engine when it has one (an ensemble's when every member has),
/// else (or after a GPU failure, which is reported and turns the GPU off) on the CPU reference.
// The engine's RefCell is the lock: every user takes it with `lock`, which waits while it is held,
// so holding it across the search's awaits cannot panic.
#[allow(clippy::await_holding_refcell_ref)]
async fn on_engine(id: u64, name: &str, models: &[Arc<Model>], work: Work<'_>) -> Result<Worked, String> {
    let model = &models[0];
    if models.len() > 1 {
        let names = models::model_names(name).await?;
        let engines: Option<Vec<_>> = names.iter().map(|n| gpu_engine::engine(n)).collect();
        if let Some(engines) = engines {
            let mut guards = Vec::with_capacity(engines.len());
            for engine in &engines {
                guards.push(lock(engine).await);
            }
            let members: Vec<&mut GpuEngine> = guards.iter_mut().map(|g| &mut **g).collect();
            let mut ensemble = AsyncEnsemble::new(members)?;
            let result = work_on(&mut Checked::new(id, &mut ensemble), model, &work).await;
            drop(ensemble);
            drop(guards);
            browser::yield_now().await;
            if let Some(done) = unless_gpu_failed(id, result, models.len()) {
                return done;
            }
        }
        let members: Vec<Box<dyn StepModel + '_>> =
            models.iter().map(|m| Box::new(CpuStepper::new(&m.net, &m.config)) as Box<dyn StepModel>).collect();
        let mut ensemble = Ensemble::new(members)?;
        return work_on(&mut Checked::new(id, &mut ensemble), model, &work).await;
    }
    if let Some(engine) = gpu_engine::engine(name) {
        let mut guard = lock(&engine).await;
        let result = work_on(&mut Checked::new(id, &mut *guard), model, &work).await;
        drop(guard);
        // Lets a job waiting for the engine take it before this job's next batch does.
        browser::yield_now().await;
        if let Some(done) = unless_gpu_failed(id, result, models.len()) {
            return done;
        }
    }
    let mut cpu = CpuStepper::new(&model.net, &model.config);
    work_on(&mut Checked::new(id, &mut cpu), model, &work).await
}

/// A GPU engine, once no older job holds it: one search at a time per engine, so a newer job waits
/// for the older one's step to finish.
pub(crate) async fn lock(engine: &RefCell<GpuEngine>) -> RefMut<'_, GpuEngine> {
    loop {
        if let Ok(g) = engine.try_borrow_mut() {
            return g;
        }
        browser::yield_now().await;
    }
}

/// A job's result on the GPU engine, or None when it failed (not stopped): then the GPU is turned
/// off, the page is told, and the caller runs the job on the CPU reference.
fn unless_gpu_failed<T>(id: u64, result: Result<T, String>, members: usize) -> Option<Result<T, String>> {
    match result {
        Err(e) if !cancelled(id) => {
            gpu_engine::disable(&e);
            send(id, gpu_failed(&e, members));
            None
        }
        done => Some(done),
    }
}

/// What the page is told when the GPU engine failed and the CPU engine takes over.
fn gpu_failed(e: &str, members: usize) -> Event {
    Event::Backend { backend: Backend::Cpu { why: format!("the GPU engine failed: {e}") }, members }
}

fn outputs(model: &Model, t: &Translation) -> Vec<Output> {
    t.outputs
        .iter()
        .map(|(text, h)| Output {
            text: text.clone(),
            tokens: model.vocab.token_strings(&h.tokens),
            probs: h
                .token_log_probs
                .iter()
                .take(h.tokens.len())
                .map(|lp| if lp.is_nan() { 0.0 } else { lp.exp() })
                .collect(),
            log_prob: h.log_prob,
            score: h.score,
        })
        .collect()
}

/// An engine that stops (with an error) once its job is cancelled, and lets the worker read its
/// messages every 50 ms of work.
pub struct Checked<'a, M: ?Sized> {
    id: u64,
    engine: &'a mut M,
    last_yield: f64,
}

impl<'a, M: AsyncStepModel + ?Sized> Checked<'a, M> {
    pub fn new(id: u64, engine: &'a mut M) -> Self {
        Self { id, engine, last_yield: browser::now_ms() }
    }

    async fn checkpoint(&mut self) -> Result<(), String> {
        if browser::now_ms() - self.last_yield > 50.0 {
            browser::yield_now().await;
            self.last_yield = browser::now_ms();
        }
        if cancelled(self.id) {
            return Err("cancelled".into());
        }
        Ok(())
    }
}

impl<M: AsyncStepModel + ?Sized> AsyncStepModel for Checked<'_, M> {
    fn vocab_size(&self) -> usize {
        self.engine.vocab_size()
    }
    fn bos(&self) -> u32 {
        self.engine.bos()
    }
    fn eos(&self) -> u32 {
        self.engine.eos()
    }
    fn max_output_len(&self) -> usize {
        self.engine.max_output_len()
    }
    async fn start(&mut self, sources: &[Vec<u32>]) -> Result<(), String> {
        self.checkpoint().await?;
        self.engine.start(sources).await
    }
    async fn step(&mut self, tokens: &[u32], want_attention: bool) -> Result<StepOutput, String> {
        self.checkpoint().await?;
        self.engine.step(tokens, want_attention).await
    }
    async fn step_top_k(&mut self, tokens: &[u32], k: usize, want_attention: bool) -> Result<TopKOutput, String> {
        self.checkpoint().await?;
        self.engine.step_top_k(tokens, k, want_attention).await
    }
    async fn select_rows(&mut self, rows: &[usize]) -> Result<(), String> {
        self.engine.select_rows(rows).await
    }
    async fn greedy_steps(&mut self, tokens: &[u32], max_steps: usize) -> Result<Option<ChainedPicks>, String> {
        self.checkpoint().await?;
        self.engine.greedy_steps(tokens, max_steps).await
    }
    async fn beam_steps(
        &mut self,
        chain: &wgslate_decode::BeamChain<'_>,
    ) -> Result<Option<wgslate_decode::RankedSteps>, String> {
        self.checkpoint().await?;
        self.engine.beam_steps(chain).await
    }
}

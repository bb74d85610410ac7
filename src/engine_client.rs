//! The page's side of the engine workers (src/engine_worker.rs): the main worker, started with the
//! page, runs every job; when the CPU engine runs them, a job of many sentences is shared, a batch
//! at a time, with helper workers (one per core, up to `MAX_CPU_WORKERS`), and its sentences still
//! reach the view in order. Each view runs its jobs in a lane of its own; a new job in a lane
//! cancels the lane's older one. A crashed worker fails its jobs with a message and the next job
//! starts a new one, so the page itself never blocks on a translation and never dies with one.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use futures::channel::mpsc::{unbounded, UnboundedSender};
use futures::future::join_all;
use futures::StreamExt;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::browser::{self, js_error};
use crate::engine_jobs::{helper_settings, settings_of, Backend, Event, Job, Output, Reply, Request, SearchChoice};
use wgslate_model::translate::Notices;

/// At most this many engine workers share a CPU job: each holds its own copy of the model.
const MAX_CPU_WORKERS: usize = 4;

/// Where the worker's model and backend news is shown (the page's shared status).
#[derive(Clone, Copy)]
pub struct Status {
    pub model_status: RwSignal<String>,
    pub model_error: RwSignal<Option<String>>,
    pub load_progress: RwSignal<Option<f64>>,
    pub backend: RwSignal<String>,
    /// The models the main engine worker holds (they translate offline too); emptied when it dies.
    pub in_memory: RwSignal<Vec<String>>,
    /// The model the views translate with now: news of a job for another one (a Compare run that
    /// loads the model chosen before) is not shown.
    pub chosen_model: Signal<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum JobError {
    /// A newer job in the same lane, or Stop, cancelled it.
    Cancelled,
    /// The model could not be loaded, and why ("Could not load the model: …"; the Translate view
    /// shows it at the top, for the model chosen there).
    Model(String),
    Failed(String),
}

/// The worker's message and error handlers, kept alive while it runs.
type Handlers = (Closure<dyn FnMut(MessageEvent)>, Closure<dyn FnMut(web_sys::Event)>);

struct EngineWorker {
    worker: Worker,
    jobs: Rc<RefCell<HashMap<u64, UnboundedSender<Event>>>>,
    _handlers: Handlers,
}

enum State {
    None,
    Starting,
    Ready(Rc<EngineWorker>),
}

/// The job running in a lane: its token, each part's worker slot and job id, and when its search
/// began (the main worker's last model news before the first sentences), if it said: the time of
/// a job the CPU workers share (one worker's job times its search itself).
struct Lane {
    token: u64,
    parts: Vec<(usize, u64)>,
    search_from: Option<f64>,
    any_done: bool,
}

/// How a job ended: its last event, and the milliseconds its search took, the model's download
/// and loading left out (a first translation otherwise reported the download as its own time).
pub struct Ended {
    pub last: Event,
    pub search_ms: f64,
}

thread_local! {
    /// Slot 0 is the main worker; the others help with long CPU jobs.
    static WORKERS: RefCell<Vec<State>> = const { RefCell::new(Vec::new()) };
    static STATUS: Cell<Option<Status>> = const { Cell::new(None) };
    static NEXT_ID: Cell<u64> = const { Cell::new(1) };
    static LANES: RefCell<HashMap<&'static str, Lane>> = RefCell::new(HashMap::new());
    /// The newest token each lane was reserved with, kept after its job ends.
    static NEWEST: RefCell<HashMap<&'static str, u64>> = RefCell::new(HashMap::new());
    /// The job whose model download the bar shows, until its model loads or fails.
    static PROGRESS_OF: Cell<Option<u64>> = const { Cell::new(None) };
    /// The status of the last model loaded, which a reverse model's failed download gives back.
    static LOADED_STATUS: RefCell<String> = const { RefCell::new(String::new()) };
    /// Whether the main worker last said the CPU engine runs its jobs.
    static ON_CPU: Cell<bool> = const { Cell::new(false) };
    /// The model of each running job of the main worker that has one (not a backend's), by job id.
    static JOB_MODEL: RefCell<HashMap<u64, String>> = RefCell::new(HashMap::new());
    /// The jobs (slot, id) waiting for a model's download: from its first news to its model's loading.
    static DOWNLOADING: RefCell<Vec<(usize, u64)>> = const { RefCell::new(Vec::new()) };
}

/// The model `job` loads, if it loads one.
fn model_of(job: &Job) -> Option<String> {
    match job {
        Job::Backend { .. } => None,
        Job::Load { settings }
        | Job::Translate { settings, .. }
        | Job::Attention { settings, .. }
        | Job::Lab { settings, .. }
        | Job::Measure { settings, .. }
        | Job::Memory { settings, .. } => Some(settings_of(settings).model),
    }
}

/// Notes which jobs wait for a download, for [`stop_downloads`].
fn note_download(slot: usize, id: u64, event: &Event) {
    DOWNLOADING.with(|d| {
        let mut d = d.borrow_mut();
        match event {
            Event::Loading { .. } if !d.contains(&(slot, id)) => d.push((slot, id)),
            Event::Loaded { .. } | Event::LoadFailed(_) | Event::RerankSkipped(_) => d.retain(|&job| job != (slot, id)),
            _ => {}
        }
    });
}

/// Stops every job that waits for a model (its download then stops too, unless a job claims it
/// within the worker's grace period), in any view, and not the jobs already translating: a job with
/// a model that has had no news of it yet (a job waiting for another's download may not have
/// reported yet), one whose news is of a download (Best quality's reverse model), or one yet to
/// start (a debounced translation would claim the download again). The lanes stopped.
pub fn stop_downloads() -> Vec<&'static str> {
    let downloading = DOWNLOADING.with(|d| d.borrow().clone());
    let has_model = |&(_, id): &(usize, u64)| JOB_MODEL.with(|m| m.borrow().contains_key(&id));
    let lanes: Vec<&'static str> = LANES.with(|l| {
        l.borrow()
            .iter()
            .filter(|(_, j)| {
                let not_begun =
                    j.search_from.is_none() && !j.any_done && (j.parts.is_empty() || j.parts.iter().any(has_model));
                not_begun || j.parts.iter().any(|p| downloading.contains(p))
            })
            .map(|(&lane, _)| lane)
            .collect()
    });
    lanes.iter().for_each(|&lane| cancel(lane));
    lanes
}

/// Whether job `id`'s model news is about the model chosen now (a job without a model: yes).
fn for_chosen_model(id: u64, status: &Status) -> bool {
    JOB_MODEL.with(|m| m.borrow().get(&id).is_none_or(|model| status.chosen_model.with_untracked(|c| c == model)))
}

/// How many engine workers share a CPU job: one per core the browser reports, at most `MAX_CPU_WORKERS`.
pub fn cpu_workers() -> usize {
    let cores = web_sys::window().map_or(1.0, |w| w.navigator().hardware_concurrency());
    (cores as usize).clamp(1, MAX_CPU_WORKERS)
}

fn next_id() -> u64 {
    NEXT_ID.with(|n| n.replace(n.get() + 1))
}

fn lane_is(lane: &str, token: u64) -> bool {
    LANES.with(|l| l.borrow().get(lane).is_some_and(|j| j.token == token))
}

fn is_current(id: u64) -> bool {
    LANES.with(|l| l.borrow().values().any(|j| j.parts.iter().any(|&(_, p)| p == id)))
}

/// Records a part of the lane's job; false when a newer job has taken the lane.
fn add_part(lane: &str, token: u64, slot: usize, id: u64) -> bool {
    LANES.with(|l| match l.borrow_mut().get_mut(lane) {
        Some(j) if j.token == token => {
            j.parts.push((slot, id));
            true
        }
        _ => false,
    })
}

/// Notes sentences arriving (`done`) or, before the first did, the search beginning now.
fn search_news(lane: &str, token: u64, done: bool) {
    LANES.with(|l| {
        if let Some(j) = l.borrow_mut().get_mut(lane).filter(|j| j.token == token) {
            if done {
                j.any_done = true;
            } else if !j.any_done {
                j.search_from = Some(browser::now_ms());
            }
        }
    })
}

fn remove_part(lane: &str, id: u64) {
    LANES.with(|l| {
        if let Some(j) = l.borrow_mut().get_mut(lane) {
            j.parts.retain(|&(_, p)| p != id);
        }
    })
}

fn slot_state(slot: usize) -> Option<Rc<EngineWorker>> {
    WORKERS.with(|w| match w.borrow().get(slot) {
        Some(State::Ready(e)) => Some(e.clone()),
        _ => None,
    })
}

/// Where model and backend news goes; called once by the app.
pub fn init(status: Status) {
    STATUS.with(|s| s.set(Some(status)));
}

fn show(id: u64, event: &Event) {
    let Some(s) = STATUS.with(Cell::get) else { return };
    // Engine state, whichever model the job is for: a shared CPU job reads it after its own load.
    if let Event::Backend { backend, .. } = event {
        ON_CPU.with(|c| c.set(matches!(backend, Backend::Cpu { .. })));
    }
    if !for_chosen_model(id, &s) {
        // The bar that job had before another model was chosen goes with its download.
        if matches!(event, Event::Loaded { .. } | Event::LoadFailed(_) | Event::RerankSkipped(_)) {
            forget_progress(id);
        }
        return;
    }
    match event {
        Event::Loading { model, share } => {
            PROGRESS_OF.with(|p| p.set(Some(id)));
            s.model_error.set(None);
            s.model_status.set(format!("Loading {model}…"));
            s.load_progress.set(Some(*share));
        }
        // One member of several: the bar goes on to the next (the ensemble's Loaded ends it).
        Event::Loaded { partial: true, .. } => {}
        // A model ready for the current job makes an earlier model's error (a failed download,
        // a reverse model missing offline) out of date.
        Event::Loaded { status, .. } => {
            PROGRESS_OF.with(|p| p.set(None));
            s.model_error.set(None);
            s.load_progress.set(None);
            s.model_status.set(status.clone());
            LOADED_STATUS.with(|l| l.replace(status.clone()));
        }
        Event::LoadFailed(e) | Event::RerankSkipped(e) => {
            PROGRESS_OF.with(|p| p.set(None));
            s.load_progress.set(None);
            // The reverse model's failure gives back the chosen model's status: that one translates.
            match event {
                Event::RerankSkipped(_) => s.model_status.set(LOADED_STATUS.with(|l| l.borrow().clone())),
                _ => s.model_status.set(String::new()),
            }
            s.model_error.set(Some(e.clone()));
        }
        Event::Backend { backend, members } => {
            s.backend.set(backend.label(cpu_workers(), *members));
        }
        _ => {}
    }
}

/// Takes the download bar away when the job it was for stops before its model's news (a Stop, a
/// newer job, a crash): no later news of that job is shown, so the bar stayed at its last share.
fn forget_progress(id: u64) {
    if PROGRESS_OF.with(|p| p.get()) != Some(id) {
        return;
    }
    PROGRESS_OF.with(|p| p.set(None));
    if let Some(s) = STATUS.with(Cell::get) {
        s.load_progress.set(None);
        s.model_status.set(String::new());
    }
}

/// Adds models the main worker has loaded to those it holds.
fn note_in_memory(models: &[String]) {
    let Some(s) = STATUS.with(Cell::get) else { return };
    let new: Vec<String> =
        s.in_memory.with_untracked(|held| models.iter().filter(|m| !held.contains(m)).cloned().collect());
    if !new.is_empty() {
        s.in_memory.update(|held| held.extend(new));
    }
}

/// Fails every job of a dead worker and forgets it, so the next job starts a new one.
fn crashed(slot: usize, jobs: &RefCell<HashMap<u64, UnboundedSender<Event>>>, worker: &Worker, why: &str) {
    worker.terminate();
    if slot == 0 {
        if let Some(s) = STATUS.with(Cell::get) {
            s.in_memory.set(Vec::new());
        }
    }
    WORKERS.with(|w| {
        if let Some(s) = w.borrow_mut().get_mut(slot) {
            if matches!(s, State::Ready(e) if &e.worker == worker) {
                *s = State::None;
            }
        }
    });
    let message = format!("The translation engine crashed ({why}); it has been restarted, so try again.");
    for (id, tx) in jobs.borrow_mut().drain() {
        forget_progress(id);
        let _ = tx.unbounded_send(Event::Failed(message.clone()));
    }
}

async fn spawn(slot: usize) -> Result<Rc<EngineWorker>, String> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    options.set_name(&match slot {
        0 => "engine".to_string(),
        n => format!("engine-{}", n + 1),
    });
    let worker = Worker::new_with_options("./worker.js", &options).map_err(js_error)?;
    let jobs: Rc<RefCell<HashMap<u64, UnboundedSender<Event>>>> = Rc::default();
    let (ready_tx, mut ready_rx) = unbounded::<Result<(), String>>();
    let last_panic: Rc<RefCell<Option<String>>> = Rc::default();
    let on_message = {
        let (jobs, worker, ready_tx, last_panic) = (jobs.clone(), worker.clone(), ready_tx.clone(), last_panic.clone());
        Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
            let text = ev.data().as_string().unwrap_or_default();
            match serde_json::from_str::<Reply>(&text) {
                Ok(Reply::Ready) => {
                    let _ = ready_tx.unbounded_send(Ok(()));
                }
                Ok(Reply::Event { id, event }) => {
                    // (A cancelled job's worker may still say it waits, until its next check; the
                    // helpers' loads are not the main worker's download the bar shows.)
                    if slot == 0 && is_current(id) {
                        note_download(slot, id, &event);
                    }
                    if let Event::Loaded { models, .. } = &event {
                        crate::offline_models::keep(models);
                        if slot == 0 {
                            note_in_memory(models);
                        }
                    }
                    // Model and backend news from a job no lane runs any more is out of date, and
                    // the helpers' is the main worker's again.
                    if slot == 0 && is_current(id) {
                        show(id, &event);
                    }
                    let finished = matches!(
                        event,
                        Event::Finished { .. }
                            | Event::Attention { .. }
                            | Event::Lab(_)
                            | Event::Measured(_)
                            | Event::Memory { .. }
                            | Event::Failed(_)
                            | Event::Cancelled
                    );
                    let tx = if finished { jobs.borrow_mut().remove(&id) } else { jobs.borrow().get(&id).cloned() };
                    if let Some(tx) = tx {
                        let _ = tx.unbounded_send(event);
                    }
                }
                // The instance is dead after a panic; the error event that follows names no cause.
                Ok(Reply::Panic(message)) => {
                    *last_panic.borrow_mut() = Some(message.clone());
                    let _ = ready_tx.unbounded_send(Err(message.clone()));
                    crashed(slot, &jobs, &worker, &message);
                }
                // www/worker.js reports a failed start as {"error": …}.
                Err(e) => {
                    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
                    let why = v["error"].as_str().map_or_else(|| format!("an unreadable message: {e}"), String::from);
                    let _ = ready_tx.unbounded_send(Err(why.clone()));
                    crashed(slot, &jobs, &worker, &why);
                }
            }
        })
    };
    let on_error = {
        let (jobs, worker) = (jobs.clone(), worker.clone());
        Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
            ev.prevent_default();
            let why = ev.dyn_ref::<ErrorEvent>().map_or("its script could not be loaded".into(), ErrorEvent::message);
            let _ = ready_tx.unbounded_send(Err(why.clone()));
            if last_panic.borrow().is_none() {
                crashed(slot, &jobs, &worker, &why);
            }
        })
    };
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let engine = EngineWorker { worker, jobs, _handlers: (on_message, on_error) };
    // The worker instantiates the module this page already compiled instead of fetching it again.
    engine.worker.post_message(&wasm_bindgen::module()).map_err(js_error)?;
    match ready_rx.next().await {
        Some(Ok(())) => Ok(Rc::new(engine)),
        Some(Err(e)) => {
            engine.worker.terminate();
            Err(format!("the translation engine did not start: {e}"))
        }
        None => Err("the translation engine did not start".into()),
    }
}

/// The worker in `slot`, started if there is none.
async fn worker(slot: usize) -> Result<Rc<EngineWorker>, String> {
    loop {
        let start = WORKERS.with(|w| {
            let mut w = w.borrow_mut();
            if w.len() <= slot {
                w.resize_with(slot + 1, || State::None);
            }
            match &w[slot] {
                State::Ready(e) => Some(Ok(e.clone())),
                State::Starting => None,
                State::None => {
                    w[slot] = State::Starting;
                    Some(Err(()))
                }
            }
        });
        match start {
            Some(Ok(w)) => return Ok(w),
            Some(Err(())) => {
                let started = spawn(slot).await;
                WORKERS.with(|w| {
                    w.borrow_mut()[slot] = match &started {
                        Ok(e) => State::Ready(e.clone()),
                        Err(_) => State::None,
                    }
                });
                return started;
            }
            None => browser::sleep_ms(20).await,
        }
    }
}

fn post(worker: &Worker, request: &Request) {
    let _ = worker.post_message(&JsValue::from_str(&serde_json::to_string(request).unwrap_or_default()));
}

/// Cancels the job running in `lane`, if any.
pub fn cancel(lane: &'static str) {
    let Some(job) = LANES.with(|l| l.borrow_mut().remove(lane)) else { return };
    cancel_parts(&job.parts);
    // The job ends here now: the worker answers a cancel at its job's next check, and a job that
    // started a model's download another job still needs waits for the whole download first.
    for &(slot, id) in &job.parts {
        let tx = slot_state(slot).and_then(|w| w.jobs.borrow_mut().remove(&id));
        if let Some(tx) = tx {
            let _ = tx.unbounded_send(Event::Cancelled);
        }
    }
}

/// Stops the running parts of `lane`'s job but keeps the lane, so that the job can still report
/// why it ended (a failure of the main worker is an error, not a Stop).
fn stop_parts(lane: &'static str) {
    let parts = LANES.with(|l| l.borrow().get(lane).map(|job| job.parts.clone()).unwrap_or_default());
    cancel_parts(&parts);
}

fn cancel_parts(parts: &[(usize, u64)]) {
    for &(slot, id) in parts {
        forget_progress(id);
        if let Some(w) = slot_state(slot) {
            post(&w.worker, &Request::Cancel { id });
        }
    }
}

type OnDone<'a> = &'a mut dyn FnMut(usize, Vec<Vec<Output>>, Notices);
/// Told of a job's own model download: (model, share).
type OnDownload<'a> = &'a mut dyn FnMut(&str, f64);

/// What a job's caller hears of it: its finished sentences, and its own model downloads.
struct Watch<'a> {
    on_done: OnDone<'a>,
    on_download: Option<OnDownload<'a>>,
}

impl<'a> Watch<'a> {
    fn without_downloads(on_done: OnDone<'a>) -> Self {
        Watch { on_done, on_download: None }
    }
}

/// A lane taken for a job that has yet to start (a debounce, a file being read): the lane's older
/// job stops at once, and a newer `reserve` or `cancel` of the lane supersedes this one.
#[derive(Clone, Copy, Debug)]
pub struct Ticket {
    lane: &'static str,
    token: u64,
}

impl Ticket {
    /// Whether the lane is still this ticket's: no newer job took it and nothing cancelled it.
    pub fn is_current(self) -> bool {
        lane_is(self.lane, self.token)
    }

    /// Whether a newer job took the lane (rather than a Stop, or the job's own end).
    pub fn is_superseded(self) -> bool {
        NEWEST.with(|n| n.borrow().get(self.lane).is_some_and(|&t| t != self.token))
    }
}

/// What a reload would stop without a trace: a file translation or the test-set evaluation, if one runs.
pub fn long_job_running() -> Option<&'static str> {
    [("file", "a file translation"), ("evaluate", "the test-set evaluation")]
        .into_iter()
        .find(|(lane, _)| LANES.with(|l| l.borrow().contains_key(lane)))
        .map(|(_, what)| what)
}

/// Takes `lane` for a job to come, cancelling its older job.
pub fn reserve(lane: &'static str) -> Ticket {
    cancel(lane);
    let token = next_id();
    LANES.with(|l| l.borrow_mut().insert(lane, Lane { token, parts: vec![], search_from: None, any_done: false }));
    NEWEST.with(|n| n.borrow_mut().insert(lane, token));
    Ticket { lane, token }
}

/// Gives back the lane `ticket` took for a job that will not run (refused before it began), unless
/// a newer job took it.
pub fn release(ticket: Ticket) {
    if ticket.is_current() {
        LANES.with(|l| l.borrow_mut().remove(ticket.lane));
    }
}

/// Runs `job`, cancelling the older job of `lane`; `on_done` gets each batch of finished sentences
/// (index of the first, n-best of each, their notices numbered in the job's texts), in order.
/// Returns the job's last event and its search time.
pub async fn run(
    lane: &'static str,
    job: Job,
    on_done: impl FnMut(usize, Vec<Vec<Output>>, Notices),
) -> Result<Ended, JobError> {
    run_reserved(reserve(lane), job, on_done).await
}

/// Runs `job` in the lane `ticket` took: Cancelled, without starting it, when the ticket is no
/// longer current. Nothing of a superseded or cancelled job reaches `on_done` or the result.
pub async fn run_reserved(
    ticket: Ticket,
    job: Job,
    on_done: impl FnMut(usize, Vec<Vec<Output>>, Notices),
) -> Result<Ended, JobError> {
    run_watched(ticket, job, on_done, |_, _| {}).await
}

/// `run_reserved` that also tells `on_download` of the job's own model downloads (model, share):
/// the model bar follows the model chosen now, which need not be this job's.
pub async fn run_watched(
    ticket: Ticket,
    job: Job,
    mut on_done: impl FnMut(usize, Vec<Vec<Output>>, Notices),
    mut on_download: impl FnMut(&str, f64),
) -> Result<Ended, JobError> {
    let Ticket { lane, token } = ticket;
    if !ticket.is_current() {
        return Err(JobError::Cancelled);
    }
    let t0 = browser::now_ms();
    let outcome = match job {
        Job::Translate { settings, texts, search, batch } if cpu_workers() > 1 && texts.len() > batch.max(1) => {
            let watch = Watch { on_done: &mut on_done, on_download: Some(&mut on_download) };
            run_shared(lane, token, settings, texts, search, batch.max(1), watch).await
        }
        job => {
            run_part(lane, token, 0, job, Watch { on_done: &mut on_done, on_download: Some(&mut on_download) }).await
        }
    };
    // Whatever came in after a newer job took the lane, or after a Stop, is not passed on.
    if !ticket.is_current() {
        return Err(JobError::Cancelled);
    }
    let search_from = LANES.with(|l| l.borrow_mut().remove(lane)).and_then(|j| j.search_from).unwrap_or(t0);
    let measured_here = browser::now_ms() - search_from;
    outcome.map(|last| match last {
        Event::Finished { search_ms: Some(ms), .. } => Ended { last, search_ms: ms },
        last => Ended { last, search_ms: measured_here },
    })
}

/// Runs one part of the lane's job on the worker in `slot`. Sentences that arrive after a newer
/// job took the lane are not passed on.
async fn run_part(lane: &'static str, token: u64, slot: usize, job: Job, watch: Watch<'_>) -> Result<Event, JobError> {
    let Watch { on_done, mut on_download } = watch;
    let worker = worker(slot).await.map_err(JobError::Failed)?;
    let id = next_id();
    if !add_part(lane, token, slot, id) {
        return Err(JobError::Cancelled);
    }
    let (tx, mut rx) = unbounded();
    worker.jobs.borrow_mut().insert(id, tx);
    if let Some(model) = model_of(&job).filter(|_| slot == 0) {
        JOB_MODEL.with(|m| m.borrow_mut().insert(id, model));
    }
    post(&worker.worker, &Request::Run { id, job });
    let mut model_failed = None;
    let outcome = loop {
        match rx.next().await {
            Some(Event::Done { .. }) if !lane_is(lane, token) => break Err(JobError::Cancelled),
            Some(Event::Done { first, sentences, notices }) => {
                search_news(lane, token, true);
                on_done(first, sentences, notices)
            }
            // The main worker's news that the model is loaded comes just before its search.
            Some(Event::Loaded { partial: false, .. } | Event::Backend { .. }) if slot == 0 => {
                search_news(lane, token, false)
            }
            Some(Event::Loading { model, share }) if lane_is(lane, token) => {
                if let Some(tell) = on_download.as_mut() {
                    tell(&model, share)
                }
            }
            // A model's failure is the job's end, said twice (a reverse model's, RerankSkipped, is a warning).
            Some(Event::LoadFailed(e)) => model_failed = Some(e),
            Some(Event::Failed(e)) => {
                break Err(model_failed.take().filter(|m| m.ends_with(&e)).map_or(JobError::Failed(e), JobError::Model))
            }
            Some(Event::Cancelled) => break Err(JobError::Cancelled),
            Some(
                Event::Finished { .. }
                | Event::Attention { .. }
                | Event::Lab(_)
                | Event::Measured(_)
                | Event::Memory { .. },
            ) if !lane_is(lane, token) => break Err(JobError::Cancelled),
            Some(
                last @ (Event::Finished { .. }
                | Event::Attention { .. }
                | Event::Lab(_)
                | Event::Measured(_)
                | Event::Memory { .. }),
            ) => break Ok(last),
            Some(_) => {}
            None => break Err(JobError::Failed("the translation engine stopped".into())),
        }
    };
    remove_part(lane, id);
    JOB_MODEL.with(|m| m.borrow_mut().remove(&id));
    DOWNLOADING.with(|d| d.borrow_mut().retain(|&job| job != (slot, id)));
    outcome
}

/// A translation of many sentences: on the GPU the main worker runs it all; on the CPU every
/// worker takes the next batch until none is left.
async fn run_shared(
    lane: &'static str,
    token: u64,
    settings: Vec<(String, String)>,
    texts: Vec<String>,
    search: SearchChoice,
    batch: usize,
    watch: Watch<'_>,
) -> Result<Event, JobError> {
    let Watch { on_done, mut on_download } = watch;
    // The main worker loads the model first and so says which engine runs it.
    // (Cast: a coercion to the shorter-lived callback does not happen inside the Option.)
    let told = on_download.as_mut().map(|tell| &mut **tell as OnDownload<'_>);
    let load = Watch { on_done: &mut |_, _, _| {}, on_download: told };
    run_part(lane, token, 0, Job::Load { settings: settings.clone() }, load).await?;
    if !ON_CPU.with(Cell::get) {
        let translate = Watch { on_done, on_download };
        return run_part(lane, token, 0, Job::Translate { settings, texts, search, batch }, translate).await;
    }
    let chunks: Vec<&[String]> = texts.chunks(batch).collect();
    let queue = RefCell::new(ChunkQueue { next: 0, returned: vec![], len: chunks.len(), closed: false });
    // Finished batches (and their notices) wait here until those before them are passed on.
    let waiting = RefCell::new(BTreeMap::<usize, (Vec<Vec<Output>>, Notices)>::new());
    // The notices of the batches passed on: the job's, once all are.
    let passed_notices = RefCell::new(Notices::default());
    let passed = Cell::new(0);
    let on_done = RefCell::new(on_done);
    let run_chunk = |slot: usize, k: usize| {
        let (chunks, waiting, passed, passed_notices, on_done, queue) =
            (&chunks, &waiting, &passed, &passed_notices, &on_done, &queue);
        // The helpers never look for a GPU: they only run when the CPU engine does.
        let settings = if slot > 0 { helper_settings(&settings) } else { settings.clone() };
        async move {
            let (mut got, mut got_notices) = (Vec::with_capacity(chunks[k].len()), Notices::default());
            let job = Job::Translate { settings, texts: chunks[k].to_vec(), search, batch };
            let mut take = |_, s: Vec<Vec<Output>>, n: Notices| {
                got.extend(s);
                got_notices.merge(n);
            };
            run_part(lane, token, slot, job, Watch::without_downloads(&mut take)).await?;
            // Numbered in the batch's own job: renumbered into the whole job's texts.
            let got_notices = got_notices.renumbered(|i| k * batch + i);
            // Nothing of a job that the main worker's failure ended reaches the view.
            if queue.borrow().closed {
                return Ok(());
            }
            let mut waiting = waiting.borrow_mut();
            waiting.insert(k, (got, got_notices));
            while let Some((sentences, batch_notices)) = waiting.remove(&passed.get()) {
                passed_notices.borrow_mut().merge(batch_notices.clone());
                (on_done.borrow_mut())(passed.get() * batch, sentences, batch_notices);
                passed.set(passed.get() + 1);
            }
            Ok::<(), JobError>(())
        }
    };
    let part = |slot: usize| {
        let (queue, run_chunk) = (&queue, &run_chunk);
        async move {
            if slot > 0 && !helper_ready(slot, lane, token, queue).await {
                return Ok(());
            }
            loop {
                let Some(k) = queue.borrow_mut().take() else { return Ok(()) };
                match run_chunk(slot, k).await {
                    Ok(()) => {}
                    Err(JobError::Cancelled) => return Err(JobError::Cancelled),
                    // A helper that fails (out of memory, a crash) hands its batch back and stops.
                    Err(_) if slot > 0 => {
                        queue.borrow_mut().hand_back(k);
                        return Ok(());
                    }
                    Err(e) => {
                        // The main worker's failure ends the job with its error: no batch is left
                        // for the helpers, and those running stop.
                        queue.borrow_mut().close();
                        if lane_is(lane, token) {
                            stop_parts(lane);
                        }
                        return Err(e);
                    }
                }
            }
        }
    };
    let results: Vec<Result<(), JobError>> = join_all((0..cpu_workers()).map(part)).await;
    // A failure says more than the Cancelled of the parts it stopped.
    let mut errors: Vec<JobError> = results.into_iter().filter_map(Result::err).collect();
    errors.sort_by_key(|e| matches!(e, JobError::Cancelled));
    if let Some(e) = errors.into_iter().next() {
        return Err(e);
    }
    // Batches a helper handed back after the main worker had finished.
    loop {
        let Some(k) = queue.borrow_mut().take() else { break };
        run_chunk(0, k).await?;
    }
    Ok(Event::Finished { notices: passed_notices.into_inner(), search_ms: None })
}

/// The batches of a shared job still to translate.
struct ChunkQueue {
    next: usize,
    /// Batches handed back by a helper that failed.
    returned: Vec<usize>,
    len: usize,
    /// The main worker failed: no batch is given out or handed back any more.
    closed: bool,
}

impl ChunkQueue {
    fn take(&mut self) -> Option<usize> {
        if self.closed {
            return None;
        }
        self.returned.pop().or_else(|| {
            let k = self.next;
            (k < self.len).then(|| {
                self.next += 1;
                k
            })
        })
    }

    fn hand_back(&mut self, k: usize) {
        if !self.closed {
            self.returned.push(k);
        }
    }

    fn close(&mut self) {
        self.closed = true;
        self.returned.clear();
    }

    fn is_empty(&self) -> bool {
        self.closed || (self.returned.is_empty() && self.next >= self.len)
    }
}

/// Starts the helper in `slot` (in a task of its own, so that giving up on it here never leaves a
/// half-started worker behind) and waits for it while there is work left; false if it is not
/// needed any more or could not start.
async fn helper_ready(slot: usize, lane: &'static str, token: u64, queue: &RefCell<ChunkQueue>) -> bool {
    if slot_state(slot).is_some() {
        return true;
    }
    let started = Rc::new(Cell::new(None));
    let done = started.clone();
    spawn_local(async move { done.set(Some(worker(slot).await.is_ok())) });
    loop {
        match started.get() {
            Some(ok) => return ok,
            None if queue.borrow().is_empty() || !lane_is(lane, token) => return false,
            None => browser::sleep_ms(20).await,
        }
    }
}

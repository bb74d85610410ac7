//! The page's side of the engine worker (src/engine_worker.rs): one worker, started with the page,
//! runs every translation. Each view runs its jobs in a lane of its own; a new job in a lane cancels
//! the lane's older one. A crashed worker fails its jobs with a message and the next job starts a
//! new one, so the page itself never blocks on a translation and never dies with one.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use futures::channel::mpsc::{unbounded, UnboundedSender};
use futures::StreamExt;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::browser::{self, js_error};
use crate::engine_jobs::{Event, Job, Output, Reply, Request};

/// Where the worker's model and backend news is shown (the page's shared status).
#[derive(Clone, Copy)]
pub struct Status {
    pub model_status: RwSignal<String>,
    pub model_error: RwSignal<Option<String>>,
    pub load_progress: RwSignal<Option<f64>>,
    pub backend: RwSignal<String>,
}

impl JobError {
    /// What a view shows for it; None for a cancelled job (a newer one replaces it).
    pub fn message(self) -> Option<String> {
        match self {
            JobError::Cancelled => None,
            JobError::Model => {
                Some("The model could not be loaded; the message at the top of the Translate view says why.".into())
            }
            JobError::Failed(e) => Some(e),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum JobError {
    /// A newer job in the same lane, or Stop, cancelled it.
    Cancelled,
    /// The model could not be loaded; the message is already shown at the top of the page.
    Model,
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

thread_local! {
    static STATE: RefCell<State> = const { RefCell::new(State::None) };
    static STATUS: Cell<Option<Status>> = const { Cell::new(None) };
    static NEXT_ID: Cell<u64> = const { Cell::new(1) };
    /// The job running in each lane.
    static LANES: RefCell<HashMap<&'static str, u64>> = RefCell::new(HashMap::new());
}

/// Where model and backend news goes; called once by the app.
pub fn init(status: Status) {
    STATUS.with(|s| s.set(Some(status)));
}

fn show(event: &Event) {
    let Some(s) = STATUS.with(Cell::get) else { return };
    match event {
        Event::Loading { model, share } => {
            s.model_error.set(None);
            s.model_status.set(format!("Loading {model}…"));
            s.load_progress.set(Some(*share));
        }
        Event::Loaded(status) => {
            s.load_progress.set(None);
            s.model_status.set(status.clone());
        }
        Event::LoadFailed(e) => {
            s.load_progress.set(None);
            s.model_status.set(String::new());
            s.model_error.set(Some(e.clone()));
        }
        Event::Backend(label) => s.backend.set(label.clone()),
        _ => {}
    }
}

/// Fails every job of a dead worker and forgets it, so the next job starts a new one.
fn crashed(jobs: &RefCell<HashMap<u64, UnboundedSender<Event>>>, worker: &Worker, why: &str) {
    worker.terminate();
    STATE.with(|s| {
        if matches!(&*s.borrow(), State::Ready(w) if &w.worker == worker) {
            *s.borrow_mut() = State::None;
        }
    });
    let message = format!("The translation engine crashed ({why}); it has been restarted, so try again.");
    for (_, tx) in jobs.borrow_mut().drain() {
        let _ = tx.unbounded_send(Event::Failed(message.clone()));
    }
}

async fn spawn() -> Result<Rc<EngineWorker>, String> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    options.set_name("engine");
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
                    // Model and backend news from a job no lane runs any more is out of date.
                    if LANES.with(|l| l.borrow().values().any(|&v| v == id)) {
                        show(&event);
                    }
                    let finished = matches!(
                        event,
                        Event::Finished { .. } | Event::Attention { .. } | Event::Failed(_) | Event::Cancelled
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
                    crashed(&jobs, &worker, &message);
                }
                // www/worker.js reports a failed start as {"error": …}.
                Err(e) => {
                    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
                    let why = v["error"].as_str().map_or_else(|| format!("an unreadable message: {e}"), String::from);
                    let _ = ready_tx.unbounded_send(Err(why.clone()));
                    crashed(&jobs, &worker, &why);
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
                crashed(&jobs, &worker, &why);
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

/// The running worker, started if there is none.
async fn worker() -> Result<Rc<EngineWorker>, String> {
    loop {
        let start = STATE.with(|s| {
            let mut s = s.borrow_mut();
            match &*s {
                State::Ready(w) => Some(Ok(w.clone())),
                State::Starting => None,
                State::None => {
                    *s = State::Starting;
                    Some(Err(()))
                }
            }
        });
        match start {
            Some(Ok(w)) => return Ok(w),
            Some(Err(())) => {
                let started = spawn().await;
                STATE.with(|s| {
                    *s.borrow_mut() = match &started {
                        Ok(w) => State::Ready(w.clone()),
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
    let Some(id) = LANES.with(|l| l.borrow_mut().remove(lane)) else { return };
    if let State::Ready(w) = STATE.with(|s| match &*s.borrow() {
        State::Ready(w) => State::Ready(w.clone()),
        _ => State::None,
    }) {
        post(&w.worker, &Request::Cancel { id });
    }
}

/// Runs `job` in the worker, cancelling the older job of `lane`; `on_done` gets each batch of
/// finished sentences (index of the first, n-best of each). Returns the job's last event.
pub async fn run(
    lane: &'static str,
    job: Job,
    mut on_done: impl FnMut(usize, Vec<Vec<Output>>),
) -> Result<Event, JobError> {
    cancel(lane);
    let id = NEXT_ID.with(|n| n.replace(n.get() + 1));
    LANES.with(|l| l.borrow_mut().insert(lane, id));
    let worker = worker().await.map_err(JobError::Failed)?;
    if LANES.with(|l| l.borrow().get(lane) != Some(&id)) {
        return Err(JobError::Cancelled);
    }
    let (tx, mut rx) = unbounded();
    worker.jobs.borrow_mut().insert(id, tx);
    post(&worker.worker, &Request::Run { id, job });
    let mut model_failed = false;
    let outcome = loop {
        match rx.next().await {
            Some(Event::Done { first, sentences }) => on_done(first, sentences),
            Some(Event::LoadFailed(_)) => model_failed = true,
            Some(Event::Failed(_)) if model_failed => break Err(JobError::Model),
            Some(Event::Failed(e)) => break Err(JobError::Failed(e)),
            Some(Event::Cancelled) => break Err(JobError::Cancelled),
            Some(last @ (Event::Finished { .. } | Event::Attention { .. })) => break Ok(last),
            Some(_) => {}
            None => break Err(JobError::Failed("the translation engine stopped".into())),
        }
    };
    LANES.with(|l| {
        let mut l = l.borrow_mut();
        if l.get(lane) == Some(&id) {
            l.remove(lane);
        }
    });
    outcome
}

//! The page's side of the metrics worker. A job takes the idle worker (or starts one) for itself, so
//! two jobs never share a worker; a job that crashes its worker (a panic traps the wasm instance) or
//! is cancelled terminates it, and the next job starts a fresh one. The page itself never runs the
//! metrics and never dies with them.

use std::cell::{Cell, RefCell};

use futures::channel::mpsc::{unbounded, UnboundedReceiver, UnboundedSender};
use futures::StreamExt;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::browser::js_error;

enum Event {
    Message(Value),
    Crash(String),
    Cancelled,
}

struct Running {
    worker: Worker,
    sender: UnboundedSender<Event>,
    events: UnboundedReceiver<Event>,
    _handlers: Handlers,
}

/// A worker dropped with its job (the job's future was dropped: a newer Compute superseded it)
/// is stopped, not left computing.
impl Drop for Running {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

/// The worker's message and error handlers, kept alive while it runs.
type Handlers = (Closure<dyn FnMut(MessageEvent)>, Closure<dyn FnMut(web_sys::Event)>);

thread_local! {
    /// A started worker with no job.
    static IDLE: RefCell<Option<Running>> = const { RefCell::new(None) };
    /// The worker running a job, and its event channel, so that `cancel` can stop both.
    static BUSY: RefCell<Option<(Worker, UnboundedSender<Event>)>> = const { RefCell::new(None) };
    /// Bumped by `cancel`: a job started under an older epoch gives up.
    static EPOCH: Cell<u64> = const { Cell::new(0) };
}

async fn spawn() -> Result<Running, String> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    options.set_name("metrics");
    let worker = Worker::new_with_options("./worker.js", &options).map_err(js_error)?;
    let (sender, events) = unbounded();
    let (tx, tx2) = (sender.clone(), sender.clone());
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let v = ev.data().as_string().and_then(|s| serde_json::from_str(&s).ok()).unwrap_or(Value::Null);
        let _ = tx.unbounded_send(Event::Message(v));
    });
    // An uncaught error in the worker is an ErrorEvent; a script that fails to load is a plain Event.
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
        ev.prevent_default();
        let message =
            ev.dyn_ref::<ErrorEvent>().map_or("the worker script could not be loaded".into(), ErrorEvent::message);
        let _ = tx2.unbounded_send(Event::Crash(message));
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let mut running = Running { worker, sender, events, _handlers: (on_message, on_error) };
    // The worker instantiates the module this page already compiled instead of fetching it again.
    if let Err(e) = running.worker.post_message(&wasm_bindgen::module()) {
        running.worker.terminate();
        return Err(js_error(e));
    }
    let problem = match running.events.next().await {
        Some(Event::Message(v)) if v["ready"] == true => return Ok(running),
        Some(Event::Message(v)) => v["error"].as_str().unwrap_or("no answer").to_string(),
        Some(Event::Crash(e)) => e,
        Some(Event::Cancelled) | None => "no answer".into(),
    };
    running.worker.terminate();
    Err(format!("the metrics worker did not start: {problem}"))
}

/// Stops the running job, if any: its worker is terminated and the job returns an error.
pub fn cancel() {
    EPOCH.with(|e| e.set(e.get() + 1));
    if let Some((worker, sender)) = BUSY.with(|b| b.borrow_mut().take()) {
        worker.terminate();
        let _ = sender.unbounded_send(Event::Cancelled);
    }
}

/// The current cancellation epoch; `cancelled_since` says whether `cancel` ran after it.
pub fn epoch() -> u64 {
    EPOCH.with(Cell::get)
}

pub fn cancelled_since(epoch: u64) -> bool {
    EPOCH.with(|e| e.get()) != epoch
}

/// Runs one job (`request` from `metrics_job::Corpus::request`) for the metric named `metric`,
/// reporting the share done. Errors name the metric; after a crash the next job gets a new worker.
pub async fn run(metric: &str, request: String, mut progress: impl FnMut(f64)) -> Result<Value, String> {
    let epoch = EPOCH.with(Cell::get);
    let mut running = match IDLE.with(|i| i.borrow_mut().take()) {
        Some(r) => r,
        None => spawn().await.map_err(|e| format!("{metric}: {e}"))?,
    };
    if cancelled_since(epoch) {
        running.worker.terminate();
        return Err(format!("{metric}: cancelled"));
    }
    BUSY.with(|b| *b.borrow_mut() = Some((running.worker.clone(), running.sender.clone())));
    running.worker.post_message(&JsValue::from_str(&request)).map_err(js_error)?;
    let mut panic = None;
    let outcome = loop {
        match running.events.next().await {
            Some(Event::Message(v)) if v["progress"].is_number() => progress(v["progress"].as_f64().unwrap_or(0.0)),
            Some(Event::Message(v)) if v["panic"].is_string() => panic = v["panic"].as_str().map(String::from),
            Some(Event::Message(v)) => break Ok(v),
            Some(Event::Crash(e)) => break Err(Some(e)),
            Some(Event::Cancelled) => break Err(None),
            None => break Err(Some("the metrics worker stopped".into())),
        }
    };
    BUSY.with(|b| b.borrow_mut().take());
    match outcome {
        Ok(v) => {
            if cancelled_since(epoch) {
                running.worker.terminate();
            } else if let Some(old) = IDLE.with(|i| i.borrow_mut().replace(running)) {
                old.worker.terminate();
            }
            match v["error"].as_str() {
                Some(e) => Err(format!("{metric}: {e}")),
                None => Ok(v["result"].clone()),
            }
        }
        Err(None) => Err(format!("{metric}: cancelled")),
        Err(Some(crash)) => {
            running.worker.terminate();
            Err(format!("internal error in {metric}: {}", panic.unwrap_or(crash)))
        }
    }
}

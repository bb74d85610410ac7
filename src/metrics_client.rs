//! The page's side of the metrics worker: one worker, one job at a time. A job that crashes the
//! worker (a panic traps the wasm instance) or is cancelled terminates it; the next job starts a
//! fresh one, so the page itself never runs the metrics and never dies with them.

use std::cell::RefCell;
use std::rc::Rc;

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
}

struct Running {
    worker: Worker,
    /// Also held here so that `cancel` can end a job that is waiting for the worker.
    sender: UnboundedSender<Event>,
    events: RefCell<UnboundedReceiver<Event>>,
    _handlers: (Closure<dyn FnMut(MessageEvent)>, Closure<dyn FnMut(ErrorEvent)>),
}

thread_local! {
    static WORKER: RefCell<Option<Rc<Running>>> = const { RefCell::new(None) };
}

async fn spawn() -> Result<Rc<Running>, String> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let worker = Worker::new_with_options("./metrics_worker.js", &options).map_err(js_error)?;
    let (sender, events) = unbounded();
    let (tx, tx2) = (sender.clone(), sender.clone());
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let v = ev.data().as_string().and_then(|s| serde_json::from_str(&s).ok()).unwrap_or(Value::Null);
        let _ = tx.unbounded_send(Event::Message(v));
    });
    let on_error = Closure::<dyn FnMut(ErrorEvent)>::new(move |ev: ErrorEvent| {
        ev.prevent_default();
        let _ = tx2.unbounded_send(Event::Crash(ev.message()));
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    // The worker instantiates the module this page already compiled instead of fetching it again.
    worker.post_message(&wasm_bindgen::module()).map_err(js_error)?;
    let running = Rc::new(Running { worker, sender, events: RefCell::new(events), _handlers: (on_message, on_error) });
    let first = running.events.borrow_mut().next().await;
    match first {
        Some(Event::Message(v)) if v["ready"] == true => Ok(running),
        Some(Event::Crash(e)) => Err(format!("the metrics worker did not start: {e}")),
        _ => Err("the metrics worker did not start".into()),
    }
}

/// Stops the running job, if any: its worker is terminated and the job returns an error.
pub fn cancel() {
    if let Some(r) = WORKER.with(|w| w.borrow_mut().take()) {
        r.worker.terminate();
        let _ = r.sender.unbounded_send(Event::Crash("cancelled".into()));
    }
}

/// Runs one job (`request` from `metrics_job::Corpus::request`) for the metric named `metric`,
/// reporting the share done. Errors name the metric; after a crash the next job gets a new worker.
pub async fn run(metric: &str, request: String, mut progress: impl FnMut(f64)) -> Result<Value, String> {
    let running = match WORKER.with(|w| w.borrow().clone()) {
        Some(r) => r,
        None => {
            let r = spawn().await?;
            WORKER.with(|w| *w.borrow_mut() = Some(r.clone()));
            r
        }
    };
    running.worker.post_message(&JsValue::from_str(&request)).map_err(js_error)?;
    let mut panic = None;
    let mut events = running.events.try_borrow_mut().map_err(|_| "the metrics worker is busy".to_string())?;
    loop {
        let crash = match events.next().await {
            Some(Event::Message(v)) => {
                if let Some(p) = v["progress"].as_f64() {
                    progress(p);
                    continue;
                }
                if let Some(p) = v["panic"].as_str() {
                    panic = Some(p.to_string());
                    continue;
                }
                return match v["error"].as_str() {
                    Some(e) => Err(format!("{metric}: {e}")),
                    None => Ok(v["result"].clone()),
                };
            }
            Some(Event::Crash(e)) => e,
            None => "the metrics worker stopped".into(),
        };
        drop(events);
        if WORKER.with(|w| w.borrow().as_ref().is_some_and(|r| Rc::ptr_eq(r, &running))) {
            WORKER.with(|w| w.borrow_mut().take());
        }
        running.worker.terminate();
        return Err(format!("internal error in {metric}: {}", panic.unwrap_or(crash)));
    }
}

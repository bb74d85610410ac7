//! Runs a target over a range of input indices on a few threads, catching panics.

use std::borrow::Borrow;
use std::cell::{Cell, RefCell};
use std::fmt::Debug;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;
use std::time::Instant;

use crate::gen::Rng;

thread_local! {
    static CATCHING: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Replaces the default panic hook: panics inside a target are recorded instead of printed
/// (a million of them would flood the terminal); any other panic is printed as usual.
pub fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CATCHING.get() {
                LAST_PANIC.set(info.to_string());
            } else {
                default(info);
            }
        }));
    });
}

/// A panicking input: its debug form and the panic message with its location.
#[derive(Debug, Clone)]
pub struct Failure {
    pub input: String,
    pub message: String,
}

/// Runs `target` on `input`, turning a panic into a [`Failure`].
pub fn check<I: Debug + Borrow<T>, T: ?Sized>(input: I, target: fn(&T)) -> Result<(), Failure> {
    CATCHING.set(true);
    let result = panic::catch_unwind(AssertUnwindSafe(|| target(input.borrow())));
    CATCHING.set(false);
    result.map_err(|_| Failure { input: format!("{input:#?}"), message: LAST_PANIC.take() })
}

pub struct Target {
    pub name: &'static str,
    /// Loads what the target needs once, before it is timed.
    pub setup: fn(),
    /// Generates one input and runs the target on it.
    pub run_one: fn(&mut Rng) -> Result<(), Failure>,
}

/// The first panicking input found (lowest index among those the threads reached).
#[derive(Debug)]
pub struct Found {
    pub target: &'static str,
    pub seed: u64,
    pub index: u64,
    pub failure: Failure,
}

pub struct Summary {
    pub inputs: u64,
    pub seconds: f64,
}

/// Inputs `start..start + count` of `target`, the indices dealt round-robin over `threads` threads.
pub fn run(target: &Target, seed: u64, start: u64, count: u64, threads: u64) -> Result<Summary, Found> {
    (target.setup)();
    let threads = threads.max(1);
    let began = Instant::now();
    let stop = AtomicBool::new(false);
    let found: Vec<Option<Found>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let stop = &stop;
                scope.spawn(move || {
                    let mut index = start + t;
                    while index < start + count && !stop.load(Ordering::Relaxed) {
                        let mut rng = Rng::for_input(seed, target.name, index);
                        if let Err(failure) = (target.run_one)(&mut rng) {
                            stop.store(true, Ordering::Relaxed);
                            return Some(Found { target: target.name, seed, index, failure });
                        }
                        index += threads;
                    }
                    None
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("a worker thread panicked outside a target")).collect()
    });
    match found.into_iter().flatten().min_by_key(|f| f.index) {
        Some(f) => Err(f),
        None => Ok(Summary { inputs: count, seconds: began.elapsed().as_secs_f64() }),
    }
}

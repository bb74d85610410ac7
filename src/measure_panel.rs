//! "Measure this device" (below Settings): the settings' model timed here on its GPU engine and on
//! the CPU engine, and the memory benchmark; each result as a table and as JSON to copy.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::device_measure::{memory_parts, MAX_MEMORY_TRANSLATIONS, MEASURED_SENTENCES};
use crate::engine_client::{self, Ended, JobError};
use crate::engine_jobs::{Event, Job, MemoryPoint, Speed};
use crate::translate_examples::TestSet;
use crate::translate_page::{settings_pairs, Shared};

const LANE: &str = "measure";

fn ms(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.1} ms")
    } else {
        "—".into()
    }
}

fn mb(bytes: f64) -> String {
    format!("{:.1} MB", bytes / 1e6)
}

/// The measurement as rows of (what, value).
fn speed_rows(s: &Speed) -> Vec<(String, String)> {
    let mut rows = vec![("Model".to_string(), s.model.clone()), ("Backend".into(), s.backend.clone())];
    let n = s.sentences;
    match &s.gpu {
        None => {
            rows.push(("Greedy, batch 1, CPU".into(), format!("{} a token", ms(s.cpu_greedy_ms_per_token))));
            rows.push(("Beam 4, batch 1, CPU".into(), format!("{} a token", ms(s.cpu_beam4_ms_per_token))));
            rows.push(("GPU".into(), "no GPU engine for this model here (the backend says why)".into()));
        }
        Some(g) => {
            let times = |gpu: f64, cpu: f64| {
                format!("GPU {} a token, CPU {} (the GPU at {:.2}× the CPU's speed)", ms(gpu), ms(cpu), cpu / gpu)
            };
            rows.push(("Greedy, batch 1".into(), times(g.greedy_ms_per_token, s.cpu_greedy_ms_per_token)));
            rows.push(("Beam 4, batch 1".into(), times(g.beam4_ms_per_token, s.cpu_beam4_ms_per_token)));
            rows.push(("First token (GPU)".into(), ms(g.first_token_ms)));
            rows.push((
                "Greedy, 8 sentences at a time (GPU)".into(),
                format!("{:.1} sentences a second", g.sentences_per_second_batched),
            ));
            rows.push((
                "GPU engine set-up (pipelines created, weights queued, as the model loaded)".into(),
                g.setup_ms.map_or("—".into(), ms),
            ));
            let cost = |c: &crate::engine_jobs::TokenCost| {
                format!(
                    "{:.1} dispatches, {:.2} submissions, {:.2} readbacks",
                    c.dispatches, c.submissions, c.readbacks
                )
            };
            rows.push(("Asked of the GPU per greedy token".into(), cost(&g.greedy_cost)));
            rows.push(("Asked of the GPU per beam-4 token".into(), cost(&g.beam4_cost)));
            rows.push((
                "Tokens equal to the CPU engine's".into(),
                format!("greedy {} of {n} sentences, beam 4 {} of {n}", g.greedy_equal, g.beam4_equal),
            ));
        }
    }
    rows.push(("Engine worker's memory (wasm)".into(), mb(s.wasm_memory_bytes)));
    rows
}

#[component]
fn Rows(rows: Vec<(String, String)>, testid: &'static str) -> impl IntoView {
    view! {
        <table class="measure-table" data-testid=testid>
            <tbody>
                {rows.into_iter().map(|(k, v)| view! { <tr><th scope="row">{k}</th><td>{v}</td></tr> }).collect_view()}
            </tbody>
        </table>
    }
}

/// The memory benchmark as far as it went: its samples, the backend, how many of how many
/// translations are done, whether it still runs, and why it ended early if it did.
#[derive(Clone, Debug, Default)]
struct MemoryRun {
    points: Vec<MemoryPoint>,
    backend: String,
    done: usize,
    of: usize,
    running: bool,
    /// "Stopped" or "Ended by an error".
    cut_short: Option<&'static str>,
}

#[component]
fn MemoryTable(points: Vec<MemoryPoint>, backend: String) -> impl IntoView {
    view! {
        <p class="hint">{format!("On {backend}.")}</p>
        <table class="measure-table" data-testid="measure-memory-table">
            <thead><tr><th scope="col">"Translations"</th><th scope="col">"Wasm memory"</th><th scope="col">"GPU scratch buffers"</th><th scope="col">"GPU objects created"</th></tr></thead>
            <tbody>
                {points.into_iter().map(|p| view! {
                    <tr><td>{p.translations}</td><td>{mb(p.wasm_bytes)}</td><td>{p.gpu_scratch_bytes.map_or("—".into(), mb)}</td>
                    <td>{p.gpu_objects.map_or("—".into(), |(b, g)| format!("{b} buffers, {g} bind groups and uniforms"))}</td></tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}

/// The first sentences of the direction's test set, or why there are none.
fn measured_texts(test_set: &TestSet) -> Result<Vec<String>, String> {
    let texts: Vec<String> =
        test_set.examples.with_untracked(|e| e.iter().take(MEASURED_SENTENCES).map(|p| p.0.clone()).collect());
    match texts.is_empty() {
        true => Err("The direction's test sentences are not loaded (yet): there is nothing to measure with.".into()),
        false => Ok(texts),
    }
}

#[component]
pub fn MeasureDevice(test_set: TestSet) -> impl IntoView {
    let shared = expect_context::<Shared>();
    let speed = RwSignal::new(None::<Speed>);
    let memory = RwSignal::new(None::<MemoryRun>);
    let busy = RwSignal::new(false);
    // A Stop between two parts of the memory benchmark has no job to cancel: the next part sees this.
    let stop_asked = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let count_text = RwSignal::new(MAX_MEMORY_TRANSLATIONS.to_string());

    let measure = move |_| {
        if busy.get_untracked() {
            return;
        }
        let job = match measured_texts(&test_set) {
            Ok(texts) => Job::Measure { settings: settings_pairs(&shared.settings.get_untracked()), texts },
            Err(e) => return error.set(Some(e)),
        };
        busy.set(true);
        error.set(None);
        spawn_local(async move {
            match engine_client::run(LANE, job, |_, _, _| {}).await {
                Ok(Ended { last: Event::Measured(s), .. }) => speed.set(Some(*s)),
                Ok(_) => error.set(Some("The engine gave no measurement.".into())),
                Err(JobError::Cancelled) => {}
                Err(JobError::Model(e) | JobError::Failed(e)) => error.set(Some(e)),
            }
            busy.set(false);
        });
    };
    let run_memory = move |_| {
        if busy.get_untracked() {
            return;
        }
        let count = count_text.get_untracked();
        let translations = match count.trim().parse::<usize>() {
            Ok(n) if (1..=MAX_MEMORY_TRANSLATIONS).contains(&n) => n,
            _ => {
                let why = format!("The number of translations must be a whole number from 1 to {MAX_MEMORY_TRANSLATIONS}, not “{count}”.");
                return error.set(Some(why));
            }
        };
        let texts = match measured_texts(&test_set) {
            Ok(texts) => texts,
            Err(e) => return error.set(Some(e)),
        };
        let settings = settings_pairs(&shared.settings.get_untracked());
        busy.set(true);
        stop_asked.set(false);
        error.set(None);
        memory.set(Some(MemoryRun { of: translations, running: true, ..Default::default() }));
        let update = move |f: &dyn Fn(&mut MemoryRun)| memory.update(|m| m.iter_mut().for_each(f));
        spawn_local(async move {
            // A part at a time, so that the table grows as it goes and a Stop or a failure keeps it.
            for part in memory_parts(translations) {
                if stop_asked.get_untracked() {
                    update(&|m| m.cut_short = Some("Stopped"));
                    break;
                }
                let to = part.end;
                let job = Job::Memory { settings: settings.clone(), texts: texts.clone(), translations: part };
                let failure = match engine_client::run(LANE, job, |_, _, _| {}).await {
                    Ok(Ended { last: Event::Memory { point, backend }, .. }) => {
                        let before =
                            memory.with_untracked(|m| m.as_ref().map(|m| m.backend.clone()).unwrap_or_default());
                        if !before.is_empty() && before != backend {
                            Some(format!("The engine changed during the run, from {before} to {backend}; the samples before it are kept."))
                        } else {
                            update(&|m| {
                                m.points.push(point.clone());
                                m.backend.clone_from(&backend);
                                m.done = to;
                            });
                            None
                        }
                    }
                    Ok(_) => Some("The engine gave no memory samples.".to_string()),
                    Err(JobError::Cancelled) => {
                        update(&|m| m.cut_short = Some("Stopped"));
                        break;
                    }
                    Err(JobError::Model(e) | JobError::Failed(e)) => Some(e),
                };
                if let Some(e) = failure {
                    error.set(Some(e));
                    update(&|m| m.cut_short = Some("Ended by an error"));
                    break;
                }
            }
            update(&|m| m.running = false);
            busy.set(false);
        });
    };
    let stop = move |_| {
        stop_asked.set(true);
        engine_client::cancel(LANE);
    };
    let status = move || match (busy.get(), memory.get()) {
        (true, Some(m)) if m.running => format!("Measuring memory: {} of {} translations…", m.done, m.of),
        (true, _) => "Measuring…".to_string(),
        _ => String::new(),
    };
    view! {
        <details class="settings measure" data-testid="measure">
            <summary>"Measure this device"</summary>
            <p class="hint">{format!("Times the model chosen in Settings here, on this device's GPU engine (when it has one) and on the CPU engine, over the first {MEASURED_SENTENCES} test sentences of the direction: milliseconds per token one sentence at a time (greedy and beam 4), the first token's latency, sentences a second in batches, the GPU engine's set-up, what it asks of the GPU per token, and whether its tokens equal the CPU engine's. Nothing leaves the page; copy the JSON to share a result. Translations wait while it runs; Stop ends the timing without a result, and the memory benchmark with the samples it took so far. A software adapter (SwiftShader) takes minutes.")}</p>
            <div class="row">
                <button data-testid="measure-run" on:click=measure aria-disabled=move || busy.get().to_string()>"Measure"</button>
                <label>"Memory: "
                    <input type="text" inputmode="numeric" size="5" data-testid="measure-count" aria-label="translations for the memory benchmark"
                        prop:value=move || count_text.get() on:input=move |ev| count_text.set(event_target_value(&ev)) />
                    " translations "
                </label>
                <button data-testid="measure-memory" on:click=run_memory aria-disabled=move || busy.get().to_string()>"Run the memory benchmark"</button>
                <Show when=move || busy.get()>
                    <button data-testid="measure-stop" on:click=stop>"Stop"</button>
                </Show>
            </div>
            <p class="status" role="status" data-testid="measure-status">{status}</p>
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="measure-error">{e}</p> })}
            {move || speed.get().map(|s| {
                let json = serde_json::to_string_pretty(&s).unwrap_or_default();
                view! {
                    <Rows rows=speed_rows(&s) testid="measure-table" />
                    <details><summary>"JSON"</summary><pre data-testid="measure-json">{json}</pre></details>
                }
            })}
            {move || memory.get().map(|m| {
                // The JSON once the run is over (finished, stopped or failed): what a script waits for.
                let json = (!m.running).then(|| serde_json::to_string_pretty(&m.points).unwrap_or_default());
                let cut_short = m.cut_short.map(|why| format!("{why} after {} of {} translations; the samples up to then are kept.", m.done, m.of));
                view! {
                    {(!m.points.is_empty()).then(|| view! { <MemoryTable points=m.points backend=m.backend /> })}
                    {cut_short.map(|text| view! { <p class="hint" data-testid="measure-memory-stopped">{text}</p> })}
                    {json.map(|json| view! { <details><summary>"JSON"</summary><pre data-testid="measure-memory-json">{json}</pre></details> })}
                }
            })}
        </details>
    }
}

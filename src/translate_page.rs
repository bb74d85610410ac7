//! Translate: type and see the translation, with settings, confidence colouring, examples and a
//! whole-test-set evaluation.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wgslate_metrics::signature::{self, Resampling};
use wgslate_metrics::{Bleu, BleuOptions};
use wgslate_model::catalog::{self, language_name, CatalogEntry};
use wgslate_model::language;
use wgslate_model::sentences::{joined, split_sentences};

use crate::engine_client::{self, Ended, JobError, Ticket};
use crate::engine_jobs::{Event, Job, SearchChoice};
use crate::figures::{self, grouped};
use crate::file_translate::FileTranslate;
use crate::language_hint::LanguageHint;
use crate::language_picker::{direction, offline_choices, pair, LanguagePicker};
use crate::model_download::{waiting_status, ModelDownload};
use crate::offline_models::OfflineModels;
use crate::settings::Settings;
use crate::{browser, download};

pub const MAX_INPUT_CHARS: usize = 5000;

/// Whether the address keeps `text`: one over the limit is never translated, and megabytes in the
/// URL cost every keystroke a second and may not survive a reload (which then brought back an older text).
pub fn text_fits_a_link(text: &str) -> bool {
    text.len() <= MAX_INPUT_CHARS || text.chars().count() <= MAX_INPUT_CHARS
}

const BATCH: usize = 4;

#[derive(Clone, Debug, PartialEq)]
pub struct OutSentence {
    pub text: String,
    /// (surface form, probability) per output token, EOS excluded.
    pub tokens: Vec<(String, f32)>,
}

/// The state the views share: settings and text (the URL), the model list and the engine status.
/// Provided as context by the app; each view takes it with `expect_context::<Shared>()`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shared {
    pub settings: RwSignal<Settings>,
    pub text: RwSignal<String>,
    pub model_entries: RwSignal<Vec<CatalogEntry>>,
    pub model_status: RwSignal<String>,
    pub model_error: RwSignal<Option<String>>,
    pub load_progress: RwSignal<Option<f64>>,
    pub backend: RwSignal<String>,
    /// The models the main engine worker holds (`engine_client::Status::in_memory`).
    pub in_memory: RwSignal<Vec<String>>,
    /// Fill the BLEU page with (hypotheses, references).
    pub bleu_prefill: RwSignal<Option<(String, String)>>,
    /// The next change of the URL is a history entry even within a view (set by Swap, which replaces the
    /// user's text: Back brings it back).
    pub history_entry: StoredValue<bool>,
}

impl Shared {
    /// The model's title in the shipped list ("Transformer (distilled)"), or its name when the list lacks it.
    pub fn model_title(&self, model: &str) -> String {
        self.model_entries
            .with_untracked(|e| catalog::find(e, model).map(|m| m.title.clone()))
            .unwrap_or_else(|| model.to_string())
    }

    /// Whether the engine worker holds `model` (an ensemble: every member), tracked: it translates
    /// without a download, offline too.
    pub fn in_memory(&self, model: &str) -> bool {
        let names = self.model_entries.with(|e| catalog::model_names(e, model));
        self.in_memory.with(|held| names.iter().all(|n| held.contains(n)))
    }

    /// What Compare or Attention shows for a failed job: the model's own error, in place (the
    /// Translate view's alert is out of sight there); None for a cancelled job.
    pub fn job_error_message(&self, e: JobError) -> Option<String> {
        match e {
            JobError::Model(e) => Some(e),
            JobError::Failed(e) => Some(e),
            JobError::Cancelled => None,
        }
    }

    /// Whether the Translate view's first sentence is still `sentence` (tracked: a Memo over it runs
    /// again when the text changes), for results that say when the view has moved on.
    pub fn first_sentence_is(&self, sentence: &str) -> bool {
        self.text.with(|t| first_sentence_of(t)).as_deref() == Some(sentence)
    }
}

/// The first sentence of the Translate view's text, which Compare and Attention work on.
pub fn first_sentence(shared: &Shared) -> Result<String, String> {
    shared
        .text
        .with_untracked(|t| first_sentence_of(t))
        .ok_or_else(|| "Type a sentence in the Translate view first.".to_string())
}

/// What Compare or Attention will run on (tracked): "“A dog runs.” with Transformer (distilled),
/// SEARCH", the sentence cut at 80 characters; None while the Translate view has no text. A shared
/// link to those views showed none of it until a run.
pub fn what_runs(shared: &Shared, search: &str) -> Option<String> {
    let sentence = shared.text.with(|t| first_sentence_of(t))?;
    let shown: String = match sentence.chars().count() {
        n if n > 80 => sentence.chars().take(79).collect::<String>() + "…",
        _ => sentence,
    };
    shared.model_entries.track();
    let model = shared.model_title(&shared.settings.with(|s| s.model.clone()));
    // Isolated (FSI … PDI): a right-to-left mark in the sentence turned the whole line around.
    Some(format!("“\u{2068}{shown}\u{2069}” with {model}, {search}"))
}

fn first_sentence_of(text: &str) -> Option<String> {
    split_sentences(text).into_iter().flatten().next()
}

/// The settings as the engine worker takes them.
pub fn settings_pairs(s: &Settings) -> Vec<(String, String)> {
    s.to_pairs().into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// The finished sentences laid out as the input's lines, "…" for those still to come.
fn arrange(lines: &[Vec<String>], done: &[OutSentence]) -> Vec<Vec<OutSentence>> {
    let mut it = done.iter().cloned();
    // No tokens: drawn as plain text, not a word to colour and read out.
    let pending = || OutSentence { text: "…".into(), tokens: vec![] };
    lines.iter().map(|l| l.iter().map(|_| it.next().unwrap_or_else(pending)).collect()).collect()
}

/// Waits for the model list (or its error) and says whether `model` is in it, so that no job
/// starts for a model a link named that is not shipped (the app then replaces it).
async fn model_is_shipped(shared: Shared, model: &str) -> bool {
    while shared.model_entries.with_untracked(Vec::is_empty) && shared.model_error.with_untracked(Option::is_none) {
        browser::sleep_ms(50).await;
    }
    // The list failed to load: each new job asks again, so the pickers heal once the fault passes.
    if shared.model_entries.with_untracked(Vec::is_empty) {
        if let Ok(entries) = crate::models::load_index().await {
            shared.model_entries.set(entries);
        }
    }
    shared.model_entries.with_untracked(|e| e.is_empty() || catalog::lists(e, model))
}

/// How a run of the Translate box ended, for the view to show.
#[derive(Clone, Debug)]
enum Outcome {
    /// A newer run (or nothing to show) took over: the view keeps what it shows.
    Superseded,
    /// No text: no output and no status.
    Cleared,
    /// The output is in place; the status line to show.
    Finished(String),
    /// Shown next to the input in place of the output.
    Failed(String),
}

/// The Translate box's output side, which a run writes.
#[derive(Clone, Copy)]
struct OutputPane {
    output: RwSignal<Vec<Vec<OutSentence>>>,
    /// The model the output shown came from (a Stop of another model's download leaves it).
    output_model: RwSignal<Option<String>>,
    status: RwSignal<String>,
    input_error: RwSignal<Option<String>>,
}

/// One run of the Translate box: splits the text into sentences, sends them to the engine
/// workers in the ticket's lane and lays the finished sentences out in `output` as they come.
async fn translate_text(
    shared: Shared,
    ticket: Ticket,
    t: String,
    s: Settings,
    delay_ms: i32,
    pane: OutputPane,
) -> Outcome {
    if delay_ms > 0 {
        browser::sleep_ms(delay_ms).await;
    }
    if !ticket.is_current() || !model_is_shipped(shared, &s.model).await || !ticket.is_current() {
        return Outcome::Superseded;
    }
    pane.input_error.set(None);
    let chars = t.chars().count();
    if chars > MAX_INPUT_CHARS {
        engine_client::release(ticket);
        return Outcome::Failed(format!(
            "The text has {} characters; wgslate translates up to {} at a time. Split it into smaller parts, or use Translate a file. (The page's address keeps no text this long: a reload empties the box.)",
            grouped(chars),
            grouped(MAX_INPUT_CHARS)
        ));
    }
    let lines = split_sentences(&t);
    let total: usize = lines.iter().map(Vec::len).sum();
    if total == 0 {
        engine_client::release(ticket);
        return Outcome::Cleared;
    }
    let flat: Vec<String> = lines.iter().flatten().cloned().collect();
    let mut done: Vec<OutSentence> = Vec::with_capacity(total);
    pane.status.set(format!("Translating 0/{total} sentences…"));
    let job =
        Job::Translate { settings: settings_pairs(&s), texts: flat, search: SearchChoice::Settings, batch: BATCH };
    let result = engine_client::run_reserved(ticket, job, |_, sentences, _| {
        done.extend(sentences.into_iter().map(|nbest| {
            nbest
                .into_iter()
                .next()
                .map(|o| OutSentence { tokens: o.tokens.into_iter().zip(o.probs).collect(), text: o.text })
                .unwrap_or(OutSentence { text: String::new(), tokens: vec![] })
        }));
        // Sentences appear as they finish; the rest wait as "…".
        if done.len() < total {
            pane.output.set(arrange(&lines, &done));
            if pane.output_model.with_untracked(|m| m.as_deref() != Some(s.model.as_str())) {
                pane.output_model.set(Some(s.model.clone()));
            }
            pane.status.set(format!("Translating {}/{total} sentences…", done.len()));
        }
    })
    .await;
    let (notices, ms) = match result {
        // Which sentences, when there are several.
        Ok(Ended { last: Event::Finished { notices, .. }, search_ms }) if total > 1 => {
            (notices.messages_at("sentence"), search_ms)
        }
        Ok(Ended { last: Event::Finished { notices, .. }, search_ms }) => (notices.messages_of_one(), search_ms),
        Ok(Ended { search_ms, .. }) => (vec![], search_ms),
        Err(JobError::Cancelled) => return Outcome::Superseded,
        // The model's error is shown at the top; the old model's output is not kept.
        Err(JobError::Model(_)) => return Outcome::Cleared,
        Err(JobError::Failed(e)) => return Outcome::Failed(format!("Translation failed: {e}")),
    };
    pane.output.set(arrange(&lines, &done));
    pane.output_model.set(Some(s.model.clone()));
    Outcome::Finished(format!(
        "{} in {}{}",
        figures::count(total, "sentence"),
        figures::elapsed(ms),
        notices.iter().map(|n| format!("; {n}")).collect::<String>()
    ))
}

/// test_2016_flickr's (source, reference) pairs for a direction; none if either file is missing.
async fn test_set_pairs((s, t): &(String, String)) -> Vec<(String, String)> {
    match (
        download::fetch_text(&format!("data/test_2016_flickr.{s}")).await,
        download::fetch_text(&format!("data/test_2016_flickr.{t}")).await,
    ) {
        (Ok(src), Ok(rf)) => src.lines().zip(rf.lines()).map(|(a, b)| (a.to_string(), b.to_string())).collect(),
        _ => vec![],
    }
}

/// The index (among the output's shown tokens) of the coloured word a click or tap landed on.
fn tapped_word(ev: &web_sys::MouseEvent) -> Option<usize> {
    use wasm_bindgen::JsCast;
    let word = ev.target()?.dyn_into::<web_sys::Element>().ok()?.closest(".conf[data-k]").ok()??;
    word.get_attribute("data-k")?.parse().ok()
}

/// The coloured words in the order shown: each line's non-empty sentences, token by token (a sentence
/// still to come has none).
fn shown_tokens(output: &[Vec<OutSentence>]) -> impl Iterator<Item = &(String, f32)> {
    output.iter().flatten().filter(|s| !s.text.is_empty()).flat_map(|s| &s.tokens)
}

/// "“Hund”: p = 0.946" for the `k`th coloured word.
fn word_readout(output: &[Vec<OutSentence>], k: usize) -> Option<String> {
    shown_tokens(output).nth(k).map(|(t, p)| format!("“{}”: p = {p:.3}", t.trim()))
}

/// The word the arrow keys (and Home, End) move to from `chosen`, among `count`; None for other keys.
fn word_after_key(key: &str, chosen: Option<usize>, count: usize) -> Option<usize> {
    let last = count.checked_sub(1)?;
    Some(match (key, chosen) {
        ("ArrowRight" | "ArrowDown", Some(k)) => (k + 1).min(last),
        ("ArrowLeft" | "ArrowUp", Some(k)) => k.saturating_sub(1).min(last),
        ("ArrowRight" | "ArrowDown" | "Home", _) => 0,
        ("ArrowLeft" | "ArrowUp" | "End", _) => last,
        _ => return None,
    })
}

fn probability_class(p: f32) -> &'static str {
    match p {
        p if p >= 0.9 => "p5",
        p if p >= 0.7 => "p4",
        p if p >= 0.5 => "p3",
        p if p >= 0.3 => "p2",
        _ => "p1",
    }
}

#[component]
pub fn TranslatePage() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let Shared { settings, text, model_entries, model_status, model_error, backend, bleu_prefill, .. } = shared;
    let output = RwSignal::new(Vec::<Vec<OutSentence>>::new());
    let output_model = RwSignal::new(None::<String>);
    let status = RwSignal::new(String::new());
    // What the last Copy did ("Copied.", or why not), for a few seconds.
    let copy_note = RwSignal::new(None::<String>);
    let input_error = RwSignal::new(None::<String>);
    let colour = RwSignal::new(false);
    // The tapped, clicked or arrowed-to word (its index among the coloured words), whose probability
    // the readout shows: the tooltip alone is out of reach by touch and by keyboard.
    let word = RwSignal::new(None::<usize>);
    Effect::new(move |_| {
        output.track();
        word.set(None);
    });
    let example_ref = RwSignal::new(None::<String>);
    let eval_progress = RwSignal::new(None::<f64>);
    let eval_result = RwSignal::new(None::<EvalResult>);
    let eval_count = RwSignal::new(1000usize);
    let eval_count_problem = RwSignal::new(None::<String>);
    let eval_note = RwSignal::new(None::<String>);
    let eval_running = Memo::new(move |_| eval_progress.get().is_some());
    let kept_offline = RwSignal::new(Vec::<CatalogEntry>::new());
    let online = RwSignal::new(browser::online());
    let kept_names = move || kept_offline.with(|o| o.iter().map(CatalogEntry::name).collect::<Vec<_>>());

    // A run waits `delay_ms` (typing), then translates the text with the settings it was given.
    // Each dispatch takes the translate lane at once: the older run stops, and its sentences and
    // result no longer reach the view.
    // The output shown is for an older text or settings while a newer run is under way. (Not the
    // action's `pending()`: a superseded run may still be waiting for its model's download.)
    let stale = RwSignal::new(false);
    let translate = Action::new_local(move |(t, s, delay_ms): &(String, Settings, i32)| {
        let ticket = engine_client::reserve("translate");
        status.set("…".into());
        stale.set(true);
        translate_text(
            shared,
            ticket,
            t.clone(),
            s.clone(),
            *delay_ms,
            OutputPane { output, output_model, status, input_error },
        )
    });
    Effect::new(move |_| {
        let outcome = match translate.value().get() {
            None | Some(Outcome::Superseded) => return,
            Some(outcome) => outcome,
        };
        stale.set(false);
        match outcome {
            Outcome::Finished(done) => status.set(done),
            // An error replaces the old output instead of sitting below it.
            Outcome::Failed(message) => {
                output.set(vec![]);
                status.set(String::new());
                input_error.set(Some(message));
            }
            _ => {
                output.set(vec![]);
                status.set(String::new());
            }
        }
    });
    let run = move |delay_ms: i32| {
        translate.dispatch_local((text.get_untracked(), settings.get_untracked(), delay_ms));
    };

    // Translate as the text or the settings that act on it change (debounced); the app keeps the URL in step.
    let run_debounced = run;
    let effective = Memo::new(move |_| settings.with(Settings::effective));
    Effect::new(move |_| {
        text.track();
        // Read, not `track()`: a memo computes (and so finds its own sources) only when read.
        effective.with(|_| ());
        run_debounced(300);
    });

    // Whether a model was asked for already (fetched ahead, or stopped): the landing view's own early
    // fetch, which waits for the model list, then has nothing to add (it restarted a stopped download).
    let asked_for_model = StoredValue::new(false);
    // Fetches the chosen model in the "load" lane (replacing an older such fetch), for no translation yet.
    let prefetch = move || {
        asked_for_model.set_value(true);
        let job = Job::Load { settings: settings_pairs(&settings.get_untracked()) };
        spawn_local(async move {
            let _ = engine_client::run("load", job, |_, _, _| {}).await;
        });
    };

    // The landing view fetches the chosen model once the page is idle, so the first translation
    // does not wait for the download (a link with text starts translating, and loading, at once).
    spawn_local(async move {
        let slug = browser::location_hash().trim_start_matches('#').split(['?', '&']).next().unwrap_or("").to_string();
        browser::sleep_ms(500).await;
        let _ = model_is_shipped(shared, "").await;
        if matches!(slug.as_str(), "" | "translate")
            && text.get_untracked().trim().is_empty()
            && !asked_for_model.get_value()
        {
            prefetch();
        }
    });

    // Another model makes that early fetch moot: the new model's takes its place (which stops the
    // older download unless a job needs it), or, with text to translate, that translation loads it.
    let chosen = Memo::new(move |_| settings.with(|s| s.model.clone()));
    Effect::new(move |first: Option<()>| {
        chosen.with(|_| ());
        if first.is_none() {
            return;
        }
        // An evaluation under way scores the model it started with: another one makes it moot.
        engine_client::cancel("evaluate");
        if text.get_untracked().trim().is_empty() {
            prefetch();
        } else {
            engine_client::cancel("load");
        }
    });

    // Stops the jobs that wait for a download (in any view: the download goes on while one needs
    // it), not those translating with a model they have.
    let stop_download = move || {
        asked_for_model.set_value(true);
        let stopped = engine_client::stop_downloads();
        // The stopped run's output (for an earlier text, model or settings) stays, undimmed, and is
        // said to be from before: a Stop should not take the last translation away.
        let earlier = stopped.contains(&"translate") && output.with_untracked(|o| !o.is_empty());
        stale.set(stale.get_untracked() && !stopped.contains(&"translate"));
        if stopped.iter().any(|lane| ["translate", "load"].contains(lane)) {
            let again = if text.with_untracked(|t| t.trim().is_empty()) {
                "a text to translate starts it again"
            } else {
                "Ctrl+Enter or a change to the text starts it again"
            };
            let shown = if earlier { " (the translation shown is from before it)" } else { "" };
            status.set(format!("The model's download was stopped{shown}: {again}."));
        }
    };

    // ⇄ moves the output into the box as the other language: not while a run is under way, nor while
    // the output is another model's (a stopped download of the chosen one left it).
    let swap_waits = Signal::derive(move || {
        let another_models = output_model.with(|m| m.as_ref().is_some_and(|m| settings.with(|s| s.model != *m)));
        stale.get() || (another_models && output.with(|o| !o.is_empty()))
    });

    // Offline, or with a server that does not answer (the browser says it is online), when the
    // chosen model is neither kept nor held (so the error is its download's): the models that do
    // translate offline.
    let offline_hint = move || {
        let kept = kept_names();
        let ready = |model: &str| kept.iter().any(|k| k == model) || shared.in_memory(model);
        let entries = model_entries.get();
        let unreachable = model_error.with(|e| e.as_deref().is_some_and(|e| e.contains(download::DOWNLOAD_FAILED)));
        ((!online.get() || unreachable) && !ready(&settings.with(|s| s.model.clone())) && !entries.is_empty())
            .then(|| offline_choices(&entries, settings.with(|s| pair(&s.model).to_string()).as_str(), ready))
    };

    // After a failed download: Try again, or the browser saying it is online again, loads the
    // model anew (translating the text, if there is one).
    let retry = move || {
        if text.get_untracked().trim().is_empty() {
            prefetch();
        } else {
            run(0);
        }
    };
    let on_online = window_event_listener(leptos::ev::online, move |_| {
        online.set(true);
        if model_error.with_untracked(Option::is_some) {
            retry();
        }
    });
    let on_offline = window_event_listener(leptos::ev::offline, move |_| online.set(false));
    on_cleanup(move || {
        on_online.remove();
        on_offline.remove();
    });

    // The examples and the evaluation set follow the direction.
    let pair = Memo::new(move |_| direction(&settings.get().model));
    // Only a shipped model's languages have a test set (the app replaces any other model).
    let shipped = Memo::new(move |_| {
        let model = settings.with(|s| s.model.clone());
        model_entries.with(|e| catalog::lists(e, &model))
    });
    let test_set = LocalResource::new(move || {
        let (pair, shipped) = (pair.get(), shipped.get());
        async move {
            let pairs = match shipped {
                true => test_set_pairs(&pair).await,
                false => vec![],
            };
            (pair, pairs)
        }
    });
    // The direction's test set came back empty: its files could not be fetched.
    let test_set_missing = Memo::new(move |_| {
        shipped.get() && test_set.get().is_some_and(|(p, pairs)| p == pair.get() && pairs.is_empty())
    });
    // Empty until the direction's own test set is in (never the last direction's).
    let examples = Memo::new(move |_| {
        test_set.get().filter(|(p, _)| *p == pair.get()).map(|(_, pairs)| pairs).unwrap_or_default()
    });
    Effect::new(move |_| {
        pair.track();
        example_ref.set(None);
    });
    let output_text =
        move || output.get().iter().map(|l| joined(l.iter().map(|s| s.text.as_str()))).collect::<Vec<_>>().join("\n");

    let evaluate = {
        move |_| {
            if eval_running.get_untracked() || examples.with_untracked(Vec::is_empty) {
                return;
            }
            let s = settings.get_untracked();
            eval_result.set(None);
            eval_note.set(None);
            spawn_local(async move {
                let mut pairs = examples.get_untracked();
                pairs.truncate(eval_count.get_untracked().max(1));
                if pairs.is_empty() {
                    shared.model_error.set(Some("The test set (data/test_2016_flickr.*) could not be loaded.".into()));
                    return;
                }
                let sources: Vec<String> = pairs.iter().map(|p| p.0.clone()).collect();
                let mut order: Vec<usize> = (0..sources.len()).collect();
                order.sort_by_key(|&i| sources[i].len());
                let job = Job::Translate {
                    settings: settings_pairs(&s),
                    texts: order.iter().map(|&i| sources[i].clone()).collect(),
                    search: SearchChoice::Settings,
                    batch: 16,
                };
                let mut hyps = vec![String::new(); sources.len()];
                let mut done = 0;
                eval_progress.set(Some(0.0));
                let result = engine_client::run("evaluate", job, |first, sentences, _| {
                    for (k, nbest) in sentences.into_iter().enumerate() {
                        hyps[order[first + k]] = nbest.into_iter().next().map(|o| o.text).unwrap_or_default();
                        done += 1;
                    }
                    eval_progress.set(Some(done as f64 / sources.len() as f64));
                })
                .await;
                eval_progress.set(None);
                match result {
                    Ok(_) => {}
                    Err(JobError::Cancelled) => {
                        let now = settings.with_untracked(|now| now.model.clone());
                        let why = match (now != s.model, direction(&now)) {
                            (false, _) => String::new(),
                            (true, (from, to)) if direction(&s.model) != (from.clone(), to.clone()) => format!(
                                ": the direction was changed to {} → {}, so {} is no longer evaluated",
                                language_name(&from),
                                language_name(&to),
                                s.model
                            ),
                            (true, _) => format!(": another model was chosen, so {} is no longer evaluated", s.model),
                        };
                        return eval_note.set(Some(format!(
                            "Stopped after {} of {} sentences{why}.",
                            grouped(done),
                            grouped(sources.len())
                        )));
                    }
                    Err(JobError::Model(_)) => return,
                    Err(JobError::Failed(e)) => return shared.model_error.set(Some(format!("Evaluation failed: {e}"))),
                }
                let refs: Vec<&str> = pairs.iter().map(|p| p.1.as_str()).collect();
                let opts = BleuOptions::default();
                let h: Vec<&str> = hyps.iter().map(String::as_str).collect();
                let bleu = Bleu::new(opts.clone()).corpus_score(&h, std::slice::from_ref(&refs));
                eval_progress.set(None);
                eval_result.set(Some(EvalResult {
                    score: format!("{:.2}", bleu.score),
                    signature: signature::bleu(&opts, Some(1), &Resampling::default()).to_string(),
                    hyps: hyps.join("\n"),
                    refs: refs.join("\n"),
                    sentences: pairs.len(),
                    search: s.search_label(),
                    model: s.model.clone(),
                    scored_with: scored_with(&s),
                }));
            });
        }
    };

    let sentence_bleu = move || {
        let r = example_ref.get()?;
        let out = output.get();
        let hyp: Vec<String> =
            out.iter().map(|l| l.iter().map(|s| s.text.clone()).collect::<Vec<_>>().join(" ")).collect();
        let hyp = hyp.join(" ");
        let b = Bleu::new(BleuOptions { effective_order: true, ..Default::default() });
        let st = b.segment_stats(&hyp, &[r.as_str()]);
        Some(format!("{:.1}", b.compute(&st).score))
    };

    let run_now = run;
    let read_as = Memo::new(move |_| text.with(|t| language::guess(t)));
    view! {
        <section class="translate">
            // The other views have a visible title; here the language pickers say it, so it is for screen readers.
            <h2 class="sr-only">"Translate"</h2>
            <div class="toolbar">
                <LanguagePicker settings entries=model_entries kept_offline=Signal::derive(kept_names) in_memory=shared.in_memory online=online.into() output_text=Signal::derive(output_text) stale=swap_waits text />
            </div>
            {move || model_error.get().map(|e| view! {
                <p class="error" role="alert" data-testid="tr-error">{e}" "
                    {move || offline_hint().map(|hint| view! { <span data-testid="tr-offline-choices">{hint}" "</span> })}
                    <button type="button" data-testid="tr-retry" on:click=move |_| retry()>"Try again"</button>
                </p>
            })}
            <div class="panes">
                <div class="pane">
                    <textarea
                        data-testid="tr-input"
                        aria-label=move || format!("{} text to translate", language_name(&pair.get().0))
                        placeholder=move || format!("Type {} text… (Ctrl+Enter translates now)", language_name(&pair.get().0))
                        prop:value=move || text.get()
                        on:input=move |ev| {
                            example_ref.set(None);
                            text.set(event_target_value(&ev));
                        }
                        on:keydown=move |ev: web_sys::KeyboardEvent| {
                            if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                                ev.prevent_default();
                                run_now(0);
                            }
                        }
                    ></textarea>
                    <span class="lines">{move || format!("{} / {} characters", grouped(text.get().chars().count()), grouped(MAX_INPUT_CHARS))}</span>
                    <LanguageHint read_as subject="This text" testid="tr-language" />
                </div>
                <div class="pane">
                    <div class="output" class:stale=move || stale.get() aria-live="polite" role="region" aria-label=move || format!("{} translation", language_name(&pair.get().1)) aria-busy=move || stale.get().to_string() data-testid="tr-output" data-model=move || settings.get().model
                        tabindex=move || colour.get().then_some("0")
                        aria-keyshortcuts=move || colour.get().then_some("ArrowLeft ArrowRight Home End")
                        aria-describedby=move || colour.get().then_some("tr-conf-readout")
                        on:click=move |ev| word.set(tapped_word(&ev))
                        on:keydown=move |ev: web_sys::KeyboardEvent| {
                            if !colour.get_untracked() || ev.alt_key() || ev.ctrl_key() || ev.meta_key() {
                                return;
                            }
                            let count = output.with_untracked(|o| shown_tokens(o).count());
                            if let Some(k) = word_after_key(&ev.key(), word.get_untracked(), count) {
                                ev.prevent_default();
                                word.set(Some(k));
                                let shown = ev.current_target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok());
                                if let Some(Ok(Some(w))) = shown.map(|o| o.query_selector(&format!("[data-k='{k}']"))) {
                                    let rect = w.get_bounding_client_rect();
                                    browser::scroll_page_to_show(rect.top(), rect.bottom(), 0.0);
                                }
                            }
                        }>
                        {move || {
                            let c = colour.get();
                            // Each coloured word's index among them all (`shown_tokens`' order).
                            let mut k = 0..;
                            // A div per line and one space between sentences, so that text selected
                            // with the mouse copies as the Copy button does (a <p> copies with a blank
                            // line after it, and a trailing space per sentence would copy too).
                            output.get().into_iter().map(|line| view! {
                                <div class="line">
                                    // A blank line copies as one (an empty div copies as nothing).
                                    {line.iter().all(|s| s.text.is_empty()).then(|| view! { <br /> })}
                                    {line.into_iter().filter(|s| !s.text.is_empty()).enumerate().map(|(i, s)| {
                                        let gap = (i > 0).then_some(" ");
                                        let sentence = if c && !s.tokens.is_empty() {
                                            view! { <span class="sentence">{s.tokens.into_iter().enumerate().map(|(j, (t, p))| {
                                                // A token's surface starts with its space; the sentence's first one's is the gap above.
                                                let t = if j == 0 { t.trim_start().to_string() } else { t };
                                                let k = k.next().unwrap_or_default();
                                                view! { <span class=format!("conf {}", probability_class(p)) class:chosen=move || word.get() == Some(k) data-k=k title=format!("p = {p:.3}")>{t}</span> }
                                            }).collect_view()}</span> }.into_any()
                                        } else {
                                            view! { <span class="sentence">{s.text}</span> }.into_any()
                                        };
                                        (gap, sentence)
                                    }).collect_view()}
                                </div>
                            }).collect_view()
                        }}
                    </div>
                    <div class="out-tools">
                        <button data-testid="tr-copy" on:click=move |_| {
                            let text = output_text();
                            spawn_local(async move {
                                let note = match browser::copy_to_clipboard(&text).await {
                                    Ok(()) => "Copied.".to_string(),
                                    Err(e) => format!("Not copied: {e}."),
                                };
                                copy_note.set(Some(note));
                                browser::sleep_ms(4000).await;
                                copy_note.set(None);
                            });
                        }>"Copy"</button>
                        <span class="status" role="status" data-testid="tr-copy-note">{move || copy_note.get()}</span>
                        <label><input type="checkbox" prop:checked=move || colour.get() on:change=move |ev| colour.set(event_target_checked(&ev)) />" Colour by confidence"</label>
                        {move || colour.get().then(|| view! {
                            <span class="status" aria-live="polite" id="tr-conf-readout" data-testid="tr-conf-readout">{move || word.get().and_then(|k| output.with(|o| word_readout(o, k))).unwrap_or_else(|| "Tap or click a word, or use the arrow keys in the translation, for its probability.".into())}</span>
                            // Each swatch before its range, so that it is clear which colour goes with which.
                            <span class="legend"><span class="swatch conf p5" aria-hidden="true"></span>" p ≥ 0.9 · "<span class="swatch conf p4" aria-hidden="true"></span>" ≥ 0.7 · "<span class="swatch conf p3" aria-hidden="true"></span>" ≥ 0.5 · "<span class="swatch conf p2" aria-hidden="true"></span>" ≥ 0.3 (dotted underline) · "<span class="swatch conf p1" aria-hidden="true"></span>" < 0.3 (wavy)"</span>
                        })}
                        // A run under way while the model downloads has translated nothing yet: it waits.
                        <span class="status" data-testid="tr-status">{move || waiting_status(&shared, stale.get()).map_or_else(|| status.get(), String::from)}</span>
                    </div>
                    {move || input_error.get().map(|e| view! { <p class="error" role="alert" data-testid="tr-input-error">{e}</p> })}
                    {move || sentence_bleu().map(|b| view! { <p class="hint" data-testid="tr-example-bleu">"Sentence BLEU against the reference: "{b}</p> })}
                </div>
            </div>
            // Below the boxes: on a phone the translation and its Copy button show on the first screen.
            <div class="toolbar engine-line">
                <span class="backend" data-testid="tr-backend">{move || backend.get()}</span>
                <span class="status" role="status" data-testid="tr-model-status">{move || model_status.get()}</span>
                <ModelDownload prefix="tr" />
                {move || shared.load_progress.get().is_some().then(|| view! {
                    <button type="button" data-testid="tr-download-stop" on:click=move |_| stop_download()>"Stop the download"</button>
                })}
            </div>
            // Below the boxes, so that on a phone the translation shows above the fold.
            <p class="hint" data-testid="tr-domain">"Every model here learnt from Multi30k's 29 000 image captions (“Two dogs run through the snow.”): descriptions of a picture translate well; greetings, numbers and other kinds of text often do not."</p>
            <SettingsPanel settings />
            <FileTranslate />
            <OfflineModels entries=model_entries model_status list=kept_offline />
            <details class="examples">
                <summary>"Examples from test_2016_flickr"</summary>
                <Suspense fallback=|| view! { <p class="hint" data-testid="examples-loading">"Loading the test set…"</p> }>
                    {move || Suspend::new(async move {
                        let ((source, target), pairs) = test_set.await;
                        if pairs.is_empty() && test_set_missing.get_untracked() {
                            let missing = format!("The test set (data/test_2016_flickr.{source} and .{target}) could not be loaded: the examples and Evaluate need it. Reload the page to try again.");
                            return view! { <p class="error" role="alert" data-testid="examples-missing">{missing}</p> }.into_any();
                        }
                        let items = pairs.into_iter().take(40).map(|(src, rf)| {
                            let (s2, r2) = (src.clone(), rf.clone());
                            view! { <li><button class="link" on:click=move |_| { text.set(s2.clone()); example_ref.set(Some(r2.clone())); browser::reveal("[data-testid=tr-input]"); }>{src}</button></li> }
                        }).collect_view();
                        view! { <ul data-testid="examples">{items}</ul> }.into_any()
                    })}
                </Suspense>
            </details>
            <div class="evaluate">
                {move || test_set_missing.get().then(|| view! { <p class="hint" data-testid="eval-unavailable">"The test set could not be loaded (see the examples above), so there is nothing to evaluate on."</p> })}
                // aria-disabled, not disabled, which drops the keyboard focus when the run starts.
                <button data-testid="eval-run" on:click=evaluate aria-disabled=move || (eval_running.get() || examples.with(Vec::is_empty)).to_string()>"Evaluate on test_2016_flickr"</button>
                <label>
                    " first "
                    <input type="number" min="1" max="1000" step="1" data-testid="eval-count" prop:value=move || eval_count.get().to_string()
                        on:change=move |ev| match eval_count_checked(&event_target_value(&ev)) {
                            Ok(n) => {
                                eval_count_problem.set(None);
                                eval_count.set(n as usize);
                            }
                            Err(e) => {
                                let kept = eval_count.get_untracked();
                                eval_count_problem.set(Some(format!("{e}; the evaluation keeps the first {kept}.")));
                                event_target::<web_sys::HtmlInputElement>(&ev).set_value(&kept.to_string());
                            }
                        } />
                    " of 1 000 sentences"
                </label>
                {move || eval_count_problem.get().map(|e| view! { <p class="error" role="alert" data-testid="eval-count-error">{e}</p> })}
                // The Stop button is built once per run, not at every progress step (a click must not
                // land on a button that is being replaced).
                {move || eval_running.get().then(|| view! {
                    <progress max="1" prop:value=move || eval_progress.get().unwrap_or(0.0)></progress>
                    {move || format!(" {:.0} % ", 100.0 * eval_progress.get().unwrap_or(0.0))}
                    <button data-testid="eval-stop" on:click=move |_| engine_client::cancel("evaluate")>"Stop"</button>
                })}
                {move || eval_note.get().map(|n| view! { <p class="hint" data-testid="eval-note">{n}</p> })}
                <p class="status" role="status" data-testid="eval-status">{move || match (eval_running.get(), eval_result.with(|r| r.as_ref().map(|r| r.score.clone()))) {
                    (true, _) => "Evaluating…".to_string(),
                    (false, Some(score)) => format!("BLEU {score}"),
                    (false, None) => String::new(),
                }}</p>
                {move || eval_result.get().map(|r| {
                    let EvalResult { score, signature, hyps, refs, sentences, search, model, scored_with: used } = r;
                    view! {
                        <p>"BLEU " <strong data-testid="eval-bleu">{score}</strong> {format!(" on {} sentences, {model}, {search} ", grouped(sentences))} <code>{signature}</code></p>
                        <button data-testid="eval-open-bleu" on:click=move |_| bleu_prefill.set(Some((hyps.clone(), refs.clone())))>"Open in the BLEU page"</button>
                        {move || settings.with(|now| scored_with(now) != used).then(|| view! {
                            <p class="hint" data-testid="eval-stale">"The model or search settings changed since this evaluation; Evaluate again to score them."</p>
                        })}
                    }
                })}
            </div>
        </section>
    }
}

/// A finished test-set evaluation, with what it scored (kept with it, not looked up again: the
/// direction may change after it).
#[derive(Clone)]
struct EvalResult {
    score: String,
    signature: String,
    hyps: String,
    refs: String,
    sentences: usize,
    search: String,
    model: String,
    /// `scored_with` of the settings it ran with.
    scored_with: Vec<(String, String)>,
}

/// The settings that make a translation what it is: the model and the search as it acts (a rerank
/// box that cannot apply is off), not the backend, which gives the same tokens.
fn scored_with(s: &Settings) -> Vec<(String, String)> {
    settings_pairs(&s.effective()).into_iter().filter(|(k, _)| k != "backend").collect()
}

/// The "first N sentences" box's value, or why not.
fn eval_count_checked(value: &str) -> Result<f64, String> {
    match value.trim() {
        "" => Err("the number of sentences must be a number from 1 to 1000".into()),
        v => wgslate_decode::settings::checked_number("n", v),
    }
}

/// The validator's and the notices' messages start in lower case ("beam width must be …"), as the
/// CLI prints them; shown on their own in a view they start a sentence.
pub fn capitalised(message: &str) -> String {
    let mut chars = message.chars();
    chars.next().map_or(String::new(), |c| c.to_uppercase().chain(chars).collect())
}

/// Sets `key` from a number box. A box holding something that is not a number reads as empty.
fn checked_box(label: &str, key: &str, value: &str, settings: &mut Settings) -> Result<(), String> {
    if value.trim().is_empty() {
        return Err(format!("{label}: type a number"));
    }
    settings.set(key, value)
}

/// The id of the settings' message, which describes the box it is about.
const SETTINGS_ERROR: &str = "tr-settings-error";

#[component]
fn SettingsPanel(settings: RwSignal<Settings>) -> impl IntoView {
    // The box whose value was refused, and why; and the box whose typed value would be refused.
    let problem = RwSignal::new(None::<(&'static str, String)>);
    let invalid = RwSignal::new(None::<&'static str>);
    // A value the settings refuse (out of range, not a number) is named below the panel and leaves
    // the setting, and the box, as they were; the box is described by the message until it holds a
    // good value, and is invalid while it shows a value that would be refused.
    let num_input = move |label: &'static str,
                          testid: &'static str,
                          step: &'static str,
                          key: &'static str,
                          get: fn(&Settings) -> String| {
        let change = move |ev: web_sys::Event| {
            let mut s = settings.get_untracked();
            match checked_box(label, key, &event_target_value(&ev), &mut s) {
                Ok(()) => {
                    problem.set(None);
                    settings.set(s);
                }
                Err(e) => {
                    problem.set(Some((testid, e)));
                    invalid.set(None);
                    event_target::<web_sys::HtmlInputElement>(&ev).set_value(&get(&s));
                }
            }
        };
        // Typing a good value again (no change event: the box already held it) clears the message.
        let input = move |ev: web_sys::Event| {
            let good = checked_box(label, key, &event_target_value(&ev), &mut settings.get_untracked()).is_ok();
            if good {
                problem.set(None);
            }
            invalid.set((!good).then_some(testid));
        };
        // The arrows of the box stop at the validator's limits instead of stepping past them. The
        // lowest a multiple of the step: min is where the steps count from, and 0.01 with a step of 0.1
        // made the default 1 an invalid value (and its arrows gave 1.01).
        let bounds = wgslate_decode::settings::bounds(key);
        let step_size: f64 = step.parse().unwrap_or(1.0);
        let min = bounds.map(|(lo, _)| ((lo / step_size).ceil() * step_size * 1e6).round() / 1e6);
        let max = bounds.map(|(_, hi)| hi);
        // The boxes shown by a symbol beside their group's label have a name in words.
        let spoken = match key {
            "lp" => Some("Length penalty α"),
            "a" => Some("Max length a (times the input's length)"),
            "b" => Some("Max length b (tokens added)"),
            _ => None,
        };
        let refused = move || problem.with(|p| p.as_ref().is_some_and(|(box_id, _)| *box_id == testid));
        let shows_refused = move || invalid.get() == Some(testid);
        view! {
            <label>
                {label}" "
                <input type="number" step=step min=min max=max aria-label=spoken data-testid=testid prop:value=move || get(&settings.get()) on:change=change on:input=input
                    aria-invalid=move || shows_refused().then_some("true") aria-describedby=move || refused().then_some(SETTINGS_ERROR) />
            </label>
        }
    };
    // A preset that changes nothing does not restart the translation under way.
    let apply = move |preset: fn(&Settings) -> Settings| {
        problem.set(None);
        invalid.set(None);
        let next = settings.with_untracked(preset);
        if settings.with_untracked(|s| *s != next) {
            settings.set(next);
        }
    };
    view! {
        <details class="settings" open>
            <summary>"Settings"</summary>
            <div class="presets">
                <button type="button" data-testid="tr-best" title="Beam 4, its hypotheses reranked with the opposite direction's model (downloaded when first needed), chosen on en→de val: slower"
                    on:click=move |_| apply(Settings::with_best_quality)>"Best quality"</button>
                <button type="button" data-testid="tr-fastest" title="Greedy search, no penalties: the default"
                    on:click=move |_| apply(Settings::with_greedy)>"Fastest"</button>
            </div>
            <div class="options">
                <label>
                    "Backend "
                    // The device is chosen once per page: a new choice reloads it (text and settings are in the URL).
                    <select data-testid="tr-backend-choice" prop:value=move || settings.get().backend
                        on:change=move |ev| {
                            // A reload would end a long job silently: ask first, and keep the old choice if told no.
                            if let Some(job) = engine_client::long_job_running() {
                                let ask = format!("Changing the backend reloads the page, which stops {job}. Change it anyway?");
                                if !browser::confirm(&ask) {
                                    if let Some(select) = ev.target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlSelectElement>(t).ok()) {
                                        select.set_value(&settings.get_untracked().backend);
                                    }
                                    return;
                                }
                            }
                            let v = event_target_value(&ev);
                            settings.update(|s| s.backend = v);
                            browser::reload_soon();
                        }>
                        <option value="auto">"auto (GPU unless it is a software one)"</option>
                        <option value="gpu">"GPU (WebGPU)"</option>
                        <option value="cpu">"CPU (WebAssembly)"</option>
                    </select>
                </label>
                {num_input("Beam width", "tr-beam", "1", "beam", |s| s.beam.to_string())}
                <label>
                    "Length penalty "
                    <select prop:value=move || settings.get().lenpen_kind on:change=move |ev| settings.update(|s| s.lenpen_kind = event_target_value(&ev))>
                        <option value="gnmt">"GNMT"</option>
                        <option value="avg">"average"</option>
                    </select>
                </label>
                {num_input("α", "tr-lenpen", "0.1", "lp", |s| s.lenpen.to_string())}
                {num_input("Coverage β", "tr-coverage", "0.1", "cov", |s| s.coverage.to_string())}
                {num_input("End penalty γ", "tr-end", "0.1", "end", |s| s.end_penalty.to_string())}
                {num_input("Max length a·|x|+b: a", "tr-max-a", "0.1", "a", |s| s.max_len_a.to_string())}
                {num_input("b", "tr-max-b", "1", "b", |s| s.max_len_b.to_string())}
                <label title="A beam's hypotheses (beam width 2 or more, no sampling) reordered by how well the model of the opposite direction, downloaded when needed, turns each back into the input: slower, more adequate">
                    <input type="checkbox" data-testid="tr-rerank" prop:checked=move || settings.get().rerank
                        prop:disabled=move || { let s = settings.get(); !s.rerank && !s.search_can_rerank() }
                        on:change=move |ev| settings.update(|s| s.rerank = event_target_checked(&ev)) />
                    " Rerank with the reverse model (beam)"
                    {move || { let s = settings.get(); (s.rerank && !s.reranks()).then_some(" — off until the beam is 2 or more, without sampling") }}
                </label>
                <label>
                    <input type="checkbox" data-testid="tr-sample" prop:checked=move || settings.get().sample on:change=move |ev| settings.update(|s| s.sample = event_target_checked(&ev)) />
                    " Sample"
                </label>
                {num_input("Temperature", "tr-temperature", "0.1", "t", |s| s.temperature.to_string())}
                {num_input("Top-k", "tr-top-k", "1", "k", |s| s.top_k.to_string())}
                {num_input("Top-p", "tr-top-p", "0.05", "p", |s| s.top_p.to_string())}
                {num_input("Seed", "tr-seed", "1", "seed", |s| s.seed.to_string())}
            </div>
            // Which boxes the Translate view's search leaves unused (Compare's columns use both kinds).
            <p class="hint" data-testid="tr-idle-settings">{move || match settings.get().sample {
                true => "Sample is ticked: the beam width, length penalty, coverage and end penalty boxes do not apply here.",
                false => "Temperature, top-k, top-p and seed apply only when Sample is ticked (and to Compare's sample).",
            }}</p>
            {move || problem.get().map(|(_, e)| view! { <p class="error" role="alert" id=SETTINGS_ERROR data-testid="tr-settings-error">{capitalised(&e)}</p> })}
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arrow_keys_walk_the_coloured_words_and_stop_at_the_ends() {
        assert_eq!(word_after_key("ArrowRight", None, 3), Some(0));
        assert_eq!(word_after_key("ArrowLeft", None, 3), Some(2));
        assert_eq!(word_after_key("ArrowRight", Some(1), 3), Some(2));
        assert_eq!(word_after_key("ArrowRight", Some(2), 3), Some(2));
        assert_eq!(word_after_key("ArrowLeft", Some(0), 3), Some(0));
        assert_eq!(word_after_key("End", Some(0), 3), Some(2));
        assert_eq!(word_after_key("Home", Some(2), 3), Some(0));
        assert_eq!(word_after_key("a", Some(1), 3), None);
        assert_eq!(word_after_key("ArrowRight", None, 0), None);
    }

    #[test]
    fn the_readout_names_the_word_shown_at_that_place() {
        let s = |text: &str, tokens: &[(&str, f32)]| OutSentence {
            text: text.into(),
            tokens: tokens.iter().map(|(t, p)| (t.to_string(), *p)).collect(),
        };
        // An empty sentence draws no words, so the count goes on with the next one.
        let output = vec![
            vec![s("Ein Hund", &[("Ein", 0.9), (" Hund", 0.5)]), s("", &[("x", 0.1)])],
            vec![s("Zwei", &[("Zwei", 0.25)])],
        ];
        assert_eq!(word_readout(&output, 1).as_deref(), Some("“Hund”: p = 0.500"));
        assert_eq!(word_readout(&output, 2).as_deref(), Some("“Zwei”: p = 0.250"));
        assert_eq!(word_readout(&output, 3), None);
    }

    #[test]
    fn finished_sentences_fill_the_lines_in_order_and_the_rest_wait() {
        let lines = vec![vec!["A.".to_string(), "B.".to_string()], vec![], vec!["C.".to_string()]];
        let done = vec![OutSentence { text: "a".into(), tokens: vec![] }];
        let shown: Vec<Vec<String>> =
            arrange(&lines, &done).into_iter().map(|l| l.into_iter().map(|s| s.text).collect()).collect();
        assert_eq!(shown, [vec!["a", "…"], vec![], vec!["…"]]);
    }
}

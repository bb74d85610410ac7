//! Translate's input: the box to type in, its character count and language hint, and the live
//! translation that follows it (debounced runs in the engine workers' translate lane, whose
//! sentences fill the output as they finish).

use leptos::prelude::*;
use wgslate_model::catalog::{self, language_name};
use wgslate_model::language;
use wgslate_model::sentences::{joined, split_sentences};

use crate::browser;
use crate::engine_client::{self, Ended, JobError, Ticket};
use crate::engine_jobs::{Event, Job, SearchChoice};
use crate::figures::{self, grouped};
use crate::language_hint::LanguageHint;
use crate::settings::Settings;
use crate::translate_page::{settings_pairs, OutSentence, Shared, MAX_INPUT_CHARS};

const BATCH: usize = 4;

/// The finished sentences laid out as the input's lines, "…" for those still to come.
fn arrange(lines: &[Vec<String>], done: &[OutSentence]) -> Vec<Vec<OutSentence>> {
    let mut it = done.iter().cloned();
    // No tokens: drawn as plain text, not a word to colour and read out.
    let pending = || OutSentence { text: "…".into(), tokens: vec![] };
    lines.iter().map(|l| l.iter().map(|_| it.next().unwrap_or_else(pending)).collect()).collect()
}

/// Waits for the model list (or its error) and says whether `model` is in it, so that no job
/// starts for a model a link named that is not shipped (the app then replaces it).
pub async fn model_is_shipped(shared: Shared, model: &str) -> bool {
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

/// The live translation of the Translate box: what its runs write, which the output pane shows.
#[derive(Clone, Copy)]
pub struct Live {
    shared: Shared,
    pub output: RwSignal<Vec<Vec<OutSentence>>>,
    /// The model the output shown came from (a Stop of another model's download leaves it).
    pub output_model: RwSignal<Option<String>>,
    pub status: RwSignal<String>,
    pub input_error: RwSignal<Option<String>>,
    /// The output shown is for an older text or settings while a newer run is under way. (Not the
    /// action's `pending()`: a superseded run may still be waiting for its model's download.)
    pub stale: RwSignal<bool>,
    translate: Action<(String, Settings, i32), Outcome>,
}

impl Live {
    /// Translates the text as it or the settings that act on it change.
    pub fn start(shared: Shared) -> Self {
        let Shared { settings, text, .. } = shared;
        let output = RwSignal::new(Vec::<Vec<OutSentence>>::new());
        let output_model = RwSignal::new(None::<String>);
        let status = RwSignal::new(String::new());
        let input_error = RwSignal::new(None::<String>);

        // A run waits `delay_ms` (typing), then translates the text with the settings it was given.
        // Each dispatch takes the translate lane at once: the older run stops, and its sentences and
        // result no longer reach the view.
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
        let live = Live { shared, output, output_model, status, input_error, stale, translate };

        // Translate as the text or the settings that act on it change (debounced); the app keeps the URL in step.
        let effective = Memo::new(move |_| settings.with(Settings::effective));
        Effect::new(move |_| {
            text.track();
            // Read, not `track()`: a memo computes (and so finds its own sources) only when read.
            effective.with(|_| ());
            live.run(300);
        });
        live
    }

    /// Translates the text as it is, after `delay_ms`.
    pub fn run(self, delay_ms: i32) {
        self.translate.dispatch_local((
            self.shared.text.get_untracked(),
            self.shared.settings.get_untracked(),
            delay_ms,
        ));
    }

    /// The output as text (tracked): a line per input line, its sentences joined.
    pub fn output_text(self) -> String {
        self.output.get().iter().map(|l| joined(l.iter().map(|s| s.text.as_str()))).collect::<Vec<_>>().join("\n")
    }

    /// Whether ⇄, which moves the output into the box as the other language, waits (tracked): while a
    /// run is under way, or while the output is another model's (a stopped download of the chosen one
    /// left it).
    pub fn swap_waits(self) -> bool {
        let settings = self.shared.settings;
        let another_models = self.output_model.with(|m| m.as_ref().is_some_and(|m| settings.with(|s| s.model != *m)));
        self.stale.get() || (another_models && self.output.with(|o| !o.is_empty()))
    }
}

/// The box to type in, with its character count and a hint when the text reads as another language.
#[component]
pub fn TranslateInput(
    live: Live,
    /// The direction: (source, target) language codes.
    pair: Memo<(String, String)>,
    /// The reference of the example in the box, which typing drops.
    example_ref: RwSignal<Option<String>>,
) -> impl IntoView {
    let text = expect_context::<Shared>().text;
    let read_as = Memo::new(move |_| text.with(|t| language::guess(t)));
    view! {
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
                        live.run(0);
                    }
                }
            ></textarea>
            <span class="lines">{move || format!("{} / {} characters", grouped(text.get().chars().count()), grouped(MAX_INPUT_CHARS))}</span>
            <LanguageHint read_as subject="This text" testid="tr-language" />
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finished_sentences_fill_the_lines_in_order_and_the_rest_wait() {
        let lines = vec![vec!["A.".to_string(), "B.".to_string()], vec![], vec!["C.".to_string()]];
        let done = vec![OutSentence { text: "a".into(), tokens: vec![] }];
        let shown: Vec<Vec<String>> =
            arrange(&lines, &done).into_iter().map(|l| l.into_iter().map(|s| s.text).collect()).collect();
        assert_eq!(shown, [vec!["a", "…"], vec![], vec!["…"]]);
    }
}

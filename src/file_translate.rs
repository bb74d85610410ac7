//! Translate a file: a picked or dropped .txt, each line split into sentences, translated a few at a
//! time with progress and a Stop button, then downloaded with the same number of lines.

use leptos::prelude::*;
use leptos::task::spawn_local;

use wgslate_model::catalog::language_name;
use wgslate_model::language;
use wgslate_model::sentences::{line_end, lines_hold, Segments, LONE_CARRIAGE_RETURN};
use wgslate_model::translate::Notices;

use crate::browser;
use crate::engine_client::{self, Ended, JobError};
use crate::engine_jobs::{Job, Output, SearchChoice};
use crate::figures::{count, elapsed, grouped};
use crate::language_hint::LanguageHint;
use crate::language_picker::direction;
use crate::translate_page::{settings_pairs, Shared};

/// Lines per call: small enough that Stop and the progress answer quickly.
const LINES_PER_CALL: usize = 8;
/// The largest file taken, in lines, sentences and bytes (larger ones get a message). A caption file
/// of 10 000 lines has about 10 300 sentences; the bytes are checked before the file is read, which
/// for 20 MB held the page for 4 s.
const MAX_LINES: usize = 10_000;
const MAX_SENTENCES: usize = 20_000;
const MAX_MB: f64 = 4.0;

/// The name of the translated file: `notes.txt` → `notes.de.txt` for a German model.
fn output_name(input: &str, target: &str) -> String {
    match input.rsplit_once('.') {
        Some((stem, ext)) => format!("{stem}.{target}.{ext}"),
        None => format!("{input}.{target}.txt"),
    }
}

/// Puts translated sentences back on their lines and counts the lines finished.
struct Assembly {
    out: Vec<String>,
    /// "\r\n" when the file came with Windows line ends, so the translation keeps them.
    line_end: &'static str,
    left: Vec<usize>,
    lines_done: usize,
}

impl Assembly {
    fn new(segments: &Segments, line_end: &'static str) -> Self {
        Self {
            out: vec![String::new(); segments.per_line.len()],
            line_end,
            left: segments.per_line.clone(),
            lines_done: 0,
        }
    }

    fn add(&mut self, line: usize, translation: &str) {
        let out = &mut self.out[line];
        if !out.is_empty() && !translation.is_empty() {
            out.push(' ');
        }
        out.push_str(translation);
        self.left[line] -= 1;
        if self.left[line] == 0 {
            self.lines_done += 1;
        }
    }

    /// The file's text: one line out per line in, each ending in a line break; a line whose
    /// sentences are not all translated yet (after Stop) stays empty.
    fn text(&self) -> String {
        self.out
            .iter()
            .zip(&self.left)
            .map(|(l, &left)| if left == 0 { format!("{l}{}", self.line_end) } else { self.line_end.into() })
            .collect()
    }
}

#[component]
pub fn FileTranslate() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let status = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    // (file name, text, button label)
    let result = RwSignal::new(None::<(String, String, String)>);
    let running = RwSignal::new(false);
    // The language the last file reads as, and the file, which the hint's button translates again.
    let read_as = RwSignal::new(None::<&'static str>);
    let last_file = StoredValue::new_local(None::<web_sys::File>);
    let start = {
        move |file: Option<web_sys::File>| {
            let Some(file) = file else { return };
            last_file.set_value(Some(file.clone()));
            read_as.set(None);
            // A new file takes the lane at once: the older file's run stops and leaves the view alone.
            let ticket = engine_client::reserve("file");
            error.set(None);
            result.set(None);
            status.set(String::new());
            running.set(true);
            spawn_local(async move {
                let finish = move |e: Option<String>| {
                    // A file refused before it ran holds its lane no longer (a reload then asked to stop it).
                    engine_client::release(ticket);
                    if !ticket.is_superseded() {
                        error.set(e);
                        running.set(false);
                    }
                };
                if file.size() > MAX_MB * 1e6 {
                    return finish(Some(format!(
                        "{} is {:.1} MB; wgslate translates files of up to {MAX_MB:.0} MB.",
                        file.name(),
                        file.size() / 1e6
                    )));
                }
                let text = match browser::read_file(&file).await {
                    Ok(t) => t,
                    Err(e) => return finish(Some(e)),
                };
                if !ticket.is_current() {
                    // Stopped while it was read (Stop the download takes a job about to claim one).
                    if !ticket.is_superseded() {
                        status.set(format!("{} was stopped before it began.", file.name()));
                    }
                    return finish(None);
                }
                // A byte order mark is not part of the first sentence to translate.
                let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
                let lines: Vec<String> = text.lines().map(str::to_string).collect();
                if lines.len() > MAX_LINES {
                    let n = lines.len();
                    return finish(Some(format!(
                        "{} has {} lines; wgslate translates files of up to {} lines.",
                        file.name(),
                        grouped(n),
                        grouped(MAX_LINES)
                    )));
                }
                read_as.set(language::of_lines(lines.iter().map(String::as_str)).map(|(code, ..)| code));
                let segments = Segments::of(&lines);
                let with_text = segments.lines_with_text();
                if with_text == 0 {
                    return finish(Some(format!("{} has no text to translate.", file.name())));
                }
                let n_sentences = segments.sentences.len();
                if n_sentences > MAX_SENTENCES {
                    return finish(Some(format!(
                        "{} has {} sentences; wgslate translates files of up to {} sentences (split it into parts).",
                        file.name(),
                        grouped(n_sentences),
                        grouped(MAX_SENTENCES)
                    )));
                }
                let s = shared.settings.get_untracked();
                let target = match direction(&s.model).1 {
                    t if t.is_empty() => "out".to_string(),
                    t => t,
                };
                // The run keeps the settings it started with; the status names them, so a change made
                // meanwhile is not mistaken for one that applied.
                let (source, target_language) = direction(&s.model);
                let with = format!(
                    "with {}, {} → {}, {}",
                    shared.model_title(&s.model),
                    language_name(&source),
                    language_name(&target_language),
                    s.search_label()
                );
                let out_name = output_name(&file.name(), &target);
                let line_end = line_end(text);
                let mut assembly = Assembly::new(&segments, line_end);
                let (all_lines, all_sentences) = (count(with_text, "line"), count(n_sentences, "sentence"));
                let starting = format!("Translating 0 of {all_lines} (0 of {all_sentences}) {with}…");
                status.set(starting.clone());
                let mut sentences_done = 0;
                let job = Job::Translate {
                    settings: settings_pairs(&s),
                    texts: segments.sentences.iter().map(|(_, t)| t.clone()).collect(),
                    search: SearchChoice::Settings,
                    batch: LINES_PER_CALL,
                };
                // What the user should be told about the sentences translated so far (a Stop keeps them).
                let mut told = Notices::default();
                let on_sentences = |first: usize, sentences: Vec<Vec<Output>>, notices: Notices| {
                    sentences_done += sentences.len();
                    told.merge(notices);
                    for (k, nbest) in sentences.into_iter().enumerate() {
                        let text = nbest.into_iter().next().map(|o| o.text).unwrap_or_default();
                        assembly.add(segments.sentences[first + k].0, &text);
                    }
                    status.set(format!(
                        "Translating {} of {all_lines} ({} of {all_sentences}) {with}…",
                        grouped(assembly.lines_done),
                        grouped(sentences_done)
                    ));
                };
                // Its own model's download: the bar above follows the model chosen now, which may be
                // another by now (and Best quality's reverse model is the bar's to show).
                let on_download = |model: &str, share: f64| {
                    if !model.starts_with(&s.model) {
                        return;
                    }
                    status.set(if share < 1.0 {
                        format!(
                            "Downloading {model}, {:.0} %, to translate {all_lines} ({all_sentences}) {with}…",
                            share * 100.0
                        )
                    } else {
                        starting.clone()
                    })
                };
                let outcome = engine_client::run_watched(ticket, job, on_sentences, on_download).await;
                let lone_returns = lines.iter().filter(|l| l.contains('\r')).count();
                let notes = told.renumbered(|i| segments.sentences[i].0).messages_at("line");
                let notes: String = notes
                    .into_iter()
                    .chain(lines_hold(lone_returns, LONE_CARRIAGE_RETURN))
                    .map(|n| format!("; {n}"))
                    .collect();
                let ms = match outcome {
                    Ok(Ended { search_ms, .. }) => search_ms,
                    // A newer file took over.
                    Err(JobError::Cancelled) if ticket.is_superseded() => return,
                    Err(JobError::Cancelled) => {
                        let done = assembly.lines_done;
                        status.set(format!("Stopped after {} of {all_lines} ({with}){notes}.", grouped(done)));
                        // What was translated is kept: the lines not reached stay empty.
                        // Named so that it is not taken for the whole translation.
                        if done > 0 {
                            result.set(Some((
                                output_name(&file.name(), &format!("{target}.partial")),
                                assembly.text(),
                                format!("Download the {}", wgslate_metrics::plural(done, "translated line")),
                            )));
                        }
                        return finish(None);
                    }
                    Err(JobError::Model(e)) => {
                        status.set(String::new());
                        return finish(Some(e));
                    }
                    Err(JobError::Failed(e)) => {
                        status.set(String::new());
                        return finish(Some(format!("Translation failed: {e}")));
                    }
                };
                status.set(format!(
                    "{} ({} translated) {with} in {}{}",
                    count(lines.len(), "line"),
                    grouped(with_text),
                    elapsed(ms),
                    notes
                ));
                let label = format!("Download {out_name}");
                result.set(Some((out_name, assembly.text(), label)));
                finish(None);
            });
        }
    };
    let start_drop = start;
    let section = NodeRef::<leptos::html::Details>::new();
    let start_again = start;
    view! {
        // The whole section takes a dropped file, not only its drop zone; closed, it opens to show the run.
        <details
            class="file-translate"
            node_ref=section
            on:dragover=move |ev: web_sys::DragEvent| if browser::drags_files(&ev) { ev.prevent_default() }
            on:drop=move |ev: web_sys::DragEvent| {
                let dropped = browser::dropped_file(&ev);
                if dropped.is_some() {
                    if let Some(d) = section.get_untracked() {
                        d.set_open(true);
                    }
                }
                match dropped {
                    Some(Ok(file)) => start_drop(Some(file)),
                    Some(Err(e)) => error.set(Some(e)),
                    None => {}
                }
            }
        >
            <summary>"Translate a file"</summary>
            <p class="hint">{format!("A .txt file (up to {} lines, {} sentences and {MAX_MB:.0} MB), each line's sentences translated with the model and settings above; the result has the same lines.", grouped(MAX_LINES), grouped(MAX_SENTENCES))}</p>
            <div class="drop">
                <label class="file">"Choose or drop a .txt file "
                    <input type="file" accept=".txt,text/plain" data-testid="tr-file" on:change=move |ev| start(browser::picked_file(&ev)) />
                </label>
                {move || running.get().then(|| view! {
                    <button data-testid="tr-file-stop" on:click=move |_| engine_client::cancel("file")>"Stop"</button>
                })}
                <span class="status" data-testid="tr-file-status" aria-live="polite">{move || status.get()}</span>
            </div>
            <LanguageHint read_as subject="This file" testid="tr-file-language"
                after_switch=Callback::new(move |_| start_again(last_file.get_value())) />
            {move || result.get().map(|(name, body, label)| {
                view! {
                    <button class="primary" data-testid="tr-file-download" on:click=move |_| browser::download_text(&name, &body, "text/plain")>{label}</button>
                }
            })}
            // Below the last file's download: a refused drop (two files) leaves that result as it was.
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="tr-file-error">{e}</p> })}
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::{output_name, Assembly, Segments};

    #[test]
    fn the_translation_is_named_after_the_file_and_the_target_language() {
        assert_eq!(output_name("notes.txt", "de"), "notes.de.txt");
        assert_eq!(output_name("a.b.txt", "en"), "a.b.en.txt");
        assert_eq!(output_name("README", "de"), "README.de.txt");
    }

    #[test]
    fn a_line_of_sentences_is_translated_sentence_by_sentence_and_joined_on_its_line() {
        let lines: Vec<String> = ["A dog runs. Two men fish!", "", "  ", "One more"].map(String::from).into();
        let segments = Segments::of(&lines);
        let texts: Vec<(usize, &str)> = segments.sentences.iter().map(|(i, t)| (*i, t.as_str())).collect();
        assert_eq!(texts, [(0, "A dog runs."), (0, "Two men fish!"), (3, "One more")]);
        assert_eq!(segments.lines_with_text(), 2);
        let mut assembly = Assembly::new(&segments, "\n");
        assembly.add(0, "Ein Hund rennt.");
        assert_eq!(assembly.lines_done, 0);
        assembly.add(0, "Zwei Männer angeln!");
        assembly.add(3, "Noch einer");
        assert_eq!(assembly.lines_done, 2);
        assert_eq!(assembly.text(), "Ein Hund rennt. Zwei Männer angeln!\n\n\nNoch einer\n");
    }

    #[test]
    fn after_stop_a_line_with_sentences_missing_stays_empty() {
        let lines: Vec<String> = ["A dog runs. Two men fish!", "One more"].map(String::from).into();
        let mut assembly = Assembly::new(&Segments::of(&lines), "\n");
        assembly.add(0, "Ein Hund rennt.");
        assert_eq!(assembly.text(), "\n\n");
    }

    #[test]
    fn windows_line_ends_stay_windows_line_ends() {
        let lines: Vec<String> = ["A dog.", "", "A cat."].map(String::from).into();
        let mut assembly = Assembly::new(&Segments::of(&lines), "\r\n");
        assembly.add(0, "Ein Hund.");
        assembly.add(2, "Eine Katze.");
        assert_eq!(assembly.text(), "Ein Hund.\r\n\r\nEine Katze.\r\n");
    }
}

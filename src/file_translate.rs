//! Translate a file: a picked or dropped .txt, one segment per line, translated a few lines at a
//! time with progress and a Stop button, then downloaded with the same number of lines.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::browser;
use crate::engine_client::{self, JobError};
use crate::engine_jobs::{Job, SearchChoice};
use crate::translate_page::{settings_pairs, Shared};

/// Lines per call: small enough that Stop and the progress answer quickly.
const LINES_PER_CALL: usize = 8;
/// The largest file taken, in lines (longer ones get a message).
const MAX_LINES: usize = 10_000;

/// The name of the translated file: `notes.txt` → `notes.de.txt` for a German model.
fn output_name(input: &str, target: &str) -> String {
    match input.rsplit_once('.') {
        Some((stem, ext)) => format!("{stem}.{target}.{ext}"),
        None => format!("{input}.{target}.txt"),
    }
}

#[component]
pub fn FileTranslate() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let status = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let result = RwSignal::new(None::<(String, String)>);
    let running = RwSignal::new(false);
    // Bumped by a new file, whose run cancels the older one.
    let generation = StoredValue::new(0u64);
    let start = {
        move |file: Option<web_sys::File>| {
            let Some(file) = file else { return };
            generation.update_value(|g| *g += 1);
            let gen = generation.get_value();
            engine_client::cancel("file");
            error.set(None);
            result.set(None);
            running.set(true);
            spawn_local(async move {
                // Only the newest file's run may touch the view.
                let finish = move |e: Option<String>| {
                    if generation.get_value() == gen {
                        error.set(e);
                        running.set(false);
                    }
                };
                let text = match browser::read_file(&file).await {
                    Ok(t) => t,
                    Err(e) => return finish(Some(format!("Could not read {}: {e}", file.name()))),
                };
                let lines: Vec<String> = text.lines().map(str::to_string).collect();
                if lines.len() > MAX_LINES {
                    let n = lines.len();
                    return finish(Some(format!(
                        "{} has {n} lines; wgslate translates files of up to {MAX_LINES} lines.",
                        file.name()
                    )));
                }
                let s = shared.settings.get_untracked();
                let mut out = vec![String::new(); lines.len()];
                let todo: Vec<usize> = (0..lines.len()).filter(|&i| !lines[i].trim().is_empty()).collect();
                let t0 = browser::now_ms();
                status.set(format!("Translating 0 of {} lines…", todo.len()));
                let job = Job::Translate {
                    settings: settings_pairs(&s),
                    texts: todo.iter().map(|&i| lines[i].clone()).collect(),
                    search: SearchChoice::Settings,
                    batch: LINES_PER_CALL,
                };
                let mut done = 0;
                let outcome = engine_client::run("file", job, |first, sentences| {
                    if generation.get_value() != gen {
                        return;
                    }
                    for (k, nbest) in sentences.into_iter().enumerate() {
                        out[todo[first + k]] = nbest.into_iter().next().map(|o| o.text).unwrap_or_default();
                        done += 1;
                    }
                    status.set(format!("Translating {done} of {} lines…", todo.len()));
                })
                .await;
                match outcome {
                    Ok(_) => {}
                    // A newer file took over.
                    Err(JobError::Cancelled) if generation.get_value() != gen => return,
                    Err(JobError::Cancelled) => {
                        status.set(format!("Stopped after {done} of {} lines.", todo.len()));
                        return finish(None);
                    }
                    Err(JobError::Model) => {
                        status.set(String::new());
                        return finish(Some(
                            "The model could not be loaded (the message is at the top of the page).".into(),
                        ));
                    }
                    Err(JobError::Failed(e)) => {
                        status.set(String::new());
                        return finish(Some(format!("Translation failed: {e}")));
                    }
                }
                let target = s.model.split('/').next().and_then(|p| p.split('-').nth(1)).unwrap_or("out").to_string();
                status.set(format!(
                    "{} lines ({} translated) in {:.1} s",
                    lines.len(),
                    todo.len(),
                    (browser::now_ms() - t0) / 1000.0
                ));
                let mut body = out.join("\n");
                body.push('\n');
                result.set(Some((output_name(&file.name(), &target), body)));
                finish(None);
            });
        }
    };
    let start_drop = start;
    view! {
        <details class="file-translate">
            <summary>"Translate a file"</summary>
            <p class="hint">"A .txt file, one segment per line (up to 10 000 lines), translated with the model and settings above; the result has the same lines."</p>
            <div
                class="drop"
                on:dragover=move |ev: web_sys::DragEvent| ev.prevent_default()
                on:drop=move |ev: web_sys::DragEvent| {
                    ev.prevent_default();
                    start_drop(browser::dropped_file(&ev));
                }
            >
                <label class="file">"Choose or drop a .txt file "
                    <input type="file" accept=".txt,text/plain" data-testid="tr-file" on:change=move |ev| start(browser::picked_file(&ev)) />
                </label>
                {move || running.get().then(|| view! {
                    <button data-testid="tr-file-stop" on:click=move |_| engine_client::cancel("file")>"Stop"</button>
                })}
                <span class="status" data-testid="tr-file-status" aria-live="polite">{move || status.get()}</span>
            </div>
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="tr-file-error">{e}</p> })}
            {move || result.get().map(|(name, body)| {
                let label = format!("Download {name}");
                view! {
                    <button class="primary" data-testid="tr-file-download" on:click=move |_| browser::download_text(&name, &body, "text/plain")>{label}</button>
                }
            })}
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::output_name;

    #[test]
    fn the_translation_is_named_after_the_file_and_the_target_language() {
        assert_eq!(output_name("notes.txt", "de"), "notes.de.txt");
        assert_eq!(output_name("a.b.txt", "en"), "a.b.en.txt");
        assert_eq!(output_name("README", "de"), "README.de.txt");
    }
}

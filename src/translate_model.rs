//! Translate's model lines: the model's error above the boxes (with the models that translate
//! offline and Try again), and below them the backend, the model's status and its download with Stop;
//! and the fetches that load the chosen model ahead of a translation.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::engine_client;
use crate::engine_jobs::Job;
use crate::language_picker::{offline_choices, pair};
use crate::model_download::ModelDownload;
use crate::translate_input::{model_is_shipped, Live};
use crate::translate_page::{settings_pairs, Shared};
use crate::{browser, download};

/// The chosen model's fetching: ahead of a translation, again after a failure, stopped.
#[derive(Clone, Copy)]
pub struct ModelFetch {
    shared: Shared,
    live: Live,
    /// Whether a model was asked for already (fetched ahead, or stopped): the landing view's own early
    /// fetch, which waits for the model list, then has nothing to add (it restarted a stopped download).
    asked_for_model: StoredValue<bool>,
    /// False while the browser says it has no network.
    pub online: RwSignal<bool>,
}

impl ModelFetch {
    /// Fetches the model ahead: on landing, when another is chosen, when the browser is online again.
    pub fn start(shared: Shared, live: Live) -> Self {
        let Shared { settings, text, model_error, .. } = shared;
        let fetch = ModelFetch {
            shared,
            live,
            asked_for_model: StoredValue::new(false),
            online: RwSignal::new(browser::online()),
        };

        // The landing view fetches the chosen model once the page is idle, so the first translation
        // does not wait for the download (a link with text starts translating, and loading, at once).
        spawn_local(async move {
            let slug =
                browser::location_hash().trim_start_matches('#').split(['?', '&']).next().unwrap_or("").to_string();
            browser::sleep_ms(500).await;
            let _ = model_is_shipped(shared, "").await;
            if matches!(slug.as_str(), "" | "translate")
                && text.get_untracked().trim().is_empty()
                && !fetch.asked_for_model.get_value()
            {
                fetch.prefetch();
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
                fetch.prefetch();
            } else {
                engine_client::cancel("load");
            }
        });

        let online = fetch.online;
        let on_online = window_event_listener(leptos::ev::online, move |_| {
            online.set(true);
            if model_error.with_untracked(Option::is_some) {
                fetch.retry();
            }
        });
        let on_offline = window_event_listener(leptos::ev::offline, move |_| online.set(false));
        on_cleanup(move || {
            on_online.remove();
            on_offline.remove();
        });
        fetch
    }

    /// Fetches the chosen model in the "load" lane (replacing an older such fetch), for no translation yet.
    fn prefetch(self) {
        self.asked_for_model.set_value(true);
        let job = Job::Load { settings: settings_pairs(&self.shared.settings.get_untracked()) };
        spawn_local(async move {
            let _ = engine_client::run("load", job, |_, _, _| {}).await;
        });
    }

    /// After a failed download: Try again, or the browser saying it is online again, loads the
    /// model anew (translating the text, if there is one).
    fn retry(self) {
        if self.shared.text.get_untracked().trim().is_empty() {
            self.prefetch();
        } else {
            self.live.run(0);
        }
    }

    /// Stops the jobs that wait for a download (in any view: the download goes on while one needs
    /// it), not those translating with a model they have.
    fn stop_download(self) {
        let Live { output, stale, status, .. } = self.live;
        self.asked_for_model.set_value(true);
        let stopped = engine_client::stop_downloads();
        // The stopped run's output (for an earlier text, model or settings) stays, undimmed, and is
        // said to be from before: a Stop should not take the last translation away.
        let earlier = stopped.contains(&"translate") && output.with_untracked(|o| !o.is_empty());
        stale.set(stale.get_untracked() && !stopped.contains(&"translate"));
        if stopped.iter().any(|lane| ["translate", "load"].contains(lane)) {
            let again = if self.shared.text.with_untracked(|t| t.trim().is_empty()) {
                "a text to translate starts it again"
            } else {
                "Ctrl+Enter or a change to the text starts it again"
            };
            let shown = if earlier { " (the translation shown is from before it)" } else { "" };
            status.set(format!("The model's download was stopped{shown}: {again}."));
        }
    }
}

/// The model's error, with Try again and, offline, the models that do translate offline.
#[component]
pub fn ModelError(
    fetch: ModelFetch,
    /// The models this browser keeps for offline use.
    kept_offline: Signal<Vec<String>>,
) -> impl IntoView {
    let shared = fetch.shared;
    let Shared { settings, model_entries, model_error, .. } = shared;
    let online = fetch.online;
    // Offline, or with a server that does not answer (the browser says it is online), when the
    // chosen model is neither kept nor held (so the error is its download's): the models that do
    // translate offline.
    let offline_hint = move || {
        let kept = kept_offline.get();
        let ready = |model: &str| kept.iter().any(|k| k == model) || shared.in_memory(model);
        let entries = model_entries.get();
        let unreachable = model_error.with(|e| e.as_deref().is_some_and(|e| e.contains(download::DOWNLOAD_FAILED)));
        ((!online.get() || unreachable) && !ready(&settings.with(|s| s.model.clone())) && !entries.is_empty())
            .then(|| offline_choices(&entries, settings.with(|s| pair(&s.model).to_string()).as_str(), ready))
    };
    move || {
        model_error.get().map(|e| {
            view! {
                <p class="error" role="alert" data-testid="tr-error">{e}" "
                    {move || offline_hint().map(|hint| view! { <span data-testid="tr-offline-choices">{hint}" "</span> })}
                    <button type="button" data-testid="tr-retry" on:click=move |_| fetch.retry()>"Try again"</button>
                </p>
            }
        })
    }
}

/// The line below the boxes: the backend, the model's status and its download, with Stop.
#[component]
pub fn EngineLine(fetch: ModelFetch) -> impl IntoView {
    let Shared { backend, model_status, load_progress, .. } = fetch.shared;
    view! {
        // Below the boxes: on a phone the translation and its Copy button show on the first screen.
        <div class="toolbar engine-line">
            <span class="backend" data-testid="tr-backend">{move || backend.get()}</span>
            <span class="status" role="status" data-testid="tr-model-status">{move || model_status.get()}</span>
            <ModelDownload prefix="tr" />
            {move || load_progress.get().is_some().then(|| view! {
                <button type="button" data-testid="tr-download-stop" on:click=move |_| fetch.stop_download()>"Stop the download"</button>
            })}
        </div>
    }
}

//! The page shell: header, navigation between the views, shared layout.

use leptos::prelude::*;

use leptos::task::spawn_local;

use crate::attention_page::AttentionPage;
use crate::bleu_page::BleuPage;
use crate::browser;
use crate::compare_page::ComparePage;
use crate::engine_client::{self, JobError};
use crate::engine_jobs::Job;
use crate::models;
use crate::settings;
use crate::translate_page::{Shared, TranslatePage};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum View {
    Translate,
    Compare,
    Attention,
    Bleu,
}

impl View {
    const ALL: [View; 4] = [View::Translate, View::Compare, View::Attention, View::Bleu];
    fn slug(self) -> &'static str {
        match self {
            View::Translate => "translate",
            View::Compare => "compare",
            View::Attention => "attention",
            View::Bleu => "bleu",
        }
    }
    fn label(self) -> &'static str {
        match self {
            View::Translate => "Translate",
            View::Compare => "Compare",
            View::Attention => "Attention",
            View::Bleu => "BLEU",
        }
    }
    fn from_hash(hash: &str) -> View {
        let slug = hash.trim_start_matches('#').split(['?', '&']).next().unwrap_or("");
        View::ALL.into_iter().find(|v| v.slug() == slug).unwrap_or(View::Translate)
    }
}

#[component]
pub fn App() -> impl IntoView {
    let hash = browser::location_hash();
    let view = RwSignal::new(View::from_hash(&hash));
    let (settings, text, url_problems) = settings::from_query(hash.split_once('?').map_or("", |(_, q)| q));
    let url_problems_seen = RwSignal::new(false);
    let shared = Shared {
        settings: RwSignal::new(settings),
        text: RwSignal::new(text),
        model_entries: RwSignal::new(vec![]),
        model_status: RwSignal::new(String::new()),
        model_error: RwSignal::new(None),
        load_progress: RwSignal::new(None),
        backend: RwSignal::new("Choosing the backend…".into()),
        bleu_prefill: RwSignal::new(None),
    };
    provide_context(shared);
    engine_client::init(engine_client::Status {
        model_status: shared.model_status,
        model_error: shared.model_error,
        load_progress: shared.load_progress,
        backend: shared.backend,
    });
    {
        spawn_local(async move {
            match models::load_index().await {
                Ok(entries) => shared.model_entries.set(entries),
                Err(e) => shared.model_error.set(Some(format!("Could not read the model list: {e}"))),
            }
            // The worker names the backend it chose (the label says "Choosing…" until then).
            let backend = shared.settings.get_untracked().backend;
            if let Err(JobError::Failed(e)) = engine_client::run("backend", Job::Backend { backend }, |_, _| {}).await {
                shared.backend.set(format!("unavailable: {e}"));
            }
        });
    }
    let prefill = shared.bleu_prefill;
    Effect::new(move |_| {
        if prefill.get().is_some() {
            view.set(View::Bleu);
            browser::set_location_hash("#bleu");
        }
    });
    let nav = move |v: View| {
        view! {
            <button
                class="tab"
                class:active=move || view.get() == v
                data-testid=format!("nav-{}", v.slug())
                on:click=move |_| {
                    view.set(v);
                    if v != View::Translate {
                        browser::set_location_hash(&format!("#{}", v.slug()));
                    }
                }
            >
                {v.label()}
            </button>
        }
    };
    view! {
        <header>
            <h1>"wgslate"</h1>
            <p class="tagline">"Neural machine translation on your own GPU. Nothing leaves this page."</p>
            <nav>{View::ALL.into_iter().map(nav).collect_view()}</nav>
        </header>
        <main>
            {move || (!url_problems.is_empty() && !url_problems_seen.get()).then(|| view! {
                <p class="error" role="alert" data-testid="url-problems">
                    {format!("Ignored from the link: {}. ", url_problems.join("; "))}
                    <button class="link" on:click=move |_| url_problems_seen.set(true)>"Dismiss"</button>
                </p>
            })}
            <div class:hidden=move || view.get() != View::Bleu>
                <BleuPage prefill />
            </div>
            <div class:hidden=move || view.get() != View::Translate>
                <TranslatePage />
            </div>
            <div class:hidden=move || view.get() != View::Compare>
                <ComparePage />
            </div>
            <div class:hidden=move || view.get() != View::Attention>
                <AttentionPage />
            </div>
        </main>
    }
}

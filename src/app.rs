//! The page shell: header, navigation between the views, shared layout.

use leptos::prelude::*;

use crate::bleu_page::BleuPage;
use crate::browser;

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
    let view = RwSignal::new(View::from_hash(&browser::location_hash()));
    let nav = move |v: View| {
        view! {
            <button
                class="tab"
                class:active=move || view.get() == v
                data-testid=format!("nav-{}", v.slug())
                on:click=move |_| {
                    view.set(v);
                    browser::set_location_hash(&format!("#{}", v.slug()));
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
            <div class:hidden=move || view.get() != View::Bleu>
                <BleuPage />
            </div>
            <div class:hidden=move || view.get() == View::Bleu>
                <p class="notice">"This view needs the translation models; see the BLEU view meanwhile."</p>
            </div>
        </main>
    }
}

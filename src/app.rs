//! The page shell: header, navigation between the views, shared layout.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wgslate_decode::settings::percent_decoded;

use crate::attention_page::AttentionPage;
use crate::bleu_page::BleuPage;
use crate::browser;
use crate::compare_page::ComparePage;
use crate::engine_client::{self, JobError};
use crate::engine_jobs::Job;
use crate::models;
use crate::search_page::SearchPage;
use crate::settings;
use crate::translate_page::{self, Shared, TranslatePage};
use wgslate_model::catalog;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum View {
    Translate,
    Compare,
    Search,
    Attention,
    Bleu,
}

impl View {
    pub const ALL: [View; 5] = [View::Translate, View::Compare, View::Search, View::Attention, View::Bleu];
    pub fn slug(self) -> &'static str {
        match self {
            View::Translate => "translate",
            View::Compare => "compare",
            View::Search => "search",
            View::Attention => "attention",
            View::Bleu => "bleu",
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            View::Translate => "Translate",
            View::Compare => "Compare",
            View::Search => "Search",
            View::Attention => "Attention",
            View::Bleu => "BLEU",
        }
    }
    fn from_hash(hash: &str) -> View {
        View::ALL.into_iter().find(|v| v.slug() == slug_of(hash)).unwrap_or(View::Translate)
    }
}

fn slug_of(hash: &str) -> &str {
    hash.trim_start_matches('#').split(['?', '&']).next().unwrap_or("")
}

/// The link's problems: its settings' (`settings::from_query`), and a view it names that does not exist.
fn link_problems(hash: &str, mut problems: Vec<String>) -> Vec<String> {
    let slug = slug_of(hash);
    if !slug.is_empty() && !slug.contains('=') && View::ALL.iter().all(|v| v.slug() != slug) {
        problems.insert(0, format!("view {slug:?} (not a view; Translate is shown)"));
    }
    problems
}

/// The URL's hash for a view and its query: `#compare?beam=4&text=…`, `#bleu`.
pub fn hash_for(view: View, query: &str) -> String {
    match query {
        "" => format!("#{}", view.slug()),
        q => format!("#{}?{q}", view.slug()),
    }
}

/// The settings part of the hash. Links typed by hand without the "?" (`#translate&beam=3`, `#beam=3`) are read
/// too: they used to lose their settings without a word.
fn query_of(hash: &str) -> &str {
    let h = hash.trim_start_matches('#');
    if let Some((_, q)) = h.split_once('?') {
        return q;
    }
    match h.split_once('&') {
        Some((slug, q)) if !slug.contains('=') => q,
        _ if h.contains('=') => h,
        _ => "",
    }
}

/// Where a link's settings come from, and what becomes of the part before the "#".
#[derive(Debug, PartialEq)]
struct LinkQuery {
    /// The settings query to read.
    query: String,
    /// A message when both parts hold settings (those after the "#" are used).
    problem: Option<String>,
    /// The part before the "#" to leave in the address (someone else's parameters, as `?fbclid=…`),
    /// or None to leave it as it is; ours move after the "#", where the page writes its state.
    search_left: Option<String>,
}

/// Whether a `key=value` pair's key is one of the page's settings (or its text).
fn is_ours(pair: &str) -> bool {
    let key = pair.split('=').next().unwrap_or("");
    let key = String::from_utf8_lossy(&percent_decoded(key)).into_owned();
    key == "text" || settings::Settings::default().all_pairs().iter().any(|(k, _)| *k == key)
}

/// The settings of a link: the hash's, and those written before the "#" (`/?text=…&beam=4`, as
/// links elsewhere put them: they were ignored without a word) when the hash holds none of ours.
fn link_query(hash: &str, search: &str) -> LinkQuery {
    let hash_query = query_of(hash);
    let (ours, others): (Vec<&str>, Vec<&str>) =
        search.trim_start_matches('?').split('&').filter(|p| !p.is_empty()).partition(|p| is_ours(p));
    if ours.is_empty() {
        return LinkQuery { query: hash_query.to_string(), problem: None, search_left: None };
    }
    let search_left = Some(match others.is_empty() {
        true => String::new(),
        false => format!("?{}", others.join("&")),
    });
    if hash_query.split('&').any(is_ours) {
        let keys: Vec<&str> = ours.iter().map(|p| p.split('=').next().unwrap_or("")).collect();
        let problem = format!("the settings before the \"#\" ({}): those after it are used", keys.join(", "));
        return LinkQuery { query: hash_query.to_string(), problem: Some(problem), search_left };
    }
    let query = ours.into_iter().chain(hash_query.split('&').filter(|p| !p.is_empty())).collect::<Vec<_>>().join("&");
    LinkQuery { query, problem: None, search_left }
}

#[component]
pub fn App() -> impl IntoView {
    let hash = browser::location_hash();
    let view = RwSignal::new(View::from_hash(&hash));
    let link = link_query(&hash, &browser::location_search());
    let (settings, text, problems) = settings::from_query(&link.query);
    let mut problems = link_problems(&hash, problems);
    problems.extend(link.problem);
    if let Some(left) = &link.search_left {
        browser::set_location_search(left);
    }
    let url_problems = RwSignal::new(problems);
    let url_problems_seen = RwSignal::new(false);
    let shared = Shared {
        settings: RwSignal::new(settings),
        text: RwSignal::new(text),
        model_entries: RwSignal::new(vec![]),
        model_status: RwSignal::new(String::new()),
        model_error: RwSignal::new(None),
        load_progress: RwSignal::new(None),
        backend: RwSignal::new("Choosing the backend…".into()),
        in_memory: RwSignal::new(vec![]),
        bleu_prefill: RwSignal::new(None),
        history_entry: StoredValue::new(false),
    };
    provide_context(shared);
    engine_client::init(engine_client::Status {
        model_status: shared.model_status,
        model_error: shared.model_error,
        load_progress: shared.load_progress,
        backend: shared.backend,
        in_memory: shared.in_memory,
        chosen_model: Signal::derive(move || shared.settings.with(|s| s.model.clone())),
    });
    // A link naming a model that is not shipped gets the default, with a message.
    let keep_shipped_model = move || {
        let model = shared.settings.get_untracked().model;
        let known = shared.model_entries.with_untracked(|e| e.is_empty() || catalog::lists(e, &model));
        if !known {
            let default = settings::Settings::default().model;
            url_problems.update(|p| p.push(format!("model {model:?} (not a shipped model; {default} is used)")));
            url_problems_seen.set(false);
            shared.settings.update(|s| s.model = default);
        }
    };
    {
        spawn_local(async move {
            match models::load_index().await {
                Ok(entries) => {
                    shared.model_entries.set(entries);
                    keep_shipped_model();
                }
                Err(e) => shared.model_error.set(Some(format!("Could not read the model list: {e}"))),
            }
            // The worker names the backend it chose (the label says "Choosing…" until then).
            let backend = shared.settings.get_untracked().backend;
            if let Err(JobError::Failed(e)) =
                engine_client::run("backend", Job::Backend { backend }, |_, _, _| {}).await
            {
                shared.backend.set(format!("unavailable: {e}"));
            }
        });
    }
    // The link's problems were read on the view it opened; they do not follow to the next (a tab,
    // or "Open in the BLEU page"). A link followed later says its own.
    let link_view = StoredValue::new(view.get_untracked());
    Effect::new(move |_| {
        if view.get() != link_view.get_value() {
            url_problems_seen.set(true);
        }
    });
    let prefill = shared.bleu_prefill;
    Effect::new(move |_| {
        if prefill.get().is_some() {
            view.set(View::Bleu);
        }
    });
    // The URL names the view, the settings and the text, so a reload or a shared link opens the
    // same page; a change of view is a history entry (Back returns to the last view), and so is Swap (Back returns
    // to the text it replaced); typing is not.
    let written = StoredValue::new((None::<View>, String::new()));
    Effect::new(move |_| {
        let (v, s, t) = (view.get(), shared.settings.get(), shared.text.get());
        let t = if translate_page::text_fits_a_link(&t) { t } else { String::new() };
        let hash = hash_for(v, &settings::to_query(&s, &t));
        let (last_view, last_hash) = written.get_value();
        if hash == last_hash && browser::location_hash() == hash {
            return;
        }
        let swapped = shared.history_entry.get_value();
        shared.history_entry.set_value(false);
        match last_view {
            Some(last) if last != v || swapped => browser::push_location_hash(&hash),
            _ => browser::set_location_hash(&hash),
        }
        written.set_value((Some(v), hash));
    });
    // A link pasted into this tab, or Back / Forward: show what the URL says.
    let follow_url = move || {
        let hash = browser::location_hash();
        if hash == written.get_value().1 {
            return;
        }
        let (s, t, problems) = settings::from_query(query_of(&hash));
        let v = View::from_hash(&hash);
        url_problems.set(link_problems(&hash, problems));
        written.set_value((Some(v), hash));
        url_problems_seen.set(false);
        link_view.set_value(v);
        // Only what changed is set: Back between views must not translate the same text again.
        if shared.settings.with_untracked(|old| *old != s) {
            shared.settings.set(s);
        }
        // A text over the limit is left out of every link written while it is in the box: Back or
        // Forward to one of them keeps it (only a reload loses it, as its message says).
        let long_text_kept = t.is_empty() && shared.text.with_untracked(|old| !translate_page::text_fits_a_link(old));
        if !long_text_kept && shared.text.with_untracked(|old| *old != t) {
            shared.text.set(t);
        }
        view.set(v);
        keep_shipped_model();
    };
    let on_hash = window_event_listener(leptos::ev::hashchange, move |_| follow_url());
    let on_pop = window_event_listener(leptos::ev::popstate, move |_| follow_url());
    // A file dropped beside the places that take one would be opened by the browser in place of
    // the page, and the text typed there lost with it.
    let keep_page = |ev: web_sys::DragEvent| {
        if !ev.default_prevented() && browser::drags_files(&ev) {
            ev.prevent_default();
            // The pointer shows that nothing takes it here.
            if let Some(dt) = ev.data_transfer() {
                dt.set_drop_effect("none");
            }
        }
    };
    let on_dragover = window_event_listener(leptos::ev::dragover, keep_page);
    let on_drop = window_event_listener(leptos::ev::drop, keep_page);
    // A reload, a closed tab or another address would end a file translation or an evaluation
    // without a trace: the browser asks first (a reload the user already agreed to is let through).
    let on_leave = window_event_listener(leptos::ev::beforeunload, |ev| {
        if engine_client::long_job_running().is_some() && !browser::leaving_on_purpose() {
            ev.prevent_default();
            ev.set_return_value("");
        }
    });
    on_cleanup(move || {
        on_leave.remove();
        on_hash.remove();
        on_pop.remove();
        on_dragover.remove();
        on_drop.remove();
    });
    // The tab's title names the view: a screen reader announces it, and the history lists each view by name.
    Effect::new(move |_| browser::set_title(&format!("{} · wgslate — translation on your GPU", view.get().label())));
    let nav = move |v: View| {
        view! {
            <button
                class="tab"
                class:active=move || view.get() == v
                aria-current=move || (view.get() == v).then_some("page")
                data-testid=format!("nav-{}", v.slug())
                on:click=move |_| view.set(v)
            >
                {v.label()}
            </button>
        }
    };
    view! {
        <header>
            <h1>"wgslate"</h1>
            <p class="tagline">"Neural machine translation on your own GPU. Nothing leaves this page."</p>
        </header>
        // Out of the header, so that it stays at the top of a long page while the header scrolls away.
        <nav>{View::ALL.into_iter().map(nav).collect_view()}</nav>
        <main>
            {move || (!url_problems.with(Vec::is_empty) && !url_problems_seen.get()).then(|| view! {
                <p class="error" role="alert" data-testid="url-problems">
                    {format!("Ignored from the link: {}. ", url_problems.get().join("; "))}
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
            <div class:hidden=move || view.get() != View::Search>
                <SearchPage />
            </div>
            <div class:hidden=move || view.get() != View::Attention>
                <AttentionPage />
            </div>
        </main>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_without_its_question_mark_keeps_its_settings() {
        assert_eq!(query_of("#translate?beam=3&text=A"), "beam=3&text=A");
        assert_eq!(query_of("#translate&beam=3"), "beam=3");
        assert_eq!(query_of("#beam=3&text=A"), "beam=3&text=A");
        assert_eq!(query_of("#compare"), "");
        assert_eq!(query_of(""), "");
        assert_eq!(View::from_hash("#translate&beam=3"), View::Translate);
        assert_eq!(View::from_hash("#compare&beam=3"), View::Compare);
        assert!(link_problems("#beam=3", vec![]).is_empty());
    }

    #[test]
    fn settings_before_the_hash_are_read_when_the_hash_has_none() {
        let read = |query: &str, left: Option<&str>| LinkQuery {
            query: query.into(),
            problem: None,
            search_left: left.map(String::from),
        };
        assert_eq!(link_query("", "?text=A%20dog&beam=4"), read("text=A%20dog&beam=4", Some("")));
        assert_eq!(link_query("#compare", "?beam=4"), read("beam=4", Some("")));
        // Someone else's parameters are left where they are, also beside ours; a key may be escaped.
        assert_eq!(link_query("#translate?beam=2", "?fbclid=x"), read("beam=2", None));
        assert_eq!(link_query("", "?utm_source=a"), read("", None));
        assert_eq!(link_query("", ""), read("", None));
        assert_eq!(link_query("", "?fbclid=x&%74ext=A"), read("%74ext=A", Some("?fbclid=x")));
        // A hash with none of ours (a tracker's) does not hide ours before it.
        assert_eq!(link_query("#translate?utm=1", "?beam=3"), read("beam=3&utm=1", Some("")));
        let both = link_query("#translate?beam=2", "?text=A%20long%20text&beam=3");
        assert_eq!((both.query.as_str(), both.search_left.as_deref()), ("beam=2", Some("")));
        assert_eq!(
            both.problem.as_deref(),
            Some("the settings before the \"#\" (text, beam): those after it are used")
        );
    }
}

//! The direction and model pickers: source and target languages (only directions that exist), a
//! swap button that also moves the output into the input, and the architecture with its size and
//! test BLEU. All of it is the `model` setting, so it lives in the URL.

use leptos::prelude::*;
use wgslate_model::catalog::{self, language_name, CatalogEntry};

use crate::settings::Settings;

/// "en" and "de" of "en-de/transformer".
pub fn direction(model: &str) -> (String, String) {
    let (s, t) = pair(model).split_once('-').unwrap_or((pair(model), ""));
    (s.to_string(), t.to_string())
}

/// "en-de" of "en-de/gru".
pub fn pair(model: &str) -> &str {
    model.split('/').next().unwrap_or("")
}

fn arch(model: &str) -> String {
    model.split_once('/').map_or("", |(_, a)| a).to_string()
}

/// The model's label in the picker: the index's, or its name for a model the index does not list;
/// "· kept offline" when this browser holds its files (its size is then no download), "· needs a
/// connection" for the others while the browser is offline, unless the engine holds it (`in_memory`:
/// it was loaded before the connection went).
fn model_label(
    entries: &[CatalogEntry],
    kept_offline: &[String],
    in_memory: &[String],
    online: bool,
    name: &str,
) -> String {
    let held = || catalog::model_names(entries, name).iter().all(|n| in_memory.contains(n));
    let suffix = match (kept_offline.iter().any(|k| k == name), online) {
        (true, _) => " · kept offline",
        (false, false) if !held() => " · needs a connection",
        (false, _) => "",
    };
    catalog::find(entries, name).map_or_else(|| format!("{name} (not in the model list)"), |e| e.label()) + suffix
}

/// ⇄'s tooltip, which says why it does nothing when it does nothing (it looked broken through a
/// whole download on a slow line).
fn swap_title(other_way: bool, translating: bool) -> &'static str {
    match (other_way, translating) {
        (false, _) => "No model here translates the other way",
        (true, true) => "Swap the languages: once this translation is done (it becomes the input)",
        (true, false) => "Swap the languages (the translation becomes the input)",
    }
}

/// Offline, after the chosen model failed to load: which of `entries` translate without a connection
/// (`ready`: kept in this browser, or held by the engine), so the user need not try them one by one.
/// Those of another direction than `pair` are not in the model list until their languages are chosen.
pub fn offline_choices(entries: &[CatalogEntry], pair: &str, ready: impl Fn(&str) -> bool) -> String {
    let named = |e: &&CatalogEntry| format!("{} ({} → {})", e.title, e.source(), e.target());
    let ready: Vec<&CatalogEntry> = entries.iter().filter(|e| ready(&e.name())).collect();
    let here: Vec<String> = ready.iter().filter(|e| e.pair == pair).map(named).collect();
    let elsewhere: Vec<String> = ready.iter().filter(|e| e.pair != pair).map(named).collect();
    let listed = match &here[..] {
        [] => None,
        [one] => Some(format!("{one} translates offline: pick it in the model list.")),
        many => Some(format!("These translate offline: {}; pick one in the model list.", many.join(", "))),
    };
    let other_way = match (&elsewhere[..], listed.is_some()) {
        ([], _) => None,
        ([one], true) => Some(format!("So does {one}, once its languages are chosen.")),
        (many, true) => Some(format!("So do {}, once their languages are chosen.", many.join(", "))),
        ([one], false) => {
            Some(format!("{one} translates offline: choose its languages, then pick it in the model list."))
        }
        (many, false) => Some(format!(
            "These translate offline: {}; choose the languages of one, then pick it in the model list.",
            many.join(", ")
        )),
    };
    match [listed, other_way].into_iter().flatten().collect::<Vec<_>>() {
        none if none.is_empty() => {
            "No model is kept in this browser yet: each one is kept once it has loaded with a connection.".into()
        }
        said => said.join(" "),
    }
}

#[component]
pub fn LanguagePicker(
    settings: RwSignal<Settings>,
    entries: RwSignal<Vec<CatalogEntry>>,
    /// The models this browser keeps for offline use.
    kept_offline: Signal<Vec<String>>,
    /// The models the engine worker holds (`Shared::in_memory`).
    in_memory: RwSignal<Vec<String>>,
    /// False while the browser says it has no network.
    online: Signal<bool>,
    /// The output as text, which the swap button moves into the input.
    output_text: Signal<String>,
    /// True while the output is for an older input (swap waits for the new one).
    stale: Signal<bool>,
    text: RwSignal<String>,
) -> impl IntoView {
    let model = move || settings.get().model;
    let choose = move |name: Option<String>| {
        if let Some(name) = name {
            settings.update(|s| s.model = name);
        }
    };
    let on_source = move |ev| {
        let (_, t) = direction(&model());
        choose(catalog::pick(&entries.get_untracked(), &event_target_value(&ev), &t, &arch(&model())));
    };
    let on_target = move |ev| {
        let (s, _) = direction(&model());
        choose(catalog::pick(&entries.get_untracked(), &s, &event_target_value(&ev), &arch(&model())));
    };
    let swap_to = move || catalog::swapped(&entries.get(), &model());
    // The last swap's (text it replaced, text it put in): swapping back when there is no translation
    // to move (the other direction failed, say offline) returns the replaced text, instead of
    // translating the text it put in as the other language.
    let last_swap = StoredValue::new(None::<(String, String)>);
    let swap = move |_| {
        let Some(name) = swap_to().filter(|_| !stale.get_untracked()) else { return };
        let (before, out) = (text.get_untracked(), output_text.get_untracked());
        if let Some(shared) = use_context::<crate::translate_page::Shared>() {
            shared.history_entry.set_value(true);
        }
        choose(Some(name));
        let undone = last_swap.get_value().filter(|(_, put)| *put == before).map(|(replaced, _)| replaced);
        let new_text = if out.trim().is_empty() { undone } else { Some(out) };
        last_swap.set_value(new_text.clone().map(|t| (before, t)));
        if let Some(t) = new_text {
            text.set(t);
        }
    };
    // A model from a link that the index does not list is shown as it is, not as the first entry.
    let options = |mut codes: Vec<String>, current: String| {
        if !codes.contains(&current) {
            codes.insert(0, current.clone());
        }
        codes
            .into_iter()
            .map(|c| {
                let selected = c == current;
                view! { <option value=c.clone() selected=selected>{language_name(&c)}</option> }
            })
            .collect_view()
    };
    view! {
        <label>
            "From "
            <select data-testid="tr-src" on:change=on_source prop:value=move || direction(&model()).0>
                {move || options(catalog::sources(&entries.get()), direction(&model()).0)}
            </select>
        </label>
        // aria-disabled, not disabled: a swap makes the output stale, and a disabled button drops the keyboard focus.
        <button class="swap" data-testid="tr-swap" on:click=swap aria-disabled=move || (swap_to().is_none() || stale.get()).to_string()
            title=move || swap_title(swap_to().is_some(), stale.get()) aria-label="Swap the languages">"⇄"</button>
        <label>
            "To "
            <select data-testid="tr-tgt" on:change=on_target prop:value=move || direction(&model()).1>
                {move || { let (s, t) = direction(&model()); options(catalog::targets(&entries.get(), &s), t) }}
            </select>
        </label>
        <label>
            "Model "
            <select data-testid="tr-model" on:change=move |ev| choose(Some(event_target_value(&ev))) prop:value=model>
                {move || {
                    let (s, t) = direction(&model());
                    let current = model();
                    let entries = entries.get();
                    let (kept, held, online) = (kept_offline.get(), in_memory.get(), online.get());
                    let listed = catalog::models_for(&entries, &s, &t);
                    let unknown = (!catalog::lists(&entries, &current))
                        .then(|| view! { <option value=current.clone() selected=true>{model_label(&entries, &kept, &held, online, &current)}</option> });
                    let known = listed
                        .into_iter()
                        .map(|e| view! { <option value=e.name() selected=e.name() == current>{model_label(&entries, &kept, &held, online, &e.name())}</option> })
                        .collect_view();
                    (unknown, known)
                }}
            </select>
        </label>
        // A phone cuts the chosen option's label to the select's width; this line shows it whole there.
        <span class="model-label" data-testid="tr-model-label" aria-hidden="true">
            {move || model_label(&entries.get(), &kept_offline.get(), &in_memory.get(), online.get(), &model())}
        </span>
    }
}

#[cfg(test)]
mod tests {
    use super::{direction, offline_choices};
    use wgslate_model::catalog;

    #[test]
    fn the_direction_is_the_models_pair() {
        assert_eq!(direction("de-en/transformer"), ("de".to_string(), "en".to_string()));
        assert_eq!(direction("xx/yy"), ("xx".to_string(), String::new()));
    }

    #[test]
    fn offline_choices_name_the_kept_and_the_held_models_or_say_there_are_none() {
        let entries = catalog::parse(include_str!("../www/models/index.json")).unwrap();
        let none = offline_choices(&entries, "en-de", |_| false);
        assert!(none.starts_with("No model is kept in this browser yet"), "{none}");
        let held = ["en-de/gru", "en-de/transformer-d224-distilled"];
        assert_eq!(offline_choices(&entries, "en-de", |m| held.contains(&m)), "These translate offline: Transformer d224 (distilled) (en → de), GRU + attention (en → de); pick one in the model list.");
        assert_eq!(
            offline_choices(&entries, "fr-en", |m| m == "fr-en/transformer"),
            "Transformer (fr → en) translates offline: pick it in the model list."
        );
        // After ⇄ the kept model is not in the list shown (a helper's walk: "pick it" could not be done).
        assert_eq!(
            offline_choices(&entries, "de-en", |m| m == "fr-en/transformer"),
            "Transformer (fr → en) translates offline: choose its languages, then pick it in the model list."
        );
        assert!(offline_choices(&entries, "de-en", |m| held.contains(&m))
            .ends_with("; choose the languages of one, then pick it in the model list."));
        // Both: those in the list first.
        assert_eq!(
            offline_choices(&entries, "en-de", |m| m == "en-de/gru" || m == "fr-en/transformer"),
            "GRU + attention (en → de) translates offline: pick it in the model list. So does Transformer (fr → en), once its languages are chosen."
        );
    }
}

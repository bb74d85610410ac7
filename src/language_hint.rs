//! A hint when the text to translate reads as another language than the chosen model translates
//! from (German typed into English → German comes out as nonsense), with a button that picks the
//! index's model for that language.

use leptos::prelude::*;
use wgslate_model::catalog::language_name;
use wgslate_model::language::Mismatch;

use crate::translate_page::Shared;

#[component]
pub fn LanguageHint(
    /// The language the text reads as; None when it reads as nothing clearly.
    #[prop(into)]
    read_as: Signal<Option<&'static str>>,
    /// "This text", "This file".
    subject: &'static str,
    testid: &'static str,
    /// Runs after the button changed the model (the file view translates its file again).
    #[prop(optional)]
    after_switch: Option<Callback<()>>,
) -> impl IntoView {
    let shared = expect_context::<Shared>();
    let mismatch = Memo::new(move |_| {
        let model = shared.settings.with(|s| s.model.clone());
        shared.model_entries.with(|e| Mismatch::find(e, &model, read_as.get()))
    });
    move || {
        mismatch.get().map(|m| {
            let read = language_name(m.read_as);
            let switch = m.instead.clone().zip(m.instead_label()).map(|(name, label)| {
                let choose = move |_| {
                    shared.settings.update(|s| s.model = name.clone());
                    if let Some(after) = after_switch {
                        after.run(());
                    }
                };
                view! { <button class="link" data-testid=format!("{testid}-switch") on:click=choose>{format!("Translate {label}")}</button> }
            });
            let none = m.instead.is_none().then(|| format!("No model here translates {read}."));
            let said = format!("{subject} reads as {read}, but the model translates from {}. ", language_name(&m.source));
            view! { <p class="hint warn" role="status" data-testid=testid>{said}{switch}{none}</p> }
        })
    }
}

//! The model's download as a bar with its share, in each view that translates: the download is the
//! engine's, whichever view asked for the model, and a view without it looked stuck on a slow line.

use leptos::prelude::*;

use crate::translate_page::Shared;

/// The status a view shows while its job (`running`) waits for the model: its download, or its
/// loading before the download's first news (it said "Translating 0/1" there, as if it had begun).
pub fn waiting_status(shared: &Shared, running: bool) -> Option<&'static str> {
    if !running {
        None
    } else if shared.load_progress.get().is_some() {
        Some("Waiting for the model to download…")
    } else if !shared.in_memory(&shared.settings.with(|s| s.model.clone())) {
        Some("Loading the model…")
    } else {
        None
    }
}

/// The bar and its share while a model downloads (nothing otherwise); test ids `{prefix}-progress`
/// and `{prefix}-progress-share`.
#[component]
pub fn ModelDownload(prefix: &'static str) -> impl IntoView {
    let progress = expect_context::<Shared>().load_progress;
    move || {
        progress.get().map(|p| {
            view! {
                <progress max="1" prop:value=p aria-label="Model download" data-testid=format!("{prefix}-progress")></progress>
                <span class="status" data-testid=format!("{prefix}-progress-share")>{format!("{:.0} %", p * 100.0)}</span>
            }
        })
    }
}

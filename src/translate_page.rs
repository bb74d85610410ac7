//! Translate: type and see the translation, with settings, confidence colouring, examples and a
//! whole-test-set evaluation; each part is a component of its own (src/translate_*.rs), and this
//! file holds the state the views share.

use leptos::prelude::*;
use wgslate_model::catalog::{self, CatalogEntry};
use wgslate_model::sentences::split_sentences;

use crate::engine_client::JobError;
use crate::file_translate::FileTranslate;
use crate::language_picker::LanguagePicker;
use crate::measure_panel::MeasureDevice;
use crate::offline_models::OfflineModels;
use crate::settings::Settings;
use crate::translate_evaluation::TranslateEvaluation;
use crate::translate_examples::{TestSet, TranslateExamples};
use crate::translate_input::{Live, TranslateInput};
use crate::translate_model::{EngineLine, ModelError, ModelFetch};
use crate::translate_output::TranslateOutput;
use crate::translate_settings::SettingsPanel;

pub const MAX_INPUT_CHARS: usize = 5000;

/// Whether the address keeps `text`: one over the limit is never translated, and megabytes in the
/// URL cost every keystroke a second and may not survive a reload (which then brought back an older text).
pub fn text_fits_a_link(text: &str) -> bool {
    text.len() <= MAX_INPUT_CHARS || text.chars().count() <= MAX_INPUT_CHARS
}

#[derive(Clone, Debug, PartialEq)]
pub struct OutSentence {
    pub text: String,
    /// (surface form, probability) per output token, EOS excluded.
    pub tokens: Vec<(String, f32)>,
}

/// The state the views share: settings and text (the URL), the model list and the engine status.
/// Provided as context by the app; each view takes it with `expect_context::<Shared>()`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shared {
    pub settings: RwSignal<Settings>,
    pub text: RwSignal<String>,
    pub model_entries: RwSignal<Vec<CatalogEntry>>,
    pub model_status: RwSignal<String>,
    pub model_error: RwSignal<Option<String>>,
    pub load_progress: RwSignal<Option<f64>>,
    pub backend: RwSignal<String>,
    /// The models the main engine worker holds (`engine_client::Status::in_memory`).
    pub in_memory: RwSignal<Vec<String>>,
    /// Fill the BLEU page with an evaluation's output.
    pub bleu_prefill: RwSignal<Option<crate::bleu_page::Prefill>>,
    /// The next change of the URL is a history entry even within a view (set by Swap, which replaces the
    /// user's text: Back brings it back).
    pub history_entry: StoredValue<bool>,
}

impl Shared {
    /// The model's title in the shipped list ("Transformer (distilled)"), or its name when the list lacks it.
    pub fn model_title(&self, model: &str) -> String {
        self.model_entries
            .with_untracked(|e| catalog::find(e, model).map(|m| m.title.clone()))
            .unwrap_or_else(|| model.to_string())
    }

    /// Whether the engine worker holds `model` (an ensemble: every member), tracked: it translates
    /// without a download, offline too.
    pub fn in_memory(&self, model: &str) -> bool {
        let names = self.model_entries.with(|e| catalog::model_names(e, model));
        self.in_memory.with(|held| names.iter().all(|n| held.contains(n)))
    }

    /// What Compare or Attention shows for a failed job: the model's own error, in place (the
    /// Translate view's alert is out of sight there); None for a cancelled job.
    pub fn job_error_message(&self, e: JobError) -> Option<String> {
        match e {
            JobError::Model(e) => Some(e),
            JobError::Failed(e) => Some(e),
            JobError::Cancelled => None,
        }
    }

    /// Whether the Translate view's first sentence is still `sentence` (tracked: a Memo over it runs
    /// again when the text changes), for results that say when the view has moved on.
    pub fn first_sentence_is(&self, sentence: &str) -> bool {
        self.text.with(|t| first_sentence_of(t)).as_deref() == Some(sentence)
    }
}

/// The first sentence of the Translate view's text, which Compare and Attention work on.
pub fn first_sentence(shared: &Shared) -> Result<String, String> {
    shared
        .text
        .with_untracked(|t| first_sentence_of(t))
        .ok_or_else(|| "Type a sentence in the Translate view first.".to_string())
}

/// What Compare or Attention will run on (tracked): "“A dog runs.” with Transformer (distilled),
/// SEARCH", the sentence cut at 80 characters; None while the Translate view has no text. A shared
/// link to those views showed none of it until a run.
pub fn what_runs(shared: &Shared, search: &str) -> Option<String> {
    let sentence = shared.text.with(|t| first_sentence_of(t))?;
    let shown: String = match sentence.chars().count() {
        n if n > 80 => sentence.chars().take(79).collect::<String>() + "…",
        _ => sentence,
    };
    shared.model_entries.track();
    let model = shared.model_title(&shared.settings.with(|s| s.model.clone()));
    // Isolated (FSI … PDI): a right-to-left mark in the sentence turned the whole line around.
    Some(format!("“\u{2068}{shown}\u{2069}” with {model}, {search}"))
}

fn first_sentence_of(text: &str) -> Option<String> {
    split_sentences(text).into_iter().flatten().next()
}

/// The settings as the engine worker takes them.
pub fn settings_pairs(s: &Settings) -> Vec<(String, String)> {
    s.to_pairs().into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// The validator's and the notices' messages start in lower case ("beam width must be …"), as the
/// CLI prints them; shown on their own in a view they start a sentence.
pub fn capitalised(message: &str) -> String {
    let mut chars = message.chars();
    chars.next().map_or(String::new(), |c| c.to_uppercase().chain(chars).collect())
}

/// The Translate view: the pickers, the model's error, the input and its translation, the engine line,
/// the settings, files, offline models, examples and evaluation, top to bottom.
#[component]
pub fn TranslatePage() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let Shared { settings, text, model_entries, model_status, .. } = shared;
    let live = Live::start(shared);
    let fetch = ModelFetch::start(shared, live);
    let test_set = TestSet::load(shared);
    let TestSet { pair, example_ref, .. } = test_set;
    let kept_offline = RwSignal::new(Vec::<CatalogEntry>::new());
    let kept_names =
        Signal::derive(move || kept_offline.with(|o| o.iter().map(CatalogEntry::name).collect::<Vec<_>>()));
    view! {
        <section class="translate">
            // The other views have a visible title; here the language pickers say it, so it is for screen readers.
            <h2 class="sr-only">"Translate"</h2>
            <div class="toolbar">
                <LanguagePicker settings entries=model_entries kept_offline=kept_names in_memory=shared.in_memory online=fetch.online.into() output_text=Signal::derive(move || live.output_text()) stale=Signal::derive(move || live.swap_waits()) text />
            </div>
            <ModelError fetch kept_offline=kept_names />
            <div class="panes">
                <TranslateInput live pair example_ref />
                <TranslateOutput live pair example_ref />
            </div>
            <EngineLine fetch />
            // Below the boxes, so that on a phone the translation shows above the fold.
            <p class="hint" data-testid="tr-domain">"Every model here learnt from Multi30k's 29 000 image captions (“Two dogs run through the snow.”): descriptions of a picture translate well; greetings, numbers and other kinds of text often do not."</p>
            <SettingsPanel settings />
            <MeasureDevice test_set />
            <FileTranslate />
            <OfflineModels entries=model_entries model_status list=kept_offline />
            <TranslateExamples test_set />
            <TranslateEvaluation test_set />
        </section>
    }
}

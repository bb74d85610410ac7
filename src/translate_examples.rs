//! Translate's examples: the direction's test_2016_flickr sentences, of which the first 40 are listed
//! to put in the box (with their reference, for the sentence BLEU); the evaluation scores them all.

use leptos::prelude::*;
use wgslate_model::catalog;

use crate::language_picker::direction;
use crate::translate_page::Shared;
use crate::{browser, download};

/// test_2016_flickr's (source, reference) pairs for a direction; none if either file is missing.
async fn test_set_pairs((s, t): &(String, String)) -> Vec<(String, String)> {
    match (
        download::fetch_text(&format!("data/test_2016_flickr.{s}")).await,
        download::fetch_text(&format!("data/test_2016_flickr.{t}")).await,
    ) {
        (Ok(src), Ok(rf)) => src.lines().zip(rf.lines()).map(|(a, b)| (a.to_string(), b.to_string())).collect(),
        _ => vec![],
    }
}

/// A direction and its (source, reference) pairs.
type Pairs = ((String, String), Vec<(String, String)>);

/// The direction's test set, which the examples and the evaluation follow.
#[derive(Clone, Copy)]
pub struct TestSet {
    /// The direction: (source, target) language codes.
    pub pair: Memo<(String, String)>,
    /// The direction and its pairs, as fetched.
    loaded: LocalResource<Pairs>,
    /// The direction's test set came back empty: its files could not be fetched.
    pub missing: Memo<bool>,
    /// Empty until the direction's own test set is in (never the last direction's).
    pub examples: Memo<Vec<(String, String)>>,
    /// The reference of the example put in the box (for the sentence BLEU), until the text is typed
    /// over or the direction changes.
    pub example_ref: RwSignal<Option<String>>,
}

impl TestSet {
    pub fn load(shared: Shared) -> Self {
        let Shared { settings, model_entries, .. } = shared;
        // The examples and the evaluation set follow the direction.
        let pair = Memo::new(move |_| direction(&settings.get().model));
        // Only a shipped model's languages have a test set (the app replaces any other model).
        let shipped = Memo::new(move |_| {
            let model = settings.with(|s| s.model.clone());
            model_entries.with(|e| catalog::lists(e, &model))
        });
        let loaded = LocalResource::new(move || {
            let (pair, shipped) = (pair.get(), shipped.get());
            async move {
                let pairs = match shipped {
                    true => test_set_pairs(&pair).await,
                    false => vec![],
                };
                (pair, pairs)
            }
        });
        let missing = Memo::new(move |_| {
            shipped.get() && loaded.get().is_some_and(|(p, pairs)| p == pair.get() && pairs.is_empty())
        });
        let examples = Memo::new(move |_| {
            loaded.get().filter(|(p, _)| *p == pair.get()).map(|(_, pairs)| pairs).unwrap_or_default()
        });
        let example_ref = RwSignal::new(None::<String>);
        Effect::new(move |_| {
            pair.track();
            example_ref.set(None);
        });
        TestSet { pair, loaded, missing, examples, example_ref }
    }
}

/// "Examples from test_2016_flickr": the first 40 sources, each a button that puts it in the box.
#[component]
pub fn TranslateExamples(test_set: TestSet) -> impl IntoView {
    let text = expect_context::<Shared>().text;
    let TestSet { loaded, missing, example_ref, .. } = test_set;
    view! {
        <details class="examples">
            <summary>"Examples from test_2016_flickr"</summary>
            <Suspense fallback=|| view! { <p class="hint" data-testid="examples-loading">"Loading the test set…"</p> }>
                {move || Suspend::new(async move {
                    let ((source, target), pairs) = loaded.await;
                    if pairs.is_empty() && missing.get_untracked() {
                        let missing = format!("The test set (data/test_2016_flickr.{source} and .{target}) could not be loaded: the examples and Evaluate need it. Reload the page to try again.");
                        return view! { <p class="error" role="alert" data-testid="examples-missing">{missing}</p> }.into_any();
                    }
                    let items = pairs.into_iter().take(40).map(|(src, rf)| {
                        let (s2, r2) = (src.clone(), rf.clone());
                        view! { <li><button class="link" on:click=move |_| { text.set(s2.clone()); example_ref.set(Some(r2.clone())); browser::reveal("[data-testid=tr-input]"); }>{src}</button></li> }
                    }).collect_view();
                    view! { <ul data-testid="examples">{items}</ul> }.into_any()
                })}
            </Suspense>
        </details>
    }
}

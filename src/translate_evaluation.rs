//! Translate's evaluation: the direction's test_2016_flickr (its first N sentences) translated with
//! the settings in the "evaluate" lane and scored with BLEU, with progress, Stop, the result and its
//! signature, a note when the settings changed since, and a way to open it in the BLEU page.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wgslate_metrics::signature::{self, Resampling};
use wgslate_metrics::{Bleu, BleuOptions};
use wgslate_model::catalog::language_name;

use crate::bleu_page::Prefill;
use crate::engine_client::{self, JobError};
use crate::engine_jobs::{Job, SearchChoice};
use crate::eval_sweep::EvalSweep;
use crate::figures::grouped;
use crate::language_picker::direction;
use crate::settings::Settings;
use crate::translate_examples::TestSet;
use crate::translate_page::{settings_pairs, Shared};

/// A finished test-set evaluation, with what it scored (kept with it, not looked up again: the
/// direction may change after it).
#[derive(Clone)]
struct EvalResult {
    score: String,
    signature: String,
    hyps: String,
    refs: String,
    sources: String,
    sentences: usize,
    search: String,
    model: String,
    /// `scored_with` of the settings it ran with.
    scored_with: Vec<(String, String)>,
}

/// The settings that make a translation what it is: the model and the search as it acts (a rerank
/// box that cannot apply is off), not the backend, which gives the same tokens.
fn scored_with(s: &Settings) -> Vec<(String, String)> {
    settings_pairs(&s.effective()).into_iter().filter(|(k, _)| k != "backend").collect()
}

/// The "first N sentences" box's value, or why not.
fn eval_count_checked(value: &str) -> Result<f64, String> {
    match value.trim() {
        "" => Err("the number of sentences must be a number from 1 to 1000".into()),
        v => wgslate_decode::settings::checked_number("n", v),
    }
}

/// "Evaluate on test_2016_flickr" with its sentence count, progress and Stop, and the result.
#[component]
pub fn TranslateEvaluation(test_set: TestSet) -> impl IntoView {
    let shared = expect_context::<Shared>();
    let Shared { settings, bleu_prefill, .. } = shared;
    let TestSet { examples, missing: test_set_missing, .. } = test_set;
    let eval_progress = RwSignal::new(None::<f64>);
    let eval_result = RwSignal::new(None::<EvalResult>);
    let eval_count = RwSignal::new(1000usize);
    let eval_count_problem = RwSignal::new(None::<String>);
    // When a bad count was refused: its change comes as the box loses focus, just before the click
    // that took the focus, and that click only shows the message (a later one runs the kept count).
    let count_refused_at = RwSignal::new(f64::NEG_INFINITY);
    let eval_note = RwSignal::new(None::<String>);
    let eval_running = Memo::new(move |_| eval_progress.get().is_some());

    let evaluate = {
        move |_| {
            if eval_running.get_untracked() || examples.with_untracked(Vec::is_empty) {
                return;
            }
            if crate::browser::now_ms() - count_refused_at.get_untracked() < 500.0 {
                return;
            }
            eval_count_problem.set(None);
            let s = settings.get_untracked();
            eval_result.set(None);
            eval_note.set(None);
            spawn_local(async move {
                let mut pairs = examples.get_untracked();
                pairs.truncate(eval_count.get_untracked().max(1));
                if pairs.is_empty() {
                    shared.model_error.set(Some("The test set (data/test_2016_flickr.*) could not be loaded.".into()));
                    return;
                }
                let sources: Vec<String> = pairs.iter().map(|p| p.0.clone()).collect();
                let mut order: Vec<usize> = (0..sources.len()).collect();
                order.sort_by_key(|&i| sources[i].len());
                let job = Job::Translate {
                    settings: settings_pairs(&s),
                    texts: order.iter().map(|&i| sources[i].clone()).collect(),
                    search: SearchChoice::Settings,
                    batch: 16,
                };
                let mut hyps = vec![String::new(); sources.len()];
                let mut done = 0;
                eval_progress.set(Some(0.0));
                let result = engine_client::run("evaluate", job, |first, sentences, _| {
                    for (k, nbest) in sentences.into_iter().enumerate() {
                        hyps[order[first + k]] = nbest.into_iter().next().map(|o| o.text).unwrap_or_default();
                        done += 1;
                    }
                    eval_progress.set(Some(done as f64 / sources.len() as f64));
                })
                .await;
                eval_progress.set(None);
                match result {
                    Ok(_) => {}
                    Err(JobError::Cancelled) => {
                        let now = settings.with_untracked(|now| now.model.clone());
                        let why = match (now != s.model, direction(&now)) {
                            (false, _) => String::new(),
                            (true, (from, to)) if direction(&s.model) != (from.clone(), to.clone()) => format!(
                                ": the direction was changed to {} → {}, so {} is no longer evaluated",
                                language_name(&from),
                                language_name(&to),
                                s.model
                            ),
                            (true, _) => format!(": another model was chosen, so {} is no longer evaluated", s.model),
                        };
                        return eval_note.set(Some(format!(
                            "Stopped after {} of {} sentences{why}.",
                            grouped(done),
                            grouped(sources.len())
                        )));
                    }
                    Err(JobError::Model(_)) => return,
                    Err(JobError::Failed(e)) => return shared.model_error.set(Some(format!("Evaluation failed: {e}"))),
                }
                let refs: Vec<&str> = pairs.iter().map(|p| p.1.as_str()).collect();
                let opts = BleuOptions::default();
                let h: Vec<&str> = hyps.iter().map(String::as_str).collect();
                let bleu = Bleu::new(opts.clone()).corpus_score(&h, std::slice::from_ref(&refs));
                eval_progress.set(None);
                eval_result.set(Some(EvalResult {
                    score: format!("{:.2}", bleu.score),
                    signature: signature::bleu(&opts, Some(1), &Resampling::default()).to_string(),
                    hyps: hyps.join("\n"),
                    refs: refs.join("\n"),
                    sources: sources.join("\n"),
                    sentences: pairs.len(),
                    search: s.search_label(),
                    model: s.model.clone(),
                    scored_with: scored_with(&s),
                }));
            });
        }
    };

    view! {
        <div class="evaluate">
            {move || test_set_missing.get().then(|| view! { <p class="hint" data-testid="eval-unavailable">"The test set could not be loaded (see the examples above), so there is nothing to evaluate on."</p> })}
            // aria-disabled, not disabled, which drops the keyboard focus when the run starts.
            <button data-testid="eval-run" on:click=evaluate aria-disabled=move || (eval_running.get() || examples.with(Vec::is_empty)).to_string()>"Evaluate on test_2016_flickr"</button>
            <label>
                " first "
                <input type="number" min="1" max="1000" step="1" data-testid="eval-count" prop:value=move || eval_count.get().to_string()
                    on:change=move |ev| match eval_count_checked(&event_target_value(&ev)) {
                        Ok(n) => {
                            eval_count_problem.set(None);
                            count_refused_at.set(f64::NEG_INFINITY);
                            eval_count.set(n as usize);
                        }
                        Err(e) => {
                            let kept = eval_count.get_untracked();
                            count_refused_at.set(crate::browser::now_ms());
                            eval_count_problem.set(Some(format!("{e}; the evaluation keeps the first {kept} (Evaluate again to run it).")));
                            event_target::<web_sys::HtmlInputElement>(&ev).set_value(&kept.to_string());
                        }
                    } />
                " of 1 000 sentences"
            </label>
            {move || eval_count_problem.get().map(|e| view! { <p class="error" role="alert" data-testid="eval-count-error">{e}</p> })}
            // The Stop button is built once per run, not at every progress step (a click must not
            // land on a button that is being replaced).
            {move || eval_running.get().then(|| view! {
                <progress max="1" prop:value=move || eval_progress.get().unwrap_or(0.0)></progress>
                {move || format!(" {:.0} % ", 100.0 * eval_progress.get().unwrap_or(0.0))}
                <button data-testid="eval-stop" on:click=move |_| engine_client::cancel("evaluate")>"Stop"</button>
            })}
            {move || eval_note.get().map(|n| view! { <p class="hint" data-testid="eval-note">{n}</p> })}
            <p class="status" role="status" data-testid="eval-status">{move || match (eval_running.get(), eval_result.with(|r| r.as_ref().map(|r| r.score.clone()))) {
                (true, _) => "Evaluating…".to_string(),
                (false, Some(score)) => format!("BLEU {score}"),
                (false, None) => String::new(),
            }}</p>
            {move || eval_result.get().map(|r| {
                let EvalResult { score, signature, hyps, refs, sources, sentences, search, model, scored_with: used } = r;
                let prefill = move |as_second: bool| Prefill {
                    output: hyps.clone(), reference: refs.clone(), sources: sources.clone(), as_second,
                };
                let prefill_second = prefill.clone();
                view! {
                    <p>"BLEU " <strong data-testid="eval-bleu">{score}</strong> {format!(" on {} sentences, {model}, {search} ", grouped(sentences))} <code>{signature}</code></p>
                    <button data-testid="eval-open-bleu" on:click=move |_| bleu_prefill.set(Some(prefill(false)))>"Open in the BLEU page"</button>
                    " "
                    <button data-testid="eval-open-bleu-second" title="Keeps the BLEU page's hypothesis and reference: an earlier evaluation (greedy, say) against this one"
                        on:click=move |_| bleu_prefill.set(Some(prefill_second(true)))>"… as the second system"</button>
                    {move || settings.with(|now| scored_with(now) != used).then(|| view! {
                        <p class="hint" data-testid="eval-stale">"The model or search settings changed since this evaluation; Evaluate again to score them."</p>
                    })}
                }
            })}
            <EvalSweep examples=examples />
        </div>
    }
}

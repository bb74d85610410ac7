//! Search: how the decoder decided on the Translate view's first sentence. The search runs once with
//! its trace (in the engine worker, on the chosen backend): the beam tree, each step's choices for
//! greedy and sampling, the finished hypotheses re-ranked at once as α, β and γ move, a word's
//! alternatives (choosing one translates again from there), a prefix the translation must begin
//! with, and a translation you give scored token by token.

use std::collections::HashMap;

use leptos::prelude::*;
use leptos::task::spawn_local;
use wgslate_decode::trace::Trace;
use wgslate_decode::{LengthPenalty, Scoring};

use crate::engine_client::{self, Ended};
use crate::engine_jobs::{Event, Job, Lab, Scored};
use crate::search_tree::{children, SearchTree};
use crate::translate_page::{capitalised, first_sentence, settings_pairs, what_runs, Shared};

/// A result and what it was searched for (to tell when the Translate view has moved on).
#[derive(Clone, Debug)]
struct Searched {
    lab: Lab,
    words: HashMap<u32, String>,
    sentence: String,
    settings: Vec<(String, String)>,
    /// The translation scored with it, as it was when Search was pressed.
    candidate: String,
}

/// α of a length penalty (0: none).
fn alpha_of(lp: LengthPenalty) -> f32 {
    match lp {
        LengthPenalty::None => 0.0,
        LengthPenalty::Average(a) | LengthPenalty::Gnmt(a) => a,
    }
}

/// The text of subwords as the page shows it: their surfaces joined, the leading space dropped.
fn joined(words: &HashMap<u32, String>, tokens: &[u32]) -> String {
    tokens.iter().map(|t| words.get(t).cloned().unwrap_or_default()).collect::<String>().trim_start().to_string()
}

/// The alternatives the model had at output position `p` of the winner: (token, log-probability), most likely first.
fn alternatives(trace: &Trace, winner_node: usize, p: usize) -> Vec<(u32, f32)> {
    if let Some(c) = trace.choices.get(p) {
        return c.candidates.iter().map(|&(t, lp, _)| (t, lp)).collect();
    }
    let path = trace.path(winner_node);
    let Some(&at) = path.get(p) else { return vec![] };
    let kids = children(trace);
    kids[trace.nodes[at].parent as usize]
        .iter()
        .map(|&c| (trace.nodes[c].token, trace.nodes[c].token_log_prob))
        .collect()
}

#[component]
pub fn SearchPage() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let result = RwSignal::new(None::<Searched>);
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let candidate = RwSignal::new(String::new());
    let prefix_problem = RwSignal::new(None::<String>);

    let run = move || {
        if busy.get_untracked() {
            return;
        }
        let sentence = match first_sentence(&shared) {
            Ok(s) => s,
            Err(e) => return error.set(Some(e)),
        };
        error.set(None);
        busy.set(true);
        let settings = settings_pairs(&shared.settings.get_untracked());
        let given = candidate.get_untracked();
        let job = Job::Lab { settings: settings.clone(), text: sentence.clone(), candidate: given.clone() };
        spawn_local(async move {
            match engine_client::run("search", job, |_, _, _| {}).await {
                Ok(Ended { last: Event::Lab(lab), .. }) => {
                    let words = lab.words.iter().cloned().collect();
                    result.set(Some(Searched { lab: *lab, words, sentence, settings, candidate: given }));
                }
                Ok(_) => error.set(Some("the engine gave no search".into())),
                Err(e) => {
                    if let Some(m) = shared.job_error_message(e) {
                        error.set(Some(capitalised(&m)));
                    }
                }
            }
            busy.set(false);
        });
    };
    let stale = Memo::new(move |_| {
        result.with(|r| {
            r.as_ref().is_some_and(|r| {
                !shared.first_sentence_is(&r.sentence) || settings_pairs(&shared.settings.get()) != r.settings
            })
        })
    });
    // Whether the prefix was taken (one over the limit is refused with a message).
    let set_prefix = move |text: String| -> bool {
        let mut s = shared.settings.get_untracked();
        match s.set("prefix", &text) {
            Ok(()) => {
                prefix_problem.set(None);
                shared.settings.set(s);
                true
            }
            Err(e) => {
                prefix_problem.set(Some(capitalised(&e)));
                false
            }
        }
    };
    view! {
        <section class="search">
            <h2>"How the search decided"</h2>
            <p class="hint">"The first sentence of the Translate view, searched with its model and settings, recording every hypothesis, the candidates it weighed and why it pruned them. Beam search draws its tree; greedy and sampling show each step's choices. Click a word of the output to see the alternatives, and pick one to translate again from there."</p>
            <p data-testid="search-plan">{move || {
                let s = shared.settings.get();
                what_runs(&shared, &s.search_label()).unwrap_or_else(|| "No sentence yet: type one in the Translate view.".into())
            }}</p>
            <label class="prefix">
                "Begin the translation with… "
                <input type="text" data-testid="search-prefix" placeholder="(the model's own choice)"
                    prop:value=move || shared.settings.with(|s| s.prefix.clone())
                    on:change=move |ev| { set_prefix(event_target_value(&ev)); } />
                <button data-testid="search-prefix-clear" on:click=move |_| { set_prefix(String::new()); }>"Clear"</button>
            </label>
            {move || prefix_problem.get().map(|e| view! { <p class="error" role="alert" data-testid="search-prefix-error">{e}</p> })}
            <details class="candidate">
                <summary>"Score a translation you give"</summary>
                <textarea data-testid="search-candidate" placeholder="A reference, your own translation: its log-probability under the model, token by token"
                    aria-label="A translation to score" prop:value=move || candidate.get() on:input=move |ev| candidate.set(event_target_value(&ev))></textarea>
            </details>
            <button class="primary" data-testid="search-run" on:click=move |_| run() aria-disabled=move || busy.get().to_string()>"Search"</button>
            <p class="status" role="status" data-testid="search-status">{move || match (busy.get(), result.with(Option::is_some)) {
                (true, _) => "Searching…".to_string(),
                (false, true) => result.with(|r| r.as_ref().map(|r| format!("{}: {} finished", r.lab.search, r.lab.trace.finished.len())).unwrap_or_default()),
                _ => String::new(),
            }}</p>
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="search-error">{e}</p> })}
            {move || stale.get().then(|| view! {
                <p class="hint" data-testid="search-stale">"The Translate view's first sentence or settings changed since this search; Search again to update it."</p>
            })}
            {move || result.get().map(|r| view! {
                <div class:stale=move || stale.get()>
                    <Results searched=r on_prefix=Callback::new(move |p: String| if set_prefix(p) { run() }) />
                </div>
            })}
        </section>
    }
}

#[component]
fn Results(searched: Searched, on_prefix: Callback<String>) -> impl IntoView {
    let Searched { lab, words, candidate: scored_text, .. } = searched;
    let trace = lab.trace.clone();
    let original = trace.scoring;
    let alpha = RwSignal::new(alpha_of(original.length_penalty));
    let beta = RwSignal::new(original.coverage);
    let gamma = RwSignal::new(original.end_penalty);
    // The kind the settings name: with α = 0 the trace's penalty is None and says no kind.
    let gnmt = match original.length_penalty {
        LengthPenalty::Average(_) => false,
        LengthPenalty::Gnmt(_) => true,
        LengthPenalty::None => expect_context::<Shared>().settings.with_untracked(|s| s.lenpen_kind != "avg"),
    };
    let scoring = Memo::new(move |_| Scoring {
        length_penalty: LengthPenalty::from_alpha(alpha.get(), if gnmt { "gnmt" } else { "avg" }),
        coverage: beta.get(),
        end_penalty: gamma.get(),
    });
    let trace_store = StoredValue::new(trace.clone());
    let ranking =
        Signal::derive(move || trace_store.with_value(|t| (t.rerank(&scoring.get()), t.rescore(&scoring.get()))));
    let is_beam = trace.choices.is_empty();
    let best = lab.outputs.first().cloned();
    let winner_node = trace.ranking().first().map(|&f| trace.finished[f].node).unwrap_or(0);
    let winner_tokens: Vec<u32> =
        trace.ranking().first().map(|&f| trace.finished[f].tokens.clone()).unwrap_or_default();
    let open = RwSignal::new(None::<usize>);
    let words_store = StoredValue::new(words.clone());
    let prefix_len = lab.prefix_len;

    let output = {
        let winner_tokens = winner_tokens.clone();
        let surfaces: Vec<String> = winner_tokens.iter().map(|t| words.get(t).cloned().unwrap_or_default()).collect();
        surfaces
            .into_iter()
            .enumerate()
            .map(|(p, w)| {
                // The subword's leading space separates words; the button holds the word alone.
                let space = if w.starts_with(' ') && p > 0 { " " } else { "" };
                let w = w.trim_start().to_string();
                view! {
                    {space}
                    <button class="word" class:forced=p < prefix_len data-testid=format!("search-word-{p}")
                        aria-expanded=move || (open.get() == Some(p)).to_string()
                        title=if p < prefix_len { "forced by the prefix" } else { "the model's alternatives here" }
                        on:click=move |_| open.update(|o| *o = if *o == Some(p) { None } else { Some(p) })>{w}</button>
                }
            })
            .collect_view()
    };
    let alternatives_view = move || {
        open.get().map(|p| {
            let alts = trace_store.with_value(|t| alternatives(t, winner_node, p));
            let before = winner_tokens[..p].to_vec();
            let eos = wgslate_model::config::EOS_ID;
            view! {
                <div class="alternatives" data-testid="search-alternatives" role="group" aria-label=format!("Alternatives at position {}", p + 1)>
                    <p class="hint">{format!("Position {}: the model's most likely subwords here. Pick one to keep the output up to it and search the rest again.", p + 1)}</p>
                    <ul>
                        {alts.into_iter().enumerate().map(|(k, (t, lp))| {
                            let word = words_store.with_value(|w| w.get(&t).cloned().unwrap_or_default());
                            let shown = if t == eos { "</s> (end)".to_string() } else { word.trim().to_string() };
                            let prefix = words_store.with_value(|w| joined(w, &[before.clone(), vec![t]].concat()));
                            let p_pct = 100.0 * (lp as f64).exp();
                            view! {
                                <li>
                                    <button data-testid=format!("search-alt-{k}") disabled=t == eos
                                        on:click=move |_| on_prefix.run(prefix.clone())>{shown}</button>
                                    <span class="bar" style=format!("width: {:.1}px", 1.5 * p_pct)></span>
                                    {format!(" {p_pct:.1} %")}
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                </div>
            }
        })
    };
    let moved = move |f: usize| {
        let before = trace_store.with_value(|t| t.ranking().iter().position(|&r| r == f).unwrap_or(0));
        let now = ranking.with(|(r, _)| r.iter().position(|&r| r == f).unwrap_or(0));
        match now as isize - before as isize {
            0 => String::new(),
            d if d < 0 => format!("↑{}", -d),
            d => format!("↓{d}"),
        }
    };
    let finished_rows = move || {
        let (order, scores) = ranking.get();
        let s = scoring.get();
        let widest = scores.iter().map(|x| x.abs()).fold(1e-6f32, f32::max);
        order
            .into_iter()
            .enumerate()
            .map(|(rank, f)| {
                let (text, t, cov_sum, source_len) = trace_store.with_value(|tr| {
                    let fin = &tr.finished[f];
                    (words_store.with_value(|w| joined(w, &fin.tokens)), fin.terms, fin.coverage_log_sum, tr.source_len)
                });
                let divisor = s.length_penalty.divisor(t.length);
                let (lp_term, cov, end) =
                    (t.log_prob / divisor, s.coverage * cov_sum, s.end_penalty * t.length as f32 / source_len.max(1) as f32);
                let px = |x: f32| format!("width: {:.1}%", 100.0 * x.abs() / widest);
                view! {
                    <tr data-testid="search-finished-row" data-finished=f>
                        <td class="rank">{format!("{}", rank + 1)}<span class="moved" data-testid="search-moved">{moved(f)}</span></td>
                        <td class="text">{text}</td>
                        <td data-testid="search-score">{format!("{:.3}", scores[f])}</td>
                        <td class="terms">
                            <span class="term lp" style=px(lp_term) title=format!("log-prob {:.3} / length penalty {divisor:.3} = {lp_term:.3}", t.log_prob)></span>
                            <span class="term cov" style=px(cov) title=format!("coverage {cov:.3}")></span>
                            <span class="term end" style=px(end) title=format!("end {end:.3}")></span>
                            <span class="terms-text">{format!("{:.2} / {divisor:.2} + {cov:.2} + {end:.2}", t.log_prob)}</span>
                        </td>
                    </tr>
                }
            })
            .collect_view()
    };
    let slider = move |label: &'static str, testid: &'static str, value: RwSignal<f32>, min: f32, max: f32| {
        view! {
            <label>
                {label}
                <input type="range" data-testid=testid min=min max=max step="0.1" prop:value=move || value.get().to_string()
                    on:input=move |ev| { if let Ok(x) = event_target_value(&ev).parse::<f32>() { value.set(x) } } />
                <output>{move || format!("{:.1}", value.get())}</output>
            </label>
        }
    };
    let shared = expect_context::<Shared>();
    let search_again = move |_| {
        let mut s = shared.settings.get_untracked();
        let ok = [("lp", alpha.get_untracked()), ("cov", beta.get_untracked()), ("end", gamma.get_untracked())]
            .iter()
            .all(|(k, v)| s.set(k, &format!("{v}")).is_ok());
        if ok {
            let prefix = s.prefix.clone();
            shared.settings.set(s);
            on_prefix.run(prefix);
        }
    };
    let notes = lab.notices.messages_of_one();
    view! {
        <div class="results" data-testid="search-results">
            {notes.into_iter().map(|n| view! { <p class="hint" data-testid="search-note">{capitalised(&n)}</p> }).collect_view()}
            <h3>"Output"</h3>
            <p class="output-words" data-testid="search-output">{output}</p>
            {best.clone().map(|b| view! {
                <p class="meta" data-testid="search-output-meta">{format!("{} · log P = {:.3} · score {:.3}{}", lab.search, b.log_prob, b.score,
                    if prefix_len > 0 { format!(" · the first {prefix_len} subwords forced by the prefix") } else { String::new() })}</p>
            })}
            {alternatives_view}
            {is_beam.then(|| view! {
                <h3>"The beam search tree"</h3>
                <SearchTree trace=trace.clone() words=words.clone() ranking />
            })}
            {(!is_beam).then(|| view! { <StepChoices trace=trace.clone() words=words.clone() prefix_len /> })}
            <h3>"Finished hypotheses"</h3>
            {is_beam.then(|| view! {
                <p class="hint">"Score = log-prob / length penalty + coverage + end penalty. Move α, β or γ to re-rank them from the trace, without a new search (a new search may also prune differently)."</p>
                <div class="options rerank">
                    {slider("α (length) ", "search-alpha", alpha, 0.0, 5.0)}
                    {slider("β (coverage) ", "search-beta", beta, 0.0, 5.0)}
                    {slider("γ (end) ", "search-gamma", gamma, -5.0, 5.0)}
                    <button data-testid="search-again" on:click=search_again>"Search again with these"</button>
                </div>
            })}
            <table class="finished" data-testid="search-finished">
                <thead><tr><th>"Rank"</th><th>"Hypothesis"</th><th>"Score"</th><th>"Terms"</th></tr></thead>
                <tbody>{finished_rows}</tbody>
            </table>
            {lab.candidate.clone().map(|c| {
                // The verdict compares log-probabilities: only where the search ranked by them alone.
                let unlike = match () {
                    _ if prefix_len > 0 => Some("the search began with a forced prefix"),
                    _ if !is_beam && !trace.choices.iter().all(|ch| ch.sampled_entropy == 0.0) => Some("the output was sampled, not searched for"),
                    _ if original != Scoring::default() => Some("the search ranked by a score with penalties, not by log P alone"),
                    _ if c.cut > 0 => Some("only part of your translation was scored"),
                    _ => None,
                };
                view! { <CandidateScore scored=c own=best.as_ref().map_or(f32::NEG_INFINITY, |b| b.log_prob) text=scored_text.clone() unlike /> }
            })}
        </div>
    }
}

/// Greedy's and sampling's choices, position by position: the top subwords as bars of probability,
/// what temperature, top-k and top-p left of them (a cut one struck through), the chosen one marked.
/// The first `prefix_len` positions were forced: the prefix's token had all the probability left.
#[component]
fn StepChoices(trace: Trace, words: HashMap<u32, String>, prefix_len: usize) -> impl IntoView {
    let word = move |t: u32| {
        let w = words.get(&t).cloned().unwrap_or_default();
        match w.trim() {
            "" if t == wgslate_model::config::EOS_ID => "</s>".to_string(),
            "" => "␣".to_string(),
            s => s.to_string(),
        }
    };
    let cards = trace
        .choices
        .iter()
        .map(|c| {
            let rows = c
                .candidates
                .iter()
                .map(|&(t, lp, sampled)| {
                    let p = 100.0 * (lp as f64).exp();
                    let after = sampled.map_or("cut".to_string(), |q| format!("{:.1} %", 100.0 * q));
                    view! {
                        <li class:chosen=t == c.chosen class:cut=sampled.is_none()>
                            <span class="w">{word(t)}</span>
                            <span class="bar" style=format!("width: {:.1}px", 1.2 * p)></span>
                            <span class="p">{format!("{p:.1} %")}</span>
                            <span class="after" title="after temperature, top-k and top-p">{after}</span>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <div class="choice" data-testid="search-choice">
                    <p class="head">{format!("{}. {}", c.step + 1, word(c.chosen))}<span class="meta">{match c.step < prefix_len {
                        true => " forced by the prefix".to_string(),
                        false => format!(" H = {:.2} bits", c.entropy),
                    }}</span></p>
                    <ol>
                        <li class="columns" aria-hidden="true"><span></span><span></span><span class="p">"model"</span><span class="after">"kept"</span></li>
                        {rows}
                    </ol>
                </div>
            }
        })
        .collect_view();
    view! {
        <h3>"Each step's choices"</h3>
        <p class="hint">"Per position: the model's most likely subwords (bars and “model”: their probability), what temperature, top-k and top-p left of each (“kept”; greedy: 100 % for the chosen), the chosen one in bold, and the entropy H of the model's distribution."</p>
        // Focusable: it scrolls sideways, and a keyboard must reach what is off to the right.
        <div class="choices" data-testid="search-choices" tabindex="0" role="group" aria-label="Each position's choices; scroll sideways for later positions">{cards}</div>
    }
}

/// A translation the user gave, scored token by token, beside the search's own output.
#[component]
fn CandidateScore(scored: Scored, own: f32, text: String, unlike: Option<&'static str>) -> impl IntoView {
    let verdict = if let Some(why) = unlike {
        format!("No verdict on search or model error: {why}, so the totals are not the search's own comparison.")
    } else if scored.total > own {
        format!("The model prefers this translation (log P {:.3}) to the one the search returned ({own:.3}): a search error — a better-scoring output existed and the search missed it.", scored.total)
    } else {
        format!("The model scores this translation lower (log P {:.3}) than the search's output ({own:.3}): if it is the better translation, that is a model error, not the search's.", scored.total)
    };
    let cut = (scored.cut > 0).then(|| {
        format!(
            "Only the first {} subwords are scored (the model's longest output); {} more were left out.",
            scored.subwords.len() - 1,
            scored.cut
        )
    });
    let unseen = (!scored.unseen.is_empty()).then(|| {
        format!(
            "Characters the model never saw ({}) are scored as its unknown token.",
            scored.unseen.iter().collect::<String>()
        )
    });
    let rows = scored
        .subwords
        .iter()
        .zip(&scored.token_log_probs)
        .zip(&scored.ranks)
        .map(|((w, lp), r)| {
            view! { <tr><td class="w">{w.clone()}</td><td>{format!("{lp:.3}")}</td><td>{format!("{:.1} %", 100.0 * (*lp as f64).exp())}</td><td>{r.to_string()}</td></tr> }
        })
        .collect_view();
    view! {
        <div class="candidate-score" data-testid="search-candidate-score">
            <h3>"Your translation, scored"</h3>
            <p class="hint">{format!("{} characters, {} subwords with EOS.", text.chars().count(), scored.subwords.len())}</p>
            <p data-testid="search-candidate-total">{format!("log P = {:.3}; the search's output: {own:.3}", scored.total)}</p>
            <p data-testid="search-verdict">{verdict}</p>
            {cut.map(|c| view! { <p class="hint" data-testid="search-candidate-cut">{c}</p> })}
            {unseen.map(|u| view! { <p class="hint">{u}</p> })}
            <div class="table-scroll">
                <table data-testid="search-candidate-tokens">
                    <thead><tr><th>"Subword"</th><th>"log-prob"</th><th>"p"</th><th>"Rank"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </div>
    }
}

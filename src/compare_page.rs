//! Compare: greedy, beam search (n-best) and a sample for the same input, side by side.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::engine_client::{self, Ended};
use crate::engine_jobs::{Event, Job, SearchChoice, COMPARE_MIN_BEAM};
use crate::figures::{count, elapsed};
use crate::model_download::{waiting_status, ModelDownload};
use crate::settings::Settings;
use crate::translate_page::{capitalised, first_sentence, settings_pairs, what_runs, Shared};
use crate::{browser, tsv};

#[derive(Clone, Debug)]
struct Column {
    /// (text, tokens, total log-prob, normalised score) per hypothesis.
    outputs: Vec<(String, Vec<String>, f32, f32)>,
    ms: f64,
}

/// Word-level longest common subsequence: which words of `a` are not shared with `b`.
pub fn changed_words(a: &[String], b: &[String]) -> Vec<bool> {
    let (n, m) = (a.len(), b.len());
    let mut dp = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            dp[i][j] = if a[i] == b[j] { dp[i + 1][j + 1] + 1 } else { dp[i + 1][j].max(dp[i][j + 1]) };
        }
    }
    let mut changed = vec![true; n];
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] {
            changed[i] = false;
            i += 1;
            j += 1;
        } else if dp[i + 1][j] >= dp[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    changed
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

/// Every output of the three searches, one row each: search, rank, text, log-prob, score, tokens
/// (the JSON also names the source and the settings, model included, that made them).
fn export(source: &str, settings: &[(String, String)], cols: [(&str, &Column); 3], json: bool) -> String {
    let rows = cols.iter().flat_map(|(search, c)| {
        c.outputs
            .iter()
            .enumerate()
            .map(move |(rank, (text, toks, lp, score))| (*search, rank + 1, text, toks.len(), lp, score))
    });
    if json {
        let outputs: Vec<serde_json::Value> = rows
            .map(|(search, rank, text, tokens, lp, score)| {
                serde_json::json!({ "search": search, "rank": rank, "text": text, "tokens": tokens, "log_prob": lp, "score": score })
            })
            .collect();
        let settings: serde_json::Map<String, serde_json::Value> =
            settings.iter().map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()))).collect();
        let doc = serde_json::json!({ "source": source, "settings": settings, "outputs": outputs });
        return serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
    }
    let mut out = String::from("search\trank\ttext\ttokens\tlog_prob\tscore\n");
    for (search, rank, text, tokens, lp, score) in rows {
        out.push_str(&format!("{search}\t{rank}\t{}\t{tokens}\t{lp:.4}\t{score:.4}\n", tsv::text_cell(text)));
    }
    out
}

/// The three searches' results, and what they were run for.
#[derive(Clone, Debug)]
struct Results {
    greedy: Column,
    beam: Column,
    sample: Column,
    source: String,
    /// The settings as the searches used them (`used_settings`).
    used: Vec<(String, String)>,
    /// The title of the model that made them.
    model: String,
    /// What the user should know about them: the source cut to the model's limit, an output stopped
    /// at the maximum length (`notes_by_search`).
    notes: Vec<String>,
}

/// The three searches in the order they run: the name a notice gives each, and the status's while it runs.
const SEARCHES: [(SearchChoice, &str, &str); 3] = [
    (SearchChoice::Greedy, "greedy", "greedy search"),
    (SearchChoice::Beam, "beam", "beam search"),
    (SearchChoice::Sample, "sample", "sampling"),
];

/// Each search's notices (`Notices::messages_of_one`) as one list, each message once after the searches it
/// is about (the source cut is every search's).
fn notes_by_search(per_search: &[(&str, Vec<String>)]) -> Vec<String> {
    let mut notes: Vec<(String, Vec<&str>)> = Vec::new();
    for (search, messages) in per_search {
        for m in messages {
            match notes.iter_mut().find(|(n, _)| n == m) {
                Some((_, searches)) => searches.push(search),
                None => notes.push((m.clone(), vec![search])),
            }
        }
    }
    notes.into_iter().map(|(m, searches)| format!("{}: {m}.", capitalised(&searches.join(", ")))).collect()
}

/// The settings as Compare's searches use them: the beam column runs a beam of at least COMPARE_MIN_BEAM (the engine
/// worker's `SearchChoice::Beam`), never reranked, and the sample column samples whatever the tick box says.
fn used_settings(s: &Settings) -> Vec<(String, String)> {
    s.effective()
        .all_pairs()
        .into_iter()
        .map(|(k, v)| {
            let v = match k {
                "beam" => s.beam.max(COMPARE_MIN_BEAM).to_string(),
                // Each column sets its own search: the Sample tick box changes none of them.
                "rerank" | "sample" => "false".into(),
                _ => v,
            };
            (k.to_string(), v)
        })
        .collect()
}

#[component]
pub fn ComparePage() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let columns = RwSignal::new(None::<Results>);
    let busy = RwSignal::new(false);
    // Which of the three searches runs (an index into SEARCHES), and whether the last run was stopped.
    let stage = RwSignal::new(0usize);
    let stopped = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    // An error about the sentence (or the run for it) is old news once the Translate view's text changes.
    Effect::new(move |_| {
        shared.text.track();
        error.set(None);
    });
    let run = {
        move |_| {
            if busy.get_untracked() {
                return;
            }
            let s = shared.settings.get_untracked();
            error.set(None);
            stopped.set(false);
            // Results stay under a Stop (said to be from before it), not under an error: as in Attention.
            let sentence = match first_sentence(&shared) {
                Ok(s) => s,
                Err(e) => {
                    columns.set(None);
                    return error.set(Some(e));
                }
            };
            busy.set(true);
            spawn_local(async move {
                let mut cols = Vec::new();
                let mut notes = Vec::new();
                for (k, (search, name, _)) in SEARCHES.into_iter().enumerate() {
                    stage.set(k);
                    let job = Job::Translate {
                        settings: settings_pairs(&s),
                        texts: vec![sentence.clone()],
                        search,
                        batch: 1,
                    };
                    let mut outputs = Vec::new();
                    let result = engine_client::run("compare", job, |_, mut sentences, _| {
                        outputs = sentences
                            .pop()
                            .unwrap_or_default()
                            .into_iter()
                            .map(|o| (o.text, o.tokens, o.log_prob, o.score))
                            .collect();
                    })
                    .await;
                    match result {
                        Ok(_) if outputs.is_empty() => {
                            columns.set(None);
                            error.set(Some(
                                "The search found no translation (every candidate scored -inf or NaN).".into(),
                            ));
                            busy.set(false);
                            return;
                        }
                        Ok(Ended { last, search_ms }) => {
                            if let Event::Finished { notices, .. } = last {
                                notes.push((name, notices.messages_of_one()));
                            }
                            cols.push(Column { outputs, ms: search_ms });
                        }
                        Err(e) => {
                            // None: stopped, or a newer job took the lane.
                            let message = shared.job_error_message(e);
                            stopped.set(message.is_none());
                            if message.is_some() {
                                columns.set(None);
                            }
                            error.set(message);
                            busy.set(false);
                            return;
                        }
                    }
                }
                // The loop pushed one column per search or returned.
                if let Ok([greedy, beam, sample]) = <[Column; 3]>::try_from(cols) {
                    let (used, model) = (used_settings(&s), shared.model_title(&s.model));
                    let notes = notes_by_search(&notes);
                    columns.set(Some(Results { greedy, beam, sample, source: sentence, used, model, notes }));
                }
                busy.set(false);
            });
        }
    };
    // Like Attention's map: results the Translate view's first sentence or settings have moved on from say so.
    let stale = Memo::new(move |_| {
        columns.with(|c| {
            c.as_ref()
                .is_some_and(|r| !shared.first_sentence_is(&r.source) || shared.settings.with(used_settings) != r.used)
        })
    });
    let marked = |text: &str, other: &str| {
        let (a, b) = (words(text), words(other));
        let changed = changed_words(&a, &b);
        a.into_iter()
            .zip(changed)
            .map(|(w, c)| match c {
                // <mark>: highlighted for a screen reader too, and underlined (not by colour alone).
                true => view! { <mark class="diff">{w}</mark>" " }.into_any(),
                false => view! { <span>{w}</span>" " }.into_any(),
            })
            .collect_view()
    };
    view! {
        <section class="compare">
            <h2>"Greedy vs beam search vs sampling"</h2>
            <p class="hint">{format!("The first sentence of the Translate view's text, with the model and settings chosen there (beam width at least {COMPARE_MIN_BEAM}; the beam's n-best shown as the search ranks it, not reranked). Words that differ between greedy and the best beam are highlighted and underlined.")}</p>
            // aria-disabled, not disabled: a disabled button drops the keyboard focus (and a screen reader's place).
            <p data-testid="cmp-plan">{move || {
                let beam = shared.settings.with(|s| s.beam);
                let used = beam.max(COMPARE_MIN_BEAM);
                let raised = if beam < used { format!(" (the Translate view's beam {beam}, raised to {used})") } else { String::new() };
                what_runs(&shared, &format!("greedy, beam {used}{raised} and a sample"))
                    .unwrap_or_else(|| "No sentence yet: type one in the Translate view.".into())
            }}</p>
            <button class="primary" data-testid="cmp-run" on:click=run aria-disabled=move || busy.get().to_string()>"Compare"</button>
            {move || busy.get().then(|| view! {
                <button data-testid="cmp-stop" on:click=move |_| engine_client::cancel("compare")>"Stop"</button>
            })}
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="cmp-error">{e}</p> })}
            // Announced to screen readers: the region is always there, its text changes.
            <p class="status" role="status" data-testid="cmp-status">{move || match (busy.get(), stopped.get(), columns.with(Option::is_some)) {
                (true, ..) => waiting_status(&shared, true).map_or_else(|| format!("Comparing: {} ({} of 3)…", SEARCHES[stage.get()].2, stage.get() + 1), String::from),
                (false, true, true) => "Stopped; the results below are from the last finished comparison.".into(),
                (false, true, false) => "Stopped.".into(),
                (false, false, true) => "Greedy, beam and sampling results are shown below.".into(),
                (false, false, false) => String::new(),
            }}</p>
            // Only while its own run waits: after a Stop the Translate view may still be loading the model.
            {move || busy.get().then(|| view! { <ModelDownload prefix="cmp" /> })}
            {move || stale.get().then(|| view! {
                <p class="hint" data-testid="cmp-stale">"The Translate view's first sentence or settings changed since these results; Compare again to update them."</p>
            })}
            {move || columns.get().map(|Results { greedy: g, beam: b, sample: s, source: src, used, model, notes }| {
                let greedy_text = g.outputs[0].0.clone();
                let best_beam = b.outputs[0].0.clone();
                let (g2, b2, s2, src2) = (g.clone(), b.clone(), s.clone(), src.clone());
                let save = move |json: bool| {
                    let text = export(&src2, &used, [("greedy", &g2), ("beam", &b2), ("sample", &s2)], json);
                    let (name, mime) = if json { ("compare.json", "application/json") } else { ("compare.tsv", "text/tab-separated-values") };
                    browser::download_text(name, &text, mime);
                };
                let save2 = save.clone();
                view! {
                    <p class="source" class:stale=stale>"Source: "<bdi>{src}</bdi><span class="meta" data-testid="cmp-model">{format!(" · {model}")}</span></p>
                    {notes.into_iter().map(|n| view! { <p class="hint" data-testid="cmp-note">{n}</p> }).collect_view()}
                    <div class="export">
                        <button data-testid="cmp-export-tsv" title=tsv::TSV_TITLE on:click=move |_| save(false)>"Export TSV"</button>
                        <button data-testid="cmp-export-json" on:click=move |_| save2(true)>"Export JSON"</button>
                    </div>
                    <div class="columns" class:stale=stale>
                        <div class="col">
                            <h3>"Greedy"</h3>
                            <p data-testid="cmp-greedy">{marked(&greedy_text, &best_beam)}</p>
                            <p class="meta" data-testid="cmp-time-greedy">{format!("{} · {} · log-prob {:.2}", elapsed(g.ms), count(g.outputs[0].1.len(), "token"), g.outputs[0].2)}</p>
                        </div>
                        <div class="col">
                            <h3>{format!("Beam ({} best)", b.outputs.len())}</h3>
                            <ol>
                                {b.outputs.iter().enumerate().map(|(i, (text, toks, lp, score))| view! {
                                    <li data-testid=format!("cmp-beam-{i}")>
                                        <span class="text">{if i == 0 { marked(text, &greedy_text).into_any() } else { view! { <span>{text.clone()}</span> }.into_any() }}</span>
                                        <span class="meta">{format!(" log-prob {lp:.2} · score {score:.3} · {}", count(toks.len(), "token"))}</span>
                                    </li>
                                }).collect_view()}
                            </ol>
                            <p class="meta" data-testid="cmp-time-beam">{elapsed(b.ms)}</p>
                        </div>
                        <div class="col">
                            <h3>"Sample"</h3>
                            <p data-testid="cmp-sample">{s.outputs[0].0.clone()}</p>
                            <p class="meta" data-testid="cmp-time-sample">{format!("{} · {} · log-prob {:.2}", elapsed(s.ms), count(s.outputs[0].1.len(), "token"), s.outputs[0].2)}</p>
                        </div>
                    </div>
                }
            })}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        words(s)
    }

    /// Longest common subsequence length by plain recursion over all choices (small inputs only).
    fn lcs(a: &[String], b: &[String]) -> usize {
        match (a.split_first(), b.split_first()) {
            (Some((x, ra)), Some((y, rb))) if x == y => 1 + lcs(ra, rb),
            (Some((_, ra)), Some((_, rb))) => lcs(ra, b).max(lcs(a, rb)),
            _ => 0,
        }
    }

    #[test]
    fn a_notice_shared_by_searches_is_shown_once_naming_them() {
        let cut = "the sentence was cut to the model's limit of 256 subwords".to_string();
        let stopped = "the translation stopped at the maximum output length".to_string();
        let notes = notes_by_search(&[
            ("greedy", vec![cut.clone()]),
            ("beam", vec![cut.clone(), stopped.clone()]),
            ("sample", vec![cut]),
        ]);
        assert_eq!(
            notes,
            [
                "Greedy, beam, sample: the sentence was cut to the model's limit of 256 subwords.",
                "Beam: the translation stopped at the maximum output length."
            ]
        );
        assert!(notes_by_search(&[("greedy", vec![]), ("beam", vec![])]).is_empty());
    }

    #[test]
    fn changed_words_mark_what_the_other_output_lacks() {
        assert_eq!(changed_words(&w("ein Mann fährt Rad"), &w("ein Mann fährt Fahrrad")), [false, false, false, true]);
        assert_eq!(changed_words(&w("a b"), &w("")), [true, true]);
        assert!(changed_words(&w(""), &w("a")).is_empty());
    }

    #[test]
    fn unchanged_words_are_a_longest_common_subsequence() {
        let vocab = ["a", "b", "c", "d"];
        let mut x = 7u64;
        for _ in 0..300 {
            let mut next = |n: usize| -> Vec<String> {
                (0..n)
                    .map(|_| {
                        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                        vocab[(x >> 60) as usize % 4].to_string()
                    })
                    .collect()
            };
            let (a, b) = (next(7), next(6));
            let changed = changed_words(&a, &b);
            let kept: Vec<String> = a.iter().zip(&changed).filter(|(_, c)| !**c).map(|(s, _)| s.clone()).collect();
            assert_eq!(kept.len(), lcs(&a, &b), "{a:?} vs {b:?}");
            // The kept words appear in `b` in order.
            let mut it = b.iter();
            assert!(kept.iter().all(|k| it.any(|y| y == k)));
        }
    }
}

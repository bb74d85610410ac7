//! The BLEU calculator: hypotheses and references in, sacreBLEU's numbers out, computed in the
//! metrics worker so 10 000 lines keep the page responsive and a crash cannot take the page down.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;
use wgslate_metrics::{plural, pystr, Bleu};

use crate::bleu_comparison::{self, SystemComparison};
use crate::{browser, metrics_client, metrics_job, tsv};

/// What another view fills the page with ("Open in the BLEU page").
#[derive(Clone, Debug, PartialEq)]
pub struct Prefill {
    /// The system output, one line per sentence.
    pub output: String,
    pub reference: String,
    pub sources: String,
    /// Whether the output goes in as the second system (the hypothesis and reference are kept).
    pub as_second: bool,
}

const PAGE: usize = 100;

#[derive(Clone)]
struct RefBox {
    id: usize,
    text: RwSignal<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub tokenize: String,
    pub lowercase: bool,
    pub smoothing: String,
    /// The metrics chosen beside BLEU, as `OTHER_METRICS` names them.
    pub others: Vec<&'static str>,
    /// The hypotheses' language: METEOR's stemmer and synonyms follow it.
    pub language: String,
}

/// The metrics beside BLEU: (job, label, test id of the headline). WER, PER and METEOR also score
/// each line.
const OTHER_METRICS: [(&str, &str, &str); 5] = [
    ("chrf", "chrF", "bleu-chrf"),
    ("ter", "TER", "bleu-ter"),
    ("wer", "WER", "bleu-wer"),
    ("per", "PER", "bleu-per"),
    ("meteor", "METEOR", "bleu-meteor"),
];

/// METEOR's languages: (code, what the choice means).
const METEOR_LANGUAGES: [(&str, &str); 4] = [
    ("en", "English (Porter stems, WordNet synonyms)"),
    ("de", "German (Snowball stems)"),
    ("fr", "French (Snowball stems)"),
    ("xx", "Other (exact matches only)"),
];

#[derive(Clone, Debug)]
struct LineScore {
    index: usize,
    bleu: f64,
}

#[derive(Clone, Debug)]
struct Paired {
    sys_score: f64,
    baseline: (f64, f64),
    system: (f64, f64),
    p_value: f64,
    /// The second system's lines are the baseline's.
    identical: bool,
}

impl Paired {
    /// sacreBLEU stars p ≤ 0.05; for two identical outputs its p is 1 / (resamples + 1), which would
    /// read as a significant difference between a system and itself.
    fn verdict(&self) -> &'static str {
        match (self.identical, self.p_value <= 0.05) {
            (true, _) => " — the same output as the baseline: there is no difference to test",
            (false, true) => " — significant",
            (false, false) => " — not significant",
        }
    }
}

/// The BLEU job's result (see `metrics_job::bleu`).
#[derive(Clone, Debug)]
struct BleuResult {
    score: f64,
    precisions: Vec<f64>,
    counts: Vec<f64>,
    totals: Vec<f64>,
    bp: f64,
    ratio: f64,
    sys_len: u64,
    ref_len: u64,
    signature: String,
    lines: Vec<LineScore>,
    paired: Option<Paired>,
}

impl BleuResult {
    fn from_json(v: &Value) -> Option<Self> {
        let floats = |k: &str| -> Option<Vec<f64>> { v[k].as_array()?.iter().map(Value::as_f64).collect() };
        let paired = &v["paired"];
        Some(Self {
            score: v["score"].as_f64()?,
            precisions: floats("precisions")?,
            counts: floats("counts")?,
            totals: floats("totals")?,
            bp: v["bp"].as_f64()?,
            ratio: v["ratio"].as_f64()?,
            sys_len: v["sys_len"].as_u64()?,
            ref_len: v["ref_len"].as_u64()?,
            signature: v["signature"].as_str()?.to_string(),
            lines: floats("lines")?.into_iter().enumerate().map(|(index, bleu)| LineScore { index, bleu }).collect(),
            paired: paired.is_object().then(|| Paired {
                sys_score: paired["sys_score"].as_f64().unwrap_or(f64::NAN),
                baseline: (
                    paired["baseline_mean"].as_f64().unwrap_or(f64::NAN),
                    paired["baseline_ci"].as_f64().unwrap_or(f64::NAN),
                ),
                system: (
                    paired["system_mean"].as_f64().unwrap_or(f64::NAN),
                    paired["system_ci"].as_f64().unwrap_or(f64::NAN),
                ),
                p_value: paired["p_value"].as_f64().unwrap_or(f64::NAN),
                identical: paired["identical"].as_bool().unwrap_or(false),
            }),
        })
    }
}

/// A metric's headline: its name, score and signature, and each line's score where it has them.
#[derive(Clone, Debug)]
struct Headline {
    name: String,
    score: f64,
    signature: String,
    lines: Option<Vec<f64>>,
    /// WER and PER with several references: they score the first only.
    first_reference_only: bool,
}

impl Headline {
    fn from_json(v: &Value) -> Option<Self> {
        Some(Self {
            name: v["name"].as_str()?.to_string(),
            score: v["score"].as_f64()?,
            signature: v["signature"].as_str()?.to_string(),
            lines: v["lines"].as_array().and_then(|l| l.iter().map(Value::as_f64).collect()),
            first_reference_only: v["first_reference_only"].as_bool().unwrap_or(false),
        })
    }
}

/// One of `OTHER_METRICS`' results: (label, headline test id, the headline or its error).
type Other = (&'static str, &'static str, Result<Headline, String>);

/// Every metric's result or the error that stopped it: one failing leaves the others standing.
#[derive(Clone, Debug)]
pub struct Report {
    bleu: Result<BleuResult, String>,
    others: Vec<Other>,
    options: Options,
    hyps: Vec<String>,
    refs: Vec<Vec<String>>,
    /// Where the systems differ, when a second system was given.
    comparison: Option<(Result<Value, String>, bleu_comparison::Lines, Option<String>)>,
}

/// What one press of Compute scores.
#[derive(Clone)]
struct Scoring {
    hyp: String,
    refs: Vec<String>,
    hyp2: String,
    sources: String,
    options: Options,
}

/// Scores every metric in the metrics worker, one job each, so the page stays responsive and a
/// crash in one metric is reported next to it while the others keep their results.
async fn compute(input: Scoring, progress: RwSignal<f64>) -> Result<Report, String> {
    let Scoring { hyp, refs, hyp2, sources, options } = input;
    let (hyps, refs, second) = metrics_job::check_inputs(&hyp, &refs, &hyp2)?;
    let (tokenize, smoothing) = (options.tokenize.clone(), options.smoothing.clone());
    let language = options.language.clone();
    let corpus =
        metrics_job::Corpus { hyps, refs, second, tokenize, lowercase: options.lowercase, smoothing, language };
    corpus.bleu_options(false)?;
    let others: Vec<(&str, &str, &str)> =
        OTHER_METRICS.into_iter().filter(|(m, _, _)| options.others.contains(m)).collect();
    let comparing = corpus.second.is_some();
    let metrics: Vec<(&str, &str)> = std::iter::once(("bleu", "BLEU"))
        .chain(others.iter().map(|&(m, label, _)| (m, label)))
        .chain(comparing.then_some(("compare", "Comparison")))
        .collect();
    let mut results = Vec::new();
    let epoch = metrics_client::epoch();
    for (k, &(metric, label)) in metrics.iter().enumerate() {
        if metrics_client::cancelled_since(epoch) {
            return Err("cancelled".into());
        }
        let share = |p: f64| progress.set((k as f64 + p) / metrics.len() as f64);
        let result = metrics_client::run(label, corpus.request(metric), share).await;
        results.push(result.and_then(|v| {
            if v["metric"] == metric {
                Ok(v)
            } else {
                Err(format!("{label}: unexpected result"))
            }
        }));
    }
    let mut results = results.into_iter();
    let missing = || Err("no result".to_string());
    let bleu = results
        .next()
        .unwrap_or_else(missing)
        .and_then(|v| BleuResult::from_json(&v).ok_or_else(|| "BLEU: unexpected result".into()));
    let others = others
        .into_iter()
        .map(|(_, label, testid)| {
            let h = results
                .next()
                .unwrap_or_else(missing)
                .and_then(|v| Headline::from_json(&v).ok_or_else(|| "unexpected result".into()));
            (label, testid, h)
        })
        .collect();
    let comparison = corpus.second.map(|second| {
        let (sources, problem) = source_lines(&sources, corpus.hyps.len());
        let lines = bleu_comparison::Lines {
            hyps: corpus.hyps.clone(),
            second,
            reference: corpus.refs.first().cloned().unwrap_or_default(),
            sources,
        };
        (results.next().unwrap_or_else(missing), lines, problem)
    });
    Ok(Report { bleu, others, options, hyps: corpus.hyps, refs: corpus.refs, comparison })
}

/// The source box's lines where it has one per hypothesis, else why they are not used.
fn source_lines(sources: &str, n: usize) -> (Option<Vec<String>>, Option<String>) {
    if sources.is_empty() {
        return (None, None);
    }
    let lines = pystr::lines(sources);
    if lines.len() == n {
        return (Some(lines), None);
    }
    let why = format!(
        "The source has {} but the hypothesis has {}, so the lines below do not open in the other views.",
        plural(lines.len(), "line"),
        plural(n, "line")
    );
    (None, Some(why))
}

/// The hypotheses' language for METEOR: what they read as where it is one METEOR knows, else English.
fn guess_language(hyp: &str) -> String {
    let lines = hyp.lines().take(200);
    match wgslate_model::language::of_lines(lines).map(|(code, _, _)| code) {
        Some(code @ ("de" | "fr" | "en")) => code.to_string(),
        Some(_) => "xx".to_string(),
        None => "en".to_string(),
    }
}

fn count(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// The boxes' text, kept in the tab's sessionStorage when the page goes away, so a reload does not empty them.
const SAVED_INPUTS: &str = "wgslate.bleu.inputs";

/// Set instead of [`SAVED_INPUTS`] when the boxes did not fit the tab's storage, so that the reload says
/// why they are empty rather than emptying them without a word.
const INPUTS_TOO_LARGE: &str = "wgslate.bleu.inputs-too-large";

/// The boxes' text as the page left them in this tab.
#[derive(Default)]
struct Saved {
    hyp: String,
    hyp2: String,
    sources: String,
    refs: Vec<String>,
}

fn saved_inputs() -> Option<Saved> {
    let v: Value = serde_json::from_str(&browser::session_get(SAVED_INPUTS)?).ok()?;
    let text = |x: &Value| x.as_str().unwrap_or_default().to_string();
    let refs = v.get("refs")?.as_array()?.iter().map(text).collect();
    Some(Saved { hyp: v.get("hyp").map(text)?, hyp2: v.get("hyp2").map(text)?, sources: text(&v["sources"]), refs })
}

/// A textarea that also takes a dropped or picked .txt file.
#[component]
fn TextInput(
    text: RwSignal<String>,
    testid: Signal<String>,
    placeholder: &'static str,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let load = move |file: Option<web_sys::File>| {
        if let Some(file) = file {
            spawn_local(async move {
                match browser::read_file(&file).await {
                    // Loading nothing would silently erase what was typed (and Undo cannot bring it back).
                    Ok(t) if t.is_empty() => {
                        error.set(Some(format!("{} is empty: the box keeps its text.", file.name())))
                    }
                    Ok(t) => {
                        error.set(None);
                        text.set(t);
                    }
                    Err(e) => error.set(Some(e)),
                }
            });
        }
    };
    view! {
        <div
            class="drop"
            on:dragover=|ev: web_sys::DragEvent| ev.prevent_default()
            on:drop=move |ev: web_sys::DragEvent| {
                match browser::dropped_file(&ev) {
                    Some(Ok(file)) => load(Some(file)),
                    Some(Err(e)) => error.set(Some(e)),
                    None => {}
                }
            }
        >
            <textarea
                data-testid=move || testid.get()
                placeholder=placeholder
                aria-label=placeholder
                spellcheck="false"
                prop:value=move || text.get()
                on:input=move |ev| {
                    // A file that could not be read is old news once the user types.
                    error.set(None);
                    text.set(event_target_value(&ev));
                }
            ></textarea>
            <label class="file">
                "Open .txt…"
                <input type="file" accept=".txt,text/plain" aria-label=move || format!("Open a .txt file into {}", box_name(&testid.get()))
                    on:change=move |ev| load(browser::picked_file(&ev)) />
            </label>
            <span class="lines">{move || text.with(|t| line_count(t))}</span>
        </div>
    }
}

/// "the hypothesis", "reference 2", "the second system": a text box by its test id.
fn box_name(testid: &str) -> String {
    match testid.strip_prefix("bleu-ref-").and_then(|n| n.parse::<usize>().ok()) {
        Some(n) => format!("reference {}", n + 1),
        None if testid == "bleu-hyp2" => "the second system".into(),
        None if testid == "bleu-src" => "the source".into(),
        None => "the hypothesis".into(),
    }
}

/// The lines sacreBLEU reads; a carriage return alone (old Mac files) ends a line in the
/// textarea but not for sacreBLEU, so the count says why it differs from what shows.
fn line_count(text: &str) -> String {
    let lines = wgslate_metrics::plural(pystr::lines(text).len(), "line");
    match text.replace("\r\n", "").contains('\r') {
        true => format!("{lines} (a carriage return alone does not end a line, as in sacreBLEU)"),
        false => lines,
    }
}

#[component]
pub fn BleuPage(prefill: RwSignal<Option<Prefill>>) -> impl IntoView {
    let Saved { hyp: saved_hyp, hyp2: saved_hyp2, sources: saved_sources, refs: mut saved_refs } =
        saved_inputs().unwrap_or_default();
    if saved_refs.is_empty() {
        saved_refs.push(String::new());
    }
    let hyp = RwSignal::new(saved_hyp);
    let second_open = RwSignal::new(!saved_hyp2.is_empty());
    let hyp2 = RwSignal::new(saved_hyp2);
    let sources = RwSignal::new(saved_sources);
    let next_id = StoredValue::new(saved_refs.len());
    let refs = RwSignal::new(
        saved_refs.into_iter().enumerate().map(|(id, t)| RefBox { id, text: RwSignal::new(t) }).collect::<Vec<_>>(),
    );
    let keep = window_event_listener(leptos::ev::pagehide, move |_| {
        let texts: Vec<String> = refs.with_untracked(|v| v.iter().map(|r| r.text.get_untracked()).collect());
        let json = serde_json::json!({ "hyp": hyp.get_untracked(), "hyp2": hyp2.get_untracked(),
                                       "sources": sources.get_untracked(), "refs": texts });
        // Too large for the tab's storage (a few MB): better nothing than an older state, and a word.
        if browser::session_set(SAVED_INPUTS, &json.to_string()) {
            browser::session_remove(INPUTS_TOO_LARGE);
        } else {
            browser::session_remove(SAVED_INPUTS);
            browser::session_set(INPUTS_TOO_LARGE, "1");
        }
    });
    on_cleanup(move || keep.remove());
    let tokenize = RwSignal::new("13a".to_string());
    let lowercase = RwSignal::new(false);
    let smoothing = RwSignal::new("exp".to_string());
    // chrF and TER on, as before the error rates and METEOR came; METEOR off (it may download WordNet).
    let chosen = RwSignal::new(vec!["chrf", "ter", "wer", "per"]);
    // None: guessed from the hypothesis (English where it reads as nothing clearly).
    let language = RwSignal::new(None::<String>);
    // Errors reading a dropped or picked file (or why the boxes came back empty).
    let error = RwSignal::new(browser::session_get(INPUTS_TOO_LARGE).map(|_| {
        "The boxes held more text than this browser keeps across a reload (a few MB), so they are empty: drop or pick the files again.".to_string()
    }));
    let progress_value = RwSignal::new(0.0);
    // A new Compute supersedes the running one: the older dispatch is aborted (its future
    // dropped, which stops its metrics worker), and `compute` also gives up before its next
    // metric once a newer run cancelled its job.
    let scoring = Action::new_local(move |input: &Scoring| compute(input.clone(), progress_value));
    let in_flight = StoredValue::new(None::<ActionAbortHandle>);

    // The scores shown were computed from other inputs than those now in the boxes.
    let inputs_changed = RwSignal::new(false);
    Effect::new(move |_| {
        hyp.track();
        hyp2.track();
        sources.track();
        refs.with(|v| v.iter().for_each(|r| r.text.track()));
        tokenize.track();
        smoothing.track();
        lowercase.track();
        chosen.track();
        language.track();
        inputs_changed.set(true);
    });

    let run = move || {
        // The results are drawn again: a focus inside them would fall to the top of the page.
        if browser::focus_within(".bleu .results") {
            browser::focus_testid("bleu-run");
        }
        inputs_changed.set(false);
        progress_value.set(0.0);
        let options = Options {
            tokenize: tokenize.get_untracked(),
            lowercase: lowercase.get_untracked(),
            smoothing: smoothing.get_untracked(),
            others: chosen.get_untracked(),
            language: language.get_untracked().unwrap_or_else(|| guess_language(&hyp.get_untracked())),
        };
        let refs: Vec<String> = refs.get_untracked().iter().map(|r| r.text.get_untracked()).collect();
        let input = Scoring {
            hyp: hyp.get_untracked(),
            refs,
            hyp2: hyp2.get_untracked(),
            sources: sources.get_untracked(),
            options,
        };
        metrics_client::cancel();
        if let Some(older) = in_flight.try_update_value(|h| h.take()).flatten() {
            older.abort();
        }
        in_flight.set_value(Some(scoring.dispatch_local(input)));
    };
    // While a computation runs its progress is shown instead of the older results.
    let outcome = move || if scoring.pending().get() { None } else { scoring.value().get() };

    // Scores asked for from another view ("Open in the BLEU page") are scrolled to once shown: the
    // page kept that view's scroll, which on a phone left them below the fold.
    let reveal_scores = StoredValue::new(false);
    Effect::new(move |_| {
        if scoring.value().with(Option::is_some) && !scoring.pending().get() && reveal_scores.get_value() {
            reveal_scores.set_value(false);
            spawn_local(async move {
                browser::yield_now().await;
                browser::reveal(".bleu .results");
                // The button that asked for them was in the other view, and went with it.
                if browser::focus_lost() {
                    browser::focus(".bleu .results");
                }
            });
        }
    });
    Effect::new(move |_| {
        if let Some(p) = prefill.get() {
            if p.as_second {
                hyp2.set(p.output);
                second_open.set(true);
            } else {
                // A second system left from before would be compared with (or refused for its line count).
                hyp2.set(String::new());
                hyp.set(p.output);
                refs.update(|v| {
                    v.truncate(1);
                    v[0].text.set(p.reference);
                });
            }
            sources.set(p.sources);
            // The prefill is left as it is: the shell switches to this view on the same change, and
            // clearing it here could come first.
            // The boxes hold other text now: an older file's read error is not theirs.
            error.set(None);
            // "Open in the BLEU page" shows the scores, not only the boxes: computed once the
            // change of inputs has been noted, so the scores are not marked out of date.
            spawn_local(async move {
                browser::yield_now().await;
                // Here, not before the yield: an older computation ending meanwhile would take it.
                reveal_scores.set_value(true);
                run();
            });
        }
    });

    let add_ref = move |_| {
        let id = next_id.get_value();
        next_id.set_value(id + 1);
        refs.update(|v| v.push(RefBox { id, text: RwSignal::new(String::new()) }));
    };

    view! {
        <section class="bleu">
            <h2>"BLEU calculator"</h2>
            <p class="hint">"sacreBLEU 2.6.0's BLEU, chrF and TER, jiwer's WER, PER and NLTK's METEOR, computed here. One segment per line; drop .txt files onto a box."</p>
            <div class="inputs">
                <div class="col">
                    <h3>"Hypothesis"</h3>
                    <TextInput text=hyp testid=Signal::derive(|| "bleu-hyp".to_string()) placeholder="System output, one sentence per line" error />
                </div>
                <div class="col">
                    <For each=move || refs.get() key=|r| r.id let:r>
                        {
                            let id = r.id;
                            let index = move || refs.with(|v| v.iter().position(|x| x.id == id).unwrap_or(0));
                            view! {
                                <div class="ref">
                                    <div class="ref-head">
                                        <h3>{move || format!("Reference {}", index() + 1)}</h3>
                                        <button
                                            class="remove"
                                            title="Remove this reference"
                                            aria-label=move || format!("Remove reference {}", index() + 1)
                                            disabled=move || refs.with(|v| v.len() == 1)
                                            on:click=move |_| {
                                                let at = index();
                                                refs.update(|v| v.retain(|x| x.id != id));
                                                // A read error may have been that box's.
                                                error.set(None);
                                                // The button is gone: the focus goes to the reference now in its place
                                                // (or the one before), not to the page.
                                                let next = at.min(refs.with_untracked(Vec::len).saturating_sub(1));
                                                spawn_local(async move {
                                                    browser::yield_now().await;
                                                    browser::focus_testid(&format!("bleu-ref-{next}"));
                                                });
                                            }
                                        >
                                            "×"
                                        </button>
                                    </div>
                                    <TextInput text=r.text testid=Signal::derive(move || format!("bleu-ref-{}", index())) placeholder="Reference translation, one per line" error />
                                </div>
                            }
                        }
                    </For>
                    <button data-testid="bleu-add-ref" on:click=add_ref>"+ Add reference"</button>
                </div>
            </div>
            <details class="second" prop:open=move || second_open.get()
                on:toggle=move |ev| second_open.set(event_target::<web_sys::HtmlDetailsElement>(&ev).open())>
                <summary>"Compare with a second system (paired bootstrap, where they differ)"</summary>
                <div class="inputs">
                    <div class="col">
                        <h3>"Second system"</h3>
                        <TextInput text=hyp2 testid=Signal::derive(|| "bleu-hyp2".to_string()) placeholder="Second system output, same lines" error />
                    </div>
                    <div class="col">
                        <h3>"Source (optional)"</h3>
                        <TextInput text=sources testid=Signal::derive(|| "bleu-src".to_string()) placeholder="Source sentences, same lines: the lines that differ most then open in Translate, Compare and Attention" error />
                    </div>
                </div>
            </details>
            <div class="options">
                <label>
                    "Tokenizer "
                    <select data-testid="bleu-tokenize" on:change=move |ev| tokenize.set(event_target_value(&ev)) prop:value=move || tokenize.get()>
                        {["13a", "intl", "zh", "char", "none"].map(|t| view! { <option value=t>{t}</option> })}
                    </select>
                </label>
                <label>
                    <input type="checkbox" data-testid="bleu-lowercase" prop:checked=move || lowercase.get() on:change=move |ev| lowercase.set(event_target_checked(&ev)) />
                    // As sacreBLEU's -lc: BLEU's option; chrF keeps case, TER ignores it always.
                    " Lowercase (BLEU)"
                </label>
                <label>
                    "Smoothing "
                    <select data-testid="bleu-smoothing" on:change=move |ev| smoothing.set(event_target_value(&ev)) prop:value=move || smoothing.get()>
                        {["exp", "floor", "add-k", "none"].map(|t| view! { <option value=t>{t}</option> })}
                    </select>
                </label>
                {OTHER_METRICS.map(|(metric, label, testid)| view! {
                    <label>
                        <input type="checkbox" data-testid=format!("{testid}-on")
                            prop:checked=move || chosen.with(|c| c.contains(&metric))
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                chosen.update(|c| {
                                    c.retain(|m| *m != metric);
                                    if on {
                                        c.push(metric);
                                    }
                                });
                            } />
                        {format!(" {label}")}
                    </label>
                })}
                {move || chosen.with(|c| c.contains(&"meteor")).then(|| view! {
                    <label title="METEOR's stem and synonym stages depend on the language of the hypotheses">
                        "METEOR language "
                        <select data-testid="bleu-meteor-language"
                            on:change=move |ev| language.set(Some(event_target_value(&ev)))
                            prop:value=move || language.get().unwrap_or_else(|| hyp.with(|h| guess_language(h)))>
                            {METEOR_LANGUAGES.map(|(code, name)| view! { <option value=code>{name}</option> })}
                        </select>
                    </label>
                })}
                <button class="primary" data-testid="bleu-run" on:click=move |_| run()>"Compute"</button>
            </div>
            // Announced to screen readers: the region is always there, its text changes.
            <p class="status" role="status" data-testid="bleu-status">{move || {
                if scoring.pending().get() {
                    return "Computing…".to_string();
                }
                match outcome() {
                    Some(Ok(r)) => r.bleu.as_ref().map_or_else(|e| format!("BLEU failed: {e}"), |b| format!("BLEU {:.1}", b.score)),
                    _ => String::new(),
                }
            }}</p>
            {move || scoring.pending().get().then(|| view! {
                <div class="progress" data-testid="bleu-progress">
                    <progress max="1" prop:value=move || progress_value.get()></progress>
                    {move || format!(" {:.0} %", 100.0 * progress_value.get())}
                </div>
            })}
            // A file that could not be read stays said until the user types or loads another: a
            // Compute of the box it left empty explains nothing on its own.
            {move || error.get().map(|e| view! { <p class="error" data-testid="bleu-file-error" role="alert">{e}</p> })}
            {move || outcome().and_then(Result::err).map(|e| view! { <p class="error" data-testid="bleu-error" role="alert">{e}</p> })}
            {move || outcome().and_then(Result::ok).map(|r| view! {
                {move || inputs_changed.get().then(|| view! {
                    <p class="hint" data-testid="bleu-stale">"The inputs or options changed since these scores; Compute again to update them."</p>
                })}
                <div class:stale=move || inputs_changed.get()>
                    <Results report=r />
                </div>
            })}
        </section>
    }
}

/// A headline number: one decimal shown, four in the tooltip (sacreBLEU's `-w 4`).
fn metric_view(label: String, testid: &'static str, result: Result<f64, String>) -> impl IntoView {
    match result {
        Ok(score) => view! {
            <div class="metric">
                <span class="label">{label}</span>
                <span class="value" data-testid=testid title=pystr::fixed(score, 4)>{pystr::fixed(score, 1)}</span>
            </div>
        }
        .into_any(),
        Err(e) => view! {
            <div class="metric failed">
                <span class="label">{label}</span>
                <span class="error" data-testid=format!("{testid}-error") role="alert">{e}</span>
            </div>
        }
        .into_any(),
    }
}

#[component]
fn Results(report: Report) -> impl IntoView {
    let bleu = report.bleu.clone();
    let headlines = report
        .others
        .iter()
        .map(|(label, testid, r)| {
            let label = r.as_ref().map_or(label.to_string(), |h| h.name.clone());
            metric_view(label, testid, r.clone().map(|h| h.score))
        })
        .collect_view();
    let signatures = report
        .others
        .iter()
        .filter_map(|(_, _, r)| r.clone().ok())
        .map(|h| view! { <p class="signature"><span class="metric-name">{h.name}</span><code>{h.signature}</code></p> })
        .collect_view();
    let first_only: Vec<String> = report
        .others
        .iter()
        .filter_map(|(_, _, r)| r.as_ref().ok().filter(|h| h.first_reference_only))
        .map(|h| h.name.clone())
        .collect();
    let first_only = (!first_only.is_empty()).then(|| {
        view! {
            <p class="hint" data-testid="bleu-first-reference">
                {format!("{} score the first reference only, as jiwer does; BLEU, chrF, TER and METEOR use every reference.", first_only.join(" and "))}
            </p>
        }
    });
    // The per-line columns after sentence BLEU: the metrics that score each line.
    let columns: Vec<(String, Vec<f64>)> = report
        .others
        .iter()
        .filter_map(|(_, _, r)| r.as_ref().ok().and_then(|h| Some((h.name.clone(), h.lines.clone()?))))
        .collect();
    let details = bleu.clone().ok().map(|b| {
        let smoothed = (0..b.precisions.len()).any(|n| b.counts[n] == 0.0 && b.precisions[n] > 0.0);
        let ngram_rows = (0..b.precisions.len())
            .map(|n| {
                view! {
                    <tr>
                        <td>{format!("{}-gram", n + 1)}</td>
                        <td>{format!("{:.1}", b.precisions[n])}</td>
                        <td data-testid=format!("bleu-count-{}", n + 1)>{format!("{}/{}", count(b.counts[n]), count(b.totals[n]))}</td>
                    </tr>
                }
            })
            .collect_view();
        let paired = b.paired.clone().map(|p| {
            let verdict = p.verdict();
            view! {
                <div class="paired" data-testid="bleu-paired">
                    <h3>{format!("Paired bootstrap ({} resamples, seed {})", metrics_job::BOOTSTRAP_SAMPLES, metrics_job::BOOTSTRAP_SEED)}</h3>
                    <p>{format!("Baseline: {:.1} (μ = {:.1} ± {:.1})", b.score, p.baseline.0, p.baseline.1)}</p>
                    <p>{format!("Second system: {:.1} (μ = {:.1} ± {:.1}), p = {:.4}{verdict}", p.sys_score, p.system.0, p.system.1, p.p_value)}</p>
                    <p class="hint">"μ ± : the mean over the resamples and half the width of the middle 95 % of the resampled scores, as sacreBLEU prints them; p: estimated from the resamples, how often two equally good systems would differ by at least this much, either way (never below 0.001 with 1 000 resamples)."</p>
                </div>
            }
        });
        view! {
            <p class="signature"><span class="metric-name">"BLEU"</span><code data-testid="bleu-signature">{b.signature.clone()}</code></p>
            {signatures}
            <table class="ngrams">
                <thead><tr><th>"Order"</th><th>"Precision %"</th><th>"Matched / total"</th></tr></thead>
                <tbody>{ngram_rows}</tbody>
            </table>
            {smoothed.then(|| view! { <p class="hint" data-testid="bleu-smoothed">"An order with no match has a precision above 0: the smoothing (smooth: in the signature) gives it one, so that a single missing order does not make BLEU 0."</p> })}
            <p class="lengths" data-testid="bleu-lengths">
                {format!("BP = {:.3}   ratio = {:.3}   hyp_len = {}   ref_len = {}", b.bp, b.ratio, b.sys_len, b.ref_len)}
            </p>
            {paired}
            {report.comparison.clone().map(|(comparison, lines, source_problem)| view! {
                <SystemComparison comparison lines source_problem />
            })}
            <LineTable report=report.clone() lines=b.lines.clone() columns=columns.clone() />
        }
    });
    view! {
        // tabindex -1: the focus can be put here (scores asked for from another view), not reached by Tab.
        <div class="results" tabindex="-1">
            <div class="headline">
                {metric_view("BLEU".into(), "bleu-score", bleu.map(|b| b.score))}
                {headlines}
            </div>
            {first_only}
            {details}
        </div>
    }
}

#[derive(Clone, Copy, PartialEq)]
enum SortBy {
    Line,
    Bleu,
    /// One of the columns after sentence BLEU.
    Column(usize),
}

/// A per-line column's key in the exports: "sentence_wer".
fn column_key(name: &str) -> String {
    format!("sentence_{}", name.to_lowercase())
}

/// The per-line table in line order, every line (not only those shown): line, sentence BLEU, the
/// other per-line scores, hypothesis, references (TSV cells as `tsv::text_cell` writes them).
fn export_lines(report: &Report, lines: &[LineScore], columns: &[(String, Vec<f64>)], json: bool) -> String {
    let mut rows: Vec<&LineScore> = lines.iter().collect();
    rows.sort_by_key(|l| l.index);
    if json {
        let rows: Vec<Value> = rows
            .iter()
            .map(|l| {
                let mut row = serde_json::json!({
                    "line": l.index + 1,
                    "sentence_bleu": l.bleu,
                    "hypothesis": report.hyps[l.index],
                    "references": report.refs.iter().map(|r| r[l.index].as_str()).collect::<Vec<_>>(),
                });
                columns.iter().for_each(|(name, v)| row[column_key(name)] = v[l.index].into());
                row
            })
            .collect();
        return serde_json::to_string_pretty(&rows).unwrap_or_default() + "\n";
    }
    let mut out = String::from("line\tsentence_bleu");
    columns.iter().for_each(|(name, _)| out.push_str(&format!("\t{}", column_key(name))));
    out.push_str("\thypothesis");
    (1..=report.refs.len()).for_each(|k| out.push_str(&format!("\treference_{k}")));
    out.push('\n');
    for l in rows {
        out.push_str(&format!("{}\t{:.4}", l.index + 1, l.bleu));
        columns.iter().for_each(|(_, v)| out.push_str(&format!("\t{:.4}", v[l.index])));
        out.push_str(&format!("\t{}", tsv::text_cell(&report.hyps[l.index])));
        report.refs.iter().for_each(|r| out.push_str(&format!("\t{}", tsv::text_cell(&r[l.index]))));
        out.push('\n');
    }
    out
}

#[component]
fn LineTable(report: Report, lines: Vec<LineScore>, columns: Vec<(String, Vec<f64>)>) -> impl IntoView {
    let sort = RwSignal::new((SortBy::Line, true));
    let shown = RwSignal::new(PAGE);
    let selected = RwSignal::new(None::<usize>);
    let lines = StoredValue::new(lines);
    let report = StoredValue::new(report);
    let columns = StoredValue::new(columns);
    let sorted = move || {
        let (by, asc) = sort.get();
        let mut v = lines.get_value();
        match by {
            SortBy::Line => v.sort_by_key(|l| l.index),
            SortBy::Bleu => v.sort_by(|a, b| a.bleu.total_cmp(&b.bleu).then(a.index.cmp(&b.index))),
            SortBy::Column(c) => columns.with_value(|cols| {
                let col = &cols[c].1;
                v.sort_by(|a, b| col[a.index].total_cmp(&col[b.index]).then(a.index.cmp(&b.index)))
            }),
        }
        if !asc {
            v.reverse();
        }
        v
    };
    let header = move |by: SortBy, label: String| {
        view! {
            <th aria-sort=move || match sort.get() {
                (b, true) if b == by => "ascending",
                (b, false) if b == by => "descending",
                _ => "none",
            }>
                <button class="sort" on:click=move |_| sort.update(|s| *s = if s.0 == by { (by, !s.1) } else { (by, true) })>
                    {label}
                    {move || if sort.get().0 == by { if sort.get().1 { " ▲" } else { " ▼" } } else { "" }}
                </button>
            </th>
        }
    };
    let close_on_escape = move |ev: web_sys::KeyboardEvent| {
        if ev.key() == "Escape" && selected.get_untracked().is_some() {
            selected.set(None);
        }
    };
    let detail = move || {
        selected.get().map(|i| {
            let r = report.get_value();
            let o = &r.options;
            let bleu = Bleu::new(metrics_job::bleu_options(&o.tokenize, o.lowercase, &o.smoothing, true).unwrap_or_default());
            let refs: Vec<&str> = r.refs.iter().map(|s| s[i].as_str()).collect();
            let (tokens, orders) = bleu.matched_orders(&r.hyps[i], &refs);
            view! {
                <div class="line-detail" data-testid="bleu-line-detail">
                    <h4>{format!("Line {}", i + 1)}</h4>
                    <p class="tokens">
                        // The order is written beside the colour (by CSS, ::after, so that a copied line has no
                        // digits in it), for those who cannot tell the colours apart or hear them.
                        {tokens.into_iter().zip(orders).map(|(t, o)| view! {
                            <span class=format!("tok m{o}") data-order=(o > 0).then(|| o.to_string()) title=format!("longest matched n-gram: {o}")>{t}</span>" "
                        }).collect_view()}
                    </p>
                    <p class="legend">"The longest matched n-gram each word is in: " <span class="tok m1">"1"</span>" "<span class="tok m2">"2"</span>" "<span class="tok m3">"3"</span>" "<span class="tok m4">"4"</span>" (none: not matched)"</p>
                    {refs.iter().enumerate().map(|(k, rf)| view! { <p class="refline">{format!("Reference {}: ", k + 1)}{rf.to_string()}</p> }).collect_view()}
                </div>
            }
        })
    };
    view! {
        <h3>{columns.with_value(|c| if c.is_empty() { "Per line (sentence BLEU)".to_string() } else {
            format!("Per line (sentence BLEU, {})", c.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", "))
        })}</h3>
        // Announced when a line is opened: it appears above the table, away from the focus.
        <div aria-live="polite">{detail}</div>
        <table class="lines-table" data-testid="bleu-lines" on:keydown=close_on_escape>
            <thead><tr>
                {header(SortBy::Line, "Line".into())}{header(SortBy::Bleu, "Sentence BLEU".into())}
                {columns.with_value(|cols| cols.iter().enumerate().map(|(c, (name, _))| header(SortBy::Column(c), name.clone())).collect_view())}
                <th>"Hypothesis"</th>
            </tr></thead>
            <tbody>
                {move || {
                    let r = report.get_value();
                    sorted().into_iter().take(shown.get()).enumerate().map(|(row, l)| {
                        let i = l.index;
                        view! {
                            // The whole row opens (or closes) the detail for a mouse; the line number is its button for a keyboard.
                            <tr class:selected=move || selected.get() == Some(i)
                                on:click=move |_| selected.update(|s| *s = if *s == Some(i) { None } else { Some(i) })>
                                <td>
                                    <button type="button" class="link" data-row=row aria-expanded=move || (selected.get() == Some(i)).to_string()
                                        aria-label=format!("Line {}: show its matched n-grams", i + 1)>{i + 1}</button>
                                </td>
                                <td>{format!("{:.1}", l.bleu)}</td>
                                {columns.with_value(|cols| cols.iter().map(|(name, v)| view! {
                                    <td data-metric=name.to_lowercase()>{format!("{:.1}", v[i])}</td>
                                }).collect_view())}
                                <td class="text">{r.hyps[i].clone()}</td>
                            </tr>
                        }
                    }).collect_view()
                }}
            </tbody>
        </table>
        <div class="export">
            <button data-testid="bleu-export-tsv" title=tsv::TSV_TITLE on:click=move |_| {
                let text = columns.with_value(|c| export_lines(&report.get_value(), &lines.get_value(), c, false));
                browser::download_text("sentence-bleu.tsv", &text, "text/tab-separated-values");
            }>"Export TSV"</button>
            <button data-testid="bleu-export-json" on:click=move |_| {
                let text = columns.with_value(|c| export_lines(&report.get_value(), &lines.get_value(), c, true));
                browser::download_text("sentence-bleu.json", &text, "application/json");
            }>"Export JSON"</button>
        </div>
        {move || (shown.get() < lines.with_value(|l| l.len())).then(|| view! {
            <button on:click=move |_| {
                let first_new = shown.get_untracked();
                shown.update(|s| *s += PAGE);
                // The last page: the button goes, and the focus to the first line it showed, not to the top of the page.
                if shown.get_untracked() >= lines.with_value(|l| l.len()) {
                    spawn_local(async move {
                        browser::yield_now().await;
                        browser::focus(&format!("[data-testid=bleu-lines] button[data-row=\"{first_new}\"]"));
                    });
                }
            }>{move || format!("Show more ({} of {})", shown.get(), lines.with_value(|l| l.len()))}</button>
        })}
    }
}

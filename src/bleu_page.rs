//! The BLEU calculator: hypotheses and references in, sacreBLEU's numbers out, computed in chunks
//! so 10 000 lines keep the page responsive.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wgslate_metrics::significance::{self, PairedResult, Scorer};
use wgslate_metrics::signature::{self, Resampling};
use wgslate_metrics::{pystr, Bleu, BleuOptions, BleuScore, BleuStats, Chrf, ChrfOptions, Smoothing, Ter, TerOptions, Tokenize};

use crate::browser;

const CHUNK: usize = 200;
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
    pub chrf: bool,
    pub ter: bool,
}

impl Options {
    fn bleu(&self, effective_order: bool) -> Result<BleuOptions, String> {
        Ok(BleuOptions {
            tokenize: Tokenize::parse(&self.tokenize)?,
            lowercase: self.lowercase,
            smoothing: Smoothing::parse(&self.smoothing, None)?,
            max_ngram_order: 4,
            effective_order,
        })
    }
}

#[derive(Clone, Debug)]
struct LineScore {
    index: usize,
    bleu: f64,
}

#[derive(Clone, Debug)]
pub struct Report {
    bleu: BleuScore,
    signature: String,
    chrf: Option<(String, f64, String)>,
    ter: Option<(f64, String)>,
    lines: Vec<LineScore>,
    paired: Option<(f64, PairedResult)>,
    options: Options,
    hyps: Vec<String>,
    refs: Vec<Vec<String>>,
}

/// The inputs as the user left them, checked: hypotheses, reference streams, optional second system.
fn check_inputs(hyp: &str, refs: &[String], hyp2: &str) -> Result<(Vec<String>, Vec<Vec<String>>, Option<Vec<String>>), String> {
    if hyp.trim().is_empty() {
        return Err("Paste or drop the system output: one sentence per line.".into());
    }
    let hyps = pystr::lines(hyp);
    let mut streams = Vec::new();
    for (k, r) in refs.iter().enumerate() {
        if r.trim().is_empty() {
            return Err(format!("Reference {} is empty: paste or drop it, or remove the box.", k + 1));
        }
        let lines = pystr::lines(r);
        if lines.len() != hyps.len() {
            return Err(format!("Line counts differ: the hypothesis has {} lines but reference {} has {}. Each line is one segment.", hyps.len(), k + 1, lines.len()));
        }
        streams.push(lines);
    }
    if streams.is_empty() {
        return Err("Add at least one reference.".into());
    }
    let second = if hyp2.trim().is_empty() {
        None
    } else {
        let lines = pystr::lines(hyp2);
        if lines.len() != hyps.len() {
            return Err(format!("Line counts differ: the second system has {} lines but the hypothesis has {}.", lines.len(), hyps.len()));
        }
        Some(lines)
    };
    Ok((hyps, streams, second))
}

fn stats_row(s: &BleuStats) -> Vec<f64> {
    [s.sys_len, s.ref_len].iter().chain(&s.correct).chain(&s.total).map(|&v| v as f64).collect()
}

/// Scores everything, yielding to the browser between chunks; `alive` says whether to go on.
async fn compute(hyp: String, refs: Vec<String>, hyp2: String, options: Options, progress: RwSignal<f64>, alive: impl Fn() -> bool) -> Result<Option<Report>, String> {
    let (hyps, streams, second) = check_inputs(&hyp, &refs, &hyp2)?;
    let corpus = Bleu::new(options.bleu(false)?);
    let sentence = Bleu::new(options.bleu(true)?);
    let chrf = Chrf::new(ChrfOptions::default());
    let ter = Ter::new(TerOptions::default());
    let n = hyps.len();
    let total_work = (n * if second.is_some() { 2 } else { 1 }) as f64;
    let (mut bleu_stats, mut chrf_stats, mut ter_stats, mut lines) = (Vec::with_capacity(n), Vec::new(), Vec::new(), Vec::with_capacity(n));
    for start in (0..n).step_by(CHUNK) {
        for i in start..(start + CHUNK).min(n) {
            let seg_refs: Vec<&str> = streams.iter().map(|s| s[i].as_str()).collect();
            let st = corpus.segment_stats(&hyps[i], &seg_refs);
            lines.push(LineScore { index: i, bleu: sentence.compute(&st).score });
            bleu_stats.push(st);
            if options.chrf {
                chrf_stats.push(chrf.segment_stats(&hyps[i], &seg_refs));
            }
            if options.ter {
                ter_stats.push(ter.segment_stats(&hyps[i], &seg_refs));
            }
        }
        progress.set((start + CHUNK).min(n) as f64 / total_work);
        browser::yield_now().await;
        if !alive() {
            return Ok(None);
        }
    }
    let mut sum = BleuStats::zeros(4);
    bleu_stats.iter().for_each(|s| sum.add(s));
    let bleu = corpus.compute(&sum);
    let nrefs = Some(streams.len());
    let signature = signature::bleu(&corpus.options, nrefs, &Resampling::default()).to_string();
    let chrf_result = options.chrf.then(|| {
        let mut sum = vec![0f64; chrf_stats.first().map_or(18, Vec::len)];
        chrf_stats.iter().for_each(|s| sum.iter_mut().zip(s).for_each(|(a, b)| *a += *b as f64));
        (chrf.name(), chrf.f_score(&sum), signature::chrf(&chrf.options, nrefs, &Resampling::default()).to_string())
    });
    let ter_result = options.ter.then(|| {
        let (e, r) = ter_stats.iter().fold((0.0, 0.0), |(e, r), s| (e + s[0], r + s[1]));
        (ter.compute(e, r), signature::ter(&ter.options, nrefs, &Resampling::default()).to_string())
    });
    let paired = match &second {
        None => None,
        Some(sys) => {
            let mut sys_stats = Vec::with_capacity(n);
            for start in (0..n).step_by(CHUNK) {
                for i in start..(start + CHUNK).min(n) {
                    let seg_refs: Vec<&str> = streams.iter().map(|s| s[i].as_str()).collect();
                    sys_stats.push(corpus.segment_stats(&sys[i], &seg_refs));
                }
                progress.set((n + (start + CHUNK).min(n)) as f64 / total_work);
                browser::yield_now().await;
                if !alive() {
                    return Ok(None);
                }
            }
            let mut sum2 = BleuStats::zeros(4);
            sys_stats.iter().for_each(|s| sum2.add(s));
            let sys_score = corpus.compute(&sum2).score;
            let base_rows: Vec<Vec<f64>> = bleu_stats.iter().map(stats_row).collect();
            let sys_rows: Vec<Vec<f64>> = sys_stats.iter().map(stats_row).collect();
            let opts = corpus.options.clone();
            Some((sys_score, significance::paired_bootstrap(&base_rows, &sys_rows, bleu.score, sys_score, &Scorer::Bleu(&opts), 1000, &[12345])))
        }
    };
    Ok(Some(Report { bleu, signature, chrf: chrf_result, ter: ter_result, lines, paired, options, hyps, refs: streams }))
}

fn count(v: f64) -> String {
    if v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v:.2}") }
}

/// A textarea that also takes a dropped or picked .txt file.
#[component]
fn TextInput(text: RwSignal<String>, testid: Signal<String>, placeholder: &'static str, error: RwSignal<Option<String>>) -> impl IntoView {
    let load = move |file: Option<web_sys::File>| {
        if let Some(file) = file {
            spawn_local(async move {
                match browser::read_file(&file).await {
                    Ok(t) => text.set(t),
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
                ev.prevent_default();
                load(browser::dropped_file(&ev));
            }
        >
            <textarea
                data-testid=move || testid.get()
                placeholder=placeholder
                spellcheck="false"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
            ></textarea>
            <label class="file">
                "Open .txt…"
                <input type="file" accept=".txt,text/plain" on:change=move |ev| load(browser::picked_file(&ev)) />
            </label>
            <span class="lines">{move || { let n = pystr::lines(&text.get()).len(); format!("{n} line{}", if n == 1 { "" } else { "s" }) }}</span>
        </div>
    }
}

#[component]
pub fn BleuPage(prefill: RwSignal<Option<(String, String)>>) -> impl IntoView {
    let hyp = RwSignal::new(String::new());
    let hyp2 = RwSignal::new(String::new());
    let next_id = StoredValue::new(1usize);
    let refs = RwSignal::new(vec![RefBox { id: 0, text: RwSignal::new(String::new()) }]);
    let tokenize = RwSignal::new("13a".to_string());
    let lowercase = RwSignal::new(false);
    let smoothing = RwSignal::new("exp".to_string());
    let use_chrf = RwSignal::new(true);
    let use_ter = RwSignal::new(true);
    let error = RwSignal::new(None::<String>);
    let report = RwSignal::new(None::<Report>);
    let progress = RwSignal::new(None::<f64>);
    let progress_value = RwSignal::new(0.0);
    let generation = StoredValue::new(0u64);

    let run = move || {
        let gen = generation.get_value() + 1;
        generation.set_value(gen);
        error.set(None);
        progress.set(Some(0.0));
        let options = Options { tokenize: tokenize.get_untracked(), lowercase: lowercase.get_untracked(), smoothing: smoothing.get_untracked(), chrf: use_chrf.get_untracked(), ter: use_ter.get_untracked() };
        let ref_texts: Vec<String> = refs.get_untracked().iter().map(|r| r.text.get_untracked()).collect();
        let (h, h2) = (hyp.get_untracked(), hyp2.get_untracked());
        spawn_local(async move {
            let result = compute(h, ref_texts, h2, options, progress_value, move || generation.get_value() == gen).await;
            if generation.get_value() != gen {
                return;
            }
            progress.set(None);
            match result {
                Ok(Some(r)) => report.set(Some(r)),
                Ok(None) => {}
                Err(e) => {
                    report.set(None);
                    error.set(Some(e));
                }
            }
        });
    };

    Effect::new(move |_| {
        if let Some((h, r)) = prefill.get() {
            hyp.set(h);
            refs.update(|v| {
                v.truncate(1);
                v[0].text.set(r);
            });
            prefill.set(None);
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
            <p class="hint">"sacreBLEU 2.6.0's BLEU, chrF and TER, computed here. One segment per line; drop .txt files onto a box."</p>
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
                                    <h3>
                                        {move || format!("Reference {}", index() + 1)}
                                        <button
                                            class="remove"
                                            title="Remove this reference"
                                            disabled=move || refs.with(|v| v.len() == 1)
                                            on:click=move |_| refs.update(|v| v.retain(|x| x.id != id))
                                        >
                                            "×"
                                        </button>
                                    </h3>
                                    <TextInput text=r.text testid=Signal::derive(move || format!("bleu-ref-{}", index())) placeholder="Reference translation, one per line" error />
                                </div>
                            }
                        }
                    </For>
                    <button data-testid="bleu-add-ref" on:click=add_ref>"+ Add reference"</button>
                </div>
            </div>
            <details class="second">
                <summary>"Compare with a second system (paired bootstrap)"</summary>
                <TextInput text=hyp2 testid=Signal::derive(|| "bleu-hyp2".to_string()) placeholder="Second system output, same lines" error />
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
                    " Lowercase"
                </label>
                <label>
                    "Smoothing "
                    <select data-testid="bleu-smoothing" on:change=move |ev| smoothing.set(event_target_value(&ev)) prop:value=move || smoothing.get()>
                        {["exp", "floor", "add-k", "none"].map(|t| view! { <option value=t>{t}</option> })}
                    </select>
                </label>
                <label>
                    <input type="checkbox" prop:checked=move || use_chrf.get() on:change=move |ev| use_chrf.set(event_target_checked(&ev)) />
                    " chrF"
                </label>
                <label>
                    <input type="checkbox" prop:checked=move || use_ter.get() on:change=move |ev| use_ter.set(event_target_checked(&ev)) />
                    " TER"
                </label>
                <button class="primary" data-testid="bleu-run" on:click=move |_| run()>"Compute"</button>
            </div>
            {move || progress.get().map(|_| view! {
                <div class="progress" data-testid="bleu-progress">
                    <progress max="1" prop:value=move || progress_value.get()></progress>
                    {move || format!(" {:.0} %", 100.0 * progress_value.get())}
                </div>
            })}
            {move || error.get().map(|e| view! { <p class="error" data-testid="bleu-error" role="alert">{e}</p> })}
            {move || report.get().map(|r| view! { <Results report=r /> })}
        </section>
    }
}

#[component]
fn Results(report: Report) -> impl IntoView {
    let b = report.bleu.clone();
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
    let paired = report.paired.map(|(sys_score, p)| {
        view! {
            <div class="paired" data-testid="bleu-paired">
                <h3>"Paired bootstrap (1000 resamples, seed 12345)"</h3>
                <p>{format!("Baseline: {:.1} ({:.1} ± {:.1})", report.bleu.score, p.baseline.mean, p.baseline.ci)}</p>
                <p>{format!("Second system: {:.1} ({:.1} ± {:.1}), p = {:.4}{}", sys_score, p.system.mean, p.system.ci, p.p_value, if p.p_value <= 0.05 { " — significant" } else { " — not significant" })}</p>
            </div>
        }
    });
    view! {
        <div class="results">
            <div class="headline">
                <div class="metric">
                    <span class="label">"BLEU"</span>
                    <span class="value" data-testid="bleu-score">{format!("{:.1}", b.score)}</span>
                </div>
                {report.chrf.clone().map(|(name, s, _)| view! {
                    <div class="metric"><span class="label">{name}</span><span class="value" data-testid="bleu-chrf">{format!("{s:.1}")}</span></div>
                })}
                {report.ter.clone().map(|(s, _)| view! {
                    <div class="metric"><span class="label">"TER"</span><span class="value" data-testid="bleu-ter">{format!("{s:.1}")}</span></div>
                })}
            </div>
            <p class="signature"><code data-testid="bleu-signature">{report.signature.clone()}</code></p>
            {report.chrf.clone().map(|(_, _, sig)| view! { <p class="signature"><code>{sig}</code></p> })}
            {report.ter.clone().map(|(_, sig)| view! { <p class="signature"><code>{sig}</code></p> })}
            <table class="ngrams">
                <thead><tr><th>"Order"</th><th>"Precision %"</th><th>"Matched / total"</th></tr></thead>
                <tbody>{ngram_rows}</tbody>
            </table>
            <p class="lengths" data-testid="bleu-lengths">
                {format!("BP = {:.3}   ratio = {:.3}   hyp_len = {}   ref_len = {}", b.bp, b.ratio(), b.sys_len, b.ref_len)}
            </p>
            {paired}
            <LineTable report=report />
        </div>
    }
}

#[derive(Clone, Copy, PartialEq)]
enum SortBy {
    Line,
    Bleu,
}

#[component]
fn LineTable(report: Report) -> impl IntoView {
    let sort = RwSignal::new((SortBy::Line, true));
    let shown = RwSignal::new(PAGE);
    let selected = RwSignal::new(None::<usize>);
    let lines = StoredValue::new(report.lines.clone());
    let report = StoredValue::new(report);
    let sorted = move || {
        let (by, asc) = sort.get();
        let mut v = lines.get_value();
        match by {
            SortBy::Line => v.sort_by_key(|l| l.index),
            SortBy::Bleu => v.sort_by(|a, b| a.bleu.total_cmp(&b.bleu).then(a.index.cmp(&b.index))),
        }
        if !asc {
            v.reverse();
        }
        v
    };
    let header = move |by: SortBy, label: &'static str| {
        view! {
            <th>
                <button class="sort" on:click=move |_| sort.update(|s| *s = if s.0 == by { (by, !s.1) } else { (by, true) })>
                    {label}
                    {move || if sort.get().0 == by { if sort.get().1 { " ▲" } else { " ▼" } } else { "" }}
                </button>
            </th>
        }
    };
    let detail = move || {
        selected.get().map(|i| {
            let r = report.get_value();
            let bleu = Bleu::new(r.options.bleu(true).unwrap_or_default());
            let refs: Vec<&str> = r.refs.iter().map(|s| s[i].as_str()).collect();
            let (tokens, orders) = bleu.matched_orders(&r.hyps[i], &refs);
            view! {
                <div class="line-detail" data-testid="bleu-line-detail">
                    <h4>{format!("Line {}", i + 1)}</h4>
                    <p class="tokens">
                        {tokens.into_iter().zip(orders).map(|(t, o)| view! { <span class=format!("tok m{o}") title=format!("longest matched n-gram: {o}")>{t}</span>" " }).collect_view()}
                    </p>
                    <p class="legend">"Matched n-grams: " <span class="tok m1">"1"</span>" "<span class="tok m2">"2"</span>" "<span class="tok m3">"3"</span>" "<span class="tok m4">"4"</span></p>
                    {refs.iter().enumerate().map(|(k, rf)| view! { <p class="refline">{format!("Reference {}: ", k + 1)}{rf.to_string()}</p> }).collect_view()}
                </div>
            }
        })
    };
    view! {
        <h3>"Per line (sentence BLEU)"</h3>
        {detail}
        <table class="lines-table" data-testid="bleu-lines">
            <thead><tr>{header(SortBy::Line, "Line")}{header(SortBy::Bleu, "Sentence BLEU")}<th>"Hypothesis"</th></tr></thead>
            <tbody>
                {move || {
                    let r = report.get_value();
                    sorted().into_iter().take(shown.get()).map(|l| {
                        let i = l.index;
                        view! {
                            <tr class:selected=move || selected.get() == Some(i) on:click=move |_| selected.set(Some(i))>
                                <td>{i + 1}</td>
                                <td>{format!("{:.1}", l.bleu)}</td>
                                <td class="text">{r.hyps[i].clone()}</td>
                            </tr>
                        }
                    }).collect_view()
                }}
            </tbody>
        </table>
        {move || (shown.get() < lines.with_value(|l| l.len())).then(|| view! {
            <button on:click=move |_| shown.update(|s| *s += PAGE)>{move || format!("Show more ({} of {})", shown.get(), lines.with_value(|l| l.len()))}</button>
        })}
    }
}

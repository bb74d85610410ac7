//! The decoding sweep: the test set (its first N sentences) translated once per value of beam size,
//! α, β or γ in the engine worker, with BLEU, chrF and the length ratio drawn as lines against the
//! value (the "beam search curse"), progress, Stop and CSV. The same table as `wgslate eval --sweep`.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wgslate_decode::sweep::{self, Row, SWEEP_KEYS};

use crate::browser;
use crate::engine_client::{self, JobError};
use crate::engine_jobs::{Job, SearchChoice};
use crate::translate_page::{settings_pairs, Shared};

const LANE: &str = "sweep";

/// A finished (or stopped) sweep: the setting's name and one row per value done.
#[derive(Clone, Debug, Default)]
struct SweepResult {
    name: String,
    rows: Vec<Row>,
}

/// Where the sweep is: (value index, values, sentences done, sentences).
type Progress = (usize, usize, usize, usize);

/// The settings of one run of the sweep: the page's, with the swept one set to `value`.
fn settings_with(
    base: &crate::settings::Settings,
    key: &str,
    value: &str,
) -> Result<crate::settings::Settings, String> {
    let mut s = base.clone();
    s.set(key, value)?;
    Ok(s)
}

/// BLEU, chrF and lengths of `hyps` against `refs`, as `wgslate eval` computes them.
fn score_row(value: &str, hyps: &[String], refs: &[String], seconds: f64) -> Row {
    let h: Vec<&str> = hyps.iter().map(String::as_str).collect();
    let r: Vec<&str> = refs.iter().map(String::as_str).collect();
    let (bleu, chrf) = wgslate_metrics::eval_scores(&h, &r);
    Row {
        value: value.to_string(),
        bleu: bleu.score,
        chrf,
        hyp_len: bleu.sys_len as usize,
        ref_len: bleu.ref_len as usize,
        seconds,
    }
}

#[component]
pub fn EvalSweep(
    /// The direction's test set: (source, reference) pairs.
    #[prop(into)]
    examples: Signal<Vec<(String, String)>>,
) -> impl IntoView {
    let shared = expect_context::<Shared>();
    let key = RwSignal::new("beam".to_string());
    let values = RwSignal::new("1,2,4,8,16".to_string());
    let count = RwSignal::new("100".to_string());
    let running = RwSignal::new(None::<Progress>);
    let result = RwSignal::new(None::<SweepResult>);
    let error = RwSignal::new(None::<String>);

    let run = move |_| {
        if running.get_untracked().is_some() {
            return;
        }
        error.set(None);
        let k = match sweep::find_key(&key.get_untracked()) {
            Ok(k) => k,
            Err(e) => return error.set(Some(e)),
        };
        let list = match sweep::parse_values(k, &values.get_untracked()) {
            Ok(v) => v,
            Err(e) => return error.set(Some(format!("Values: {e}"))),
        };
        let base = shared.settings.get_untracked();
        if base.sample {
            return error
                .set(Some("A sweep moves a beam search's settings: turn sampling off in the settings first.".into()));
        }
        let n = match count.get_untracked().trim().parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => {
                return error.set(Some(format!(
                    "Sentences must be a whole number of 1 or more, not '{}'",
                    count.get_untracked()
                )))
            }
        };
        let mut pairs = examples.get_untracked();
        pairs.truncate(n);
        if pairs.is_empty() {
            return error.set(Some("The test set is not loaded, so there is nothing to sweep over.".into()));
        }
        let settings: Vec<_> =
            match list.iter().map(|v| settings_with(&base, k.setting, v)).collect::<Result<Vec<_>, _>>() {
                Ok(s) => s,
                Err(e) => return error.set(Some(e)),
            };
        result.set(Some(SweepResult { name: k.label.to_string(), rows: vec![] }));
        spawn_local(async move {
            let sources: Vec<String> = pairs.iter().map(|p| p.0.clone()).collect();
            let refs: Vec<String> = pairs.iter().map(|p| p.1.clone()).collect();
            // Sorted by length, so each batch holds sentences of about one length.
            let mut order: Vec<usize> = (0..sources.len()).collect();
            order.sort_by_key(|&i| sources[i].len());
            for (v, s) in settings.iter().enumerate() {
                running.set(Some((v, list.len(), 0, sources.len())));
                let job = Job::Translate {
                    settings: settings_pairs(s),
                    texts: order.iter().map(|&i| sources[i].clone()).collect(),
                    search: SearchChoice::Settings,
                    batch: 16,
                };
                let mut hyps = vec![String::new(); sources.len()];
                let mut done = 0;
                let t0 = browser::now_ms();
                let ended = engine_client::run(LANE, job, |first, sentences, _| {
                    for (k, nbest) in sentences.into_iter().enumerate() {
                        hyps[order[first + k]] = nbest.into_iter().next().map(|o| o.text).unwrap_or_default();
                        done += 1;
                    }
                    running.set(Some((v, list.len(), done, sources.len())));
                })
                .await;
                match ended {
                    Ok(_) => {}
                    Err(JobError::Cancelled) => {
                        error.set(Some(format!("Stopped: {} of {} values done.", v, list.len())));
                        break;
                    }
                    Err(JobError::Model(e) | JobError::Failed(e)) => {
                        error.set(Some(format!("The sweep failed at {} {}: {e}", k.label, list[v])));
                        break;
                    }
                }
                let row = score_row(&list[v], &hyps, &refs, (browser::now_ms() - t0) / 1000.0);
                result.update(|r| r.get_or_insert_with(Default::default).rows.push(row));
            }
            running.set(None);
        });
    };

    let csv = move |_| {
        if let Some(r) = result.get_untracked() {
            browser::download_text(
                &format!("sweep-{}.csv", r.name),
                &(sweep::format_table(&r.name, &r.rows, true) + "\n"),
                "text/csv",
            );
        }
    };

    view! {
        <details class="sweep" data-testid="sweep">
            <summary>"Decoding sweep: BLEU, chrF and length as a search setting moves"</summary>
            <div class="options">
                <label>
                    "Setting "
                    <select data-testid="sweep-key" on:change=move |ev| key.set(event_target_value(&ev)) prop:value=move || key.get()>
                        {SWEEP_KEYS.iter().map(|k| view! { <option value=k.names[0]>{k.label}</option> }).collect_view()}
                    </select>
                </label>
                <label>
                    "Values "
                    <input data-testid="sweep-values" prop:value=move || values.get() on:input=move |ev| values.set(event_target_value(&ev)) />
                </label>
                <label>
                    "Sentences "
                    <input data-testid="sweep-count" type="number" min="1" prop:value=move || count.get() on:input=move |ev| count.set(event_target_value(&ev)) />
                </label>
                <button data-testid="sweep-run" on:click=run aria-disabled=move || running.get().is_some().to_string()>"Run sweep"</button>
                {move || running.get().is_some().then(|| view! {
                    <button data-testid="sweep-stop" on:click=move |_| engine_client::cancel(LANE)>"Stop"</button>
                })}
            </div>
            <p class="status" role="status" data-testid="sweep-status">{move || running.get().map(|(v, n, done, total)| {
                format!("Value {} of {n}: {done} of {total} sentences", v + 1)
            })}</p>
            {move || error.get().map(|e| view! { <p class="error" data-testid="sweep-error" role="alert">{e}</p> })}
            {move || result.get().filter(|r| !r.rows.is_empty()).map(|r| view! {
                <SweepChart result=r.clone() />
                <SweepTable result=r />
                <button data-testid="sweep-csv" on:click=csv>"Export CSV"</button>
            })}
        </details>
    }
}

/// The rows as the CLI prints them.
#[component]
fn SweepTable(result: SweepResult) -> impl IntoView {
    view! {
        <table class="sweep-table" data-testid="sweep-table">
            <thead><tr><th>{result.name.clone()}</th><th>"BLEU"</th><th>"chrF2"</th><th>"ratio"</th><th>"seconds"</th></tr></thead>
            <tbody>
                {result.rows.iter().map(|r| view! {
                    <tr>
                        <td>{r.value.clone()}</td>
                        <td>{format!("{:.2}", r.bleu)}</td>
                        <td>{format!("{:.2}", r.chrf)}</td>
                        <td>{format!("{:.3}", r.ratio())}</td>
                        <td>{format!("{:.1}", r.seconds)}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}

const WIDTH: f64 = 560.0;
const HEIGHT: f64 = 220.0;
const PAD: f64 = 36.0;

/// BLEU and chrF (left axis, 0–100) and the length ratio ×100 (dashed) against the values, evenly
/// spaced in the order given.
#[component]
fn SweepChart(result: SweepResult) -> impl IntoView {
    let n = result.rows.len();
    let x = move |i: usize| if n < 2 { WIDTH / 2.0 } else { PAD + i as f64 * (WIDTH - 2.0 * PAD) / (n - 1) as f64 };
    let y = |v: f64| HEIGHT - PAD - v.clamp(0.0, 100.0) / 100.0 * (HEIGHT - 2.0 * PAD);
    let series = [
        ("BLEU", "sweep-bleu", result.rows.iter().map(|r| r.bleu).collect::<Vec<_>>()),
        ("chrF2", "sweep-chrf", result.rows.iter().map(|r| r.chrf).collect()),
        ("ratio ×100", "sweep-ratio", result.rows.iter().map(|r| 100.0 * r.ratio()).collect()),
    ];
    let lines = series
        .iter()
        .map(|(label, class, ys)| {
            let points: Vec<String> = ys.iter().enumerate().map(|(i, v)| format!("{:.1},{:.1}", x(i), y(*v))).collect();
            let dots = ys
                .iter()
                .enumerate()
                .map(|(i, v)| view! { <circle class=*class cx=format!("{:.1}", x(i)) cy=format!("{:.1}", y(*v)) r="3"><title>{format!("{label} {v:.2}")}</title></circle> })
                .collect_view();
            view! { <polyline class=*class fill="none" points=points.join(" ") />{dots} }
        })
        .collect_view();
    let ticks = result
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| view! { <text x=format!("{:.1}", x(i)) y=format!("{}", HEIGHT - PAD + 16.0) text-anchor="middle">{r.value.clone()}</text> })
        .collect_view();
    let grid = [0.0, 25.0, 50.0, 75.0, 100.0].map(|v| {
        view! {
            <line class="grid" x1=PAD x2=WIDTH - PAD y1=y(v) y2=y(v) />
            <text x=PAD - 6.0 y=y(v) + 4.0 text-anchor="end">{format!("{v:.0}")}</text>
        }
    });
    let summary = format!(
        "{} against {}: {}",
        "BLEU, chrF2 and the length ratio",
        result.name,
        result
            .rows
            .iter()
            .map(|r| format!("{} {}: BLEU {:.2}", result.name, r.value, r.bleu))
            .collect::<Vec<_>>()
            .join("; ")
    );
    view! {
        <figure class="sweep-chart">
            <svg viewBox=format!("0 0 {WIDTH} {HEIGHT}") role="img" aria-label=summary data-testid="sweep-chart">
                {grid}
                {lines}
                {ticks}
                <text x=WIDTH / 2.0 y=HEIGHT - 4.0 text-anchor="middle">{result.name.clone()}</text>
            </svg>
            <figcaption>
                <span class="key sweep-bleu">"— BLEU"</span>" "
                <span class="key sweep-chrf">"— chrF2"</span>" "
                <span class="key sweep-ratio">"- - length ratio ×100"</span>
            </figcaption>
        </figure>
    }
}

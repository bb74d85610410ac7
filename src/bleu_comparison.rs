//! Where the hypothesis and the second system differ: the `compare` job's tables (compare-mt's
//! BLEU by reference length, word F-measure by frequency, the n-grams each matches more), the
//! histogram of sentence-BLEU differences and the lines that differ most, each line opening in
//! Translate, Compare or Attention when the sources were given. The JSON is `wgslate compare --json`'s.

use leptos::prelude::*;
use serde_json::Value;
use wgslate_metrics::compare::ngram_on_side;
use wgslate_metrics::{plural, pystr};

use crate::app::{hash_for, View};
use crate::settings;
use crate::translate_page::{self, Shared};

/// What the comparison shows beside its tables: the lines it is about.
#[derive(Clone, Debug)]
pub struct Lines {
    pub hyps: Vec<String>,
    pub second: Vec<String>,
    pub reference: Vec<String>,
    /// The source sentences, where given with as many lines: what a line opens in the other views.
    pub sources: Option<Vec<String>>,
}

const SYSTEMS: [&str; 2] = ["Hypothesis", "Second system"];

fn f4(v: &Value) -> String {
    v.as_f64().map_or_else(|| "–".into(), |x| pystr::fixed(x, 4))
}

fn f1(v: &Value) -> String {
    v.as_f64().map_or_else(|| "–".into(), |x| pystr::fixed(x, 1))
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn items(v: &Value) -> &[Value] {
    v.as_array().map_or(&[], Vec::as_slice)
}

/// A table: a caption, a header row and body rows of cells (the first a row header).
fn table(testid: &'static str, caption: String, header: &[&str], rows: Vec<Vec<String>>) -> impl IntoView {
    view! {
        <div class="table-scroll">
        <table class="comparison-table" data-testid=testid>
            <caption>{caption}</caption>
            <thead><tr>{header.iter().map(|h| view! { <th scope="col">{h.to_string()}</th> }).collect_view()}</tr></thead>
            <tbody>
                {rows.into_iter().map(|r| {
                    let mut cells = r.into_iter();
                    let first = cells.next().unwrap_or_default();
                    view! { <tr><th scope="row">{first}</th>{cells.map(|c| view! { <td>{c}</td> }).collect_view()}</tr> }
                }).collect_view()}
            </tbody>
        </table>
        </div>
    }
}

fn length_table(c: &Value) -> impl IntoView {
    let mut rows = vec![vec!["all".to_string(), text(&c["lines"]), f4(&c["bleu"][0]), f4(&c["bleu"][1])]];
    rows.extend(
        items(&c["length_buckets"])
            .iter()
            .map(|b| vec![text(&b["label"]), text(&b["lines"]), f4(&b["bleu"][0]), f4(&b["bleu"][1])]),
    );
    table(
        "bleu-diff-length",
        "BLEU by reference length (words)".into(),
        &["Length", "Lines", "Hypothesis BLEU", "Second system BLEU"],
        rows,
    )
}

fn frequency_table(c: &Value) -> impl IntoView {
    let rows = items(&c["frequency_buckets"])
        .iter()
        .map(|b| {
            let s = &b["systems"];
            vec![
                text(&b["label"]),
                text(&b["ref_words"]),
                text(&s[0]["words"]),
                f4(&s[0]["f_measure"]),
                text(&s[1]["words"]),
                f4(&s[1]["f_measure"]),
            ]
        })
        .collect();
    table(
        "bleu-diff-frequency",
        format!("Word F-measure by the word's frequency in the {}", text(&c["frequency_from"])),
        &["Frequency", "Reference words", "Hypothesis words", "Hypothesis F", "Second system words", "Second system F"],
        rows,
    )
}

fn ngram_table(c: &Value, s: usize) -> impl IntoView {
    let on_side = |d: &&Value| d["score"].as_f64().is_some_and(|score| ngram_on_side(score, s));
    let mut rows: Vec<Vec<String>> = items(&c["ngrams"][s])
        .iter()
        .filter(on_side)
        .map(|d| vec![text(&d["ngram"]), f4(&d["score"]), text(&d["matches"][0]), text(&d["matches"][1])])
        .collect();
    if rows.is_empty() {
        let none = "none: every matched n-gram is matched as often by both, or more by the other";
        rows.push(vec![none.to_string(), String::new(), String::new(), String::new()]);
    }
    let testid = if s == 0 { "bleu-diff-ngrams-1" } else { "bleu-diff-ngrams-2" };
    table(
        testid,
        format!("N-grams the {} matches more", SYSTEMS[s].to_lowercase()),
        &["N-gram", "Score", "Hypothesis matches", "Second system matches"],
        rows,
    )
}

/// The histogram as a table whose last column is a bar: readable as numbers, seen as a shape.
fn histogram(c: &Value) -> impl IntoView {
    let bins = items(&c["histogram"]);
    let most = bins.iter().filter_map(|b| b["lines"].as_u64()).max().unwrap_or(0).max(1);
    view! {
        <table class="comparison-table histogram" data-testid="bleu-diff-histogram">
            <caption>"Sentence BLEU of the hypothesis minus the second system's: lines per difference"</caption>
            <thead><tr><th scope="col">"Difference"</th><th scope="col">"Lines"</th><th scope="col"><span class="sr-only">"Share"</span></th></tr></thead>
            <tbody>
                {bins.iter().map(|b| {
                    let n = b["lines"].as_u64().unwrap_or(0);
                    let width = format!("width: {:.1}%", 100.0 * n as f64 / most as f64);
                    let side = match b["hi"].as_f64() {
                        Some(hi) if hi <= 0.0 && b["lo"].as_f64().is_some_and(|lo| lo < 0.0) => "second",
                        Some(hi) if hi > 0.0 => "first",
                        _ => "even",
                    };
                    view! {
                        <tr>
                            <th scope="row">{text(&b["label"])}</th>
                            <td>{n.to_string()}</td>
                            <td class="bar-cell"><span class=format!("bar {side}") style=width></span></td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}

/// The links that open a source sentence in the other views, with the page's current settings.
fn open_links(source: &str, line: usize) -> impl IntoView {
    let shared = expect_context::<Shared>();
    if !translate_page::text_fits_a_link(source) {
        return view! { <span class="hint">"too long to open by a link"</span> }.into_any();
    }
    let source = source.to_string();
    let href = move |v: View| hash_for(v, &settings::to_query(&shared.settings.get(), &source));
    [View::Translate, View::Compare, View::Attention]
        .map(|v| {
            let href = href.clone();
            view! {
                <a class="open-in" href=move || href(v) aria-label=format!("Open line {line} in {}", v.label())>{v.label()}</a>
            }
        })
        .collect_view()
        .into_any()
}

fn top_lines(c: &Value, lines: &Lines) -> impl IntoView {
    let rows = items(&c["top_lines"])
        .iter()
        .filter_map(|d| {
            let line = d["line"].as_u64()? as usize;
            let i = line.checked_sub(1)?;
            let at = |v: &[String]| v.get(i).cloned().unwrap_or_default();
            let source = lines.sources.as_ref().map(|s| at(s));
            Some(view! {
                <tr>
                    <th scope="row">{line.to_string()}</th>
                    <td data-label="Hypothesis">{f1(&d["bleu"][0])}</td>
                    <td data-label="Second system">{f1(&d["bleu"][1])}</td>
                    <td data-label="Difference">{f1(&d["difference"])}</td>
                    <td class="text">
                        {source.clone().map(|s| view! { <p class="src"><span class="label">"Source: "</span>{s}</p> })}
                        <p><span class="label">"Hypothesis: "</span>{at(&lines.hyps)}</p>
                        <p><span class="label">"Second system: "</span>{at(&lines.second)}</p>
                        <p class="refline"><span class="label">"Reference: "</span>{at(&lines.reference)}</p>
                    </td>
                    <td class="open">{source.map(|s| open_links(&s, line))}</td>
                </tr>
            })
        })
        .collect_view();
    view! {
        <table class="comparison-table top-lines" data-testid="bleu-diff-top">
            <caption>"The lines that differ most (sacreBLEU's sentence BLEU)"</caption>
            <thead><tr>
                <th scope="col">"Line"</th><th scope="col">"Hypothesis"</th><th scope="col">"Second system"</th>
                <th scope="col">"Difference"</th><th scope="col">"Text"</th><th scope="col">"Open in"</th>
            </tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// Where the two systems differ, or why it could not be computed.
#[component]
pub fn SystemComparison(
    comparison: Result<Value, String>,
    lines: Lines,
    source_problem: Option<String>,
) -> impl IntoView {
    let c = match comparison {
        Ok(c) => c,
        Err(e) => return view! {
            <div class="comparison" data-testid="bleu-diff">
                <h3>"Where the two systems differ"</h3>
                <p class="error" role="alert" data-testid="bleu-diff-error">{format!("The comparison failed: {e}")}</p>
            </div>
        }
        .into_any(),
    };
    let no_sources = lines.sources.is_none().then(|| match source_problem {
        Some(p) => view! { <p class="hint" data-testid="bleu-diff-source-problem">{p}</p> }.into_any(),
        None => view! {
            <p class="hint">"Paste the source sentences under the second system to open these lines in Translate, Compare or Attention."</p>
        }
        .into_any(),
    });
    view! {
        <div class="comparison" data-testid="bleu-diff">
            <h3>"Where the two systems differ"</h3>
            <p class="hint">{format!(
                "compare-mt 0.2.10's analyses over {}: words split at spaces as compare-mt splits them, against reference 1, case kept; the same as `wgslate compare REF HYP SECOND`.",
                plural(c["lines"].as_u64().unwrap_or(0) as usize, "line")
            )}</p>
            <div class="comparison-grid">
                {length_table(&c)}
                {frequency_table(&c)}
                {ngram_table(&c, 0)}
                {ngram_table(&c, 1)}
            </div>
            {histogram(&c)}
            {no_sources}
            {top_lines(&c, &lines)}
        </div>
    }
    .into_any()
}

//! Attention: a heatmap of output tokens × source tokens for the current translation, per layer and
//! head or their mean; encoder and decoder self-attention too. Exportable as SVG and PNG.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wgslate_model::attention::{groups, AttentionMaps, MAX_SIDE};

use crate::browser;
use crate::engine_client;
use crate::engine_jobs::{Event, Job};
use crate::translate_page::{first_sentence, settings_pairs, Shared};

const CELL: f64 = 26.0;

/// The label of a group of tokens: the token itself, or its first and last with their positions.
fn group_label(labels: &[String], g: &std::ops::Range<usize>) -> String {
    if g.len() == 1 {
        labels[g.start].clone()
    } else {
        format!("{}…{} ({}–{})", labels[g.start].trim(), labels[g.end - 1].trim(), g.start + 1, g.end)
    }
}
const LABEL: f64 = 110.0;

#[derive(Clone, Debug)]
struct Loaded {
    maps: AttentionMaps,
    source: Vec<String>,
    target: Vec<String>,
}

/// Rows of the chosen map: a layer and head, or the mean over them (None).
fn select(maps: &[Vec<Vec<Vec<f32>>>], layer: Option<usize>, head: Option<usize>) -> Vec<Vec<f32>> {
    let layers: Vec<usize> = layer.map_or((0..maps.len()).collect(), |l| vec![l]);
    let mut out: Option<Vec<Vec<f32>>> = None;
    let mut count = 0.0;
    for l in layers {
        let heads: Vec<usize> = head.map_or((0..maps[l].len()).collect(), |h| vec![h]);
        for h in heads {
            let m = &maps[l][h];
            count += 1.0;
            match &mut out {
                None => out = Some(m.clone()),
                Some(acc) => acc.iter_mut().zip(m).for_each(|(a, r)| a.iter_mut().zip(r).for_each(|(x, y)| *x += y)),
            }
        }
    }
    let mut out = out.unwrap_or_default();
    out.iter_mut().for_each(|r| r.iter_mut().for_each(|x| *x /= count));
    out
}

/// The heatmap's cells as SVG markup: a rect per cell with its weight as data and as tooltip.
fn cells_markup(rows: &[Vec<f32>]) -> String {
    let mut out = String::with_capacity(rows.len() * rows.first().map_or(0, Vec::len) * 160);
    for (r, row) in rows.iter().enumerate() {
        for (c, &w) in row.iter().enumerate() {
            let shade = (255.0 * (1.0 - w.clamp(0.0, 1.0))) as u8;
            let (x, y, side) = (LABEL + c as f64 * CELL, LABEL + r as f64 * CELL, CELL - 1.0);
            out.push_str(&format!(
                r#"<rect data-row="{r}" data-col="{c}" data-weight="{w:.6}" x="{x}" y="{y}" width="{side}" height="{side}" fill="rgb({shade},{shade},255)"><title>{w:.3}</title></rect>"#
            ));
        }
    }
    out
}

/// The (row, column) of the cell under the pointer, from the rect's data attributes.
fn hovered_cell(ev: &web_sys::MouseEvent) -> Option<(usize, usize)> {
    let el: web_sys::Element = ev.target()?.dyn_into().ok()?;
    let attr = |name: &str| el.get_attribute(name)?.parse().ok();
    Some((attr("data-row")?, attr("data-col")?))
}

fn svg_markup() -> Option<String> {
    let el = web_sys::window()?.document()?.query_selector("[data-testid=att-heatmap]").ok()??;
    web_sys::XmlSerializer::new().ok()?.serialize_to_string(&el).ok()
}

fn svg_blob(markup: &str) -> Option<web_sys::Blob> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(markup));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type("image/svg+xml");
    web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts).ok()
}

fn export_png() {
    let Some(markup) = svg_markup() else { return };
    let Some(blob) = svg_blob(&markup) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    let Ok(img) = web_sys::HtmlImageElement::new() else { return };
    let img2 = img.clone();
    let onload = wasm_bindgen::closure::Closure::once_into_js(move || {
        let doc = web_sys::window().and_then(|w| w.document());
        let Some(canvas) = doc
            .and_then(|d| d.create_element("canvas").ok())
            .and_then(|c| c.dyn_into::<web_sys::HtmlCanvasElement>().ok())
        else {
            return;
        };
        canvas.set_width(img2.natural_width());
        canvas.set_height(img2.natural_height());
        if let Some(ctx) =
            canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
        {
            ctx.set_fill_style_str("#ffffff");
            ctx.fill_rect(0.0, 0.0, canvas.width() as f64, canvas.height() as f64);
            let _ = ctx.draw_image_with_html_image_element(&img2, 0.0, 0.0);
            if let Ok(data) = canvas.to_data_url_with_type("image/png") {
                if let Some(a) = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.create_element("a").ok())
                    .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok())
                {
                    a.set_href(&data);
                    a.set_download("attention.png");
                    a.click();
                }
            }
        }
    });
    img.set_onload(Some(onload.unchecked_ref()));
    img.set_src(&url);
}

#[component]
pub fn AttentionPage() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let loaded = RwSignal::new(None::<Loaded>);
    let kind = RwSignal::new("cross".to_string());
    let layer = RwSignal::new(None::<usize>);
    let head = RwSignal::new(None::<usize>);
    let hover = RwSignal::new(None::<(usize, usize)>);
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let run = {
        move |_| {
            let s = shared.settings.get_untracked();
            error.set(None);
            let sentence = match first_sentence(&shared) {
                Ok(s) => s,
                Err(e) => return error.set(Some(e)),
            };
            busy.set(true);
            spawn_local(async move {
                let job = Job::Attention { settings: settings_pairs(&s), text: sentence };
                let result = match engine_client::run("attention", job, |_, _| {}).await {
                    Ok(Event::Attention { maps, source, target }) => Ok(Loaded { maps, source, target }),
                    Ok(_) => Err(None),
                    Err(e) => Err(e.message()),
                };
                match result {
                    Ok(l) => {
                        layer.set(None);
                        head.set(None);
                        kind.set("cross".into());
                        loaded.set(Some(l));
                    }
                    Err(e) => error.set(e),
                }
                busy.set(false);
            });
        }
    };
    let current = move || {
        let l = loaded.get()?;
        // Decoder inputs: BOS, then the output tokens before EOS.
        let inputs = || {
            std::iter::once("<s>".to_string()).chain(l.target[..l.target.len() - 1].iter().cloned()).collect::<Vec<_>>()
        };
        let (maps, row_labels, col_labels) = match kind.get().as_str() {
            "self" if !l.maps.encoder_self.is_empty() => (&l.maps.encoder_self, l.source.clone(), l.source.clone()),
            "dec" if !l.maps.decoder_self.is_empty() => (&l.maps.decoder_self, l.target.clone(), inputs()),
            _ => (&l.maps.cross, l.target.clone(), l.source.clone()),
        };
        let rows = select(maps, layer.get().filter(|&x| x < maps.len()), head.get().filter(|&x| x < maps[0].len()));
        Some((rows, row_labels, col_labels, maps.len(), maps[0].len()))
    };
    let pooled_note = move || {
        current().and_then(|(_, row_labels, col_labels, _, _)| {
            let (nr, nc) = (row_labels.len(), col_labels.len());
            let (gr, gc) = (nr.div_ceil(MAX_SIDE).max(1), nc.div_ceil(MAX_SIDE).max(1));
            (gr > 1 || gc > 1).then(|| {
                view! {
                    <p class="hint" data-testid="att-pooled">{format!(
                        "{nr} × {nc} tokens: each cell is a block of up to {gr} × {gc}, its rows' attention summed over the block's columns and averaged over its rows."
                    )}</p>
                }
            })
        })
    };
    let heatmap = move || {
        // The worker sent the maps pooled; the labels are grouped the same way.
        current().map(|(rows, row_labels, col_labels, _, _)| {
            let row_labels: Vec<String> =
                groups(row_labels.len(), MAX_SIDE).iter().map(|g| group_label(&row_labels, g)).collect();
            let col_labels: Vec<String> =
                groups(col_labels.len(), MAX_SIDE).iter().map(|g| group_label(&col_labels, g)).collect();
            let (nr, nc) = (rows.len(), col_labels.len());
            let (w, h) = (LABEL + nc as f64 * CELL + 10.0, LABEL + nr as f64 * CELL + 10.0);
            view! {
                <svg data-testid="att-heatmap" xmlns="http://www.w3.org/2000/svg" width=w height=h viewBox=format!("0 0 {w} {h}") font-family="sans-serif" font-size="11">
                    <rect x="0" y="0" width=w height=h fill="#ffffff" />
                    {col_labels.iter().enumerate().map(|(c, t)| view! {
                        <text class="att-label" class:hot=move || hover.get().is_some_and(|x| x.1 == c) transform=format!("translate({}, {}) rotate(-60)", LABEL + (c as f64 + 0.6) * CELL, LABEL - 4.0)>{t.clone()}</text>
                    }).collect_view()}
                    {row_labels.iter().enumerate().map(|(r, t)| view! {
                        <text class="att-label" class:hot=move || hover.get().is_some_and(|x| x.0 == r) x=LABEL - 6.0 y=LABEL + (r as f64 + 0.7) * CELL text-anchor="end">{t.clone()}</text>
                    }).collect_view()}
                    // The cells are one string of markup: thousands of reactive elements cost the
                    // page hundreds of milliseconds. One handler finds the cell under the pointer,
                    // and two bands outline its row and column.
                    <g
                        inner_html=cells_markup(&rows)
                        on:mouseover=move |ev: web_sys::MouseEvent| hover.set(hovered_cell(&ev))
                        on:mouseleave=move |_| hover.set(None)
                    ></g>
                    {move || hover.get().map(|(r, c)| view! {
                        <rect class="att-band" x=LABEL y=LABEL + r as f64 * CELL width=nc as f64 * CELL height=CELL fill="none" stroke="#f08c00" pointer-events="none" />
                        <rect class="att-band" x=LABEL + c as f64 * CELL y=LABEL width=CELL height=nr as f64 * CELL fill="none" stroke="#f08c00" pointer-events="none" />
                    })}
                </svg>
            }
        })
    };
    view! {
        <section class="attention">
            <h2>"Attention"</h2>
            <p class="hint">"The first sentence of the Translate view, translated with its model and settings. Cross-attention rows are output tokens and columns source tokens; the self-attention maps are described in the Map menu. Hover a cell to follow its row and column."</p>
            <button class="primary" data-testid="att-run" on:click=run disabled=move || busy.get()>"Show attention"</button>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            {move || current().map(|(_, _, _, n_layers, n_heads)| {
                let has_self = loaded.get().is_some_and(|l| !l.maps.encoder_self.is_empty());
                view! {
                    <div class="options">
                        <label>"Map "
                            <select data-testid="att-kind" on:change=move |ev| kind.set(event_target_value(&ev))>
                                <option value="cross" prop:selected=move || kind.get() == "cross">"Cross-attention (output × source)"</option>
                                {has_self.then(|| view! { <option value="self" prop:selected=move || kind.get() == "self">"Encoder self-attention (source × source)"</option> })}
                                {has_self.then(|| view! { <option value="dec" prop:selected=move || kind.get() == "dec">"Decoder self-attention (output × decoder input)"</option> })}
                            </select>
                        </label>
                        <label>"Layer "
                            <select data-testid="att-layer" on:change=move |ev| layer.set(event_target_value(&ev).parse().ok())>
                                <option value="mean">"mean"</option>
                                {(0..n_layers).map(|l| view! { <option value=l.to_string()>{(l + 1).to_string()}</option> }).collect_view()}
                            </select>
                        </label>
                        <label>"Head "
                            <select data-testid="att-head" on:change=move |ev| head.set(event_target_value(&ev).parse().ok())>
                                <option value="mean">"mean"</option>
                                {(0..n_heads).map(|h| view! { <option value=h.to_string()>{(h + 1).to_string()}</option> }).collect_view()}
                            </select>
                        </label>
                        <button data-testid="att-export-svg" on:click=move |_| if let Some(b) = svg_markup().and_then(|m| svg_blob(&m)) { browser::download("attention.svg", &b) }>"Export SVG"</button>
                        <button data-testid="att-export-png" on:click=move |_| export_png()>"Export PNG"</button>
                    </div>
                }
            })}
            {pooled_note}
            <div class="heatmap">{heatmap}</div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layer_and_head_or_their_mean() {
        // maps[layer][head][row][col]
        let maps =
            vec![vec![vec![vec![1.0, 0.0]], vec![vec![0.0, 1.0]]], vec![vec![vec![0.5, 0.5]], vec![vec![1.0, 0.0]]]];
        assert_eq!(select(&maps, Some(0), Some(1)), [[0.0, 1.0]]);
        assert_eq!(select(&maps, Some(1), None), [[0.75, 0.25]]);
        assert_eq!(select(&maps, None, None), [[0.625, 0.375]]);
    }

    #[test]
    fn cells_carry_their_position_and_weight() {
        let markup = cells_markup(&[vec![0.25, 0.75]]);
        assert_eq!(markup.matches("<rect ").count(), 2);
        assert!(markup.contains(r#"data-row="0" data-col="1" data-weight="0.750000""#));
        assert_eq!(group_label(&["a".into(), "b".into(), "c".into()], &(0..3)), "a…c (1–3)");
    }
}

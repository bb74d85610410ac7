//! Attention: a heatmap of output tokens × source tokens for the current translation, per layer and
//! head or their mean; encoder and decoder self-attention too. Exportable as SVG and PNG.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wgslate_model::attention::{groups, AttentionMaps, MAX_SIDE};
use wgslate_model::catalog;

use crate::attention_heatmap::{Heatmap, CELL};
use crate::browser;
use crate::engine_client::{self, Ended};
use crate::engine_jobs::{Event, Job, ATTENTION_OF_ONE_MODEL};
use crate::model_download::{waiting_status, ModelDownload};
use crate::translate_page::{capitalised, first_sentence, settings_pairs, what_runs, Shared};

/// The label of a group of tokens: the token itself, or its first and last with their positions.
fn group_label(labels: &[String], g: &std::ops::Range<usize>) -> String {
    if g.len() == 1 {
        visible(&labels[g.start]).to_string()
    } else {
        format!("{}…{} ({}–{})", visible(labels[g.start].trim()), visible(labels[g.end - 1].trim()), g.start + 1, g.end)
    }
}

/// A token that is only a word boundary (the tokenizer's lone "▁", shown as a space) gets a
/// visible mark instead of a blank label.
fn visible(label: &str) -> &str {
    match label.trim().is_empty() {
        true => "␣",
        false => label,
    }
}
#[derive(Clone, Debug)]
struct Loaded {
    maps: AttentionMaps,
    source: Vec<String>,
    target: Vec<String>,
    /// `Notices::messages` of the translation drawn: the source cut, the output stopped at the maximum length.
    notes: Vec<String>,
    /// The sentence and settings the map was drawn for, to tell when the Translate view has moved on.
    drawn_for: (String, Vec<(String, String)>),
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

fn export_svg(h: &Heatmap) {
    browser::download_text("attention.svg", &h.svg(), "image/svg+xml");
}

/// The heatmap drawn once more, at one pixel per CSS pixel and without the hover marks.
fn export_png(h: &Heatmap) {
    let Some(canvas) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("canvas").ok())
        .and_then(|c| c.dyn_into::<web_sys::HtmlCanvasElement>().ok())
    else {
        return;
    };
    h.draw(&canvas, h.cell_image().as_ref(), 1.0, None, 0.0);
    let Ok(data) = canvas.to_data_url_with_type("image/png") else { return };
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

/// Whether `model` is an ensemble, which has no single attention map.
fn is_ensemble(shared: &Shared, model: &str) -> bool {
    shared.model_entries.with(|e| catalog::find(e, model).is_some_and(|m| !m.members.is_empty()))
}

/// An ensemble's members as (model name, what the Model menu calls it): the way on from the refusal.
fn members(shared: &Shared, model: &str) -> Vec<(String, String)> {
    shared.model_entries.with(|e| {
        let names = catalog::find(e, model).map(|m| m.model_names()).unwrap_or_default();
        names.into_iter().map(|n| (n.clone(), catalog::find(e, &n).map_or(n.clone(), |m| m.title.clone()))).collect()
    })
}

/// For an ensemble: a button per member that makes it the model (in every view, as the Model menu does).
#[component]
fn MemberChoice() -> impl IntoView {
    let shared = expect_context::<Shared>();
    move || {
        let model = shared.settings.with(|s| s.model.clone());
        let buttons = members(&shared, &model)
            .into_iter()
            .map(|(name, title)| {
                let testid = format!("att-member-{}", name.replace('/', "-"));
                view! { <button data-testid=testid on:click=move |_| shared.settings.update(|s| s.model = name.clone())>{format!("Use {title}")}</button> }
            })
            .collect_view();
        view! { <p class="row" data-testid="att-members">{buttons}</p> }
    }
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
    // An error about the sentence (or the run for it) is old news once the Translate view's text changes.
    // An error answered the text and model of then (an ensemble's refusal goes once a member is chosen).
    Effect::new(move |_| {
        shared.text.track();
        shared.settings.with(|s| s.model.len());
        error.set(None);
    });
    let busy = RwSignal::new(false);
    // Whether the last run was stopped (its map, if any, is the last finished run's).
    let stopped = RwSignal::new(false);
    let run = {
        move |_| {
            if busy.get_untracked() {
                return;
            }
            let s = shared.settings.get_untracked();
            error.set(None);
            stopped.set(false);
            // An ensemble is refused at once, not after the download of all its members.
            let ensemble = is_ensemble(&shared, &s.model);
            let sentence = match first_sentence(&shared) {
                Ok(_) if ensemble => Err(ATTENTION_OF_ONE_MODEL.to_string()),
                found => found,
            };
            // A map left under an error would read as the answer to the request that failed.
            let sentence = match sentence {
                Ok(s) => s,
                Err(e) => {
                    loaded.set(None);
                    return error.set(Some(e));
                }
            };
            busy.set(true);
            spawn_local(async move {
                let drawn_for = (sentence.clone(), settings_pairs(&s.effective()));
                let job = Job::Attention { settings: drawn_for.1.clone(), text: sentence };
                let result = match engine_client::run("attention", job, |_, _, _| {}).await {
                    Ok(Ended { last: Event::Attention { maps, source, target, notices }, .. }) => {
                        Ok(Loaded { maps, source, target, notes: notices.messages_of_one(), drawn_for })
                    }
                    Ok(_) => Err(None),
                    // None: stopped, or a newer job took the lane; the last map stays, marked as such.
                    Err(e) => match shared.job_error_message(e) {
                        None => {
                            stopped.set(true);
                            busy.set(false);
                            return;
                        }
                        message => Err(message),
                    },
                };
                // Drawing is left to a task of its own: with the maps' arrival it made one task
                // of ~50 ms on a long sentence.
                browser::yield_now().await;
                match result {
                    Ok(l) => {
                        layer.set(None);
                        head.set(None);
                        kind.set("cross".into());
                        loaded.set(Some(l));
                        // Below the fold on a phone, where the status line alone said it was drawn.
                        browser::yield_now().await;
                        browser::reveal(".attention .options");
                    }
                    Err(e) => {
                        loaded.set(None);
                        error.set(e);
                    }
                }
                busy.set(false);
            });
        }
    };
    let stale = Memo::new(move |_| {
        loaded.with(|l| {
            l.as_ref().is_some_and(|l| {
                !shared.first_sentence_is(&l.drawn_for.0)
                    || settings_pairs(&shared.settings.get().effective()) != l.drawn_for.1
            })
        })
    });
    let current = move || {
        let l = loaded.get()?;
        // Decoder inputs: BOS, then the output tokens before EOS.
        let inputs = || {
            let before_eos = &l.target[..l.target.len().saturating_sub(1)];
            std::iter::once("<s>".to_string()).chain(before_eos.iter().cloned()).collect::<Vec<_>>()
        };
        let (maps, row_labels, col_labels) = match kind.get().as_str() {
            "self" if !l.maps.encoder_self.is_empty() => (&l.maps.encoder_self, l.source.clone(), l.source.clone()),
            "dec" if !l.maps.decoder_self.is_empty() => (&l.maps.decoder_self, l.target.clone(), inputs()),
            _ => (&l.maps.cross, l.target.clone(), l.source.clone()),
        };
        let heads = maps.first()?.len();
        let rows = select(maps, layer.get().filter(|&x| x < maps.len()), head.get().filter(|&x| x < heads));
        Some((rows, row_labels, col_labels, maps.len(), heads))
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
    let shown = Memo::new(move |_| {
        // The worker sent the maps pooled; the labels are grouped the same way.
        current().map(|(weights, row_labels, col_labels, _, _)| Heatmap {
            weights,
            row_labels: groups(row_labels.len(), MAX_SIDE).iter().map(|g| group_label(&row_labels, g)).collect(),
            col_labels: groups(col_labels.len(), MAX_SIDE).iter().map(|g| group_label(&col_labels, g)).collect(),
        })
    });
    // A new map, or another choice of map, leaves no cell marked.
    Effect::new(move |_| {
        shown.track();
        hover.set(None);
    });
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let wrapper = NodeRef::<leptos::html::Div>::new();
    let readout_line = NodeRef::<leptos::html::P>::new();
    // How far the map is scrolled to the right: its row labels are drawn at the visible left edge.
    let scrolled = RwSignal::new(0.0);
    // A map of other columns (a new run, another kind of map) starts at its left edge; another layer
    // or head of the same map keeps the place.
    let columns = StoredValue::new(Vec::<String>::new());
    Effect::new(move |_| {
        let labels = shown.with(|h| h.as_ref().map(|h| h.col_labels.clone()).unwrap_or_default());
        if labels != columns.get_value() {
            columns.set_value(labels);
            if let Some(w) = wrapper.get_untracked() {
                w.set_scroll_left(0);
            }
            scrolled.set(0.0);
        }
    });
    // The cell chosen with the keyboard is scrolled into view: beside the row labels, and below the
    // readout, which stays at the top of the screen while the map is on it.
    let reveal = move |(r, c): (usize, usize)| {
        let (Some(w), Some(map)) = (wrapper.get_untracked(), canvas.get_untracked()) else { return };
        let Some((label, top)) = shown.with_untracked(|h| h.as_ref().map(Heatmap::margins)) else { return };
        let (x, left, width) = (label + c as f64 * CELL, w.scroll_left() as f64, w.client_width() as f64);
        if x < left + label {
            w.set_scroll_left((x - label) as i32);
        } else if x + CELL > left + width {
            w.set_scroll_left((x + CELL - width).ceil() as i32);
        }
        let top = map.get_bounding_client_rect().top() + top + r as f64 * CELL;
        // Below the readout, which stays at the top of the screen (two lines for long labels).
        let readout = readout_line.get_untracked().map_or(0.0, |p| p.get_bounding_client_rect().height());
        browser::scroll_page_to_show(top, top + CELL, readout);
    };
    // The map's cells as an image, made once per map: hovering and scrolling only redraw.
    let cells = StoredValue::new_local(None::<(Heatmap, Option<web_sys::HtmlCanvasElement>)>);
    Effect::new(move |_| {
        if let (Some(c), Some(h)) = (canvas.get(), shown.get()) {
            let scale = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).clamp(1.0, 3.0);
            let (hovered, scrolled) = (hover.get(), scrolled.get());
            if cells.with_value(|made| made.as_ref().is_none_or(|(of, _)| *of != h)) {
                let image = h.cell_image();
                cells.set_value(Some((h.clone(), image)));
            }
            cells.with_value(|made| {
                let image = made.as_ref().and_then(|(_, image)| image.as_ref());
                h.draw(&c, image, scale, hovered, scrolled)
            });
        }
    });
    let heatmap = move || {
        shown.get().map(|h| {
            let (w, ht) = h.size();
            let at = move |ev: &web_sys::MouseEvent| {
                shown.with_untracked(|s| s.as_ref().and_then(|s| s.cell_at(ev.offset_x() as f64, ev.offset_y() as f64, scrolled.get_untracked())))
            };
            view! {
                <canvas
                    data-testid="att-heatmap"
                    node_ref=canvas
                    role="img"
                    aria-label=format!("Attention heatmap, {} rows × {} columns; hover or tap a cell, or focus the map and use the arrow keys, for its weight.", h.weights.len(), h.col_labels.len())
                    // Where the cells start (the label margins), for the tests.
                    data-left=h.margins().0
                    data-top=h.margins().1
                    style:width=format!("{w}px")
                    style:height=format!("{ht}px")
                    on:mousemove=move |ev| { let c = at(&ev); if hover.get_untracked() != c { hover.set(c) } }
                    on:mouseleave=move |_| hover.set(None)
                    // A tap: not every touch browser sends the mousemove it would imply.
                    on:click=move |ev| hover.set(at(&ev))
                    tabindex="0"
                    on:keydown=move |ev: web_sys::KeyboardEvent| {
                        let d = match ev.key().as_str() {
                            "ArrowUp" => (-1, 0),
                            "ArrowDown" => (1, 0),
                            "ArrowLeft" => (0, -1),
                            "ArrowRight" => (0, 1),
                            // The row's first and last cells (the step is kept inside the map).
                            "Home" => (0, isize::MIN / 2),
                            "End" => (0, isize::MAX / 2),
                            _ => return,
                        };
                        ev.prevent_default();
                        let next = shown.with_untracked(|s| s.as_ref().and_then(|s| s.step(hover.get_untracked(), d)));
                        hover.set(next);
                        if let Some(cell) = next {
                            reveal(cell);
                        }
                    }
                ></canvas>
            }
        })
    };
    let readout = move || {
        let text = hover.get().and_then(|c| shown.with(|s| s.as_ref().and_then(|s| s.describe(c))));
        view! { <p class="hint readout" data-testid="att-readout" aria-live="polite" node_ref=readout_line>{text.unwrap_or_else(|| "\u{a0}".into())}</p> }
    };
    view! {
        <section class="attention">
            <h2>"Attention"</h2>
            <p class="hint">"The first sentence of the Translate view, translated with its model and settings. Cross-attention rows are output tokens and columns source tokens; the self-attention maps are described in the Map menu. Hover or tap a cell (or focus the map and use the arrow keys) to follow its row and column."</p>
            // aria-disabled, not disabled: a disabled button drops the keyboard focus (and a screen reader's place).
            <p data-testid="att-plan">{move || {
                let ensemble = is_ensemble(&shared, &shared.settings.with(|s| s.model.clone()));
                match what_runs(&shared, &shared.settings.with(|s| s.search_label())) {
                    None => "No sentence yet: type one in the Translate view.".into(),
                    Some(plan) if ensemble => format!("{plan}. {ATTENTION_OF_ONE_MODEL}"),
                    Some(plan) => plan,
                }
            }}</p>
            <Show when=move || is_ensemble(&shared, &shared.settings.with(|s| s.model.clone()))><MemberChoice /></Show>
            <button class="primary" data-testid="att-run" on:click=run aria-disabled=move || busy.get().to_string()>"Show attention"</button>
            {move || busy.get().then(|| view! {
                <button data-testid="att-stop" on:click=move |_| engine_client::cancel("attention")>"Stop"</button>
            })}
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="att-error">{e}</p> })}
            // Announced to screen readers: the region is always there, its text changes.
            <p class="status" role="status" data-testid="att-status">{move || match (busy.get(), stopped.get()) {
                (true, _) => waiting_status(&shared, true).unwrap_or("Translating and drawing the attention maps…").to_string(),
                (false, true) if loaded.with(Option::is_some) => "Stopped; the map below is from the last finished run.".into(),
                (false, true) => "Stopped.".into(),
                (false, false) => loaded.with(|l| l.as_ref().map(|l| format!("Attention maps drawn: {} output × {} source tokens.", l.target.len(), l.source.len()))).unwrap_or_default(),
            }}</p>
            // Only while its own run waits: after a Stop the Translate view may still be loading the model.
            {move || busy.get().then(|| view! { <ModelDownload prefix="att" /> })}
            {move || loaded.with(|l| l.as_ref().map(|l| l.notes.iter().map(|n| {
                let n = format!("{}.", capitalised(n));
                view! { <p class="hint" data-testid="att-note">{n}</p> }
            }).collect_view()))}
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
                        // A single layer or head (the GRU's attention) leaves nothing to choose.
                        {(n_layers > 1).then(|| view! {
                            <label>"Layer "
                                <select data-testid="att-layer" on:change=move |ev| layer.set(event_target_value(&ev).parse().ok())>
                                    <option value="mean">"mean"</option>
                                    {(0..n_layers).map(|l| view! { <option value=l.to_string()>{(l + 1).to_string()}</option> }).collect_view()}
                                </select>
                            </label>
                        })}
                        {(n_heads > 1).then(|| view! {
                            <label>"Head "
                                <select data-testid="att-head" on:change=move |ev| head.set(event_target_value(&ev).parse().ok())>
                                    <option value="mean">"mean"</option>
                                    {(0..n_heads).map(|h| view! { <option value=h.to_string()>{(h + 1).to_string()}</option> }).collect_view()}
                                </select>
                            </label>
                        })}
                        <button data-testid="att-export-svg" on:click=move |_| if let Some(h) = shown.get_untracked() { export_svg(&h) }>"Export SVG"</button>
                        <button data-testid="att-export-png" on:click=move |_| if let Some(h) = shown.get_untracked() { export_png(&h) }>"Export PNG"</button>
                    </div>
                }
            })}
            {move || stale.get().then(|| view! {
                <p class="hint" data-testid="att-stale">"The Translate view's first sentence or settings changed since this map was drawn; Show attention again to update it."</p>
            })}
            {pooled_note}
            {readout}
            <div class="heatmap" class:stale=stale node_ref=wrapper on:scroll=move |_| {
                if let Some(w) = wrapper.get_untracked() {
                    scrolled.set(w.scroll_left() as f64);
                }
            }>{heatmap}</div>
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
    fn grouped_tokens_are_labelled_by_their_ends_and_positions() {
        assert_eq!(group_label(&["a".into(), "b".into(), "c".into()], &(0..3)), "a…c (1–3)");
        assert_eq!(group_label(&["a".into(), "b".into()], &(1..2)), "b");
    }

    #[test]
    fn a_token_that_is_only_a_word_boundary_is_labelled_visibly() {
        // A token that is only a space (the tokenizer's word boundary alone) used to leave its row
        // or column unlabelled: a new user saw blank labels for emoji and HTML input.
        assert_eq!(group_label(&[" ".into(), "b".into()], &(0..1)), "␣");
        assert_eq!(group_label(&[" ".into(), "b".into(), "".into()], &(0..3)), "␣…␣ (1–3)");
        assert_eq!(group_label(&[" Hund".into()], &(0..1)), " Hund");
    }
}

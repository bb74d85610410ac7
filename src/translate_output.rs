//! Translate's output: the translation, each word coloured by its probability on request, with the
//! readout of the word tapped, clicked or arrowed to, Copy, the run's status and the sentence BLEU
//! against an example's reference.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wgslate_metrics::{Bleu, BleuOptions};
use wgslate_model::catalog::language_name;

use crate::browser;
use crate::model_download::waiting_status;
use crate::translate_input::Live;
use crate::translate_page::{OutSentence, Shared};

/// The index (among the output's shown tokens) of the coloured word a click or tap landed on.
fn tapped_word(ev: &web_sys::MouseEvent) -> Option<usize> {
    use wasm_bindgen::JsCast;
    let word = ev.target()?.dyn_into::<web_sys::Element>().ok()?.closest(".conf[data-k]").ok()??;
    word.get_attribute("data-k")?.parse().ok()
}

/// The coloured words in the order shown: each line's non-empty sentences, token by token (a sentence
/// still to come has none).
fn shown_tokens(output: &[Vec<OutSentence>]) -> impl Iterator<Item = &(String, f32)> {
    output.iter().flatten().filter(|s| !s.text.is_empty()).flat_map(|s| &s.tokens)
}

/// "“Hund”: p = 0.946" for the `k`th coloured word.
fn word_readout(output: &[Vec<OutSentence>], k: usize) -> Option<String> {
    shown_tokens(output).nth(k).map(|(t, p)| format!("“{}”: p = {p:.3}", t.trim()))
}

/// The word the arrow keys (and Home, End) move to from `chosen`, among `count`; None for other keys.
fn word_after_key(key: &str, chosen: Option<usize>, count: usize) -> Option<usize> {
    let last = count.checked_sub(1)?;
    Some(match (key, chosen) {
        ("ArrowRight" | "ArrowDown", Some(k)) => (k + 1).min(last),
        ("ArrowLeft" | "ArrowUp", Some(k)) => k.saturating_sub(1).min(last),
        ("ArrowRight" | "ArrowDown" | "Home", _) => 0,
        ("ArrowLeft" | "ArrowUp" | "End", _) => last,
        _ => return None,
    })
}

fn probability_class(p: f32) -> &'static str {
    match p {
        p if p >= 0.9 => "p5",
        p if p >= 0.7 => "p4",
        p if p >= 0.5 => "p3",
        p if p >= 0.3 => "p2",
        _ => "p1",
    }
}

/// The translation pane: the output, its tools and status, the input's error and the sentence BLEU.
#[component]
pub fn TranslateOutput(
    live: Live,
    /// The direction: (source, target) language codes.
    pair: Memo<(String, String)>,
    /// The reference of the example in the box, for the sentence BLEU.
    example_ref: RwSignal<Option<String>>,
) -> impl IntoView {
    let shared = expect_context::<Shared>();
    let settings = shared.settings;
    let Live { output, status, input_error, stale, .. } = live;
    // What the last Copy did ("Copied.", or why not), for a few seconds.
    let copy_note = RwSignal::new(None::<String>);
    let colour = RwSignal::new(false);
    // The tapped, clicked or arrowed-to word (its index among the coloured words), whose probability
    // the readout shows: the tooltip alone is out of reach by touch and by keyboard.
    let word = RwSignal::new(None::<usize>);
    Effect::new(move |_| {
        output.track();
        word.set(None);
    });

    let sentence_bleu = move || {
        let r = example_ref.get()?;
        let out = output.get();
        let hyp: Vec<String> =
            out.iter().map(|l| l.iter().map(|s| s.text.clone()).collect::<Vec<_>>().join(" ")).collect();
        let hyp = hyp.join(" ");
        let b = Bleu::new(BleuOptions { effective_order: true, ..Default::default() });
        let st = b.segment_stats(&hyp, &[r.as_str()]);
        Some(format!("{:.1}", b.compute(&st).score))
    };

    view! {
        <div class="pane">
            <div class="output" class:stale=move || stale.get() aria-live="polite" role="region" aria-label=move || format!("{} translation", language_name(&pair.get().1)) aria-busy=move || stale.get().to_string() data-testid="tr-output" data-model=move || settings.get().model
                tabindex=move || colour.get().then_some("0")
                aria-keyshortcuts=move || colour.get().then_some("ArrowLeft ArrowRight Home End")
                aria-describedby=move || colour.get().then_some("tr-conf-readout")
                on:click=move |ev| word.set(tapped_word(&ev))
                on:keydown=move |ev: web_sys::KeyboardEvent| {
                    if !colour.get_untracked() || ev.alt_key() || ev.ctrl_key() || ev.meta_key() {
                        return;
                    }
                    let count = output.with_untracked(|o| shown_tokens(o).count());
                    if let Some(k) = word_after_key(&ev.key(), word.get_untracked(), count) {
                        ev.prevent_default();
                        word.set(Some(k));
                        let shown = ev.current_target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok());
                        if let Some(Ok(Some(w))) = shown.map(|o| o.query_selector(&format!("[data-k='{k}']"))) {
                            let rect = w.get_bounding_client_rect();
                            browser::scroll_page_to_show(rect.top(), rect.bottom(), 0.0);
                        }
                    }
                }>
                {move || {
                    let c = colour.get();
                    // Each coloured word's index among them all (`shown_tokens`' order).
                    let mut k = 0..;
                    // A div per line and one space between sentences, so that text selected
                    // with the mouse copies as the Copy button does (a <p> copies with a blank
                    // line after it, and a trailing space per sentence would copy too).
                    output.get().into_iter().map(|line| view! {
                        <div class="line">
                            // A blank line copies as one (an empty div copies as nothing).
                            {line.iter().all(|s| s.text.is_empty()).then(|| view! { <br /> })}
                            {line.into_iter().filter(|s| !s.text.is_empty()).enumerate().map(|(i, s)| {
                                let gap = (i > 0).then_some(" ");
                                let sentence = if c && !s.tokens.is_empty() {
                                    view! { <span class="sentence">{s.tokens.into_iter().enumerate().map(|(j, (t, p))| {
                                        // A token's surface starts with its space; the sentence's first one's is the gap above.
                                        let t = if j == 0 { t.trim_start().to_string() } else { t };
                                        let k = k.next().unwrap_or_default();
                                        view! { <span class=format!("conf {}", probability_class(p)) class:chosen=move || word.get() == Some(k) data-k=k title=format!("p = {p:.3}")>{t}</span> }
                                    }).collect_view()}</span> }.into_any()
                                } else {
                                    view! { <span class="sentence">{s.text}</span> }.into_any()
                                };
                                (gap, sentence)
                            }).collect_view()}
                        </div>
                    }).collect_view()
                }}
            </div>
            <div class="out-tools">
                <button data-testid="tr-copy" on:click=move |_| {
                    let text = live.output_text();
                    spawn_local(async move {
                        let note = match browser::copy_to_clipboard(&text).await {
                            Ok(()) => "Copied.".to_string(),
                            Err(e) => format!("Not copied: {e}."),
                        };
                        copy_note.set(Some(note));
                        browser::sleep_ms(4000).await;
                        copy_note.set(None);
                    });
                }>"Copy"</button>
                <span class="status" role="status" data-testid="tr-copy-note">{move || copy_note.get()}</span>
                <label><input type="checkbox" prop:checked=move || colour.get() on:change=move |ev| colour.set(event_target_checked(&ev)) />" Colour by confidence"</label>
                {move || colour.get().then(|| view! {
                    <span class="status" aria-live="polite" id="tr-conf-readout" data-testid="tr-conf-readout">{move || word.get().and_then(|k| output.with(|o| word_readout(o, k))).unwrap_or_else(|| "Tap or click a word, or use the arrow keys in the translation, for its probability.".into())}</span>
                    // Each swatch before its range, so that it is clear which colour goes with which.
                    <span class="legend"><span class="swatch conf p5" aria-hidden="true"></span>" p ≥ 0.9 · "<span class="swatch conf p4" aria-hidden="true"></span>" ≥ 0.7 · "<span class="swatch conf p3" aria-hidden="true"></span>" ≥ 0.5 · "<span class="swatch conf p2" aria-hidden="true"></span>" ≥ 0.3 (dotted underline) · "<span class="swatch conf p1" aria-hidden="true"></span>" < 0.3 (wavy)"</span>
                })}
                // A run under way while the model downloads has translated nothing yet: it waits.
                <span class="status" data-testid="tr-status">{move || waiting_status(&shared, stale.get()).map_or_else(|| status.get(), String::from)}</span>
            </div>
            {move || input_error.get().map(|e| view! { <p class="error" role="alert" data-testid="tr-input-error">{e}</p> })}
            {move || sentence_bleu().map(|b| view! { <p class="hint" data-testid="tr-example-bleu">"Sentence BLEU against the reference: "{b}</p> })}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arrow_keys_walk_the_coloured_words_and_stop_at_the_ends() {
        assert_eq!(word_after_key("ArrowRight", None, 3), Some(0));
        assert_eq!(word_after_key("ArrowLeft", None, 3), Some(2));
        assert_eq!(word_after_key("ArrowRight", Some(1), 3), Some(2));
        assert_eq!(word_after_key("ArrowRight", Some(2), 3), Some(2));
        assert_eq!(word_after_key("ArrowLeft", Some(0), 3), Some(0));
        assert_eq!(word_after_key("End", Some(0), 3), Some(2));
        assert_eq!(word_after_key("Home", Some(2), 3), Some(0));
        assert_eq!(word_after_key("a", Some(1), 3), None);
        assert_eq!(word_after_key("ArrowRight", None, 0), None);
    }

    #[test]
    fn the_readout_names_the_word_shown_at_that_place() {
        let s = |text: &str, tokens: &[(&str, f32)]| OutSentence {
            text: text.into(),
            tokens: tokens.iter().map(|(t, p)| (t.to_string(), *p)).collect(),
        };
        // An empty sentence draws no words, so the count goes on with the next one.
        let output = vec![
            vec![s("Ein Hund", &[("Ein", 0.9), (" Hund", 0.5)]), s("", &[("x", 0.1)])],
            vec![s("Zwei", &[("Zwei", 0.25)])],
        ];
        assert_eq!(word_readout(&output, 1).as_deref(), Some("“Hund”: p = 0.500"));
        assert_eq!(word_readout(&output, 2).as_deref(), Some("“Zwei”: p = 0.250"));
        assert_eq!(word_readout(&output, 3), None);
    }
}

//! Translate's settings: the backend, the search (beam, length penalty, coverage, end penalty,
//! maximum length, reranking, sampling) and the presets, each box checked as the settings check it.

use leptos::prelude::*;

use crate::settings::Settings;
use crate::translate_page::capitalised;
use crate::{browser, engine_client};

/// Sets `key` from a number box. A box holding something that is not a number reads as empty.
fn checked_box(label: &str, key: &str, value: &str, settings: &mut Settings) -> Result<(), String> {
    if value.trim().is_empty() {
        return Err(format!("{label}: type a number"));
    }
    settings.set(key, value)
}

/// The id of the settings' message, which describes the box it is about.
const SETTINGS_ERROR: &str = "tr-settings-error";

/// The settings panel, open by default; a refused value is named below it.
#[component]
pub fn SettingsPanel(settings: RwSignal<Settings>) -> impl IntoView {
    // The box whose value was refused, and why; and the box whose typed value would be refused.
    let problem = RwSignal::new(None::<(&'static str, String)>);
    let invalid = RwSignal::new(None::<&'static str>);
    // A value the settings refuse (out of range, not a number) is named below the panel and leaves
    // the setting, and the box, as they were; the box is described by the message until it holds a
    // good value, and is invalid while it shows a value that would be refused.
    let num_input = move |label: &'static str,
                          testid: &'static str,
                          step: &'static str,
                          key: &'static str,
                          get: fn(&Settings) -> String| {
        let change = move |ev: web_sys::Event| {
            let mut s = settings.get_untracked();
            match checked_box(label, key, &event_target_value(&ev), &mut s) {
                Ok(()) => {
                    problem.set(None);
                    settings.set(s);
                }
                Err(e) => {
                    problem.set(Some((testid, e)));
                    invalid.set(None);
                    event_target::<web_sys::HtmlInputElement>(&ev).set_value(&get(&s));
                }
            }
        };
        // Typing a good value again (no change event: the box already held it) clears the message.
        let input = move |ev: web_sys::Event| {
            let good = checked_box(label, key, &event_target_value(&ev), &mut settings.get_untracked()).is_ok();
            if good {
                problem.set(None);
            }
            invalid.set((!good).then_some(testid));
        };
        // The arrows of the box stop at the validator's limits instead of stepping past them. The
        // lowest a multiple of the step: min is where the steps count from, and 0.01 with a step of 0.1
        // made the default 1 an invalid value (and its arrows gave 1.01).
        let bounds = wgslate_decode::settings::bounds(key);
        let step_size: f64 = step.parse().unwrap_or(1.0);
        let min = bounds.map(|(lo, _)| ((lo / step_size).ceil() * step_size * 1e6).round() / 1e6);
        let max = bounds.map(|(_, hi)| hi);
        // The boxes shown by a symbol beside their group's label have a name in words.
        let spoken = match key {
            "lp" => Some("Length penalty α"),
            "a" => Some("Max length a (times the input's length)"),
            "b" => Some("Max length b (tokens added)"),
            _ => None,
        };
        // What each box does, for a student meeting the term here (the penalties as penalties.rs scores them).
        let explained = match key {
            "beam" => Some("How many hypotheses beam search keeps at each step; 1 with no penalties is greedy search"),
            "lp" => Some("Length penalty α: a finished hypothesis's log-probability is divided by lp(|Y|), GNMT's ((5 + |Y|) / 6)^α or average's |Y|^α; 0 turns it off, larger α favours longer outputs"),
            "cov" => Some("Coverage penalty β (GNMT): adds β · Σ over source words of log(min(its total attention, 1)), so hypotheses that leave source words unattended score lower; 0 turns it off"),
            "end" => Some("End penalty γ: adds γ · |Y| / |X| to a finished hypothesis's score; γ > 0 favours longer outputs, γ < 0 shorter, 0 turns it off"),
            "a" | "b" => Some("The longest output: a × the input's length in subwords, plus b"),
            "t" => Some("Sampling temperature: the log-probabilities are divided by it; below 1 sharper, above 1 flatter"),
            "k" => Some("Sampling keeps only the k most likely subwords at each step (0: all)"),
            "p" => Some("Nucleus sampling: keeps the fewest most likely subwords whose probabilities (after top-k and temperature) reach at least p; 1: all"),
            "seed" => Some("The random generator's seed: the same seed gives the same sample"),
            _ => None,
        };
        let refused = move || problem.with(|p| p.as_ref().is_some_and(|(box_id, _)| *box_id == testid));
        let shows_refused = move || invalid.get() == Some(testid);
        view! {
            <label title=explained>
                {label}" "
                <input type="number" step=step min=min max=max aria-label=spoken data-testid=testid prop:value=move || get(&settings.get()) on:change=change on:input=input
                    aria-invalid=move || shows_refused().then_some("true") aria-describedby=move || refused().then_some(SETTINGS_ERROR) />
            </label>
        }
    };
    // A preset that changes nothing does not restart the translation under way.
    let apply = move |preset: fn(&Settings) -> Settings| {
        problem.set(None);
        invalid.set(None);
        let next = settings.with_untracked(preset);
        if settings.with_untracked(|s| *s != next) {
            settings.set(next);
        }
    };
    view! {
        <details class="settings" open>
            <summary>"Settings"</summary>
            <div class="presets">
                <button type="button" data-testid="tr-best" title="Beam 4, its hypotheses reranked with the opposite direction's model (downloaded when first needed), chosen on en→de val: slower"
                    on:click=move |_| apply(Settings::with_best_quality)>"Best quality"</button>
                <button type="button" data-testid="tr-fastest" title="Greedy search, no penalties: the default (the sampling settings, seed and maximum length stay as they are)"
                    on:click=move |_| apply(Settings::with_greedy)>"Fastest"</button>
            </div>
            <div class="options">
                <label>
                    "Backend "
                    // The device is chosen once per page: a new choice reloads it (text and settings are in the URL).
                    <select data-testid="tr-backend-choice" prop:value=move || settings.get().backend
                        on:change=move |ev| {
                            // A reload would end a long job silently: ask first, and keep the old choice if told no.
                            if let Some(job) = engine_client::long_job_running() {
                                let ask = format!("Changing the backend reloads the page, which stops {job}. Change it anyway?");
                                if !browser::confirm(&ask) {
                                    if let Some(select) = ev.target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlSelectElement>(t).ok()) {
                                        select.set_value(&settings.get_untracked().backend);
                                    }
                                    return;
                                }
                            }
                            let v = event_target_value(&ev);
                            settings.update(|s| s.backend = v);
                            browser::reload_soon();
                        }>
                        <option value="auto">"auto (GPU unless it is a software one)"</option>
                        <option value="gpu">"GPU (WebGPU)"</option>
                        <option value="cpu">"CPU (WebAssembly)"</option>
                    </select>
                </label>
                {num_input("Beam width", "tr-beam", "1", "beam", |s| s.beam.to_string())}
                <label>
                    "Length penalty "
                    <select prop:value=move || settings.get().lenpen_kind on:change=move |ev| settings.update(|s| s.lenpen_kind = event_target_value(&ev))>
                        <option value="gnmt">"GNMT"</option>
                        <option value="avg">"average"</option>
                    </select>
                </label>
                {num_input("α", "tr-lenpen", "0.1", "lp", |s| s.lenpen.to_string())}
                {num_input("Coverage β", "tr-coverage", "0.1", "cov", |s| s.coverage.to_string())}
                {num_input("End penalty γ", "tr-end", "0.1", "end", |s| s.end_penalty.to_string())}
                {num_input("Max length a·|x|+b: a", "tr-max-a", "0.1", "a", |s| s.max_len_a.to_string())}
                {num_input("b", "tr-max-b", "1", "b", |s| s.max_len_b.to_string())}
                <label title="A beam's hypotheses (beam width 2 or more, no sampling) reordered by how well the model of the opposite direction, downloaded when needed, turns each back into the input: slower, more adequate">
                    <input type="checkbox" data-testid="tr-rerank" prop:checked=move || settings.get().rerank
                        prop:disabled=move || { let s = settings.get(); !s.rerank && !s.search_can_rerank() }
                        on:change=move |ev| settings.update(|s| s.rerank = event_target_checked(&ev)) />
                    " Rerank with the reverse model (beam)"
                    {move || { let s = settings.get(); (s.rerank && !s.reranks()).then_some(" — off until the beam is 2 or more, without sampling") }}
                </label>
                <label>
                    <input type="checkbox" data-testid="tr-sample" prop:checked=move || settings.get().sample on:change=move |ev| settings.update(|s| s.sample = event_target_checked(&ev)) />
                    " Sample"
                </label>
                {num_input("Temperature", "tr-temperature", "0.1", "t", |s| s.temperature.to_string())}
                {num_input("Top-k", "tr-top-k", "1", "k", |s| s.top_k.to_string())}
                {num_input("Top-p", "tr-top-p", "0.05", "p", |s| s.top_p.to_string())}
                {num_input("Seed", "tr-seed", "1", "seed", |s| s.seed.to_string())}
            </div>
            // Which boxes the Translate view's search leaves unused (Compare's columns use both kinds).
            <p class="hint" data-testid="tr-idle-settings">{move || match settings.get().sample {
                true => "Sample is ticked: the beam width, length penalty, coverage and end penalty boxes do not apply here.",
                false => "Temperature, top-k, top-p and seed apply only when Sample is ticked (and to Compare's sample).",
            }}</p>
            {move || problem.get().map(|(_, e)| view! { <p class="error" role="alert" id=SETTINGS_ERROR data-testid="tr-settings-error">{capitalised(&e)}</p> })}
        </details>
    }
}

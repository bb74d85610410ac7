//! The wgslate web app (Leptos, client-side rendered).

mod app;
mod attention_heatmap;
mod attention_page;
mod bleu_comparison;
mod bleu_page;
mod browser;
mod compare_page;
mod device_measure;
mod download;
mod engine_client;
mod engine_jobs;
mod engine_worker;
mod eval_sweep;
mod figures;
mod file_translate;
mod gpu_engine;
mod language_hint;
mod language_picker;
mod measure_panel;
mod metrics_client;
mod metrics_job;
mod metrics_worker;
mod model_download;
mod models;
mod offline_models;
mod search_page;
mod search_tree;
mod settings;
mod translate_evaluation;
mod translate_examples;
mod translate_input;
mod translate_model;
mod translate_output;
mod translate_page;
mod translate_settings;
mod tsv;

fn main() {
    match metrics_worker::worker_name().as_deref() {
        // "engine", and its helpers "engine-2", "engine-3", … (src/engine_client.rs).
        Some(name) if name.starts_with("engine") => engine_worker::start(),
        Some(_) => metrics_worker::start(),
        None => {
            // index.html's "Loading wgslate…".
            if let Some(boot) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("boot")) {
                boot.remove();
            }
            leptos::mount::mount_to_body(app::App)
        }
    }
}

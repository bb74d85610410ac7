//! The wgslate web app (Leptos, client-side rendered).

mod app;
mod attention_page;
mod bleu_page;
mod browser;
mod compare_page;
mod file_translate;
mod gpu_engine;
mod metrics_client;
mod metrics_job;
mod metrics_worker;
mod models;
mod settings;
mod translate_page;

fn main() {
    if metrics_worker::in_worker() {
        metrics_worker::start();
        return;
    }
    leptos::mount::mount_to_body(app::App);
}

//! The wgslate web app (Leptos, client-side rendered).

mod app;
mod attention_page;
mod compare_page;
mod gpu_engine;
mod bleu_page;
mod browser;
mod models;
mod settings;
mod translate_page;

fn main() {
    leptos::mount::mount_to_body(app::App);
}

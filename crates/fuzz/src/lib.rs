//! A fuzz harness on stable Rust: seeded adversarial inputs for every text-path function (BLEU
//! tokenizers, BLEU, chrF, TER, the sentence splitter, the subword tokenizer) and the model loader,
//! run under `catch_unwind`. See `wgslate-fuzz --help`.

pub mod gen;
pub mod inputs;
pub mod mutate;
pub mod registry;
pub mod runner;
#[rustfmt::skip]
mod samples;
pub mod seeds;
pub mod targets;

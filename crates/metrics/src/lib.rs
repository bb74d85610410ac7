//! sacreBLEU-exact metrics (BLEU, chrF/chrF++, TER) and significance tests, in pure Rust.
//!
//! Every behaviour here mirrors sacreBLEU 2.6.0, including its quirks; the golden tests in
//! `tests/golden.rs` check scores to 1e-9 and counts exactly.

pub mod bleu;
pub mod chrf;
pub mod numpy;
pub mod pystr;
pub mod signature;
pub mod significance;
pub mod ter;
mod ter_edit;
mod ter_tokenizer;
pub mod tokenizers;
mod tokenizers_intl;

pub use bleu::{Bleu, BleuOptions, BleuScore, BleuStats, Smoothing};
pub use chrf::{Chrf, ChrfOptions};
pub use ter::{Ter, TerOptions};
pub use tokenizers::Tokenize;

pub const SACREBLEU_VERSION: &str = "2.6.0";

/// "1 line", "3 lines": a count in a message (`noun` takes an s in the plural). Shared by the CLI
/// and the page, whose messages about line counts must read alike.
pub fn plural(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

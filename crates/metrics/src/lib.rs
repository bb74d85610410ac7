//! sacreBLEU-exact metrics (BLEU, chrF/chrF++, TER), WER as jiwer, PER, METEOR as NLTK, and
//! significance tests, in pure Rust.
//!
//! Every behaviour here mirrors sacreBLEU 2.6.0, including its quirks; the golden tests in
//! `tests/golden.rs` check scores to 1e-9 and counts exactly.

pub mod bleu;
pub mod chrf;
pub mod compare;
pub mod meteor;
pub mod numpy;
pub mod per;
pub mod porter;
pub mod pystr;
pub mod signature;
pub mod significance;
pub mod snowball;
pub mod ter;
mod ter_edit;
mod ter_tokenizer;
pub mod tokenizers;
mod tokenizers_intl;
pub mod wer;
pub mod wordnet;

pub use bleu::{Bleu, BleuOptions, BleuScore, BleuStats, Smoothing};
pub use chrf::{Chrf, ChrfOptions};
pub use meteor::Meteor;
pub use ter::{Ter, TerOptions};
pub use tokenizers::Tokenize;
pub use wordnet::WordNet;

pub const SACREBLEU_VERSION: &str = "2.6.0";

/// "1 line", "3 lines": a count in a message (`noun` takes an s in the plural). Shared by the CLI
/// and the page, whose messages about line counts must read alike.
pub fn plural(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// Whether `bytes` look like UTF-16 without a byte order mark: one of the two byte positions mostly
/// zero and the other not (Latin text in UTF-16, which is also valid UTF-8). Judged on the first 4 KB.
pub fn utf16_without_bom(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    // With its byte order mark it is UTF-16 that `utf8_text` names.
    // Four bytes are two UTF-16 characters ("Hi" of a file "Hi\n"): text of two or more NULs.
    if head.len() < 4 || head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        return false;
    }
    let zeros = |parity: usize| head.iter().skip(parity).step_by(2).filter(|&&b| b == 0).count() as f64;
    let half = (head.len() / 2) as f64;
    let (even, odd) = (zeros(0) / half, zeros(1) / half);
    (even >= 0.4 && odd <= 0.05) || (odd >= 0.4 && even <= 0.05)
}

/// Why `name`, which `utf16_without_bom` judged so, is not read: its English would pass for UTF-8
/// with a NUL after every letter.
pub fn utf16_without_bom_message(name: &str) -> String {
    format!("{name} looks like UTF-16 text without a byte order mark (every other byte is zero); save it as UTF-8")
}

/// The text of file `name`, or why its bytes are not text we read, for the CLI and the page alike:
/// UTF-16 (what Windows Notepad saves as "Unicode") is named, since re-saving as UTF-8 is the fix.
pub fn utf8_text(name: &str, bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| match e.as_bytes() {
        [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..] => {
            format!("{name} is UTF-16 text (Windows calls it \"Unicode\"); save it as UTF-8 and open it again")
        }
        _ => format!("{name} is not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()),
    })
}

/// Corpus BLEU and chrF2 with sacreBLEU's default options against one reference stream: the
/// figures `wgslate eval` prints, for one search or each value of a sweep (CLI and page alike).
pub fn eval_scores(hyps: &[&str], refs: &[&str]) -> (BleuScore, f64) {
    let refs = [refs.to_vec()];
    let bleu = Bleu::new(BleuOptions::default()).corpus_score(hyps, &refs);
    (bleu, Chrf::new(ChrfOptions::default()).corpus_score(hyps, &refs))
}

//! TER on very long lines: prints the seconds and the score for one line of N tokens against one
//! reference, and for one line against four references.
//!
//!     cargo run --release -p wgslate-metrics --example ter_long -- [TOKENS] [TEXT_FILE] [OUT_DIR]
//!
//! With OUT_DIR it also writes ref.txt, hyp.txt (the first case) and ref1-4.txt, so the same lines
//! can be scored by `sacrebleu ref.txt -i hyp.txt -m ter` and `sacrebleu ref1.txt … -i ref.txt -m ter`.
//! The reference is the text file's words (default www/data/val.de) from the start until TOKENS; the
//! hypothesis is the same words with every 9th dropped, every 13th replaced and every 4-word phrase
//! at a multiple of 17 moved 8 words on, so the shift search has work everywhere.

use std::time::Instant;

use wgslate_metrics::{Ter, TerOptions};

fn hypothesis(reference: &[&str], variant: usize) -> Vec<String> {
    let mut words: Vec<String> = reference
        .iter()
        .enumerate()
        .filter(|(i, _)| !(i + variant).is_multiple_of(9))
        .map(|(i, w)| if (i + variant).is_multiple_of(13) { "xyz".to_string() } else { w.to_string() })
        .collect();
    let mut i = variant;
    while i + 12 < words.len() {
        let phrase: Vec<String> = words.drain(i..i + 4).collect();
        words.splice(i + 8..i + 8, phrase);
        i += 17;
    }
    words
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tokens: usize = args.first().map_or(3000, |t| t.parse().expect("TOKENS must be a number"));
    let path = args.get(1).map_or("www/data/val.de", String::as_str);
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let words: Vec<&str> = text.split_whitespace().take(tokens).collect();
    let reference = words.join(" ");
    let ter = Ter::new(TerOptions::default());

    let hyp = hypothesis(&words, 0).join(" ");
    let start = Instant::now();
    let (score, edits, ref_len) = ter.corpus_score(&[&hyp], &[vec![reference.as_str()]]);
    println!(
        "1 reference:  {} tokens, TER {score:.4} ({edits} edits / {ref_len}) in {:.2} s",
        words.len(),
        start.elapsed().as_secs_f64()
    );

    let refs: Vec<String> = (1..=4).map(|v| hypothesis(&words, v).join(" ")).collect();
    if let Some(dir) = args.get(2) {
        let write =
            |name: &str, line: &str| std::fs::write(format!("{dir}/{name}"), format!("{line}\n")).expect("write");
        write("ref.txt", &reference);
        write("hyp.txt", &hyp);
        refs.iter().enumerate().for_each(|(k, r)| write(&format!("ref{}.txt", k + 1), r));
    }
    let start = Instant::now();
    let (score, edits, ref_len) =
        ter.corpus_score(&[&reference], &refs.iter().map(|r| vec![r.as_str()]).collect::<Vec<_>>());
    println!(
        "4 references: {} tokens, TER {score:.4} ({edits} edits / {ref_len}) in {:.2} s",
        words.len(),
        start.elapsed().as_secs_f64()
    );
}

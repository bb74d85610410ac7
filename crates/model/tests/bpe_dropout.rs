//! BPE-dropout (`Vocab::with_bpe_dropout`), used by the trainer: each call segments anew, the pieces
//! are tokens of the same vocabulary and decode to the same text as the deterministic segmentation.

use std::path::Path;

use wgslate_model::config::UNK_ID;
use wgslate_model::Vocab;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn vocab_and_val() -> (Vocab, Vec<String>) {
    let vocab = Vocab::from_file(Path::new(&format!("{ROOT}/www/models/en-de/transformer/tokenizer.json"))).unwrap();
    let text = std::fs::read_to_string(format!("{ROOT}/www/data/val.de")).unwrap();
    (vocab, text.lines().take(300).map(str::to_string).collect())
}

#[test]
fn dropout_segments_differently_into_the_same_text() {
    let (vocab, lines) = vocab_and_val();
    let noisy = vocab.with_bpe_dropout(0.1).unwrap();
    let (mut plain_tokens, mut noisy_tokens, mut changed) = (0, 0, 0);
    for line in &lines {
        let plain = vocab.encode(line).unwrap();
        let once = noisy.encode(line).unwrap();
        let twice = noisy.encode(line).unwrap();
        assert_eq!(noisy.decode(&once), vocab.decode(&plain), "{line}");
        assert_eq!(once.iter().filter(|&&i| i == UNK_ID).count(), plain.iter().filter(|&&i| i == UNK_ID).count());
        changed += usize::from(once != plain) + usize::from(twice != once);
        plain_tokens += plain.len();
        noisy_tokens += once.len();
    }
    // Skipping merges only ever splits pieces: a longer segmentation, most sentences changed
    // (a cached or ignored dropout would change none).
    assert!(noisy_tokens > plain_tokens, "{noisy_tokens} tokens with dropout, {plain_tokens} without");
    assert!(changed > lines.len(), "only {changed} of {} segmentations changed", 2 * lines.len());
}

#[test]
fn zero_dropout_is_the_plain_segmentation_and_bad_rates_are_refused() {
    let (vocab, lines) = vocab_and_val();
    let zero = vocab.with_bpe_dropout(0.0).unwrap();
    for line in &lines {
        assert_eq!(zero.encode(line).unwrap(), vocab.encode(line).unwrap());
    }
    for bad in [-0.1, 1.0, f32::NAN] {
        let err = vocab.with_bpe_dropout(bad).err().expect("refused");
        assert!(err.contains("BPE dropout"), "{err}");
    }
}

//! Every shipped vocabulary decodes to one line: BPE learnt tokens holding the training files' line
//! ends ("▁street\n") and tabs, and sampling can draw them, which split a translation over two
//! lines of `wgslate translate`'s output (found on a GPU run: 2 of 1 000 samples).

use std::path::Path;

use wgslate_model::config::SPECIAL_TOKENS;
use wgslate_model::Vocab;

const MODELS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models");

fn shipped_vocabs() -> Vec<(String, Vocab)> {
    let mut out = vec![];
    for pair in std::fs::read_dir(MODELS).unwrap() {
        let pair = pair.unwrap().path();
        if !pair.is_dir() {
            continue;
        }
        for arch in std::fs::read_dir(&pair).unwrap() {
            let file = arch.unwrap().path().join("tokenizer.json");
            if file.exists() {
                out.push((file.display().to_string(), Vocab::from_file(Path::new(&file)).unwrap()));
            }
        }
    }
    assert!(out.len() >= 5, "found {} shipped tokenizers", out.len());
    out
}

fn is_one_line(text: &str) -> bool {
    !text.chars().any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}') && text.trim() == text
}

#[test]
fn every_token_decodes_to_one_line() {
    for (file, vocab) in shipped_vocabs() {
        let all: Vec<u32> = (SPECIAL_TOKENS.len() as u32..vocab.vocab_size() as u32).collect();
        let breaking: Vec<u32> =
            all.iter().copied().filter(|&i| vocab.inner.id_to_token(i).is_some_and(|t| t.contains('\n'))).collect();
        assert!(!breaking.is_empty(), "{file}: no token holds a line break, so this test proves nothing");
        for &id in &all {
            let text = vocab.decode(&[id]);
            assert!(is_one_line(&text), "{file}: token {id} decodes to {text:?}");
        }
        let text = vocab.decode(&breaking);
        assert!(is_one_line(&text) && !text.contains("  "), "{file}: {text:?}");
        assert!(vocab.token_strings(&breaking).iter().all(|t| !t.contains('\n')), "{file}");
    }
}

#[test]
fn a_line_break_inside_a_translation_becomes_one_space() {
    let (_, vocab) = shipped_vocabs().into_iter().find(|(f, _)| f.contains("en-de/transformer/")).unwrap();
    let id = |t: &str| vocab.inner.token_to_id(t).unwrap_or_else(|| panic!("{t} is not in the vocabulary"));
    let ids = [id("▁Ein"), id("▁street\n"), id("▁\n"), id("▁Mann"), id(".")];
    assert_eq!(vocab.decode(&ids), "Ein street Mann.");
    // Text without such tokens is unchanged (only trimmed), as before.
    assert_eq!(vocab.decode(&[id("▁Ein"), id("▁Mann"), id(".")]), "Ein Mann.");
}

#[test]
fn a_trained_vocabulary_has_no_line_break_tokens() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/data");
    let files = [format!("{data}/val.en"), format!("{data}/val.de")];
    let vocab = Vocab::train(&files, 2000).unwrap();
    let vocab_map = vocab.inner.get_vocab(true);
    let with_breaks: Vec<&String> = vocab_map.keys().filter(|t| t.chars().any(|c| c.is_control())).collect();
    assert!(with_breaks.is_empty(), "{with_breaks:?}");
    assert!(vocab.vocab_size() > 1000, "{}", vocab.vocab_size());
    let ids = vocab.encode("A man in a blue shirt.").unwrap();
    assert_eq!(vocab.decode(&ids), "A man in a blue shirt.");
}

#[test]
fn any_whitespace_between_words_encodes_as_one_space() {
    // Text pasted from web pages and spreadsheets: tabs, no-break spaces (U+00A0, U+202F), an
    // ideographic space, doubled spaces, a trailing line break. Without the rule a tab glued
    // "A\tdog" into unseen tokens and the model translated nonsense.
    for (file, vocab) in shipped_vocabs() {
        let plain = vocab.encode("A dog runs.").unwrap();
        for text in ["A\tdog\truns.", "A\u{a0}dog\u{202f}runs.", "  A  dog \u{3000} runs. \n"] {
            assert_eq!(vocab.encode(text).unwrap(), plain, "{file}: {text:?}");
        }
        assert_ne!(vocab.encode("A dogruns.").unwrap(), plain, "{file}: a test that cannot fail");
    }
}

//! One function per target: each runs the code under test on one input and must not panic
//! (errors are fine). The asserts are invariants that hold for every input.

use wgslate_metrics::{Bleu, BleuOptions, BleuScore, Chrf, Ter, Tokenize};
use wgslate_model::config::{EOS_ID, SPECIAL_TOKENS};
use wgslate_model::weights::{var_builder, CheckedWeights};
use wgslate_model::{language, sentences};
use wgslate_model::{GruConfig, Model, ModelConfig, Net, TransformerConfig};

use wgslate_decode::settings::{checked_number, Settings};

use crate::inputs::{BleuCase, ChrfCase, ConfigCase, ModelCase, SettingsCase, TerCase, VocabCase, WeightsCase};
use crate::seeds;

const SCORE_RANGE: std::ops::RangeInclusive<f64> = 0.0..=100.0 + 1e-9;

pub fn tokenize_13a(line: &str) {
    Tokenize::Thirteen.apply(line);
}

pub fn tokenize_intl(line: &str) {
    Tokenize::Intl.apply(line);
}

pub fn tokenize_zh(line: &str) {
    Tokenize::Zh.apply(line);
}

pub fn tokenize_char(line: &str) {
    let out = Tokenize::Char.apply(line);
    assert_eq!(out.chars().filter(|&c| c != ' ').count(), line.chars().filter(|&c| c != ' ').count());
}

pub fn tokenize_none(line: &str) {
    assert_eq!(Tokenize::None.apply(line), line);
}

fn check_bleu(score: &BleuScore) {
    assert!(SCORE_RANGE.contains(&score.score), "BLEU {} is not in [0, 100]", score.score);
    assert!((0.0..=1.0).contains(&score.bp), "BP {} is not in [0, 1]", score.bp);
    assert!(score.precisions.iter().all(|p| SCORE_RANGE.contains(p)), "precisions {:?}", score.precisions);
}

pub fn bleu_corpus(case: &BleuCase) {
    let (hyps, refs) = case.corpus.views();
    check_bleu(&Bleu::new(case.options.clone()).corpus_score(&hyps, &refs));
}

/// Sentence BLEU as the BLEU page's per-line table computes it, and its matched-n-gram highlighting.
pub fn bleu_sentence(case: &BleuCase) {
    let bleu = Bleu::new(BleuOptions { effective_order: true, ..case.options.clone() });
    let (hyp, refs) = (&case.corpus.hyps[0], case.corpus.line_refs(0));
    check_bleu(&bleu.compute(&bleu.segment_stats(hyp, &refs)));
    let (tokens, orders) = bleu.matched_orders(hyp, &refs);
    assert_eq!(tokens.len(), orders.len());
    assert!(orders.iter().all(|&o| o <= bleu.options.max_ngram_order), "orders {orders:?}");
}

pub fn chrf_corpus(case: &ChrfCase) {
    let (hyps, refs) = case.corpus.views();
    let score = Chrf::new(case.options.clone()).corpus_score(&hyps, &refs);
    assert!(SCORE_RANGE.contains(&score), "chrF {score} is not in [0, 100]");
}

pub fn chrf_sentence(case: &ChrfCase) {
    let chrf = Chrf::new(case.options.clone());
    let stats = chrf.segment_stats(&case.corpus.hyps[0], &case.corpus.line_refs(0));
    let score = chrf.f_score(&stats.iter().map(|&v| v as f64).collect::<Vec<_>>());
    assert!(SCORE_RANGE.contains(&score), "chrF {score} is not in [0, 100]");
}

fn check_ter(score: f64) {
    assert!(score.is_finite() && score >= 0.0, "TER {score} is not finite and ≥ 0");
}

pub fn ter_corpus(case: &TerCase) {
    let (hyps, refs) = case.corpus.views();
    check_ter(Ter::new(case.options).corpus_score(&hyps, &refs).0);
}

pub fn ter_sentence(case: &TerCase) {
    let ter = Ter::new(case.options);
    let [edits, ref_len] = ter.segment_stats(&case.corpus.hyps[0], &case.corpus.line_refs(0));
    check_ter(ter.compute(edits, ref_len));
}

pub fn split_sentences(text: &str) {
    let lines = sentences::split_sentences(text);
    assert_eq!(lines.len(), text.lines().count());
    for sentence in lines.iter().flatten() {
        assert!(!sentence.is_empty() && sentence.trim() == sentence, "sentence {sentence:?}");
    }
}

/// The language guess: any text, a language it scores highest or none; a file's guess is a majority.
pub fn language(text: &str) {
    let scores = language::scores(text);
    if let Some(code) = language::guess(text) {
        let best = scores.iter().map(|s| s.2).max().unwrap();
        assert!(scores.iter().any(|s| s.0 == code && s.2 == best && s.1 >= 1), "{code}: {scores:?}");
    }
    if let Some((code, n, with_text)) = language::of_lines(text.lines()) {
        assert!(2 * n > with_text && with_text <= text.lines().count(), "{code}: {n} of {with_text}");
    }
}

/// The shipped tokenizer: encode, decode and token display, on real and out-of-range ids.
pub fn vocab(case: &VocabCase) {
    let vocab = &seeds::get().vocab;
    if let Ok(ids) = vocab.encode(&case.text) {
        assert_eq!(ids.last(), Some(&EOS_ID));
        assert!(ids.iter().all(|&i| (i as usize) < vocab.vocab_size()), "ids {ids:?}");
        assert_one_line(&vocab.decode(&ids));
        assert_eq!(vocab.token_strings(&ids).len(), ids.len());
    }
    assert_one_line(&vocab.decode(&case.ids));
    vocab.token_strings(&case.ids);
}

/// A translation is one line of the CLI's output and of the page, whatever tokens were drawn.
fn assert_one_line(text: &str) {
    assert!(!text.chars().any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}'), "decoded {text:?}");
}

pub fn safetensors(case: &WeightsCase) {
    let Ok(weights) = CheckedWeights::parse(&case.bytes.0) else {
        return;
    };
    for name in weights.names() {
        let (shape, data) = weights.tensor(&name).expect("a listed tensor");
        let elements = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
        assert_eq!(elements, Some(data.len()), "tensor {name} of shape {shape:?}");
    }
    weights.unused();
}

/// Parses and validates a config.json, then builds both shipped nets from it (a config equal to a
/// shipped one up to dropout was built when the seeds were checked, so it is not built again).
pub fn model_config(case: &ConfigCase) {
    let Ok(config) = serde_json::from_slice::<ModelConfig>(&case.json.0) else {
        return;
    };
    if config.validate().is_err() {
        return;
    }
    for (shipped, weights) in &seeds::get().shipped_weights {
        if !same_up_to_dropout(&config, shipped) {
            let _ = Net::new(&config, var_builder(weights));
        }
    }
}

fn same_up_to_dropout(a: &ModelConfig, b: &ModelConfig) -> bool {
    let without = |c: &ModelConfig| match c.clone() {
        ModelConfig::Transformer(t) => ModelConfig::Transformer(TransformerConfig { dropout: 0.0, ..t }),
        ModelConfig::Gru(g) => ModelConfig::Gru(GruConfig { dropout: 0.0, ..g }),
    };
    without(a) == without(b)
}

/// `Model::from_bytes`, the web page's loader, on three files of which some are mutated.
pub fn model_load(case: &ModelCase) {
    if let Ok(model) = Model::from_bytes(&case.config.0, &case.weights.0, &case.tokenizer.0) {
        assert_eq!(model.vocab.vocab_size(), model.config.vocab_size());
        assert!(model.vocab.vocab_size() > SPECIAL_TOKENS.len());
    }
}

/// The page's URL settings: whatever the link holds, the settings stay inside their ranges and
/// survive a round trip through the URL.
pub fn settings(case: &SettingsCase) {
    let (s, _, _) = Settings::from_pairs(case.pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    for (k, v) in s.to_pairs() {
        if k != "model" && k != "lpk" && k != "sample" {
            checked_number(k, &v)
                .unwrap_or_else(|e| panic!("{k}={v} was accepted but is refused on the way back: {e}"));
        }
    }
    let pairs = s.to_pairs();
    let (again, _, problems) = Settings::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())));
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(again, s);
    let _ = s.search();
}

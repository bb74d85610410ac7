//! Every target with the generator of its inputs.

use crate::gen::Rng;
use crate::inputs::{BleuCase, ChrfCase, ConfigCase, ModelCase, SettingsCase, TerCase, VocabCase, WeightsCase, TEXT};
use crate::runner::{check, Failure, Target};
use crate::{seeds, targets};

type RunOne = fn(&mut Rng) -> Result<(), Failure>;

/// A target that needs nothing loaded.
const fn plain(name: &'static str, run_one: RunOne) -> Target {
    Target { name, setup: || {}, run_one }
}

/// A target that uses the model seed files, loaded before it is timed.
const fn with_seeds(name: &'static str, run_one: RunOne) -> Target {
    Target { name, setup: || _ = seeds::get(), run_one }
}

/// Corpus-level cases have 1 to this many lines.
const CORPUS_LINES: usize = 4;

pub const TARGETS: &[Target] = &[
    plain("tokenize_13a", |rng| check(TEXT.line(rng), targets::tokenize_13a)),
    plain("tokenize_intl", |rng| check(TEXT.line(rng), targets::tokenize_intl)),
    plain("tokenize_zh", |rng| check(TEXT.line(rng), targets::tokenize_zh)),
    plain("tokenize_char", |rng| check(TEXT.line(rng), targets::tokenize_char)),
    plain("tokenize_none", |rng| check(TEXT.line(rng), targets::tokenize_none)),
    plain("bleu_corpus", |rng| check(BleuCase::generate(rng, CORPUS_LINES), targets::bleu_corpus)),
    plain("bleu_sentence", |rng| check(BleuCase::generate(rng, 1), targets::bleu_sentence)),
    plain("chrf_corpus", |rng| check(ChrfCase::generate(rng, CORPUS_LINES), targets::chrf_corpus)),
    plain("chrf_sentence", |rng| check(ChrfCase::generate(rng, 1), targets::chrf_sentence)),
    plain("ter_corpus", |rng| check(TerCase::generate(rng, CORPUS_LINES), targets::ter_corpus)),
    plain("ter_sentence", |rng| check(TerCase::generate(rng, 1), targets::ter_sentence)),
    plain("split_sentences", |rng| check(TEXT.text(rng), targets::split_sentences)),
    plain("language", |rng| check(TEXT.text(rng), targets::language)),
    plain("settings", |rng| check(SettingsCase::generate(rng), targets::settings)),
    with_seeds("vocab", |rng| check(VocabCase::generate(rng), targets::vocab)),
    with_seeds("safetensors", |rng| check(WeightsCase::generate(rng), targets::safetensors)),
    with_seeds("model_config", |rng| check(ConfigCase::generate(rng), targets::model_config)),
    with_seeds("model_load", |rng| check(ModelCase::generate(rng), targets::model_load)),
];

pub fn find(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

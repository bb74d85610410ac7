//! Helpers shared by the trainer's integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use candle_core::{DType, Device};
use candle_nn::{VarBuilder, VarMap};
use wgslate_model::{ModelConfig, Net, TransformerConfig};
use wgslate_train::adam::Adam;
use wgslate_train::data::Pair;
use wgslate_train::run::{Schedule, TrainArgs};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// A Transformer small enough for a test to train in a blink.
pub fn tiny_transformer(dropout: f32) -> ModelConfig {
    ModelConfig::Transformer(TransformerConfig {
        vocab_size: 40,
        d_model: 16,
        n_heads: 2,
        d_ff: 32,
        encoder_layers: 1,
        decoder_layers: 1,
        max_len: 32,
        dropout,
    })
}

pub fn build(config: &ModelConfig) -> (Net, Adam) {
    let varmap = VarMap::new();
    let net = Net::new(config, VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu)).unwrap();
    let adam = Adam::for_varmap(&varmap).unwrap();
    (net, adam)
}

pub fn pairs(n: usize) -> Vec<Pair> {
    (0..n)
        .map(|i| {
            let (ls, lt) = (2 + i % 7, 2 + (i * 5) % 9);
            let src = (0..ls).map(|j| 4 + ((i * 11 + j * 3) % 30) as u32).chain([2]).collect();
            let tgt = (0..lt).map(|j| 4 + ((i * 13 + j * 7) % 30) as u32).chain([2]).collect();
            Pair { src, tgt }
        })
        .collect()
}

/// A two-epoch run of a tiny Transformer on the first 48 lines of the shipped val files, in its own
/// fresh directory under the test target dir.
pub fn run_args(name: &str, bpe_dropout: f32, rdrop: f32) -> TrainArgs {
    let run_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&run_dir);
    std::fs::create_dir_all(&run_dir).unwrap();
    std::fs::copy(format!("{ROOT}/www/models/en-de/transformer/tokenizer.json"), run_dir.join("tokenizer.json"))
        .unwrap();
    // The first `n` lines of a shipped val file, as the run's file `name`.
    let head = |name: &str, val_file: &str, n: usize| {
        let path = run_dir.join(name);
        let text = std::fs::read_to_string(format!("{ROOT}/www/data/{val_file}")).unwrap();
        std::fs::write(&path, text.lines().take(n).collect::<Vec<_>>().join("\n")).unwrap();
        path.display().to_string()
    };
    TrainArgs {
        direction: wgslate_model::config::Direction { source: "en".into(), target: "de".into() },
        direction_given: true,
        config: ModelConfig::Transformer(TransformerConfig {
            vocab_size: 0,
            d_model: 16,
            n_heads: 2,
            d_ff: 32,
            encoder_layers: 1,
            decoder_layers: 1,
            max_len: 64,
            dropout: 0.1,
        }),
        train_src: head("train.en", "val.en", 48),
        train_tgt: head("train.de", "val.de", 48),
        val_src: head("val.en", "val.en", 4),
        val_tgt: head("val.de", "val.de", 4),
        out_dir: run_dir.join("best"),
        run_dir,
        resume: true,
        init: None,
        epochs: 2,
        minutes: 60.0,
        max_tokens: 400,
        lr: 1e-3,
        warmup: 10,
        clip: 1.0,
        seed: 1,
        checkpoint_minutes: 60.0,
        schedule: Schedule::Linear,
        val_bleu_sentences: 0,
        split: 1,
        bpe_dropout,
        rdrop,
    }
}

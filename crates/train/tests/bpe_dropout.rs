//! `--bpe-dropout`: a run segments its training pairs anew each epoch and still trains, exports
//! each epoch and resumes; a rate outside [0, 1) is refused before any work.

use std::path::PathBuf;

use wgslate_model::{ModelConfig, TransformerConfig};
use wgslate_train::run::{train, Schedule, TrainArgs};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn args(name: &str, bpe_dropout: f32) -> TrainArgs {
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
    }
}

#[test]
fn a_run_with_bpe_dropout_trains_exports_and_resumes() {
    let a = args("bpe-dropout-run", 0.1);
    let run_dir = a.run_dir.clone();
    train(a).unwrap();
    let progress = std::fs::read_to_string(run_dir.join("progress.json")).unwrap();
    let history = serde_json::from_str::<serde_json::Value>(&progress).unwrap()["history"].clone();
    assert_eq!(history.as_array().map(Vec::len), Some(2), "{progress}");
    assert!(wgslate_train::average::epoch_dir(&run_dir, 2).join("model.safetensors").exists());
    // A third epoch on top of the checkpoint, segmented anew again.
    let mut more = args("bpe-dropout-run-more", 0.1);
    for file in ["state.safetensors", "progress.json", "config.json"] {
        std::fs::copy(run_dir.join(file), more.run_dir.join(file)).unwrap();
    }
    more.epochs = 3;
    let more_dir = more.run_dir.clone();
    train(more).unwrap();
    let progress = std::fs::read_to_string(more_dir.join("progress.json")).unwrap();
    let history = serde_json::from_str::<serde_json::Value>(&progress).unwrap()["history"].clone();
    assert_eq!(history.as_array().map(Vec::len), Some(3), "{progress}");
}

#[test]
fn a_bad_rate_is_refused_before_training() {
    for bad in [1.0, -0.5, f32::NAN] {
        let a = args(&format!("bpe-dropout-bad-{bad}"), bad);
        let err = format!("{:#}", train(a).expect_err("refused"));
        assert!(err.contains("BPE dropout"), "{err}");
    }
}

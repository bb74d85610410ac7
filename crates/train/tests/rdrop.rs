//! R-Drop (`--rdrop`): without dropout the two passes agree, so the objective is the plain loss with
//! the same gradients; a run with it trains and exports; a bad weight is refused. (The symmetric KL's
//! values and gradients are checked in `crates/model/tests/ops.rs`.)

mod common;

use common::{build, pairs};
use wgslate_model::{ModelConfig, TransformerConfig};
use wgslate_train::data::make_batches;
use wgslate_train::parallel::loss_and_grads;
use wgslate_train::run::train;
use wgslate_train::Objective;

#[test]
fn without_dropout_r_drop_is_the_plain_loss_with_its_gradients() {
    let data = pairs(11);
    let batch = make_batches(&data, 100_000).remove(0);
    let config = ModelConfig::Transformer(TransformerConfig {
        vocab_size: 40,
        d_model: 16,
        n_heads: 2,
        d_ff: 32,
        encoder_layers: 1,
        decoder_layers: 1,
        max_len: 32,
        dropout: 0.0,
    });
    let (net, adam) = build(&config);
    let plain = Objective::smoothed(0.1);
    let rdrop = Objective { rdrop: 5.0, ..plain };
    let (l0, _, g0) = loss_and_grads(&net, &data, &batch, 1, &adam.params, true, plain).unwrap();
    let (l1, _, g1) = loss_and_grads(&net, &data, &batch, 2, &adam.params, true, rdrop).unwrap();
    assert!((l0 - l1).abs() < 1e-5 * l0, "loss {l0} vs {l1}");
    for (((name, _), a), b) in adam.params.iter().zip(&g0).zip(&g1) {
        let (a, b) = (a.as_ref().unwrap(), b.as_ref().unwrap());
        let scale = a.abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
        let diff = (a - b).unwrap().abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
        assert!(scale > 0.0 && diff <= 1e-4 * scale, "{name} differs by {diff} (scale {scale})");
    }
}

#[test]
fn a_run_with_r_drop_trains_and_exports_each_epoch() {
    let a = common::run_args("rdrop-run", 0.0, 5.0);
    let run_dir = a.run_dir.clone();
    train(a).unwrap();
    let progress = std::fs::read_to_string(run_dir.join("progress.json")).unwrap();
    let history = serde_json::from_str::<serde_json::Value>(&progress).unwrap()["history"].clone();
    assert_eq!(history.as_array().map(Vec::len), Some(2), "{progress}");
    assert!(wgslate_train::average::epoch_dir(&run_dir, 2).join("model.safetensors").exists());
}

#[test]
fn a_bad_r_drop_weight_is_refused_before_training() {
    for bad in [-1.0, f32::NAN, f32::INFINITY] {
        let a = common::run_args(&format!("rdrop-bad-{bad}"), 0.0, bad);
        let run_dir = a.run_dir.clone();
        let err = format!("{:#}", train(a).expect_err("refused"));
        assert!(err.contains("R-Drop weight"), "{err}");
        assert!(!run_dir.join("progress.json").exists());
    }
}

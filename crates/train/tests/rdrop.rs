//! R-Drop (`--rdrop`): the objective combines the two passes' cross-entropies and symmetric KL with
//! the stated weights; two training passes draw different dropout masks (else the KL would always be
//! 0); without dropout it is the plain loss with the same gradients; a run with it trains and exports;
//! a bad weight, or R-Drop on a model without dropout, is refused. (The symmetric KL's values and
//! gradients are checked in `crates/model/tests/ops.rs`.)

mod common;

use candle_core::{Device, Tensor};
use common::{build, pairs, tiny_transformer};
use wgslate_model::ops::{smoothed_cross_entropy, symmetric_kl};
use wgslate_train::data::{make_batches, to_batch};
use wgslate_train::parallel::loss_and_grads;
use wgslate_train::run::train;
use wgslate_train::{logits, per_token_objective, Objective};

fn values(t: &Tensor) -> Vec<f32> {
    t.to_vec1::<f32>().unwrap()
}

#[test]
fn the_objective_weighs_both_cross_entropies_and_the_kl_as_stated() {
    let (rows, vocab) = (4, 9);
    let make = |k: usize| {
        let v: Vec<f32> = (0..rows * vocab).map(|i| ((i * 7 + k * 5) % 13) as f32 / 3.0 - 2.0).collect();
        Tensor::from_vec(v, (rows, vocab), &Device::Cpu).unwrap()
    };
    let (a, b) = (make(1), make(2));
    let targets = Tensor::new(&[0u32, 3, 8, 5], &Device::Cpu).unwrap();
    let objective = Objective { smoothing: 0.1, rdrop: 5.0 };
    let (ce_a, ce_b) =
        (smoothed_cross_entropy(&a, &targets, 0.1).unwrap(), smoothed_cross_entropy(&b, &targets, 0.1).unwrap());
    let kl = values(&symmetric_kl(&a, &b).unwrap());
    let got = values(&per_token_objective(&a, Some(&b), &targets, objective).unwrap());
    for (i, ((x, y), k)) in values(&ce_a).into_iter().zip(values(&ce_b)).zip(kl).enumerate() {
        let want = 0.5 * (x + y) + 5.0 / 4.0 * k;
        assert!(k > 0.01 && (got[i] - want).abs() < 1e-5 * want, "row {i}: {} vs {want}", got[i]);
    }
    let alone = values(&per_token_objective(&a, None, &targets, objective).unwrap());
    assert_eq!(alone, values(&ce_a), "one pass: the cross-entropy alone");
}

#[test]
fn two_training_passes_draw_different_dropout_masks() {
    let data = pairs(11);
    let rows = make_batches(&data, 100_000).remove(0);
    let batch = to_batch(&data, &rows).unwrap();
    let (net, _) = build(&tiny_transformer(0.3));
    let (first, second) = (logits(&net, &batch, true).unwrap(), logits(&net, &batch, true).unwrap());
    let kl = symmetric_kl(&first, &second).unwrap().mean_all().unwrap().to_scalar::<f32>().unwrap();
    assert!(kl > 1e-4, "mean symmetric KL between the passes {kl}");
    let (e1, e2) = (logits(&net, &batch, false).unwrap(), logits(&net, &batch, false).unwrap());
    assert_eq!(symmetric_kl(&e1, &e2).unwrap().sum_all().unwrap().to_scalar::<f32>().unwrap(), 0.0);
}

#[test]
fn without_dropout_r_drop_is_the_plain_loss_with_its_gradients() {
    let data = pairs(11);
    let batch = make_batches(&data, 100_000).remove(0);
    let (net, adam) = build(&tiny_transformer(0.0));
    let plain = Objective::cross_entropy(0.1);
    let rdrop = Objective { rdrop: 5.0, ..plain };
    let (l0, _, g0) = loss_and_grads(&net, &data, &batch, 1, &adam.params, true, plain).unwrap();
    let (l1, _, g1) = loss_and_grads(&net, &data, &batch, 1, &adam.params, true, rdrop).unwrap();
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
    let epochs = history.as_array().unwrap();
    assert_eq!(epochs.len(), 2, "{progress}");
    for e in epochs {
        for key in ["train_loss", "val_loss"] {
            assert!(e[key].as_f64().is_some_and(f64::is_finite), "{key} in {e}");
        }
    }
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
    let mut a = common::run_args("rdrop-no-dropout", 0.0, 5.0);
    a.config = tiny_transformer(0.0);
    let err = format!("{:#}", train(a).expect_err("refused"));
    assert!(err.contains("dropout is 0"), "{err}");
}

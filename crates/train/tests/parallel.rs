//! Splitting a batch across worker threads gives the whole batch's loss and gradients.

mod common;

use common::{build, pairs, tiny_transformer};
use wgslate_model::{AttentionScore, GruConfig, ModelConfig, TransformerConfig};
use wgslate_train::data::make_batches;
use wgslate_train::parallel::{loss_and_grads, split_rows};
use wgslate_train::Objective;

#[test]
fn split_rows_covers_every_row_once_in_near_equal_runs() {
    let idx: Vec<usize> = (100..107).collect();
    let parts = split_rows(&idx, 3);
    assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), vec![3, 2, 2]);
    assert_eq!(parts.concat(), idx);
    assert_eq!(split_rows(&idx[..2], 4).len(), 2, "never more parts than rows");
    assert_eq!(split_rows(&idx, 0).len(), 1);
}

#[test]
fn split_batches_give_the_same_loss_and_gradients() {
    let data = pairs(23);
    let batch = make_batches(&data, 100_000).remove(0);
    assert_eq!(batch.len(), 23);
    let configs = [
        ModelConfig::Transformer(TransformerConfig {
            vocab_size: 40,
            d_model: 16,
            n_heads: 2,
            d_ff: 32,
            encoder_layers: 2,
            decoder_layers: 2,
            max_len: 32,
            dropout: 0.1,
        }),
        ModelConfig::Gru(GruConfig {
            vocab_size: 40,
            emb_dim: 16,
            encoder_hidden: 12,
            decoder_hidden: 24,
            attention_dim: 10,
            score: AttentionScore::Additive,
            max_len: 32,
            dropout: 0.1,
        }),
    ];
    for config in configs {
        let (net, adam) = build(&config);
        // train = false: no dropout, so both ways compute the same function.
        let (loss1, tokens1, grads1) =
            loss_and_grads(&net, &data, &batch, 1, &adam.params, false, Objective::cross_entropy(0.1)).unwrap();
        let (loss3, tokens3, grads3) =
            loss_and_grads(&net, &data, &batch, 3, &adam.params, false, Objective::cross_entropy(0.1)).unwrap();
        assert_eq!(tokens1, tokens3);
        assert_eq!(tokens1, data.iter().map(|p| p.tgt.len()).sum::<usize>());
        assert!((loss1 - loss3).abs() < 1e-5 * loss1, "{}: loss {loss1} vs {loss3}", config.arch_name());
        for (((name, _), g1), g3) in adam.params.iter().zip(&grads1).zip(&grads3) {
            let (g1, g3) = (g1.as_ref().unwrap(), g3.as_ref().unwrap());
            let scale = g1.abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
            let diff = (g1 - g3).unwrap().abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
            assert!(
                scale > 0.0 && diff <= 1e-4 * scale,
                "{}: {name} differs by {diff} (scale {scale})",
                config.arch_name()
            );
        }
    }
}

#[test]
fn adam_gives_the_same_update_on_any_number_of_threads() {
    let data = pairs(9);
    let batch = make_batches(&data, 100_000).remove(0);
    let config = tiny_transformer(0.0);
    let mut finals: Vec<Vec<candle_core::Tensor>> = Vec::new();
    for workers in [1, 3] {
        let (net, mut adam) = build(&config);
        if let Some(first) = finals.first() {
            // Same starting point for both runs.
            for ((_, p), t) in adam.params.iter().zip(first) {
                p.set(t).unwrap();
            }
        } else {
            finals.push(adam.params.iter().map(|(_, p)| p.as_tensor().copy().unwrap()).collect());
        }
        for _ in 0..3 {
            let (_, _, grads) =
                loss_and_grads(&net, &data, &batch, 1, &adam.params, false, Objective::cross_entropy(0.1)).unwrap();
            adam.update(&grads, 1e-2, 1.0, workers).unwrap();
        }
        finals.push(adam.params.iter().map(|(_, p)| p.as_tensor().copy().unwrap()).collect());
    }
    let (one, three) = (&finals[1], &finals[2]);
    let flat = |t: &candle_core::Tensor| t.flatten_all().unwrap().to_vec1::<f32>().unwrap();
    assert_ne!(flat(&finals[0][0]), flat(&one[0]), "the update changed the weights");
    for (a, b) in one.iter().zip(three) {
        let diff = (a - b).unwrap().abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
        assert_eq!(diff, 0.0);
    }
}

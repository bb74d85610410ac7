//! The trainer really learns: every parameter gets a gradient, and a tiny model overfits 50 pairs.

use candle_core::{DType, Device};
use candle_nn::{VarBuilder, VarMap};
use wgslate_model::{AttentionScore, GruConfig, ModelConfig, Net, TransformerConfig};
use wgslate_train::adam::Adam;
use wgslate_train::data::{make_batches, to_batch, Pair};

fn tiny_transformer() -> ModelConfig {
    ModelConfig::Transformer(TransformerConfig {
        vocab_size: 40,
        d_model: 16,
        n_heads: 2,
        d_ff: 32,
        encoder_layers: 2,
        decoder_layers: 2,
        max_len: 32,
        dropout: 0.0,
    })
}

fn tiny_gru(score: AttentionScore) -> ModelConfig {
    ModelConfig::Gru(GruConfig {
        vocab_size: 40,
        emb_dim: 16,
        encoder_hidden: 12,
        decoder_hidden: 24,
        attention_dim: 10,
        score,
        max_len: 32,
        dropout: 0.0,
    })
}

/// Deterministic toy pairs: the target is the source reversed with every token shifted by one.
fn toy_pairs(n: usize) -> Vec<Pair> {
    (0..n)
        .map(|i| {
            let len = 3 + i % 5;
            let src: Vec<u32> = (0..len).map(|j| 4 + ((i * 7 + j * 3) % 30) as u32).collect();
            let mut tgt: Vec<u32> = src.iter().rev().map(|t| 4 + (t - 4 + 1) % 30).collect();
            let mut s = src.clone();
            s.push(2);
            tgt.push(2);
            Pair { src: s, tgt }
        })
        .collect()
}

fn build(config: &ModelConfig) -> (VarMap, Net) {
    let varmap = VarMap::new();
    let net = Net::new(config, VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu)).unwrap();
    (varmap, net)
}

#[test]
fn every_parameter_receives_a_nonzero_gradient() {
    let pairs = toy_pairs(8);
    let batch = to_batch(&pairs, &(0..8).collect::<Vec<_>>()).unwrap();
    for config in [
        tiny_transformer(),
        tiny_gru(AttentionScore::Additive),
        tiny_gru(AttentionScore::Dot),
        tiny_gru(AttentionScore::General),
    ] {
        let (varmap, net) = build(&config);
        let loss = wgslate_train::loss(&net, &batch, true, wgslate_train::Objective::cross_entropy(0.1)).unwrap();
        let grads = loss.backward().unwrap();
        let vars = varmap.data().lock().unwrap();
        assert!(!vars.is_empty());
        for (name, var) in vars.iter() {
            let g =
                grads.get(var.as_tensor()).unwrap_or_else(|| panic!("{}: no gradient for {name}", config.arch_name()));
            let norm = g.sqr().unwrap().sum_all().unwrap().to_scalar::<f32>().unwrap();
            assert!(norm > 0.0 && norm.is_finite(), "{}: gradient of {name} has norm {norm}", config.arch_name());
        }
    }
}

/// Trains until the loss on the batch is below 0.1, checking every 25 steps, for at most 1 500 steps. Here the
/// Transformer gets there in 50 steps and the GRU in 75–100; a CI run once left the GRU at 1.08 after a fixed 300, so
/// the margin is for unlucky initialisations (they are not seeded), which sit on a plateau before they fit.
#[test]
fn tiny_models_overfit_fifty_pairs() {
    let pairs = toy_pairs(50);
    let batches = make_batches(&pairs, 10_000);
    let batch = to_batch(&pairs, &batches[0]).unwrap();
    let eval = |net: &Net| {
        wgslate_train::loss(net, &batch, false, wgslate_train::Objective::cross_entropy(0.0))
            .unwrap()
            .to_scalar::<f32>()
            .unwrap()
    };
    for config in [tiny_transformer(), tiny_gru(AttentionScore::Additive)] {
        let (varmap, net) = build(&config);
        let mut adam = Adam::for_varmap(&varmap).unwrap();
        let first = eval(&net);
        let mut last = first;
        for step in 1..=1_500 {
            let loss = wgslate_train::loss(&net, &batch, true, wgslate_train::Objective::cross_entropy(0.0)).unwrap();
            let grads = wgslate_train::parallel::collect(&adam.params, &loss.backward().unwrap());
            adam.update(&grads, 1e-2, 1.0, 1).unwrap();
            if step % 25 == 0 {
                last = eval(&net);
                if last < 0.1 {
                    break;
                }
            }
        }
        assert!(last < 0.1, "{}: loss went from {first} to {last} in 1 500 steps, expected < 0.1", config.arch_name());
    }
}

//! The candle reference: weight files are checked, and stepping with the cache gives the same
//! log-probabilities as the teacher-forced forward pass, for both architectures.

use std::collections::HashMap;

use candle_core::{DType, Device, Tensor};
use candle_nn::{VarBuilder, VarMap};
use wgslate_decode::StepModel;
use wgslate_model::step::{pad_batch, CpuStepper};
use wgslate_model::weights::to_f16_safetensors;
use wgslate_model::*;

fn tiny_configs() -> Vec<ModelConfig> {
    let t = ModelConfig::Transformer(TransformerConfig {
        vocab_size: 50,
        d_model: 16,
        n_heads: 2,
        d_ff: 24,
        encoder_layers: 2,
        decoder_layers: 2,
        max_len: 40,
        dropout: 0.1,
    });
    let g = |score| {
        ModelConfig::Gru(GruConfig {
            vocab_size: 50,
            emb_dim: 12,
            encoder_hidden: 8,
            decoder_hidden: 16,
            attention_dim: 10,
            score,
            max_len: 40,
            dropout: 0.1,
        })
    };
    vec![t, g(AttentionScore::Additive), g(AttentionScore::Dot), g(AttentionScore::General)]
}

fn random_net(config: &ModelConfig) -> (VarMap, Net) {
    let varmap = VarMap::new();
    let net = Net::new(config, VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu)).unwrap();
    (varmap, net)
}

#[test]
fn stepping_equals_teacher_forcing() {
    let sources = vec![vec![5u32, 9, 13, 2], vec![7, 8, 2]];
    let targets = [vec![1u32, 11, 12, 14, 15], vec![1, 20, 21, 22, 23]];
    for config in tiny_configs() {
        let (_, net) = random_net(&config);
        let (src, mask) = pad_batch(&sources).unwrap();
        let tgt = Tensor::from_vec([targets[0].clone(), targets[1].clone()].concat(), (2, 5), &Device::Cpu).unwrap();
        let logits = match &net {
            Net::Transformer(m) => m.decode_train(&m.encode(&src, &mask, false).unwrap(), &mask, &tgt, false).unwrap(),
            Net::Gru(m) => m.decode_train(&m.encode(&src, &mask, false).unwrap(), &tgt, false).unwrap(),
        };
        let forced = wgslate_model::ops::log_softmax_last_dim(&logits).unwrap().to_vec3::<f32>().unwrap();
        let mut stepper = CpuStepper::new(&net, &config);
        stepper.start(&sources).unwrap();
        for t in 0..5 {
            let out = stepper.step(&[targets[0][t], targets[1][t]], true).unwrap();
            for b in 0..2 {
                let row = &out.log_probs[b * 50..(b + 1) * 50];
                for v in 0..50 {
                    assert!((row[v] - forced[b][t][v]).abs() < 1e-4, "{}: step {t} row {b}", config.arch_name());
                }
                let att = &out.attention.as_ref().unwrap()[b];
                assert_eq!(att.len(), sources[b].len());
                assert!((att.iter().sum::<f32>() - 1.0).abs() < 1e-4, "attention sums to 1");
            }
        }
    }
}

fn files(config: &ModelConfig, varmap: &VarMap) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let tensors: Vec<(String, Tensor)> =
        varmap.data().lock().unwrap().iter().map(|(k, v)| (k.clone(), v.as_tensor().clone())).collect();
    let weights = to_f16_safetensors(&tensors).unwrap();
    let mut vocab: HashMap<String, u32> = HashMap::new();
    for (i, t) in ["<pad>", "<s>", "</s>", "<unk>"].iter().enumerate() {
        vocab.insert(t.to_string(), i as u32);
    }
    for i in 4..config.vocab_size() {
        vocab.insert(format!("▁w{i}"), i as u32);
    }
    let tokenizer = serde_json::json!({
        "version": "1.0", "truncation": null, "padding": null,
        "added_tokens": [], "normalizer": null, "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true},
        "post_processor": null, "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true},
        "model": {"type": "BPE", "dropout": null, "unk_token": "<unk>", "continuing_subword_prefix": null, "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false, "vocab": vocab, "merges": []}
    });
    (serde_json::to_vec(config).unwrap(), weights, serde_json::to_vec(&tokenizer).unwrap())
}

#[test]
fn weights_round_trip_through_f16_safetensors() {
    for config in tiny_configs() {
        let (varmap, _) = random_net(&config);
        let (c, w, t) = files(&config, &varmap);
        let model = Model::from_bytes(&c, &w, &t).unwrap_or_else(|e| panic!("{}: {e}", config.arch_name()));
        assert_eq!(model.config, config);
    }
}

fn err(c: &[u8], w: &[u8], t: &[u8]) -> String {
    match Model::from_bytes(c, w, t) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

#[test]
fn bad_files_get_clear_errors() {
    let config = &tiny_configs()[0];
    let (varmap, _) = random_net(config);
    let (c, w, t) = files(config, &varmap);
    assert!(err(&c, &w[..w.len() / 2], &t).contains("truncated"));
    assert!(err(&c, b"not a model", &t).contains("safetensors"));
    assert!(err(b"{\"arch\": \"lstm\"}", &w, &t).contains("config.json"));
    assert!(err(&c, &w, b"{}").contains("tokenizer.json"));
    // A config that does not match the file: a different width.
    let mut other = config.clone();
    if let ModelConfig::Transformer(tc) = &mut other {
        tc.d_ff = 32;
    }
    assert!(err(&serde_json::to_vec(&other).unwrap(), &w, &t).contains("shape"));
    // Fewer layers than the file holds: unused tensors are reported.
    if let ModelConfig::Transformer(tc) = &mut other {
        tc.d_ff = 24;
        tc.decoder_layers = 1;
    }
    assert!(err(&serde_json::to_vec(&other).unwrap(), &w, &t).contains("does not use"));
    // A missing tensor and an f32 file.
    let mut tensors: Vec<(String, Tensor)> =
        varmap.data().lock().unwrap().iter().map(|(k, v)| (k.clone(), v.as_tensor().clone())).collect();
    tensors.retain(|(k, _)| k != "encoder_norm.weight");
    assert!(err(&c, &to_f16_safetensors(&tensors).unwrap(), &t).contains("no tensor encoder_norm.weight"));
    let f32_map: HashMap<String, Tensor> =
        varmap.data().lock().unwrap().iter().map(|(k, v)| (k.clone(), v.as_tensor().clone())).collect();
    let path = std::env::temp_dir().join(format!("wgslate-f32-{}.safetensors", std::process::id()));
    candle_core::safetensors::save(&f32_map, &path).unwrap();
    assert!(err(&c, &std::fs::read(&path).unwrap(), &t).contains("F16"));
}

/// `file` with the first f16 value of tensor `name` set to NaN (0x7e00).
fn with_nan(file: &[u8], name: &str) -> Vec<u8> {
    let header_len = u64::from_le_bytes(file[..8].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&file[8..8 + header_len]).unwrap();
    let start = header[name]["data_offsets"][0].as_u64().unwrap() as usize;
    let mut out = file.to_vec();
    out[8 + header_len + start..][..2].copy_from_slice(&half::f16::NAN.to_le_bytes());
    out
}

#[test]
fn weights_that_are_not_finite_are_a_damaged_file() {
    let config = &tiny_configs()[0];
    let (varmap, _) = random_net(config);
    let (c, w, t) = files(config, &varmap);
    let e = err(&c, &with_nan(&w, "encoder_norm.weight"), &t);
    assert!(e.contains("tensor encoder_norm.weight holds 1 values that are not finite (NaN or ∞)"), "{e}");
    // An int8 file whose scale is NaN: every value of that row would be.
    let tensors: Vec<(String, Tensor)> =
        varmap.data().lock().unwrap().iter().map(|(k, v)| (k.clone(), v.as_tensor().clone())).collect();
    let int8 =
        wgslate_model::weights::to_safetensors(&tensors, quant::WeightFormat::Int8 { block: quant::PER_ROW }).unwrap();
    Model::from_bytes(&c, &int8, &t).unwrap();
    let header_len = u64::from_le_bytes(int8[..8].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&int8[8..8 + header_len]).unwrap();
    let scale = header.as_object().unwrap().keys().find(|k| k.ends_with(quant::SCALE_SUFFIX)).unwrap().clone();
    let e = err(&c, &with_nan(&int8, &scale), &t);
    assert!(e.contains("not finite (NaN or ∞): the file is damaged"), "{e}");
}

#[test]
fn attention_maps_cover_every_output_token() {
    for config in tiny_configs() {
        let (_, net) = random_net(&config);
        let model = Model {
            config: config.clone(),
            net,
            vocab: Vocab::from_bytes(&files(&config, &random_net(&config).0).2).unwrap(),
            weight_format: wgslate_model::quant::WeightFormat::F16,
            direction: None,
        };
        let maps = wgslate_model::attention::attention_maps(&model, &[5, 6, 7, 2], &[9, 10]).unwrap();
        let (layers, heads) = match &config {
            ModelConfig::Transformer(t) => (t.decoder_layers, t.n_heads),
            ModelConfig::Gru(_) => (1, 1),
        };
        assert_eq!(maps.cross.len(), layers);
        assert_eq!(maps.cross[0].len(), heads);
        assert_eq!(maps.cross[0][0].len(), 3, "two tokens and EOS");
        for row in &maps.cross[layers - 1][heads - 1] {
            assert_eq!(row.len(), 4);
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        }
        if let ModelConfig::Transformer(t) = &config {
            assert_eq!(maps.encoder_self.len(), t.encoder_layers);
            assert_eq!(maps.encoder_self[0][0].len(), 4);
            assert_eq!(maps.decoder_self.len(), t.decoder_layers);
            let rows = &maps.decoder_self[t.decoder_layers - 1][0];
            assert_eq!(rows.len(), 3, "one row per output token (EOS included)");
            for (i, row) in rows.iter().enumerate() {
                assert_eq!(row.len(), 3, "over BOS and the two output tokens");
                assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-4);
                assert!(row[i + 1..].iter().all(|&w| w == 0.0), "row {i} attends to a later input");
            }
        } else {
            assert!(maps.decoder_self.is_empty());
        }
    }
}

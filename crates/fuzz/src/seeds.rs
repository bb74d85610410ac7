//! Seed files for the loader targets, built once: the shipped en-de models, miniature models of
//! every architecture (small enough to load in well under a millisecond) and small files cut from
//! the shipped weights.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use wgslate_model::candle_core::{DType, Device, Tensor};
use wgslate_model::candle_nn::{VarBuilder, VarMap};
use wgslate_model::quant::{self, WeightFormat};
use wgslate_model::weights::{to_f16_safetensors, to_safetensors, CheckedWeights};
use wgslate_model::{AttentionScore, GruConfig, Model, ModelConfig, Net, TransformerConfig, Vocab};

const MODELS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models/en-de");
const MINI_VOCAB: usize = 40;

/// The three files of a model, as the web page fetches them.
pub struct ModelFiles {
    pub name: &'static str,
    pub config: Vec<u8>,
    pub weights: Vec<u8>,
    pub tokenizer: Vec<u8>,
}

impl ModelFiles {
    /// Where the safetensors JSON header ends (8-byte length + header).
    pub fn header_end(&self) -> usize {
        let len = u64::from_le_bytes(self.weights[..8].try_into().unwrap());
        8 + len as usize
    }
}

pub struct Seeds {
    pub shipped: Vec<ModelFiles>,
    pub mini: Vec<ModelFiles>,
    /// The shipped weights parsed once, with their configs: the config target builds nets from them.
    pub shipped_weights: Vec<(ModelConfig, Arc<CheckedWeights>)>,
    /// Safetensors files holding a few small tensors of the shipped weights (real names and values).
    pub small_weights: Vec<Vec<u8>>,
    /// The shipped en-de tokenizer.
    pub vocab: Vocab,
}

pub fn get() -> &'static Seeds {
    static SEEDS: OnceLock<Seeds> = OnceLock::new();
    SEEDS.get_or_init(build)
}

fn read(arch: &str, file: &str) -> Vec<u8> {
    let path = format!("{MODELS_DIR}/{arch}/{file}");
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read seed {path}: {e}"))
}

fn build() -> Seeds {
    let shipped: Vec<ModelFiles> = ["transformer", "gru"]
        .into_iter()
        .map(|name| ModelFiles {
            name,
            config: read(name, "config.json"),
            weights: read(name, "model.safetensors"),
            tokenizer: read(name, "tokenizer.json"),
        })
        .collect();
    let mini: Vec<ModelFiles> = mini_configs().into_iter().map(|(name, c)| mini_model(name, &c)).collect();
    for files in shipped.iter().chain(&mini) {
        let loaded = Model::from_bytes(&files.config, &files.weights, &files.tokenizer);
        loaded.unwrap_or_else(|e| panic!("seed model {} does not load: {e}", files.name));
    }
    let shipped_weights: Vec<(ModelConfig, Arc<CheckedWeights>)> = shipped
        .iter()
        .map(|f| {
            let config = serde_json::from_slice(&f.config).expect("shipped config.json");
            (config, Arc::new(CheckedWeights::parse(&f.weights).expect("shipped model.safetensors")))
        })
        .collect();
    let mut small_weights: Vec<Vec<u8>> = shipped_weights.iter().flat_map(|(_, w)| small_files(w)).collect();
    // The mini models' weights as int8 (one scale per row and per 4 values): matrices small enough
    // for the mutator to reach the scale checks.
    for files in &mini {
        let weights = CheckedWeights::parse(&files.weights).expect("mini safetensors");
        let tensors: Vec<(String, Tensor)> = weights
            .names()
            .into_iter()
            .map(|n| {
                let (shape, data) = weights.tensor(&n).expect("listed");
                (n, Tensor::from_slice(data, shape, &Device::Cpu).expect("mini tensor"))
            })
            .collect();
        for format in [WeightFormat::Int8 { block: quant::PER_ROW }, WeightFormat::Int8 { block: 4 }] {
            small_weights.push(to_safetensors(&tensors, format).expect("mini int8 safetensors"));
        }
    }
    let vocab = Vocab::from_bytes(&shipped[0].tokenizer).expect("shipped tokenizer.json");
    Seeds { shipped, mini, shipped_weights, small_weights, vocab }
}

fn mini_configs() -> Vec<(&'static str, ModelConfig)> {
    let transformer = TransformerConfig {
        vocab_size: MINI_VOCAB,
        d_model: 8,
        n_heads: 2,
        d_ff: 12,
        encoder_layers: 2,
        decoder_layers: 1,
        max_len: 32,
        dropout: 0.1,
    };
    let gru = |score| GruConfig {
        vocab_size: MINI_VOCAB,
        emb_dim: 6,
        encoder_hidden: 4,
        decoder_hidden: 8,
        attention_dim: 5,
        score,
        max_len: 32,
        dropout: 0.1,
    };
    vec![
        ("mini-transformer", ModelConfig::Transformer(transformer)),
        ("mini-gru-additive", ModelConfig::Gru(gru(AttentionScore::Additive))),
        ("mini-gru-dot", ModelConfig::Gru(gru(AttentionScore::Dot))),
        ("mini-gru-general", ModelConfig::Gru(gru(AttentionScore::General))),
    ]
}

/// Random weights for `config`, with a word-level tokenizer of the same vocabulary size.
fn mini_model(name: &'static str, config: &ModelConfig) -> ModelFiles {
    let varmap = VarMap::new();
    Net::new(config, VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu)).expect("mini net");
    let tensors: Vec<(String, Tensor)> =
        varmap.data().lock().unwrap().iter().map(|(k, v)| (k.clone(), v.as_tensor().clone())).collect();
    let mut vocab: HashMap<String, u32> = HashMap::new();
    for (i, t) in ["<pad>", "<s>", "</s>", "<unk>"].iter().enumerate() {
        vocab.insert(t.to_string(), i as u32);
    }
    for i in 4..config.vocab_size() {
        vocab.insert(format!("▁w{i}"), i as u32);
    }
    let metaspace =
        serde_json::json!({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true});
    let tokenizer = serde_json::json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": [], "normalizer": {"type": "NFC"},
        "pre_tokenizer": metaspace, "post_processor": null, "decoder": metaspace,
        "model": {"type": "BPE", "dropout": null, "unk_token": "<unk>", "continuing_subword_prefix": null,
            "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
            "vocab": vocab, "merges": []}
    });
    ModelFiles {
        name,
        config: serde_json::to_vec_pretty(config).unwrap(),
        weights: to_f16_safetensors(&tensors).expect("mini safetensors"),
        tokenizer: serde_json::to_vec(&tokenizer).unwrap(),
    }
}

/// A few files of up to eight small tensors each, cut from shipped weights.
fn small_files(weights: &CheckedWeights) -> Vec<Vec<u8>> {
    let small: Vec<(String, Tensor)> = weights
        .names()
        .into_iter()
        .filter_map(|name| {
            let (shape, data) = weights.tensor(&name)?;
            let tensor = Tensor::from_slice(data, shape, &Device::Cpu).ok()?;
            (data.len() <= 1024).then_some((name, tensor))
        })
        .collect();
    small.chunks(8).take(4).map(|chunk| to_f16_safetensors(chunk).expect("small safetensors")).collect()
}

//! wgslate models: configs, weights, tokenizer and the candle reference forward pass.

pub mod attention;
pub mod catalog;
pub mod config;
pub mod gru;
pub mod language;
pub mod layers;
pub mod ops;
pub mod quant;
pub mod rerank;
pub mod sentences;
pub mod step;
pub mod threads;
pub mod tokenizer;
pub mod transformer;
pub mod translate;
pub mod weights;

use std::path::Path;
use std::sync::Arc;

use candle_nn::VarBuilder;

pub use candle_core;
pub use candle_nn;
pub use config::{AttentionScore, GruConfig, ModelConfig, TransformerConfig};
pub use tokenizer::Vocab;

/// The network of either architecture.
pub enum Net {
    Transformer(transformer::Transformer),
    Gru(gru::GruModel),
}

impl Net {
    pub fn new(config: &ModelConfig, vb: VarBuilder) -> candle_core::Result<Self> {
        Ok(match config {
            ModelConfig::Transformer(c) => Net::Transformer(transformer::Transformer::new(c, vb)?),
            ModelConfig::Gru(c) => Net::Gru(gru::GruModel::new(c, vb)?),
        })
    }
}

/// A shipped model: config, network and tokenizer.
pub struct Model {
    pub config: ModelConfig,
    pub net: Net,
    pub vocab: Vocab,
    /// What model.safetensors held (int8 is dequantised at load).
    pub weight_format: quant::WeightFormat,
    /// The languages config.json says it translates, if it says.
    pub direction: Option<config::Direction>,
}

impl Model {
    /// Builds from the three files' bytes, with a clear message for any mismatch.
    pub fn from_bytes(config_json: &[u8], weights: &[u8], tokenizer_json: &[u8]) -> Result<Self, String> {
        let config: ModelConfig = serde_json::from_slice(config_json).map_err(|e| format!("config.json: {e}"))?;
        config.validate().map_err(|e| format!("config.json: {e}"))?;
        let direction = config::Direction::of_config(config_json)?;
        let vocab = Vocab::from_bytes(tokenizer_json)?;
        if vocab.vocab_size() != config.vocab_size() {
            return Err(format!(
                "tokenizer.json has {} tokens but config.json says vocab_size {}",
                vocab.vocab_size(),
                config.vocab_size()
            ));
        }
        let checked = Arc::new(weights::CheckedWeights::parse(weights)?);
        let net = Net::new(&config, weights::var_builder(&checked)).map_err(|e| e.to_string())?;
        let unused = checked.unused();
        if !unused.is_empty() {
            return Err(format!("model.safetensors has tensors the config does not use: {}", unused.join(", ")));
        }
        Ok(Self { config, net, vocab, weight_format: checked.format(), direction })
    }

    pub fn from_dir(dir: &Path) -> Result<Self, String> {
        let read = |name: &str| {
            std::fs::read(dir.join(name)).map_err(|e| format!("cannot read {}: {e}", dir.join(name).display()))
        };
        Self::from_bytes(&read("config.json")?, &read("model.safetensors")?, &read("tokenizer.json")?)
    }
}

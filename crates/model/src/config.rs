//! Model shapes: the one source of truth, stored as `config.json` next to the weights.

use serde::{Deserialize, Serialize};

pub const PAD_ID: u32 = 0;
pub const BOS_ID: u32 = 1;
pub const EOS_ID: u32 = 2;
pub const UNK_ID: u32 = 3;
pub const SPECIAL_TOKENS: [&str; 4] = ["<pad>", "<s>", "</s>", "<unk>"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "arch", rename_all = "lowercase")]
pub enum ModelConfig {
    Transformer(TransformerConfig),
    Gru(GruConfig),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransformerConfig {
    pub vocab_size: usize,
    pub d_model: usize,
    pub n_heads: usize,
    pub d_ff: usize,
    pub encoder_layers: usize,
    pub decoder_layers: usize,
    /// Longest sequence (tokens incl. BOS/EOS) the position table covers.
    pub max_len: usize,
    /// Training only: a config.json written for inference may leave it out (0).
    #[serde(default)]
    pub dropout: f32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AttentionScore {
    /// Bahdanau: vᵀ tanh(W s + U h).
    Additive,
    /// Luong dot: sᵀ h (needs decoder_hidden = 2 · encoder_hidden).
    Dot,
    /// Luong general: sᵀ W h.
    General,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GruConfig {
    pub vocab_size: usize,
    pub emb_dim: usize,
    /// Hidden size of each encoder direction; encoder states are 2 × this.
    pub encoder_hidden: usize,
    pub decoder_hidden: usize,
    pub attention_dim: usize,
    pub score: AttentionScore,
    pub max_len: usize,
    /// Training only: a config.json written for inference may leave it out (0).
    #[serde(default)]
    pub dropout: f32,
}

impl TransformerConfig {
    pub fn head_dim(&self) -> usize {
        self.d_model / self.n_heads
    }
}

impl ModelConfig {
    pub fn vocab_size(&self) -> usize {
        match self {
            ModelConfig::Transformer(c) => c.vocab_size,
            ModelConfig::Gru(c) => c.vocab_size,
        }
    }
    pub fn max_len(&self) -> usize {
        match self {
            ModelConfig::Transformer(c) => c.max_len,
            ModelConfig::Gru(c) => c.max_len,
        }
    }
    pub fn dropout(&self) -> f32 {
        match self {
            ModelConfig::Transformer(c) => c.dropout,
            ModelConfig::Gru(c) => c.dropout,
        }
    }
    pub fn arch_name(&self) -> &'static str {
        match self {
            ModelConfig::Transformer(_) => "transformer",
            ModelConfig::Gru(_) => "gru",
        }
    }

    /// Checks the shapes make sense, so a bad config.json gets a message instead of a panic.
    pub fn validate(&self) -> Result<(), String> {
        // Far above any model here; the bounds keep products such as max_len × d_model in range.
        const MAX_DIM: usize = 1 << 16;
        const MAX_LEN: usize = 4096;
        const MAX_LAYERS: usize = 64;
        let positive = |name: &str, v: usize| match v {
            0 => Err(format!("{name} must be > 0")),
            v if v > MAX_DIM => Err(format!("{name} {v} is too large (at most {MAX_DIM})")),
            _ => Ok(()),
        };
        if self.max_len() > MAX_LEN {
            return Err(format!("max_len {} is too large (at most {MAX_LEN})", self.max_len()));
        }
        match self {
            ModelConfig::Transformer(c) => {
                for (n, v) in [
                    ("vocab_size", c.vocab_size),
                    ("d_model", c.d_model),
                    ("n_heads", c.n_heads),
                    ("d_ff", c.d_ff),
                    ("max_len", c.max_len),
                ] {
                    positive(n, v)?;
                }
                if c.encoder_layers > MAX_LAYERS || c.decoder_layers > MAX_LAYERS {
                    return Err(format!("at most {MAX_LAYERS} layers per stack"));
                }
                if c.d_model % c.n_heads != 0 {
                    return Err(format!("d_model {} is not divisible by n_heads {}", c.d_model, c.n_heads));
                }
            }
            ModelConfig::Gru(c) => {
                for (n, v) in [
                    ("vocab_size", c.vocab_size),
                    ("emb_dim", c.emb_dim),
                    ("encoder_hidden", c.encoder_hidden),
                    ("decoder_hidden", c.decoder_hidden),
                    ("attention_dim", c.attention_dim),
                    ("max_len", c.max_len),
                ] {
                    positive(n, v)?;
                }
                if c.score == AttentionScore::Dot && c.decoder_hidden != 2 * c.encoder_hidden {
                    return Err("dot attention needs decoder_hidden = 2 × encoder_hidden".into());
                }
            }
        }
        if self.vocab_size() <= SPECIAL_TOKENS.len() {
            return Err("vocab_size is too small".into());
        }
        Ok(())
    }
}

/// The languages a model translates, recorded in config.json beside its shape (`"source": "en",
/// "target": "de"`). The trainer writes them; a config.json without them records no direction (the
/// CLI then knows it only from the models' index, as before).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Direction {
    pub source: String,
    pub target: String,
}

impl Direction {
    /// "en-de", as the index names a pair.
    pub fn pair(&self) -> String {
        format!("{}-{}", self.source, self.target)
    }

    /// Two different language codes ("en", "de"), or why not.
    pub fn new(source: &str, target: &str) -> Result<Direction, String> {
        let code = |c: &str| (2..=3).contains(&c.len()) && c.bytes().all(|b| b.is_ascii_lowercase());
        match code(source) && code(target) && source != target {
            true => Ok(Direction { source: source.into(), target: target.into() }),
            false => Err(format!(
                "the source and target languages are two different language codes such as \"en\" and \"de\", not {source:?} and {target:?}"
            )),
        }
    }

    /// The direction config.json records, if any.
    pub fn of_config(config_json: &[u8]) -> Result<Option<Direction>, String> {
        #[derive(Deserialize)]
        struct Fields {
            source: Option<String>,
            target: Option<String>,
        }
        let f: Fields = serde_json::from_slice(config_json).map_err(|e| format!("config.json: {e}"))?;
        let direction = match (f.source, f.target) {
            (None, None) => return Ok(None),
            (Some(source), Some(target)) => Direction::new(&source, &target),
            _ => Err("only one of \"source\" and \"target\" is given".into()),
        };
        direction.map(Some).map_err(|e| format!("config.json: {e}"))
    }

    /// config.json's text: the direction first, then the shape.
    pub fn config_json(&self, config: &ModelConfig) -> String {
        let shape = serde_json::to_string_pretty(config).expect("a config serialises");
        let string = |s: &str| serde_json::to_string(s).expect("a string serialises");
        format!(
            "{{\n  \"source\": {},\n  \"target\": {},\n{}",
            string(&self.source),
            string(&self.target),
            shape.strip_prefix("{\n").expect("a JSON object")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_direction_is_written_and_read_back_and_a_broken_one_refused() {
        let config = ModelConfig::Gru(GruConfig {
            vocab_size: 100,
            emb_dim: 8,
            encoder_hidden: 8,
            decoder_hidden: 16,
            attention_dim: 8,
            score: AttentionScore::Additive,
            max_len: 32,
            dropout: 0.1,
        });
        let d = Direction::new("de", "en").unwrap();
        let json = d.config_json(&config);
        assert_eq!(Direction::of_config(json.as_bytes()), Ok(Some(d.clone())));
        assert_eq!(serde_json::from_str::<ModelConfig>(&json).unwrap(), config);
        assert_eq!(Direction::of_config(serde_json::to_string(&config).unwrap().as_bytes()), Ok(None));
        let refused = [
            (r#"{"source": "en"}"#, "only one of"),
            (r#"{"source": "en", "target": "en"}"#, "two different language codes"),
            (r#"{"source": "EN", "target": "de"}"#, "two different language codes"),
        ];
        for (bad, why) in refused {
            let e = Direction::of_config(bad.as_bytes()).unwrap_err();
            assert!(e.starts_with("config.json") && e.contains(why), "{bad}: {e}");
        }
        assert!(Direction::of_config(br#"{"source": 3, "target": "de"}"#).is_err());
    }

    #[test]
    fn dropout_may_be_left_out_and_is_then_zero() {
        let json = r#"{"arch": "transformer", "vocab_size": 100, "d_model": 8, "n_heads": 2, "d_ff": 16,
            "encoder_layers": 1, "decoder_layers": 1, "max_len": 32}"#;
        assert_eq!(serde_json::from_str::<ModelConfig>(json).unwrap().dropout(), 0.0);
    }
}

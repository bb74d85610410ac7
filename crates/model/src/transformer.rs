//! Transformer encoder-decoder (Vaswani et al. 2017), pre-norm.
//!
//! Pre-norm (LayerNorm before each sub-layer, one final LayerNorm per stack) trains stably without a
//! long warm-up on a small corpus, which matters when the whole training budget is a few CPU hours.
//! Decoder input and output embeddings are tied over one joint vocabulary.

use candle_core::{Module, Result, Tensor, D};
use candle_nn::VarBuilder;

use crate::config::TransformerConfig;
use crate::layers::{self, dropout, LayerNorm, Linear};
use crate::ops;

struct Attention {
    q: Linear,
    kv: Linear,
    o: Linear,
    heads: usize,
}

/// Splits (B, T, d) into heads: (B, h, T, d/h).
fn split_heads(x: &Tensor, heads: usize) -> Result<Tensor> {
    let (b, t, d) = x.dims3()?;
    x.reshape((b, t, heads, d / heads))?.transpose(1, 2)?.contiguous()
}

fn merge_heads(x: &Tensor) -> Result<Tensor> {
    let (b, h, t, dk) = x.dims4()?;
    x.transpose(1, 2)?.contiguous()?.reshape((b, t, h * dk))
}

/// softmax(q kᵀ / √dk + bias) v, per head. Returns the output and the attention probabilities.
fn scaled_dot_product(q: &Tensor, k: &Tensor, v: &Tensor, bias: Option<&Tensor>) -> Result<(Tensor, Tensor)> {
    let scale = 1.0 / (q.dim(D::Minus1)? as f64).sqrt();
    let mut scores = (q.matmul(&k.t()?.contiguous()?)? * scale)?;
    if let Some(bias) = bias {
        scores = scores.broadcast_add(bias)?;
    }
    let probs = ops::softmax_last_dim(&scores)?;
    Ok((probs.matmul(v)?, probs))
}

impl Attention {
    fn new(d: usize, heads: usize, vb: VarBuilder) -> Result<Self> {
        Ok(Self {
            q: Linear::new(d, d, true, vb.pp("q"))?,
            kv: Linear::new(d, 2 * d, true, vb.pp("kv"))?,
            o: Linear::new(d, d, true, vb.pp("o"))?,
            heads,
        })
    }

    /// Projects keys and values once: (B, S, d) → two (B, h, S, dk).
    fn keys_values(&self, x: &Tensor) -> Result<(Tensor, Tensor)> {
        let kv = self.kv.forward(x)?;
        let d = kv.dim(D::Minus1)? / 2;
        Ok((
            split_heads(&kv.narrow(D::Minus1, 0, d)?, self.heads)?,
            split_heads(&kv.narrow(D::Minus1, d, d)?, self.heads)?,
        ))
    }

    fn attend(&self, x: &Tensor, k: &Tensor, v: &Tensor, bias: Option<&Tensor>) -> Result<(Tensor, Tensor)> {
        let q = split_heads(&self.q.forward(x)?, self.heads)?;
        let (out, probs) = scaled_dot_product(&q, k, v, bias)?;
        Ok((self.o.forward(&merge_heads(&out)?)?, probs))
    }
}

struct FeedForward {
    up: Linear,
    down: Linear,
}

impl FeedForward {
    fn forward(&self, x: &Tensor, p: f32, train: bool) -> Result<Tensor> {
        let h = dropout(&self.up.forward(x)?.relu()?, p, train)?;
        self.down.forward(&h)
    }
}

struct EncoderLayer {
    norm1: LayerNorm,
    attn: Attention,
    norm2: LayerNorm,
    ffn: FeedForward,
}

struct DecoderLayer {
    norm1: LayerNorm,
    self_attn: Attention,
    norm2: LayerNorm,
    cross_attn: Attention,
    norm3: LayerNorm,
    ffn: FeedForward,
}

pub struct Transformer {
    pub cfg: TransformerConfig,
    embed: Tensor,
    /// The embeddings transposed (d, V) for the output projection, made once for loaded weights
    /// (see `Linear::from_weights`).
    embed_t: Option<Tensor>,
    positions: Tensor,
    encoder: Vec<EncoderLayer>,
    encoder_norm: LayerNorm,
    decoder: Vec<DecoderLayer>,
    decoder_norm: LayerNorm,
}

/// Decoder state for incremental decoding, one row per hypothesis.
#[derive(Clone)]
pub struct TransformerState {
    /// (rows, 1, 1, S) additive padding bias over the source.
    src_bias: Tensor,
    /// Per decoder layer: cross-attention K and V, (rows, h, S, dk), computed once.
    cross: Vec<(Tensor, Tensor)>,
    /// Per decoder layer: self-attention K and V of the tokens so far, (rows, h, t, dk).
    past: Vec<Option<(Tensor, Tensor)>>,
    pub position: usize,
}

impl TransformerState {
    pub fn select(&self, rows: &Tensor) -> Result<Self> {
        let pick = |t: &Tensor| t.index_select(rows, 0);
        Ok(Self {
            src_bias: pick(&self.src_bias)?,
            cross: self.cross.iter().map(|(k, v)| Ok((pick(k)?, pick(v)?))).collect::<Result<_>>()?,
            past: self
                .past
                .iter()
                .map(|p| p.as_ref().map(|(k, v)| Ok((pick(k)?, pick(v)?))).transpose())
                .collect::<Result<_>>()?,
            position: self.position,
        })
    }
}

fn ffn(cfg: &TransformerConfig, vb: VarBuilder) -> Result<FeedForward> {
    Ok(FeedForward {
        up: Linear::new(cfg.d_model, cfg.d_ff, true, vb.pp("ffn.up"))?,
        down: Linear::new(cfg.d_ff, cfg.d_model, true, vb.pp("ffn.down"))?,
    })
}

impl Transformer {
    pub fn new(cfg: &TransformerConfig, vb: VarBuilder) -> Result<Self> {
        let d = cfg.d_model;
        let encoder = (0..cfg.encoder_layers)
            .map(|i| {
                let vb = vb.pp(format!("encoder.{i}"));
                Ok(EncoderLayer {
                    norm1: LayerNorm::new(d, vb.pp("norm1"))?,
                    attn: Attention::new(d, cfg.n_heads, vb.pp("self_attn"))?,
                    norm2: LayerNorm::new(d, vb.pp("norm2"))?,
                    ffn: ffn(cfg, vb.clone())?,
                })
            })
            .collect::<Result<_>>()?;
        let decoder = (0..cfg.decoder_layers)
            .map(|i| {
                let vb = vb.pp(format!("decoder.{i}"));
                Ok(DecoderLayer {
                    norm1: LayerNorm::new(d, vb.pp("norm1"))?,
                    self_attn: Attention::new(d, cfg.n_heads, vb.pp("self_attn"))?,
                    norm2: LayerNorm::new(d, vb.pp("norm2"))?,
                    cross_attn: Attention::new(d, cfg.n_heads, vb.pp("cross_attn"))?,
                    norm3: LayerNorm::new(d, vb.pp("norm3"))?,
                    ffn: ffn(cfg, vb.clone())?,
                })
            })
            .collect::<Result<_>>()?;
        let embed = layers::embedding_table(cfg.vocab_size, d, vb.pp("embed"))?;
        let embed_t = if embed.is_variable() { None } else { Some(layers::transposed_copy(&embed)?) };
        Ok(Self {
            cfg: cfg.clone(),
            embed,
            embed_t,
            positions: layers::sinusoids(cfg.max_len, d, vb.device())?,
            encoder,
            encoder_norm: LayerNorm::new(d, vb.pp("encoder_norm"))?,
            decoder,
            decoder_norm: LayerNorm::new(d, vb.pp("decoder_norm"))?,
        })
    }

    fn embed_tokens(&self, tokens: &Tensor, offset: usize, train: bool) -> Result<Tensor> {
        let t = tokens.dim(1)?;
        let x = (layers::lookup(&self.embed, tokens)? * (self.cfg.d_model as f64).sqrt())?;
        let x = x.broadcast_add(&self.positions.narrow(0, offset, t)?)?;
        dropout(&x, self.cfg.dropout, train)
    }

    /// src: (B, S) u32 ids; src_mask: (B, S) f32 1 for tokens, 0 for padding → memory (B, S, d).
    pub fn encode(&self, src: &Tensor, src_mask: &Tensor, train: bool) -> Result<Tensor> {
        Ok(self.encode_with_attention(src, src_mask, train, false)?.0)
    }

    /// Also returns each encoder layer's self-attention (B, h, S, S) when `capture` is set.
    pub fn encode_with_attention(
        &self,
        src: &Tensor,
        src_mask: &Tensor,
        train: bool,
        capture: bool,
    ) -> Result<(Tensor, Vec<Tensor>)> {
        let p = self.cfg.dropout;
        let (b, s) = src.dims2()?;
        let bias = layers::padding_bias(src_mask)?.reshape((b, 1, 1, s))?;
        let mut x = self.embed_tokens(src, 0, train)?;
        let mut maps = Vec::new();
        for layer in &self.encoder {
            let h = layer.norm1.forward(&x)?;
            let (k, v) = layer.attn.keys_values(&h)?;
            let (a, probs) = layer.attn.attend(&h, &k, &v, Some(&bias))?;
            if capture {
                maps.push(probs);
            }
            x = (x + dropout(&a, p, train)?)?;
            x = (&x + dropout(&layer.ffn.forward(&layer.norm2.forward(&x)?, p, train)?, p, train)?)?;
        }
        Ok((self.encoder_norm.forward(&x)?, maps))
    }

    /// Teacher-forced decoder: tgt_in (B, T) → logits (B, T, V).
    pub fn decode_train(&self, memory: &Tensor, src_mask: &Tensor, tgt_in: &Tensor, train: bool) -> Result<Tensor> {
        Ok(self.decode_with_attention(memory, src_mask, tgt_in, train, false)?.0)
    }

    /// The teacher-forced decoder, also returning each decoder layer's (causal) self-attention
    /// (B, h, T, T) when `capture` is set.
    pub fn decode_with_attention(
        &self,
        memory: &Tensor,
        src_mask: &Tensor,
        tgt_in: &Tensor,
        train: bool,
        capture: bool,
    ) -> Result<(Tensor, Vec<Tensor>)> {
        let p = self.cfg.dropout;
        let (b, s) = src_mask.dims2()?;
        let t = tgt_in.dim(1)?;
        let src_bias = layers::padding_bias(src_mask)?.reshape((b, 1, 1, s))?;
        let causal = layers::causal_bias(t, memory.device())?;
        let mut x = self.embed_tokens(tgt_in, 0, train)?;
        let mut maps = Vec::new();
        for layer in &self.decoder {
            let h = layer.norm1.forward(&x)?;
            let (k, v) = layer.self_attn.keys_values(&h)?;
            let (a, probs) = layer.self_attn.attend(&h, &k, &v, Some(&causal))?;
            if capture {
                maps.push(probs);
            }
            x = (&x + dropout(&a, p, train)?)?;
            let h = layer.norm2.forward(&x)?;
            let (k, v) = layer.cross_attn.keys_values(memory)?;
            x = (&x + dropout(&layer.cross_attn.attend(&h, &k, &v, Some(&src_bias))?.0, p, train)?)?;
            x = (&x + dropout(&layer.ffn.forward(&layer.norm3.forward(&x)?, p, train)?, p, train)?)?;
        }
        Ok((self.logits(&self.decoder_norm.forward(&x)?)?, maps))
    }

    fn logits(&self, x: &Tensor) -> Result<Tensor> {
        let dims = x.dims().to_vec();
        let d = *dims.last().unwrap();
        let rows = x.elem_count() / d;
        let mut out = dims.clone();
        *out.last_mut().unwrap() = self.cfg.vocab_size;
        let embed_t = match &self.embed_t {
            Some(t) => t.clone(),
            None => self.embed.t()?,
        };
        x.reshape((rows, d))?.matmul(&embed_t)?.reshape(out)
    }

    pub fn start(&self, memory: &Tensor, src_mask: &Tensor) -> Result<TransformerState> {
        let (b, s) = src_mask.dims2()?;
        let cross = self.decoder.iter().map(|l| l.cross_attn.keys_values(memory)).collect::<Result<_>>()?;
        Ok(TransformerState {
            src_bias: layers::padding_bias(src_mask)?.reshape((b, 1, 1, s))?,
            cross,
            past: vec![None; self.decoder.len()],
            position: 0,
        })
    }

    /// One decoder step: tokens (rows) → log-probs (rows, V) and cross-attention (rows, layers, h, S).
    pub fn step(&self, state: &mut TransformerState, tokens: &Tensor) -> Result<(Tensor, Tensor)> {
        let rows = tokens.dim(0)?;
        if state.position >= self.cfg.max_len {
            candle_core::bail!("output longer than the model's max_len {}", self.cfg.max_len);
        }
        let mut x = self.embed_tokens(&tokens.reshape((rows, 1))?, state.position, false)?;
        let mut maps = Vec::with_capacity(self.decoder.len());
        for (i, layer) in self.decoder.iter().enumerate() {
            let h = layer.norm1.forward(&x)?;
            let (k, v) = layer.self_attn.keys_values(&h)?;
            let (k, v) = match &state.past[i] {
                Some((pk, pv)) => (Tensor::cat(&[pk, &k], 2)?, Tensor::cat(&[pv, &v], 2)?),
                None => (k, v),
            };
            x = (&x + layer.self_attn.attend(&h, &k, &v, None)?.0)?;
            state.past[i] = Some((k, v));
            let h = layer.norm2.forward(&x)?;
            let (ck, cv) = &state.cross[i];
            let (a, probs) = layer.cross_attn.attend(&h, ck, cv, Some(&state.src_bias))?;
            maps.push(probs.squeeze(2)?);
            x = (&x + a)?;
            x = (&x + layer.ffn.forward(&layer.norm3.forward(&x)?, 0.0, false)?)?;
        }
        state.position += 1;
        let logits = self.logits(&self.decoder_norm.forward(&x)?.squeeze(1)?)?;
        Ok((layers::log_softmax(&logits)?, Tensor::stack(&maps, 1)?))
    }
}

//! GRU encoder-decoder with attention (Bahdanau et al. 2015).
//!
//! Encoder: bidirectional GRU over embeddings; states are [forward; backward] (2·He).
//! Decoder step t: score the encoder states against the previous decoder state s_{t-1}
//! (additive, Luong dot or Luong general), take the context c_t, run the GRU on
//! [emb(y_{t-1}); c_t], and predict from tanh(W [s_t; c_t; emb(y_{t-1})]) with the tied embedding.
//! GRU gates follow PyTorch: r, z, n stacked in one (3H × in) matrix per input.

use candle_core::{Module, Result, Tensor, D};
use candle_nn::VarBuilder;

use crate::config::{AttentionScore, GruConfig};
use crate::layers::{self, dropout, Linear};
use crate::ops;

pub struct GruCell {
    pub w_ih: Tensor,
    pub w_hh: Tensor,
    pub b_ih: Tensor,
    pub b_hh: Tensor,
    /// For loaded weights: the input projection and W_hhᵀ made contiguous once, not on every step
    /// (see `Linear::from_weights`).
    loaded: Option<(Linear, Tensor)>,
}

impl GruCell {
    fn new(input: usize, hidden: usize, vb: VarBuilder) -> Result<Self> {
        let bound = 1.0 / (hidden as f64).sqrt();
        let init = candle_nn::Init::Uniform { lo: -bound, up: bound };
        let w_ih = vb.get_with_hints((3 * hidden, input), "w_ih", init)?;
        let w_hh = vb.get_with_hints((3 * hidden, hidden), "w_hh", init)?;
        let b_ih = vb.get_with_hints(3 * hidden, "b_ih", init)?;
        let b_hh = vb.get_with_hints(3 * hidden, "b_hh", init)?;
        let loaded = match w_ih.is_variable() || w_hh.is_variable() {
            true => None,
            false => Some((Linear::from_weights(w_ih.clone(), Some(b_ih.clone())), layers::transposed_copy(&w_hh)?)),
        };
        Ok(Self { w_ih, w_hh, b_ih, b_hh, loaded })
    }

    /// Input projection x W_ihᵀ + b_ih for any leading shape.
    fn project(&self, x: &Tensor) -> Result<Tensor> {
        match &self.loaded {
            Some((input, _)) => input.forward(x),
            None => Linear { weight: self.w_ih.clone(), bias: Some(self.b_ih.clone()), transposed: false }.forward(x),
        }
    }

    /// W_hhᵀ, contiguous.
    fn w_hh_t(&self) -> Result<Tensor> {
        match &self.loaded {
            Some((_, w_hh_t)) => Ok(w_hh_t.clone()),
            None => layers::transposed_copy(&self.w_hh),
        }
    }

    /// One step from the projected input xp (B, 3H) and state h (B, H).
    fn step(&self, xp: &Tensor, h: &Tensor, w_hh_t: &Tensor) -> Result<Tensor> {
        let hidden = h.dim(1)?;
        let hp = h.matmul(w_hh_t)?.broadcast_add(&self.b_hh)?;
        let gate = |i: usize| -> Result<(Tensor, Tensor)> {
            Ok((xp.narrow(1, i * hidden, hidden)?, hp.narrow(1, i * hidden, hidden)?))
        };
        let (xr, hr) = gate(0)?;
        let (xz, hz) = gate(1)?;
        let (xn, hn) = gate(2)?;
        let r = candle_nn::ops::sigmoid(&(xr + hr)?)?;
        let z = candle_nn::ops::sigmoid(&(xz + hz)?)?;
        let n = (xn + (r * hn)?)?.tanh()?;
        // (1 - z) * n + z * h
        &n + (z * (h - &n)?)?
    }
}

enum Scorer {
    Additive { query: Linear, key: Linear, v: Tensor },
    Dot,
    General { key: Linear },
}

pub struct GruModel {
    pub cfg: GruConfig,
    embed: Tensor,
    /// The embeddings transposed (E, V) for the output projection, made once for loaded weights.
    embed_t: Option<Tensor>,
    encoder_forward: GruCell,
    encoder_backward: GruCell,
    init: Linear,
    scorer: Scorer,
    decoder: GruCell,
    output: Linear,
}

/// Encoder results and decoder state, one row per hypothesis.
#[derive(Clone)]
pub struct GruState {
    /// (rows, S, 2He) encoder states.
    memory: Tensor,
    /// (rows, S, K) encoder states as seen by the scorer (projected for additive/general).
    keys: Tensor,
    /// (rows, S) additive padding bias.
    src_bias: Tensor,
    /// (rows, Hd) decoder state.
    hidden: Tensor,
    pub position: usize,
}

impl GruState {
    pub fn select(&self, rows: &Tensor) -> Result<Self> {
        Ok(Self {
            memory: self.memory.index_select(rows, 0)?,
            keys: self.keys.index_select(rows, 0)?,
            src_bias: self.src_bias.index_select(rows, 0)?,
            hidden: self.hidden.index_select(rows, 0)?,
            position: self.position,
        })
    }
}

impl GruModel {
    pub fn new(cfg: &GruConfig, vb: VarBuilder) -> Result<Self> {
        let (e, he, hd, a) = (cfg.emb_dim, cfg.encoder_hidden, cfg.decoder_hidden, cfg.attention_dim);
        let scorer = match cfg.score {
            AttentionScore::Additive => Scorer::Additive {
                query: Linear::new(hd, a, false, vb.pp("attention.query"))?,
                key: Linear::new(2 * he, a, true, vb.pp("attention.key"))?,
                v: vb.get_with_hints(
                    a,
                    "attention.v",
                    candle_nn::Init::Uniform { lo: -(a as f64).powf(-0.5), up: (a as f64).powf(-0.5) },
                )?,
            },
            AttentionScore::Dot => Scorer::Dot,
            AttentionScore::General => Scorer::General { key: Linear::new(2 * he, hd, false, vb.pp("attention.key"))? },
        };
        let embed = layers::embedding_table(cfg.vocab_size, e, vb.pp("embed"))?;
        let embed_t = if embed.is_variable() { None } else { Some(layers::transposed_copy(&embed)?) };
        Ok(Self {
            cfg: cfg.clone(),
            embed,
            embed_t,
            encoder_forward: GruCell::new(e, he, vb.pp("encoder.forward"))?,
            encoder_backward: GruCell::new(e, he, vb.pp("encoder.backward"))?,
            init: Linear::new(2 * he, hd, true, vb.pp("init"))?,
            scorer,
            decoder: GruCell::new(e + 2 * he, hd, vb.pp("decoder"))?,
            output: Linear::new(hd + 2 * he + e, e, true, vb.pp("output"))?,
        })
    }

    /// src (B, S), src_mask (B, S) f32 → decoder start state.
    pub fn encode(&self, src: &Tensor, src_mask: &Tensor, train: bool) -> Result<GruState> {
        let (b, s) = src.dims2()?;
        let he = self.cfg.encoder_hidden;
        let x = dropout(&layers::lookup(&self.embed, src)?, self.cfg.dropout, train)?;
        let mut outputs = Vec::with_capacity(2);
        for (cell, reverse) in [(&self.encoder_forward, false), (&self.encoder_backward, true)] {
            let xp = cell.project(&x)?;
            let w_hh_t = cell.w_hh_t()?;
            let mut h = Tensor::zeros((b, he), x.dtype(), x.device())?;
            let mut states = vec![None; s];
            for step in 0..s {
                let t = if reverse { s - 1 - step } else { step };
                let m = src_mask.narrow(1, t, 1)?;
                let new = cell.step(&xp.narrow(1, t, 1)?.squeeze(1)?, &h, &w_hh_t)?;
                // Padding leaves the state unchanged, so the backward pass starts at each sentence's end.
                h = (&h + new.sub(&h)?.broadcast_mul(&m)?)?;
                states[t] = Some(h.clone());
            }
            let states: Vec<Tensor> = states.into_iter().map(|t| t.unwrap()).collect();
            outputs.push(Tensor::stack(&states, 1)?);
        }
        let memory = Tensor::cat(&outputs, 2)?;
        let m = src_mask.unsqueeze(2)?;
        let mean = memory.broadcast_mul(&m)?.sum(1)?.broadcast_div(&m.sum(1)?)?;
        let hidden = self.init.forward(&mean)?.tanh()?;
        let keys = match &self.scorer {
            Scorer::Additive { key, .. } => key.forward(&memory)?,
            Scorer::Dot => memory.clone(),
            Scorer::General { key } => key.forward(&memory)?,
        };
        Ok(GruState { memory, keys, src_bias: layers::padding_bias(src_mask)?, hidden, position: 0 })
    }

    /// Attention of the state's rows → (weights (rows, S), context (rows, 2He)).
    fn attend(&self, state: &GruState) -> Result<(Tensor, Tensor)> {
        let scores = match &self.scorer {
            Scorer::Additive { query, v, .. } => {
                let q = query.forward(&state.hidden)?.unsqueeze(1)?;
                state.keys.broadcast_add(&q)?.tanh()?.broadcast_mul(v)?.sum(D::Minus1)?
            }
            Scorer::Dot | Scorer::General { .. } => state.keys.matmul(&state.hidden.unsqueeze(2)?)?.squeeze(2)?,
        };
        let weights = ops::softmax_last_dim(&(scores + &state.src_bias)?)?;
        let context = weights.unsqueeze(1)?.matmul(&state.memory)?.squeeze(1)?;
        Ok((weights, context))
    }

    fn split_input_weights(&self) -> Result<(Tensor, Tensor)> {
        let e = self.cfg.emb_dim;
        let w = &self.decoder.w_ih;
        Ok((w.narrow(1, 0, e)?.t()?.contiguous()?, w.narrow(1, e, 2 * self.cfg.encoder_hidden)?.t()?.contiguous()?))
    }

    fn predict(&self, features: &Tensor, train: bool) -> Result<Tensor> {
        let o = dropout(&self.output.forward(features)?.tanh()?, self.cfg.dropout, train)?;
        let dims = o.dims().to_vec();
        let rows = o.elem_count() / self.cfg.emb_dim;
        let mut out = dims.clone();
        *out.last_mut().unwrap() = self.cfg.vocab_size;
        let embed_t = match &self.embed_t {
            Some(t) => t.clone(),
            None => self.embed.t()?,
        };
        o.reshape((rows, self.cfg.emb_dim))?.matmul(&embed_t)?.reshape(out)
    }

    /// Teacher-forced decoder: tgt_in (B, T) → logits (B, T, V).
    pub fn decode_train(&self, state: &GruState, tgt_in: &Tensor, train: bool) -> Result<Tensor> {
        let t_len = tgt_in.dim(1)?;
        let emb = dropout(&layers::lookup(&self.embed, tgt_in)?, self.cfg.dropout, train)?;
        let (w_emb, w_ctx) = self.split_input_weights()?;
        let emb_proj = layers::matmul_3d(&emb, &w_emb)?.broadcast_add(&self.decoder.b_ih)?;
        let w_hh_t = self.decoder.w_hh_t()?;
        let mut state = state.clone();
        let (mut hs, mut cs) = (Vec::with_capacity(t_len), Vec::with_capacity(t_len));
        for t in 0..t_len {
            let (_, context) = self.attend(&state)?;
            let xp = (emb_proj.narrow(1, t, 1)?.squeeze(1)? + context.matmul(&w_ctx)?)?;
            state.hidden = self.decoder.step(&xp, &state.hidden, &w_hh_t)?;
            hs.push(state.hidden.clone());
            cs.push(context);
        }
        let features = Tensor::cat(&[Tensor::stack(&hs, 1)?, Tensor::stack(&cs, 1)?, emb], 2)?;
        self.predict(&features, train)
    }

    /// One decoder step: tokens (rows) → log-probs (rows, V) and attention weights (rows, S).
    pub fn step(&self, state: &mut GruState, tokens: &Tensor) -> Result<(Tensor, Tensor)> {
        let rows = tokens.dim(0)?;
        let emb = layers::lookup(&self.embed, &tokens.reshape((rows, 1))?)?.squeeze(1)?;
        let (weights, context) = self.attend(state)?;
        let input = Tensor::cat(&[&emb, &context], 1)?;
        let xp = self.decoder.project(&input)?;
        state.hidden = self.decoder.step(&xp, &state.hidden, &self.decoder.w_hh_t()?)?;
        state.position += 1;
        let features = Tensor::cat(&[&state.hidden, &context, &emb], 1)?;
        let logits = self.predict(&features, false)?;
        Ok((layers::log_softmax(&logits)?, weights))
    }
}

//! The wgslate trainer: candle on the CPU, fused ops with hand-written backward.

pub mod adam;
pub mod average;
pub mod checkpoint;
pub mod data;
pub mod evaluate;
pub mod parallel;
pub mod run;

use candle_core::{Result, Tensor};
use wgslate_model::Net;

use data::Batch;

pub const LABEL_SMOOTHING: f32 = 0.1;

/// Teacher-forced logits (B·T, V) for a batch.
pub fn logits(net: &Net, batch: &Batch, train: bool) -> Result<Tensor> {
    let l = match net {
        Net::Transformer(m) => {
            let memory = m.encode(&batch.src, &batch.src_mask, train)?;
            m.decode_train(&memory, &batch.src_mask, &batch.tgt_in, train)?
        }
        Net::Gru(m) => {
            let state = m.encode(&batch.src, &batch.src_mask, train)?;
            m.decode_train(&state, &batch.tgt_in, train)?
        }
    };
    let v = l.dim(2)?;
    l.reshape((l.elem_count() / v, v))
}

/// Mean label-smoothed cross-entropy over the target tokens of a batch.
pub fn loss(net: &Net, batch: &Batch, train: bool, smoothing: f32) -> Result<Tensor> {
    let per_token = wgslate_model::ops::smoothed_cross_entropy(&logits(net, batch, train)?, &batch.tgt_out, smoothing)?;
    (per_token * &batch.tgt_mask)?.sum_all()? / batch.target_tokens as f64
}

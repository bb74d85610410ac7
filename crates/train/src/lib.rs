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

/// What a training step minimises, per target token.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Objective {
    /// Label smoothing ε of the cross-entropy.
    pub smoothing: f32,
    /// R-Drop weight α (Liang et al. 2021), 0 for off: the batch goes through the network twice, with
    /// independent dropout, and the loss is ½(CE₁ + CE₂) + α/4 · (KL(p₁‖p₂) + KL(p₂‖p₁)), the paper's
    /// CE₁ + CE₂ + α/2 · (KL₁₂ + KL₂₁) halved so that it stays on the scale of the plain loss.
    pub rdrop: f32,
}

impl Objective {
    /// Label-smoothed cross-entropy alone.
    pub fn cross_entropy(smoothing: f32) -> Self {
        Self { smoothing, rdrop: 0.0 }
    }
}

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

/// The objective's mean over the target tokens of a batch (R-Drop only when `train`, as it needs dropout).
pub fn loss(net: &Net, batch: &Batch, train: bool, objective: Objective) -> Result<Tensor> {
    let first = logits(net, batch, train)?;
    let second = if train && objective.rdrop > 0.0 { Some(logits(net, batch, train)?) } else { None };
    let per_token = per_token_objective(&first, second.as_ref(), &batch.tgt_out, objective)?;
    (per_token * &batch.tgt_mask)?.sum_all()? / batch.target_tokens as f64
}

/// The objective per row of logits (N×V) against targets (N): the cross-entropy of `first` alone, or
/// with a second pass's logits ½(CE₁ + CE₂) + α/4 · symmetric KL (`Objective::rdrop`).
pub fn per_token_objective(
    first: &Tensor,
    second: Option<&Tensor>,
    targets: &Tensor,
    objective: Objective,
) -> Result<Tensor> {
    let ce = |l: &Tensor| wgslate_model::ops::smoothed_cross_entropy(l, targets, objective.smoothing);
    match second {
        None => ce(first),
        Some(second) => {
            let mean_ce = ((ce(first)? + ce(second)?)? * 0.5)?;
            mean_ce + (wgslate_model::ops::symmetric_kl(first, second)? * (objective.rdrop as f64 / 4.0))?
        }
    }
}

//! Teacher forcing: the log-probability a model gives to outputs it is handed, not ones it searched
//! for (n-best reranking with another model scores the search's hypotheses this way).

use crate::step::{block_on, AsyncStepModel, StepModel};

/// Per row, log P(target, then EOS | source): `targets` hold no EOS. A target longer than the model
/// can emit is scored on its first `max_output_len() - 1` tokens and EOS.
pub fn forced_log_probs<M: StepModel + ?Sized>(
    model: &mut M,
    sources: &[Vec<u32>],
    targets: &[Vec<u32>],
) -> Result<Vec<f32>, String> {
    block_on(forced_log_probs_async(model, sources, targets))
}

pub async fn forced_log_probs_async<M: AsyncStepModel + ?Sized>(
    model: &mut M,
    sources: &[Vec<u32>],
    targets: &[Vec<u32>],
) -> Result<Vec<f32>, String> {
    if sources.len() != targets.len() {
        return Err(format!("{} sources but {} targets to score", sources.len(), targets.len()));
    }
    if sources.is_empty() {
        return Ok(vec![]);
    }
    let (eos, v) = (model.eos(), model.vocab_size());
    let keep = model.max_output_len().max(1) - 1;
    let full: Vec<Vec<u32>> = targets.iter().map(|t| t.iter().copied().take(keep).chain([eos]).collect()).collect();
    if let Some(&bad) = full.iter().flatten().find(|&&t| t as usize >= v) {
        return Err(format!("token {bad} is outside the model's vocabulary of {v}"));
    }
    model.start(sources).await?;
    let steps = full.iter().map(Vec::len).max().unwrap_or(0);
    let mut totals = vec![0f32; full.len()];
    let mut fed = vec![model.bos(); full.len()];
    for t in 0..steps {
        let out = model.step(&fed, false).await?;
        for (row, target) in full.iter().enumerate() {
            if let Some(&token) = target.get(t) {
                totals[row] += out.log_probs[row * v + token as usize];
            }
            // Rows already scored keep stepping on EOS; their outputs are ignored.
            fed[row] = target.get(t).copied().unwrap_or(eos);
        }
    }
    Ok(totals)
}

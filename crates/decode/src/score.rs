//! Teacher forcing: the log-probability a model gives to outputs it is handed, not ones it searched
//! for (n-best reranking with another model scores the search's hypotheses this way).

use crate::step::{block_on, AsyncStepModel, StepModel};

/// A target's score under teacher forcing: each token's log-probability (EOS last) and its rank
/// among the model's choices at that position (1: the model's most likely token; ties to the lower id).
#[derive(Debug, Clone, PartialEq)]
pub struct ForcedScore {
    pub token_log_probs: Vec<f32>,
    pub ranks: Vec<usize>,
}

impl ForcedScore {
    /// The tokens' log-probabilities added in order, as a search adds them.
    pub fn total(&self) -> f32 {
        self.token_log_probs.iter().fold(0.0, |a, &b| a + b)
    }
}

/// Per row, log P(target, then EOS | source): `targets` hold no EOS. A target longer than the model
/// can emit is scored on its first `max_output_len() - 1` tokens and EOS.
pub fn forced_log_probs<M: StepModel + ?Sized>(
    model: &mut M,
    sources: &[Vec<u32>],
    targets: &[Vec<u32>],
) -> Result<Vec<f32>, String> {
    Ok(forced_scores(model, sources, targets)?.iter().map(ForcedScore::total).collect())
}

pub async fn forced_log_probs_async<M: AsyncStepModel + ?Sized>(
    model: &mut M,
    sources: &[Vec<u32>],
    targets: &[Vec<u32>],
) -> Result<Vec<f32>, String> {
    Ok(forced_scores_async(model, sources, targets).await?.iter().map(ForcedScore::total).collect())
}

pub fn forced_scores<M: StepModel + ?Sized>(
    model: &mut M,
    sources: &[Vec<u32>],
    targets: &[Vec<u32>],
) -> Result<Vec<ForcedScore>, String> {
    block_on(forced_scores_async(model, sources, targets))
}

/// 1 + the tokens the model ranks above `token` in `row` (higher log-probability, or equal and a lower id).
fn rank_of(row: &[f32], token: u32) -> usize {
    let lp = row[token as usize];
    1 + row.iter().enumerate().filter(|&(i, &l)| l > lp || (l == lp && (i as u32) < token)).count()
}

/// Each target's per-token log-probabilities and ranks (see [`ForcedScore`]).
pub async fn forced_scores_async<M: AsyncStepModel + ?Sized>(
    model: &mut M,
    sources: &[Vec<u32>],
    targets: &[Vec<u32>],
) -> Result<Vec<ForcedScore>, String> {
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
    let mut scores: Vec<ForcedScore> =
        full.iter().map(|_| ForcedScore { token_log_probs: vec![], ranks: vec![] }).collect();
    let mut fed = vec![model.bos(); full.len()];
    for t in 0..steps {
        let out = model.step(&fed, false).await?;
        for (row, target) in full.iter().enumerate() {
            if let Some(&token) = target.get(t) {
                let dist = &out.log_probs[row * v..(row + 1) * v];
                scores[row].token_log_probs.push(dist[token as usize]);
                scores[row].ranks.push(rank_of(dist, token));
            }
            // Rows already scored keep stepping on EOS; their outputs are ignored.
            fed[row] = target.get(t).copied().unwrap_or(eos);
        }
    }
    Ok(scores)
}

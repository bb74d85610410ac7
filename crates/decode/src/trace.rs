//! A search's own record of how it decided: every hypothesis it held, the candidates it considered
//! and why each was kept or pruned, and each finished hypothesis' score as its terms. Greedy, beam
//! search and sampling write it as they run (one sentence at a time), so the numbers are the
//! search's, not recomputed afterwards; without a trace they only skip a branch.
//!
//! Size: one node per candidate considered, at most `1 + max_len · beam · (max(2·beam, CANDIDATES) + 2)`
//! (beam 16 over 200 tokens: 108 801 nodes of 40 bytes, 4.4 MB); greedy and sampling add one
//! `StepChoice` of `CHOICES` tokens per output token.

use serde::{Deserialize, Serialize};

use crate::penalties::{coverage_penalty, Scoring};
use crate::{AsyncStepModel, Hypothesis, Search};

/// Candidates recorded per live hypothesis at least (the beam considers 2·beam of them).
pub const CANDIDATES: usize = 5;
/// Tokens shown per position in greedy's and sampling's step choices.
pub const CHOICES: usize = 10;

/// What became of a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Fate {
    /// Kept as a live hypothesis for the next step (greedy's and sampling's chosen token).
    Kept,
    /// Finished: EOS within the beam, or kept up to the length limit. The index is into `Trace::finished`.
    Finished(usize),
    /// Not among the beam's best at its step (greedy, sampling: not the chosen token).
    BelowBeam,
    /// EOS before the minimum length.
    EosTooEarly,
    /// It would repeat an n-gram the output already has.
    RepeatedNgram,
    /// Kept, then dropped when the search stopped: it could no longer beat the finished hypotheses.
    CannotWin,
    /// Sampling: cut by top-k or top-p before the draw.
    Cut,
}

impl Fate {
    pub fn name(self) -> &'static str {
        match self {
            Fate::Kept => "kept",
            Fate::Finished(_) => "finished",
            Fate::BelowBeam => "below the beam",
            Fate::EosTooEarly => "EOS before the minimum length",
            Fate::RepeatedNgram => "repeats an n-gram",
            Fate::CannotWin => "could not beat the finished",
            Fate::Cut => "cut by top-k / top-p",
        }
    }
}

/// One candidate: a token after its parent's tokens. Node 0 is the root (BOS, its own parent).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub parent: u32,
    /// The output position of `token` (0: the first token).
    pub step: u32,
    pub token: u32,
    pub token_log_prob: f32,
    /// The parent's cumulative log-probability plus `token_log_prob`, as the search added it.
    pub log_prob: f32,
    pub fate: Fate,
}

/// A finished hypothesis' score as the search computed it: `log_prob / length_divisor + coverage + end`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScoreTerms {
    pub log_prob: f32,
    /// Tokens, EOS included when emitted.
    pub length: usize,
    pub length_divisor: f32,
    /// β · Σᵢ log(min(Σⱼ aᵢⱼ, 1)).
    pub coverage: f32,
    /// γ · |Y| / |X|.
    pub end: f32,
    pub total: f32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finished {
    /// The node that ended it (its EOS, or its last token at the length limit).
    pub node: usize,
    pub tokens: Vec<u32>,
    pub reached_eos: bool,
    /// Σᵢ log(min(Σⱼ aᵢⱼ, 1)) over the source: β times this is the coverage term (0 without attention).
    pub coverage_log_sum: f32,
    pub terms: ScoreTerms,
}

/// Greedy's and sampling's view of one position: the model's most likely next tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepChoice {
    pub step: usize,
    /// (token, model log-probability, probability after temperature, top-k and top-p — `None`: cut),
    /// the model's most likely first.
    pub candidates: Vec<(u32, f32, Option<f64>)>,
    pub chosen: u32,
    /// Entropy of the model's distribution at this position, in bits.
    pub entropy: f64,
    /// Entropy of the distribution the token was drawn from (greedy: 0), in bits.
    pub sampled_entropy: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub nodes: Vec<Node>,
    pub finished: Vec<Finished>,
    pub choices: Vec<StepChoice>,
    /// Source tokens, EOS included.
    pub source_len: usize,
    pub scoring: Scoring,
}

impl Trace {
    pub fn new(source_len: usize, scoring: Scoring) -> Self {
        let root = Node { parent: 0, step: 0, token: u32::MAX, token_log_prob: 0.0, log_prob: 0.0, fate: Fate::Kept };
        Self { nodes: vec![root], finished: vec![], choices: vec![], source_len, scoring }
    }

    /// Adds a candidate (pruned until the search says otherwise) and returns its index.
    pub(crate) fn add(&mut self, parent: usize, step: usize, token: u32, token_log_prob: f32, log_prob: f32) -> usize {
        self.nodes.push(Node {
            parent: parent as u32,
            step: step as u32,
            token,
            token_log_prob,
            log_prob,
            fate: Fate::BelowBeam,
        });
        self.nodes.len() - 1
    }

    pub(crate) fn set(&mut self, node: usize, fate: Fate) {
        if let Some(n) = self.nodes.get_mut(node) {
            n.fate = fate;
        }
    }

    /// Records a finished hypothesis ending at `node`, with the terms of the score the search gave it.
    pub(crate) fn finish(&mut self, node: usize, h: &Hypothesis, attention: &[Vec<f32>]) {
        let s = self.scoring;
        let length = h.token_log_probs.len();
        // Greedy and sampling keep no attention: their score has no coverage term to re-rank by.
        let coverage_log_sum = match attention.is_empty() {
            true => 0.0,
            false => coverage_penalty(1.0, attention, self.source_len),
        };
        let terms = ScoreTerms {
            log_prob: h.log_prob,
            length,
            length_divisor: s.length_penalty.divisor(length),
            coverage: coverage_penalty(s.coverage, attention, self.source_len),
            end: s.end_penalty * length as f32 / self.source_len.max(1) as f32,
            total: h.score,
        };
        self.finished.push(Finished {
            node,
            tokens: h.tokens.clone(),
            reached_eos: h.reached_eos(),
            coverage_log_sum,
            terms,
        });
        self.set(node, Fate::Finished(self.finished.len() - 1));
    }

    /// The finished hypotheses' indices as the search ranks them: by score, then log-probability.
    pub fn ranking(&self) -> Vec<usize> {
        let scores: Vec<f32> = self.finished.iter().map(|f| f.terms.total).collect();
        self.rank_by(&scores)
    }

    fn rank_by(&self, scores: &[f32]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.finished.len()).collect();
        // A stable sort, as the search's: equal scores keep the order they finished in.
        order.sort_by(|&a, &b| {
            scores[b]
                .total_cmp(&scores[a])
                .then(self.finished[b].terms.log_prob.total_cmp(&self.finished[a].terms.log_prob))
        });
        order
    }

    /// The finished hypotheses' scores under other penalties (α, β, γ), from the trace alone: the
    /// score a search with `scoring` would give each of them, bit for bit.
    pub fn rescore(&self, scoring: &Scoring) -> Vec<f32> {
        self.finished
            .iter()
            .map(|f| {
                f.terms.log_prob / scoring.length_penalty.divisor(f.terms.length)
                    + scoring.coverage * f.coverage_log_sum
                    + scoring.end_penalty * f.terms.length as f32 / self.source_len.max(1) as f32
            })
            .collect()
    }

    /// The ranking under other penalties: what re-ranking the finished hypotheses gives, without a
    /// new search (a new search may also prune differently, since it stops on a score bound).
    pub fn rerank(&self, scoring: &Scoring) -> Vec<usize> {
        self.rank_by(&self.rescore(scoring))
    }

    /// The tokens from the root to `node` (the root itself excluded; an EOS node's EOS included).
    pub fn path(&self, node: usize) -> Vec<usize> {
        let mut path = vec![];
        let mut n = node;
        while n != 0 && n < self.nodes.len() {
            path.push(n);
            n = self.nodes[n].parent as usize;
        }
        path.reverse();
        path
    }
}

/// Runs `search` on one source and records its trace: the hypotheses are the search's own result
/// (the same as without a trace).
pub async fn trace_search_async<M: AsyncStepModel + ?Sized>(
    model: &mut M,
    source: &[u32],
    search: &Search,
) -> Result<(Vec<Hypothesis>, Trace), String> {
    let sources = [source.to_vec()];
    match search {
        Search::Greedy(limits) => {
            let mut trace = Trace::new(source.len(), Scoring::default());
            let h = crate::greedy::greedy_inner(model, &sources, *limits, false, Some(&mut trace)).await?;
            Ok((h, trace))
        }
        Search::Beam(cfg) => {
            let mut trace = Trace::new(source.len(), cfg.scoring);
            let mut out = crate::beam::beam_inner(model, &sources, cfg, Some(&mut trace)).await?;
            Ok((out.pop().unwrap_or_default(), trace))
        }
        Search::Sample(cfg) => {
            let mut trace = Trace::new(source.len(), Scoring::default());
            let one = crate::SamplingConfig { samples: 1, ..cfg.clone() };
            let mut out = crate::sampling::sample_inner(model, &sources, &one, Some(&mut trace)).await?;
            Ok((out.pop().unwrap_or_default(), trace))
        }
    }
}

pub fn trace_search<M: crate::StepModel + ?Sized>(
    model: &mut M,
    source: &[u32],
    search: &Search,
) -> Result<(Vec<Hypothesis>, Trace), String> {
    crate::block_on(trace_search_async(model, source, search))
}

/// Entropy in bits of the distribution a row of log-probabilities (natural log) leaves after
/// renormalising what is finite: a row a prefix forced to one token has none.
pub fn entropy_bits(log_probs: &[f32]) -> f64 {
    let finite: Vec<f64> = log_probs.iter().filter(|l| l.is_finite()).map(|&l| l as f64).collect();
    let max = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !max.is_finite() {
        return 0.0;
    }
    let lse = max + finite.iter().map(|l| (l - max).exp()).sum::<f64>().ln();
    let h: f64 = finite.iter().map(|l| -(l - lse).exp() * (l - lse)).sum();
    // Rounding can leave a certain choice's entropy a hair below zero, printed "-0.00".
    if h > 0.0 {
        h / std::f64::consts::LN_2
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::entropy_bits;

    #[test]
    fn entropy_is_in_bits_and_never_below_zero() {
        let uniform = [(0.25f32).ln(); 4];
        assert!((entropy_bits(&uniform) - 2.0).abs() < 1e-6);
        // A certain choice, as a prefix forces it: 0, not -0 ("-0.00 bits" on the page).
        let forced = [0.0, f32::NEG_INFINITY, f32::NEG_INFINITY];
        assert!(entropy_bits(&forced).is_sign_positive() && entropy_bits(&forced) == 0.0);
        let nearly = [-1e-9f32, -30.0, -30.0];
        assert!(entropy_bits(&nearly).is_sign_positive());
        assert_eq!(entropy_bits(&[f32::NEG_INFINITY; 3]), 0.0);
    }
}

//! Search over a step model: greedy, beam search, sampling.
//!
//! Engines (the candle CPU reference, the WGSL GPU engine) implement [`StepModel`]; the searches here
//! only ever see log-probabilities, attention rows and row indices.

mod beam;
mod ensemble;
mod greedy;
mod hypothesis;
pub mod penalties;
mod prefix;
pub mod rng;
mod sampling;
mod score;
mod search;
pub mod settings;
mod step;
pub mod sweep;
pub mod trace;

pub use beam::{banned_by_ngram, beam_search, beam_search_async, repeats_ngram, BeamConfig};
pub use ensemble::{AsyncEnsemble, Ensemble};
pub use greedy::{greedy, greedy_async};
pub use hypothesis::{Hypothesis, LengthLimits};
pub use penalties::{LengthPenalty, Scoring};
pub use prefix::Prefixed;
pub use sampling::{sample, sample_async, sampling_distribution, SamplingConfig};
pub use score::{forced_log_probs, forced_log_probs_async, forced_scores, forced_scores_async, ForcedScore};
pub use search::{run_search, run_search_async, Search};
pub use settings::Settings;
pub use step::{
    block_on, top_k, AsyncStepModel, BeamChain, Blocking, ChainedPicks, RankedSteps, StepModel, StepOutput, TopKOutput,
};
pub use trace::{trace_search, trace_search_async, Trace};

//! Search over a step model: greedy, beam search, sampling.
//!
//! Engines (the candle CPU reference, the WGSL GPU engine) implement [`StepModel`]; the searches here
//! only ever see log-probabilities, attention rows and row indices.

mod greedy;
mod hypothesis;
mod step;

pub use greedy::greedy;
pub use hypothesis::{Hypothesis, LengthLimits};
pub use step::{top_k, StepModel, StepOutput, TopKOutput};

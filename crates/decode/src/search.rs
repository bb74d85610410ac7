use crate::{beam_search, greedy, sample, BeamConfig, Hypothesis, LengthLimits, SamplingConfig, StepModel};

/// Which search to run: what the CLI flags and the page's settings describe.
#[derive(Debug, Clone)]
pub enum Search {
    Greedy(LengthLimits),
    Beam(BeamConfig),
    Sample(SamplingConfig),
}

impl Default for Search {
    fn default() -> Self {
        Search::Greedy(LengthLimits::default())
    }
}

/// Runs the search for a batch of sources: per source, its hypotheses (1 for greedy, the n-best
/// for beam search, the samples for sampling).
pub fn run_search<M: StepModel + ?Sized>(model: &mut M, sources: &[Vec<u32>], search: &Search, want_attention: bool) -> Result<Vec<Vec<Hypothesis>>, String> {
    match search {
        Search::Greedy(limits) => Ok(greedy(model, sources, *limits, want_attention)?.into_iter().map(|h| vec![h]).collect()),
        Search::Beam(cfg) => beam_search(model, sources, &BeamConfig { want_attention: want_attention || cfg.want_attention, ..cfg.clone() }),
        Search::Sample(cfg) => sample(model, sources, &SamplingConfig { want_attention: want_attention || cfg.want_attention, ..cfg.clone() }),
    }
}

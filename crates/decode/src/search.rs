use crate::{
    beam_search_async, block_on, greedy_async, sample_async, AsyncStepModel, BeamConfig, Hypothesis, LengthLimits,
    SamplingConfig, StepModel,
};

/// Which search to run: what the CLI flags and the page's settings describe.
#[derive(Debug, Clone)]
pub enum Search {
    Greedy(LengthLimits),
    Beam(BeamConfig),
    Sample(SamplingConfig),
}

impl Search {
    /// The search in a few words, as results name it: "greedy", "beam 4", "beam 4, reranked",
    /// "sampling" (`reranked`: the beam's n-best is reordered by the reverse model).
    pub fn label(&self, reranked: bool) -> String {
        match self {
            Search::Greedy(_) => "greedy".into(),
            Search::Sample(_) => "sampling".into(),
            Search::Beam(b) if reranked => format!("beam {}, reranked", b.beam),
            Search::Beam(b) => format!("beam {}", b.beam),
        }
    }
}

impl Search {
    /// The output length limits the search keeps.
    pub fn limits(&self) -> LengthLimits {
        match self {
            Search::Greedy(l) => *l,
            Search::Beam(b) => b.limits,
            Search::Sample(s) => s.limits,
        }
    }
}

impl Default for Search {
    fn default() -> Self {
        Search::Greedy(LengthLimits::default())
    }
}

/// Runs the search for a batch of sources: per source, its hypotheses (1 for greedy, the n-best
/// for beam search, the samples for sampling).
pub fn run_search<M: StepModel + ?Sized>(
    model: &mut M,
    sources: &[Vec<u32>],
    search: &Search,
    want_attention: bool,
) -> Result<Vec<Vec<Hypothesis>>, String> {
    block_on(run_search_async(model, sources, search, want_attention))
}

pub async fn run_search_async<M: AsyncStepModel + ?Sized>(
    model: &mut M,
    sources: &[Vec<u32>],
    search: &Search,
    want_attention: bool,
) -> Result<Vec<Vec<Hypothesis>>, String> {
    match search {
        Search::Greedy(limits) => {
            Ok(greedy_async(model, sources, *limits, want_attention).await?.into_iter().map(|h| vec![h]).collect())
        }
        Search::Beam(cfg) => {
            beam_search_async(
                model,
                sources,
                &BeamConfig { want_attention: want_attention || cfg.want_attention, ..cfg.clone() },
            )
            .await
        }
        Search::Sample(cfg) => {
            sample_async(
                model,
                sources,
                &SamplingConfig { want_attention: want_attention || cfg.want_attention, ..cfg.clone() },
            )
            .await
        }
    }
}

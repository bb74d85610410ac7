/// One decoder step for a batch of rows (hypotheses); each row belongs to one source sentence.
pub trait StepModel {
    fn vocab_size(&self) -> usize;
    fn bos(&self) -> u32;
    fn eos(&self) -> u32;
    /// Longest output (tokens, EOS included) the model can produce.
    fn max_output_len(&self) -> usize;

    /// Encodes the sources (token ids ending in EOS) once; afterwards row i is source i.
    fn start(&mut self, sources: &[Vec<u32>]) -> Result<(), String>;

    /// Feeds one token per row; returns per-row log-probabilities over the vocabulary
    /// (and, if asked, the attention over the row's source tokens).
    fn step(&mut self, tokens: &[u32], want_attention: bool) -> Result<StepOutput, String>;

    /// Keeps the given rows, in this order; a row may be repeated (beam expansion).
    fn select_rows(&mut self, rows: &[usize]) -> Result<(), String>;

    /// Top-k candidates per row, best first. Engines that can select on the device override
    /// this so only k candidates per row are read back.
    fn step_top_k(&mut self, tokens: &[u32], k: usize, want_attention: bool) -> Result<TopKOutput, String> {
        let out = self.step(tokens, want_attention)?;
        let v = self.vocab_size();
        let candidates = out.log_probs.chunks(v).map(|row| top_k(row, k)).collect();
        Ok(TopKOutput { candidates, attention: out.attention })
    }

    /// Greedy steps chained on the device: feeds `tokens`, then each row's own best token, up to
    /// `max_steps` times (the engine picks how many, at least one) and returns per row the
    /// (token, log-prob) chosen at every step run. Engines that cannot chain steps return None
    /// (the default) and greedy search steps one token at a time.
    fn greedy_steps(&mut self, _tokens: &[u32], _max_steps: usize) -> Result<Option<ChainedPicks>, String> {
        Ok(None)
    }

    /// Beam steps chained on the device (see [`BeamChain`]); engines that cannot return None (the
    /// default) and beam search chooses each step's beam on the host.
    fn beam_steps(&mut self, _chain: &BeamChain) -> Result<Option<RankedSteps>, String> {
        Ok(None)
    }
}

/// Per row, the (token, log-prob) picked at each chained greedy step.
pub type ChainedPicks = Vec<Vec<(u32, f32)>>;

/// Beam steps the device runs and chooses by itself, reading back only what the search needs. It
/// first keeps rows `parents` (as `select_rows`), which must leave `beam` rows per sentence,
/// sentence after sentence, fed `tokens` with cumulative `log_probs`. Each step then takes every
/// row's `k` best tokens, ranks a sentence's candidates by cumulative log-prob (ties: lower row,
/// then lower token), and continues with its `beam` best that are not EOS, as rows in rank order.
/// EOS is never banned, nor any n-gram, and no attention is kept: the search asks only when none is
/// needed. After the last step the rows are those whose candidates it returned (the next call's
/// `parents` index them).
pub struct BeamChain<'a> {
    pub parents: &'a [usize],
    pub tokens: &'a [u32],
    pub log_probs: &'a [f32],
    pub beam: usize,
    pub k: usize,
    /// The engine runs at least one step and at most this many.
    pub max_steps: usize,
}

/// Per step run, per sentence of the chain, its 2·beam best candidates, best first: (cumulative
/// log-prob, row within the sentence's beam, token, token log-prob).
pub type RankedSteps = Vec<Vec<Vec<(f32, usize, u32, f32)>>>;

pub struct StepOutput {
    /// rows × vocab, row-major.
    pub log_probs: Vec<f32>,
    /// Per row: attention over that row's source tokens (sums to 1), when asked for.
    pub attention: Option<Vec<Vec<f32>>>,
}

pub struct TopKOutput {
    /// Per row: (token, log-prob), best first; ties broken by the lower token id.
    pub candidates: Vec<Vec<(u32, f32)>>,
    pub attention: Option<Vec<Vec<f32>>>,
}

/// The k best (token, log-prob) of a row, best first, ties to the lower id.
pub fn top_k(row: &[f32], k: usize) -> Vec<(u32, f32)> {
    let mut idx: Vec<u32> = (0..row.len() as u32).collect();
    let k = k.min(row.len());
    let cmp = |a: &u32, b: &u32| row[*b as usize].total_cmp(&row[*a as usize]).then(a.cmp(b));
    if k < idx.len() {
        idx.select_nth_unstable_by(k, cmp);
        idx.truncate(k);
    }
    idx.sort_by(cmp);
    idx.into_iter().map(|i| (i, row[i as usize])).collect()
}

/// The same step interface with awaitable steps: the GPU engines read results back asynchronously
/// (in the browser they must). The searches are written once against this trait; every
/// [`StepModel`] is also an `AsyncStepModel` whose futures are ready at once.
#[allow(async_fn_in_trait)]
pub trait AsyncStepModel {
    fn vocab_size(&self) -> usize;
    fn bos(&self) -> u32;
    fn eos(&self) -> u32;
    fn max_output_len(&self) -> usize;
    async fn start(&mut self, sources: &[Vec<u32>]) -> Result<(), String>;
    async fn step(&mut self, tokens: &[u32], want_attention: bool) -> Result<StepOutput, String>;
    async fn step_top_k(&mut self, tokens: &[u32], k: usize, want_attention: bool) -> Result<TopKOutput, String>;
    async fn select_rows(&mut self, rows: &[usize]) -> Result<(), String>;
    /// See [`StepModel::greedy_steps`].
    async fn greedy_steps(&mut self, tokens: &[u32], max_steps: usize) -> Result<Option<ChainedPicks>, String>;
    /// See [`StepModel::beam_steps`].
    async fn beam_steps(&mut self, _chain: &BeamChain<'_>) -> Result<Option<RankedSteps>, String> {
        Ok(None)
    }
}

impl<T: StepModel + ?Sized> AsyncStepModel for T {
    fn vocab_size(&self) -> usize {
        StepModel::vocab_size(self)
    }
    fn bos(&self) -> u32 {
        StepModel::bos(self)
    }
    fn eos(&self) -> u32 {
        StepModel::eos(self)
    }
    fn max_output_len(&self) -> usize {
        StepModel::max_output_len(self)
    }
    async fn start(&mut self, sources: &[Vec<u32>]) -> Result<(), String> {
        StepModel::start(self, sources)
    }
    async fn step(&mut self, tokens: &[u32], want_attention: bool) -> Result<StepOutput, String> {
        StepModel::step(self, tokens, want_attention)
    }
    async fn step_top_k(&mut self, tokens: &[u32], k: usize, want_attention: bool) -> Result<TopKOutput, String> {
        StepModel::step_top_k(self, tokens, k, want_attention)
    }
    async fn select_rows(&mut self, rows: &[usize]) -> Result<(), String> {
        StepModel::select_rows(self, rows)
    }
    async fn greedy_steps(&mut self, tokens: &[u32], max_steps: usize) -> Result<Option<ChainedPicks>, String> {
        StepModel::greedy_steps(self, tokens, max_steps)
    }
    async fn beam_steps(&mut self, chain: &BeamChain<'_>) -> Result<Option<RankedSteps>, String> {
        StepModel::beam_steps(self, chain)
    }
}

/// Runs a future to completion on this thread. For the CPU reference and for native GPU engines
/// (which wait for the device inside their steps) the futures are ready on the first poll.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};
    fn noop(_: *const ()) {}
    fn clone(p: *const ()) -> RawWaker {
        RawWaker::new(p, &VTABLE)
    }
    static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, noop, noop, noop);
    // SAFETY: the vtable's functions ignore the data pointer.
    let waker = unsafe { Waker::from_raw(RawWaker::new(std::ptr::null(), &VTABLE)) };
    let mut cx = Context::from_waker(&waker);
    let mut f = std::pin::pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

/// A synchronous [`StepModel`] over an [`AsyncStepModel`] (native code and tests).
pub struct Blocking<M>(pub M);

impl<M: AsyncStepModel> StepModel for Blocking<M> {
    fn vocab_size(&self) -> usize {
        self.0.vocab_size()
    }
    fn bos(&self) -> u32 {
        self.0.bos()
    }
    fn eos(&self) -> u32 {
        self.0.eos()
    }
    fn max_output_len(&self) -> usize {
        self.0.max_output_len()
    }
    fn start(&mut self, sources: &[Vec<u32>]) -> Result<(), String> {
        block_on(self.0.start(sources))
    }
    fn step(&mut self, tokens: &[u32], want_attention: bool) -> Result<StepOutput, String> {
        block_on(self.0.step(tokens, want_attention))
    }
    fn step_top_k(&mut self, tokens: &[u32], k: usize, want_attention: bool) -> Result<TopKOutput, String> {
        block_on(self.0.step_top_k(tokens, k, want_attention))
    }
    fn select_rows(&mut self, rows: &[usize]) -> Result<(), String> {
        block_on(self.0.select_rows(rows))
    }
    fn greedy_steps(&mut self, tokens: &[u32], max_steps: usize) -> Result<Option<ChainedPicks>, String> {
        block_on(self.0.greedy_steps(tokens, max_steps))
    }
    fn beam_steps(&mut self, chain: &BeamChain) -> Result<Option<RankedSteps>, String> {
        block_on(self.0.beam_steps(chain))
    }
}

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
}

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

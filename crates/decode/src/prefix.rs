//! Generation from a prefix ("interactive translation"): a step model whose outputs must begin with
//! given tokens. While a row is inside its prefix, every token but the prefix's next one gets
//! log-probability −∞ (the prefix token keeps the model's own), so greedy, beam search and sampling
//! all go on from the prefix unchanged, and the output's score is the model's score of the whole.

use crate::step::top_k;
use crate::{AsyncStepModel, ChainedPicks, StepOutput, TopKOutput};

pub struct Prefixed<'a, M: ?Sized> {
    inner: &'a mut M,
    /// Per source sentence: the tokens its output begins with (no EOS).
    prefixes: Vec<Vec<u32>>,
    /// Per row: (sentence, tokens fed so far).
    rows: Vec<(usize, usize)>,
}

impl<'a, M: AsyncStepModel + ?Sized> Prefixed<'a, M> {
    /// `prefixes[i]` for source i of the next `start` (an empty prefix forces nothing).
    pub fn new(inner: &'a mut M, prefixes: Vec<Vec<u32>>) -> Self {
        Self { inner, prefixes, rows: vec![] }
    }

    fn forcing(&self) -> bool {
        self.rows.iter().any(|&(s, pos)| pos < self.prefixes[s].len())
    }

    /// Masks the rows still inside their prefix and moves every row one token on.
    fn force(&mut self, log_probs: &mut [f32]) {
        let v = self.inner.vocab_size();
        for (r, (s, pos)) in self.rows.iter_mut().enumerate() {
            if let Some(&want) = self.prefixes[*s].get(*pos) {
                let row = &mut log_probs[r * v..(r + 1) * v];
                let keep = row[want as usize];
                row.fill(f32::NEG_INFINITY);
                row[want as usize] = keep;
            }
            *pos += 1;
        }
    }
}

impl<M: AsyncStepModel + ?Sized> AsyncStepModel for Prefixed<'_, M> {
    fn vocab_size(&self) -> usize {
        self.inner.vocab_size()
    }
    fn bos(&self) -> u32 {
        self.inner.bos()
    }
    fn eos(&self) -> u32 {
        self.inner.eos()
    }
    fn max_output_len(&self) -> usize {
        self.inner.max_output_len()
    }
    async fn start(&mut self, sources: &[Vec<u32>]) -> Result<(), String> {
        if sources.len() != self.prefixes.len() {
            return Err(format!("{} sources but {} prefixes", sources.len(), self.prefixes.len()));
        }
        let v = self.inner.vocab_size();
        if let Some(&bad) = self.prefixes.iter().flatten().find(|&&t| t as usize >= v) {
            return Err(format!("prefix token {bad} is outside the model's vocabulary of {v}"));
        }
        self.rows = (0..sources.len()).map(|s| (s, 0)).collect();
        self.inner.start(sources).await
    }
    async fn step(&mut self, tokens: &[u32], want_attention: bool) -> Result<StepOutput, String> {
        let mut out = self.inner.step(tokens, want_attention).await?;
        self.force(&mut out.log_probs);
        Ok(out)
    }
    async fn step_top_k(&mut self, tokens: &[u32], k: usize, want_attention: bool) -> Result<TopKOutput, String> {
        if !self.forcing() {
            self.rows.iter_mut().for_each(|r| r.1 += 1);
            return self.inner.step_top_k(tokens, k, want_attention).await;
        }
        let out = self.step(tokens, want_attention).await?;
        let v = self.inner.vocab_size();
        let candidates = out.log_probs.chunks(v).map(|row| top_k(row, k)).collect();
        Ok(TopKOutput { candidates, attention: out.attention })
    }
    async fn select_rows(&mut self, rows: &[usize]) -> Result<(), String> {
        self.rows = rows.iter().map(|&r| self.rows[r]).collect();
        self.inner.select_rows(rows).await
    }
    async fn greedy_steps(&mut self, tokens: &[u32], max_steps: usize) -> Result<Option<ChainedPicks>, String> {
        // Chained steps never look back at a prefix: only once every row is past its own.
        if self.forcing() {
            return Ok(None);
        }
        let picks = self.inner.greedy_steps(tokens, max_steps).await?;
        if let Some(p) = &picks {
            self.rows.iter_mut().zip(p).for_each(|(r, steps)| r.1 += steps.len());
        }
        Ok(picks)
    }
}

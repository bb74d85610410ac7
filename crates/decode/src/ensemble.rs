//! An ensemble of step models over one vocabulary: every step runs each member and returns the log of
//! the members' mean probability, log(1/N Σ exp(lp_i)), as fairseq's ensembles do (a normalised
//! distribution, so beam scores and sampling keep their meaning). Attention is the members' mean.

use std::ops::DerefMut;

use crate::step::{top_k, AsyncStepModel, Blocking, ChainedPicks, StepModel, StepOutput, TopKOutput};

/// log(mean(exp(values))) without overflow; -inf when every value is -inf.
fn log_mean_exp(values: &[f32]) -> f32 {
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if max == f32::NEG_INFINITY {
        return max;
    }
    let sum: f64 = values.iter().map(|&v| ((v - max) as f64).exp()).sum();
    max + (sum / values.len() as f64).ln() as f32
}

/// The members' step outputs combined: log of the mean probability, mean attention.
fn mean_of(outputs: Vec<StepOutput>, want_attention: bool) -> Result<StepOutput, String> {
    let n = outputs[0].log_probs.len();
    if let Some(i) = outputs.iter().position(|o| o.log_probs.len() != n) {
        return Err(format!(
            "ensemble member {} returned {} log-probabilities, the first {n}",
            i + 1,
            outputs[i].log_probs.len()
        ));
    }
    let mut column = vec![0f32; outputs.len()];
    let log_probs = (0..n)
        .map(|j| {
            column.iter_mut().zip(&outputs).for_each(|(c, o)| *c = o.log_probs[j]);
            log_mean_exp(&column)
        })
        .collect();
    let attention = match outputs.iter().map(|o| o.attention.as_ref()).collect::<Option<Vec<_>>>() {
        Some(all) if want_attention => Some(
            (0..all[0].len())
                .map(|row| {
                    let len = all[0][row].len();
                    (0..len)
                        .map(|k| {
                            all.iter().map(|a| a[row].get(k).copied().unwrap_or(0.0)).sum::<f32>() / all.len() as f32
                        })
                        .collect()
                })
                .collect(),
        ),
        _ => None,
    };
    Ok(StepOutput { log_probs, attention })
}

/// The ensemble over any handles to members (`&mut M`, `Box<dyn StepModel>`): members step one
/// after another (awaited: the WGSL engine in the browser must be) and their outputs are combined.
pub struct AsyncEnsemble<T> {
    members: Vec<T>,
}

impl<T: DerefMut<Target = M>, M: AsyncStepModel + ?Sized> AsyncEnsemble<T> {
    /// Members must share the vocabulary and its BOS/EOS ids.
    pub fn new(members: Vec<T>) -> Result<Self, String> {
        let first = members.first().ok_or("an ensemble needs at least one model")?;
        let key = |m: &M| (m.vocab_size(), m.bos(), m.eos());
        if let Some(i) = members.iter().position(|m| key(m) != key(first)) {
            return Err(format!("ensemble member {} has another vocabulary (size, BOS, EOS) than the first", i + 1));
        }
        Ok(Self { members })
    }
}

/// The synchronous ensemble (the CPU reference, native GPU engines): `Ensemble::new(boxed members)`.
pub type Ensemble<'a> = Blocking<AsyncEnsemble<Box<dyn StepModel + 'a>>>;

impl<'a> Ensemble<'a> {
    /// Members must share the vocabulary and its BOS/EOS ids.
    pub fn new(members: Vec<Box<dyn StepModel + 'a>>) -> Result<Self, String> {
        Ok(Blocking(AsyncEnsemble::new(members)?))
    }
}

impl<T: DerefMut<Target = M>, M: AsyncStepModel + ?Sized> AsyncStepModel for AsyncEnsemble<T> {
    fn vocab_size(&self) -> usize {
        self.members[0].vocab_size()
    }
    fn bos(&self) -> u32 {
        self.members[0].bos()
    }
    fn eos(&self) -> u32 {
        self.members[0].eos()
    }
    fn max_output_len(&self) -> usize {
        self.members.iter().map(|m| m.max_output_len()).min().unwrap_or(0)
    }
    async fn start(&mut self, sources: &[Vec<u32>]) -> Result<(), String> {
        for m in &mut self.members {
            m.start(sources).await?;
        }
        Ok(())
    }
    async fn step(&mut self, tokens: &[u32], want_attention: bool) -> Result<StepOutput, String> {
        let mut outputs = Vec::with_capacity(self.members.len());
        for m in &mut self.members {
            outputs.push(m.step(tokens, want_attention).await?);
        }
        mean_of(outputs, want_attention)
    }
    async fn step_top_k(&mut self, tokens: &[u32], k: usize, want_attention: bool) -> Result<TopKOutput, String> {
        let out = self.step(tokens, want_attention).await?;
        let v = self.vocab_size();
        let candidates = out.log_probs.chunks(v).map(|row| top_k(row, k)).collect();
        Ok(TopKOutput { candidates, attention: out.attention })
    }
    async fn select_rows(&mut self, rows: &[usize]) -> Result<(), String> {
        for m in &mut self.members {
            m.select_rows(rows).await?;
        }
        Ok(())
    }
    async fn greedy_steps(&mut self, _tokens: &[u32], _max_steps: usize) -> Result<Option<ChainedPicks>, String> {
        Ok(None)
    }
}

//! The candle reference as a [`StepModel`]: the oracle for the GPU engine and the browser's CPU fallback.

use candle_core::{Device, Tensor};
use wgslate_decode::{StepModel, StepOutput};

use crate::config::ModelConfig;
use crate::config::{BOS_ID, EOS_ID, PAD_ID};
use crate::gru::GruState;
use crate::transformer::TransformerState;
use crate::Net;

enum State {
    Transformer(TransformerState),
    Gru(GruState),
}

pub struct CpuStepper<'a> {
    net: &'a Net,
    config: &'a ModelConfig,
    state: Option<State>,
    source_lens: Vec<usize>,
    row_source: Vec<usize>,
    /// Full attention of the last step when asked: per row, (layers × heads × S) for the
    /// Transformer, (1 × 1 × S) for the GRU.
    pub last_attention_full: Option<Tensor>,
}

fn err(e: candle_core::Error) -> String {
    e.to_string()
}

/// Pads token rows with PAD into (B, S) ids and a (B, S) 1/0 mask.
pub fn pad_batch(rows: &[Vec<u32>]) -> candle_core::Result<(Tensor, Tensor)> {
    let s = rows.iter().map(|r| r.len()).max().unwrap_or(1).max(1);
    let mut ids = vec![PAD_ID; rows.len() * s];
    let mut mask = vec![0f32; rows.len() * s];
    for (i, r) in rows.iter().enumerate() {
        ids[i * s..i * s + r.len()].copy_from_slice(r);
        mask[i * s..i * s + r.len()].iter_mut().for_each(|m| *m = 1.0);
    }
    Ok((Tensor::from_vec(ids, (rows.len(), s), &Device::Cpu)?, Tensor::from_vec(mask, (rows.len(), s), &Device::Cpu)?))
}

impl<'a> CpuStepper<'a> {
    pub fn new(net: &'a Net, config: &'a ModelConfig) -> Self {
        Self { net, config, state: None, source_lens: vec![], row_source: vec![], last_attention_full: None }
    }
}

impl StepModel for CpuStepper<'_> {
    fn vocab_size(&self) -> usize {
        self.config.vocab_size()
    }
    fn bos(&self) -> u32 {
        BOS_ID
    }
    fn eos(&self) -> u32 {
        EOS_ID
    }
    fn max_output_len(&self) -> usize {
        self.config.max_len() - 1
    }

    fn start(&mut self, sources: &[Vec<u32>]) -> Result<(), String> {
        let max = self.config.max_len();
        if let Some(s) = sources.iter().find(|s| s.len() > max) {
            return Err(format!("source has {} tokens; the model takes at most {max}", s.len()));
        }
        let (src, mask) = pad_batch(sources).map_err(err)?;
        self.state = Some(match self.net {
            Net::Transformer(t) => {
                let memory = t.encode(&src, &mask, false).map_err(err)?;
                State::Transformer(t.start(&memory, &mask).map_err(err)?)
            }
            Net::Gru(g) => State::Gru(g.encode(&src, &mask, false).map_err(err)?),
        });
        self.source_lens = sources.iter().map(|s| s.len()).collect();
        self.row_source = (0..sources.len()).collect();
        Ok(())
    }

    fn step(&mut self, tokens: &[u32], want_attention: bool) -> Result<StepOutput, String> {
        let state = self.state.as_mut().ok_or("step before start")?;
        if tokens.len() != self.row_source.len() {
            return Err(format!("{} tokens for {} rows", tokens.len(), self.row_source.len()));
        }
        let t = Tensor::from_slice(tokens, tokens.len(), &Device::Cpu).map_err(err)?;
        let (log_probs, attention) = match (self.net, state) {
            (Net::Transformer(m), State::Transformer(s)) => {
                let (lp, a) = m.step(s, &t).map_err(err)?;
                (lp, a)
            }
            (Net::Gru(m), State::Gru(s)) => {
                let (lp, a) = m.step(s, &t).map_err(err)?;
                (lp, a.unsqueeze(1).and_then(|a| a.unsqueeze(1)).map_err(err)?)
            }
            _ => unreachable!("state matches the network"),
        };
        let log_probs = log_probs.flatten_all().and_then(|t| t.to_vec1::<f32>()).map_err(err)?;
        let attention = if want_attention {
            let mean = attention.mean(1).and_then(|a| a.mean(1)).and_then(|a| a.to_vec2::<f32>()).map_err(err)?;
            self.last_attention_full = Some(attention);
            Some(
                mean.into_iter()
                    .zip(&self.row_source)
                    .map(|(mut row, &s)| {
                        row.truncate(self.source_lens[s]);
                        row
                    })
                    .collect(),
            )
        } else {
            None
        };
        Ok(StepOutput { log_probs, attention })
    }

    fn select_rows(&mut self, rows: &[usize]) -> Result<(), String> {
        let idx: Vec<u32> = rows.iter().map(|&r| r as u32).collect();
        let idx = Tensor::from_vec(idx, rows.len(), &Device::Cpu).map_err(err)?;
        let state = self.state.as_mut().ok_or("select_rows before start")?;
        *state = match state {
            State::Transformer(s) => State::Transformer(s.select(&idx).map_err(err)?),
            State::Gru(s) => State::Gru(s.select(&idx).map_err(err)?),
        };
        self.row_source = rows.iter().map(|&r| self.row_source[r]).collect();
        Ok(())
    }
}

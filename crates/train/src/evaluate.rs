//! Validation: teacher-forced loss and greedy corpus BLEU (sacreBLEU 13a).

use candle_core::Result;
use wgslate_decode::{greedy, LengthLimits};
use wgslate_metrics::{Bleu, BleuOptions};
use wgslate_model::step::CpuStepper;
use wgslate_model::{ModelConfig, Net, Vocab};

use crate::data::{make_batches, to_batch, Pair};

pub fn validation_loss(net: &Net, pairs: &[Pair]) -> Result<f64> {
    let (mut sum, mut count) = (0f64, 0usize);
    for idx in make_batches(pairs, 4000) {
        let batch = to_batch(pairs, &idx)?;
        let l = crate::loss(net, &batch, false, crate::Objective::cross_entropy(0.0))?.to_scalar::<f32>()? as f64;
        sum += l * batch.target_tokens as f64;
        count += batch.target_tokens;
    }
    Ok(sum / count.max(1) as f64)
}

/// Greedy translations of `sources` (raw text), batched by length.
pub fn translate(
    net: &Net,
    config: &ModelConfig,
    vocab: &Vocab,
    sources: &[String],
) -> std::result::Result<Vec<String>, String> {
    let ids: Vec<Vec<u32>> = sources
        .iter()
        .map(|s| {
            vocab.encode(s).map(|mut v| {
                v.truncate(config.max_len());
                v
            })
        })
        .collect::<std::result::Result<_, _>>()?;
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by_key(|&i| ids[i].len());
    let mut out = vec![String::new(); ids.len()];
    let mut stepper = CpuStepper::new(net, config);
    for chunk in order.chunks(64) {
        let batch: Vec<Vec<u32>> = chunk.iter().map(|&i| ids[i].clone()).collect();
        let hyps = greedy(&mut stepper, &batch, LengthLimits::default(), false)?;
        for (&i, h) in chunk.iter().zip(hyps) {
            out[i] = vocab.decode(&h.tokens);
        }
    }
    Ok(out)
}

pub fn bleu(hyps: &[String], refs: &[String]) -> f64 {
    let h: Vec<&str> = hyps.iter().map(String::as_str).collect();
    let r: Vec<&str> = refs.iter().map(String::as_str).collect();
    Bleu::new(BleuOptions::default()).corpus_score(&h, &[r]).score
}

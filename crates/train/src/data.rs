//! Parallel corpus → token ids → length-bucketed batches of about `max_tokens` (padding included).

use candle_core::{Device, Result, Tensor};
use rand::seq::SliceRandom;
use rand::{rngs::StdRng, SeedableRng};
use wgslate_model::config::{BOS_ID, PAD_ID};
use wgslate_model::Vocab;

pub struct Pair {
    /// Source ids ending in EOS.
    pub src: Vec<u32>,
    /// Target ids ending in EOS.
    pub tgt: Vec<u32>,
}

pub fn read_lines(path: &str) -> std::result::Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    Ok(text.lines().map(str::to_string).collect())
}

pub fn encode_pairs(
    vocab: &Vocab,
    src: &[String],
    tgt: &[String],
    max_len: usize,
) -> std::result::Result<Vec<Pair>, String> {
    if src.len() != tgt.len() {
        return Err(format!("source has {} lines, target {}", src.len(), tgt.len()));
    }
    let mut pairs = Vec::with_capacity(src.len());
    for (s, t) in src.iter().zip(tgt) {
        let (s, t) = (vocab.encode(s)?, vocab.encode(t)?);
        // The decoder input adds BOS, so the target needs one spare position.
        if s.len() <= max_len && t.len() < max_len && s.len() > 1 && t.len() > 1 {
            pairs.push(Pair { src: s, tgt: t });
        }
    }
    Ok(pairs)
}

/// Indices of pairs grouped into batches; the grouping is fixed, the order shuffled per epoch.
pub fn make_batches(pairs: &[Pair], max_tokens: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by_key(|&i| (pairs[i].src.len(), pairs[i].tgt.len(), i));
    let mut batches = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    let mut longest = 0;
    for i in order {
        let len = pairs[i].src.len().max(pairs[i].tgt.len() + 1);
        if !current.is_empty() && longest.max(len) * (current.len() + 1) > max_tokens {
            batches.push(std::mem::take(&mut current));
            longest = 0;
        }
        longest = longest.max(len);
        current.push(i);
    }
    if !current.is_empty() {
        batches.push(current);
    }
    batches
}

pub fn epoch_order(n_batches: usize, seed: u64, epoch: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n_batches).collect();
    order.shuffle(&mut StdRng::seed_from_u64(seed.wrapping_mul(1_000_003).wrapping_add(epoch as u64)));
    order
}

pub struct Batch {
    pub src: Tensor,
    pub src_mask: Tensor,
    pub tgt_in: Tensor,
    pub tgt_out: Tensor,
    /// (B·T) 1/0 over target positions.
    pub tgt_mask: Tensor,
    pub target_tokens: usize,
}

pub fn to_batch(pairs: &[Pair], idx: &[usize]) -> Result<Batch> {
    let dev = Device::Cpu;
    let srcs: Vec<Vec<u32>> = idx.iter().map(|&i| pairs[i].src.clone()).collect();
    let (src, src_mask) = wgslate_model::step::pad_batch(&srcs)?;
    let t = idx.iter().map(|&i| pairs[i].tgt.len()).max().unwrap_or(1);
    let b = idx.len();
    let mut tin = vec![PAD_ID; b * t];
    let mut tout = vec![PAD_ID; b * t];
    let mut mask = vec![0f32; b * t];
    let mut count = 0;
    for (row, &i) in idx.iter().enumerate() {
        let y = &pairs[i].tgt;
        for (j, &tok) in y.iter().enumerate() {
            tin[row * t + j] = if j == 0 { BOS_ID } else { y[j - 1] };
            tout[row * t + j] = tok;
            mask[row * t + j] = 1.0;
        }
        count += y.len();
    }
    Ok(Batch {
        src,
        src_mask,
        tgt_in: Tensor::from_vec(tin, (b, t), &dev)?,
        tgt_out: Tensor::from_vec(tout, b * t, &dev)?,
        tgt_mask: Tensor::from_vec(mask, b * t, &dev)?,
        target_tokens: count,
    })
}

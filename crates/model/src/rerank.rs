//! Noisy-channel reranking of an n-best list: a model of the reverse direction (de→en for en→de)
//! scores how well each hypothesis explains the source, log P(source | hypothesis), and each
//! sentence's hypotheses are reordered by `search score + weight · that`.

use wgslate_decode::{forced_log_probs_async, AsyncStepModel};

use crate::translate::{encode_sources, Translation};
use crate::Model;

/// `engine` runs `backward` (synchronous callers: `wgslate_decode::block_on`); `out[i]` holds the
/// hypotheses for `sources[i]`. Each hypothesis' `score` becomes the combined one, and `outputs` is
/// sorted by it (ties keep the search's order). The callers check `weight` (finite, ≥ 0).
pub async fn rerank_async<M: AsyncStepModel + ?Sized>(
    engine: &mut M,
    backward: &Model,
    sources: &[String],
    out: &mut [Translation],
    weight: f32,
    batch: usize,
) -> Result<(), String> {
    if sources.len() != out.len() {
        return Err(format!("{} sources but {} translations to rerank", sources.len(), out.len()));
    }
    // One row per (sentence, hypothesis): the hypothesis is the backward model's source and the
    // original sentence its target.
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let mut texts = Vec::new();
    for (i, t) in out.iter().enumerate() {
        for (j, (text, _)) in t.outputs.iter().enumerate() {
            pairs.push((i, j));
            texts.push(text.clone());
        }
    }
    let hyp_ids = encode_sources(backward, &texts)?;
    let mut targets = Vec::with_capacity(sources.len());
    for s in sources {
        let mut ids = backward.vocab.encode(s)?;
        ids.pop(); // EOS: the scorer adds it
        targets.push(ids);
    }
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by_key(|&k| (hyp_ids[k].0.len(), k));
    let mut channel = vec![0f32; pairs.len()];
    for chunk in order.chunks(batch.max(1)) {
        let srcs: Vec<Vec<u32>> = chunk.iter().map(|&k| hyp_ids[k].0.clone()).collect();
        let tgts: Vec<Vec<u32>> = chunk.iter().map(|&k| targets[pairs[k].0].clone()).collect();
        for (&k, lp) in chunk.iter().zip(forced_log_probs_async(engine, &srcs, &tgts).await?) {
            channel[k] = lp;
        }
    }
    for (&(i, j), lp) in pairs.iter().zip(channel) {
        let h = &mut out[i].outputs[j].1;
        h.score += weight * lp;
    }
    for t in out.iter_mut() {
        t.outputs.sort_by(|a, b| b.1.score.total_cmp(&a.1.score));
    }
    Ok(())
}

//! Data parallelism on the CPU: one batch is split into sub-batches of whole rows, each worker
//! thread computes its part's loss and gradients, and the gradients are summed weighted by target
//! tokens, which gives the gradient of the whole batch's mean loss.
//!
//! Why: most of candle's CPU ops (and our fused ones) run on one thread, so two rayon threads on
//! one graph leave a core idle much of the step; two graphs, one per core, keep both busy.

use candle_core::{backprop::GradStore, Result, Tensor, Var};
use wgslate_model::Net;

use crate::data::{self, Pair};
use crate::Objective;

/// Gradients aligned with the optimizer's parameters (`None` where a parameter got none).
pub type Grads = Vec<Option<Tensor>>;

/// The store's gradients in parameter order.
pub fn collect(params: &[(String, Var)], store: &GradStore) -> Grads {
    params.iter().map(|(_, p)| store.get(p.as_tensor()).cloned()).collect()
}

/// Splits the rows `idx` (sorted by length, as `make_batches` leaves them) into `parts`
/// contiguous runs of nearly equal size; never more runs than rows.
pub fn split_rows(idx: &[usize], parts: usize) -> Vec<&[usize]> {
    let parts = parts.clamp(1, idx.len().max(1));
    let (base, extra) = (idx.len() / parts, idx.len() % parts);
    let mut out = Vec::with_capacity(parts);
    let mut start = 0;
    for p in 0..parts {
        let len = base + usize::from(p < extra);
        out.push(&idx[start..start + len]);
        start += len;
    }
    out
}

/// The objective's mean over the batch's target tokens, its target-token count and the gradients.
pub fn loss_and_grads(
    net: &Net,
    pairs: &[Pair],
    idx: &[usize],
    parts: usize,
    params: &[(String, Var)],
    train: bool,
    objective: Objective,
) -> Result<(f64, usize, Grads)> {
    let chunks = split_rows(idx, parts);
    let total: usize = chunks.iter().flat_map(|c| c.iter()).map(|&i| pairs[i].tgt.len()).sum();
    let work = |rows: &[usize]| -> Result<(f64, Grads)> {
        let batch = data::to_batch(pairs, rows)?;
        let weight = batch.target_tokens as f64 / total as f64;
        let loss = crate::loss(net, &batch, train, objective)?;
        let grads = (&loss * weight)?.backward()?;
        let value = loss.to_scalar::<f32>()? as f64 * weight;
        Ok((value, collect(params, &grads)))
    };
    let results: Vec<Result<(f64, Grads)>> = if chunks.len() == 1 {
        vec![work(chunks[0])]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = chunks.iter().map(|rows| s.spawn(move || work(rows))).collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(candle_core::Error::Msg("a training worker thread panicked".into())))
                })
                .collect()
        })
    };
    let mut loss = 0.0;
    let mut sum: Grads = vec![None; params.len()];
    for r in results {
        let (l, grads) = r?;
        loss += l;
        for (acc, g) in sum.iter_mut().zip(grads) {
            *acc = match (acc.take(), g) {
                (Some(a), Some(g)) => Some((a + g)?),
                (a, g) => a.or(g),
            };
        }
    }
    Ok((loss, total, sum))
}

use crate::{block_on, AsyncStepModel, Hypothesis, LengthLimits, StepModel};

/// Greedy decoding of a batch of sources on a synchronous model.
pub fn greedy<M: StepModel + ?Sized>(
    model: &mut M,
    sources: &[Vec<u32>],
    limits: LengthLimits,
    want_attention: bool,
) -> Result<Vec<Hypothesis>, String> {
    block_on(greedy_async(model, sources, limits, want_attention))
}

/// Greedy decoding of a batch of sources; finished rows leave the batch.
pub async fn greedy_async<M: AsyncStepModel + ?Sized>(
    model: &mut M,
    sources: &[Vec<u32>],
    limits: LengthLimits,
    want_attention: bool,
) -> Result<Vec<Hypothesis>, String> {
    model.start(sources).await?;
    let eos = model.eos();
    let mut out: Vec<Hypothesis> = sources
        .iter()
        .map(|_| Hypothesis {
            tokens: vec![],
            token_log_probs: vec![],
            log_prob: 0.0,
            score: 0.0,
            attention: want_attention.then(Vec::new),
        })
        .collect();
    let max_lens: Vec<usize> = sources.iter().map(|s| limits.max_len(s.len(), model.max_output_len())).collect();
    let min_lens: Vec<usize> = sources.iter().map(|s| limits.min_len_for(s.len())).collect();
    let longest_min = min_lens.iter().copied().max().unwrap_or(0);
    // live[i] = the sentence row i decodes
    let mut live: Vec<usize> = (0..sources.len()).collect();
    let mut inputs = vec![model.bos(); sources.len()];
    let mut step = 0;
    while !live.is_empty() {
        // Per row, the tokens this round chose: several when the engine chains steps on the device.
        let chained = if want_attention || step < longest_min {
            None
        } else {
            let room = live.iter().map(|&s| max_lens[s] - out[s].tokens.len()).max().unwrap_or(1);
            model.greedy_steps(&inputs, room).await?
        };
        let (chosen, attention) = match chained {
            Some(c) => (c, None),
            None => {
                let k = if step < longest_min { 2 } else { 1 };
                let res = model.step_top_k(&inputs, k, want_attention).await?;
                let chosen = res
                    .candidates
                    .iter()
                    .zip(&live)
                    .map(|(cands, &s)| {
                        vec![*cands.iter().find(|(t, _)| step >= min_lens[s] || *t != eos).unwrap_or(&cands[0])]
                    })
                    .collect();
                (chosen, res.attention)
            }
        };
        let mut keep = Vec::new();
        for (row, &sent) in live.iter().enumerate() {
            let h = &mut out[sent];
            let mut alive = true;
            for &(tok, lp) in &chosen[row] {
                h.token_log_probs.push(lp);
                h.log_prob += lp;
                if let (Some(att), Some(rows)) = (h.attention.as_mut(), attention.as_ref()) {
                    att.push(rows[row].clone());
                }
                if tok == eos {
                    alive = false;
                    break;
                }
                h.tokens.push(tok);
                if h.tokens.len() >= max_lens[sent] {
                    alive = false;
                    break;
                }
            }
            if alive {
                keep.push(row);
            }
        }
        step += chosen.first().map_or(1, Vec::len);
        if keep.is_empty() {
            break;
        }
        if keep.len() != live.len() {
            model.select_rows(&keep).await?;
        }
        inputs = keep.iter().map(|&r| *out[live[r]].tokens.last().unwrap()).collect();
        live = keep.iter().map(|&r| live[r]).collect();
    }
    for h in &mut out {
        h.score = h.log_prob;
    }
    Ok(out)
}

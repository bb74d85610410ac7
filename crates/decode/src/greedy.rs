use crate::step::top_k;
use crate::trace::{entropy_bits, Fate, StepChoice, Trace, CHOICES};
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
    greedy_inner(model, sources, limits, want_attention, None).await
}

/// Greedy's step under a trace: the whole distribution is read back, its `CHOICES` most likely
/// tokens recorded (the chosen one kept), and the chosen (token, log-prob) returned.
fn traced_choice(
    t: &mut Trace,
    row: &[f32],
    parent: usize,
    parent_lp: f32,
    step: usize,
    eos_banned: (bool, u32),
) -> (u32, f32, usize) {
    let top = top_k(row, CHOICES.max(2));
    let chosen = *top.iter().find(|(tok, _)| !(eos_banned.0 && *tok == eos_banned.1)).unwrap_or(&top[0]);
    let mut chosen_node = 0;
    for &(tok, lp) in top.iter().take(CHOICES).filter(|c| c.1.is_finite()) {
        let id = t.add(parent, step, tok, lp, parent_lp + lp);
        if tok == chosen.0 {
            t.set(id, Fate::Kept);
            chosen_node = id;
        } else if eos_banned.0 && tok == eos_banned.1 {
            t.set(id, Fate::EosTooEarly);
        }
    }
    if chosen_node == 0 {
        chosen_node = t.add(parent, step, chosen.0, chosen.1, parent_lp + chosen.1);
        t.set(chosen_node, Fate::Kept);
    }
    let candidates = top
        .iter()
        .take(CHOICES)
        .filter(|c| c.1.is_finite())
        .map(|&(tok, lp)| (tok, lp, Some(if tok == chosen.0 { 1.0 } else { 0.0 })))
        .collect();
    t.choices.push(StepChoice { step, candidates, chosen: chosen.0, entropy: entropy_bits(row), sampled_entropy: 0.0 });
    (chosen.0, chosen.1, chosen_node)
}

/// Greedy search; with `trace` (one source only) it reads every step's distribution and records it.
pub(crate) async fn greedy_inner<M: AsyncStepModel + ?Sized>(
    model: &mut M,
    sources: &[Vec<u32>],
    limits: LengthLimits,
    want_attention: bool,
    mut trace: Option<&mut Trace>,
) -> Result<Vec<Hypothesis>, String> {
    if trace.is_some() && sources.len() != 1 {
        return Err("a search trace follows one sentence".into());
    }
    let mut node = 0;
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
        let chained = if want_attention || step < longest_min || trace.is_some() {
            None
        } else {
            let room = live.iter().map(|&s| max_lens[s] - out[s].tokens.len()).max().unwrap_or(1);
            model.greedy_steps(&inputs, room).await?
        };
        let (chosen, attention) = match chained {
            Some(c) => (c, None),
            None if trace.is_some() => {
                let res = model.step(&inputs, want_attention).await?;
                let (row, h) = (&res.log_probs[..model.vocab_size()], &out[live[0]]);
                let t = trace.as_deref_mut().ok_or("no trace")?;
                let (tok, lp, id) = traced_choice(t, row, node, h.log_prob, step, (step < min_lens[live[0]], eos));
                node = id;
                (vec![vec![(tok, lp)]], res.attention)
            }
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
    if let (Some(t), Some(h)) = (trace, out.first()) {
        t.finish(node, h, h.attention.as_deref().unwrap_or(&[]));
    }
    Ok(out)
}

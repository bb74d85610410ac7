//! Ancestral sampling with temperature, top-k and nucleus (top-p) truncation, seeded per sentence
//! and sample so both engines draw the same tokens from the same distributions.

use crate::rng::SplitMix64;
use crate::step::top_k;
use crate::trace::{entropy_bits, Fate, StepChoice, Trace, CHOICES};
use crate::{block_on, AsyncStepModel, Hypothesis, LengthLimits, StepModel};

#[derive(Debug, Clone)]
pub struct SamplingConfig {
    pub temperature: f32,
    /// Keep the k most likely tokens (0: all).
    pub top_k: usize,
    /// Keep the smallest set of most likely tokens whose probability reaches p (1: all).
    pub top_p: f32,
    pub seed: u64,
    pub samples: usize,
    pub limits: LengthLimits,
    pub want_attention: bool,
}

impl Default for SamplingConfig {
    fn default() -> Self {
        Self {
            temperature: 1.0,
            top_k: 0,
            top_p: 1.0,
            seed: 0,
            samples: 1,
            limits: LengthLimits::default(),
            want_attention: false,
        }
    }
}

/// The truncated, renormalised distribution a row is sampled from: (token, probability), most
/// likely first (ties to the lower id).
pub fn sampling_distribution(log_probs: &[f32], cfg: &SamplingConfig) -> Vec<(u32, f64)> {
    let t = cfg.temperature.max(1e-6) as f64;
    let mut idx: Vec<u32> = (0..log_probs.len() as u32).filter(|&i| log_probs[i as usize].is_finite()).collect();
    idx.sort_by(|&a, &b| log_probs[b as usize].total_cmp(&log_probs[a as usize]).then(a.cmp(&b)));
    if cfg.top_k > 0 {
        idx.truncate(cfg.top_k);
    }
    let max = idx.first().map_or(0.0, |&i| log_probs[i as usize] as f64);
    let weights: Vec<f64> = idx.iter().map(|&i| ((log_probs[i as usize] as f64 - max) / t).exp()).collect();
    let total: f64 = weights.iter().sum();
    let mut dist: Vec<(u32, f64)> = idx.into_iter().zip(weights.into_iter().map(|w| w / total)).collect();
    if cfg.top_p < 1.0 {
        let mut cum = 0.0;
        let keep = dist.iter().position(|&(_, p)| {
            cum += p;
            cum >= cfg.top_p as f64
        });
        dist.truncate(keep.map_or(dist.len(), |k| k + 1));
        let total: f64 = dist.iter().map(|d| d.1).sum();
        dist.iter_mut().for_each(|d| d.1 /= total);
    }
    dist
}

fn draw(dist: &[(u32, f64)], rng: &mut SplitMix64) -> u32 {
    let u = rng.next_f64();
    let mut cum = 0.0;
    for &(t, p) in dist {
        cum += p;
        if u < cum {
            return t;
        }
    }
    dist.last().map_or(0, |d| d.0)
}

/// Sampling on a synchronous model.
pub fn sample<M: StepModel + ?Sized>(
    model: &mut M,
    sources: &[Vec<u32>],
    cfg: &SamplingConfig,
) -> Result<Vec<Vec<Hypothesis>>, String> {
    block_on(sample_async(model, sources, cfg))
}

/// `samples` independent samples per source: result[source][sample].
pub async fn sample_async<M: AsyncStepModel + ?Sized>(
    model: &mut M,
    sources: &[Vec<u32>],
    cfg: &SamplingConfig,
) -> Result<Vec<Vec<Hypothesis>>, String> {
    sample_inner(model, sources, cfg, None).await
}

/// Records a sampling step: the model's `CHOICES` most likely tokens, what the truncation left of
/// each, and the drawn token. Returns the drawn token's node.
fn record_draw(
    t: &mut Trace,
    lp: &[f32],
    dist: &[(u32, f64)],
    drawn: u32,
    parent: usize,
    parent_lp: f32,
    step: usize,
) -> usize {
    let top = top_k(lp, CHOICES);
    let kept = |tok: u32| dist.iter().find(|d| d.0 == tok).map(|d| d.1);
    let mut drawn_node = 0;
    for &(tok, l) in top.iter().filter(|c| c.1.is_finite()) {
        let id = t.add(parent, step, tok, l, parent_lp + l);
        t.set(
            id,
            if tok == drawn {
                Fate::Kept
            } else if kept(tok).is_some() {
                Fate::BelowBeam
            } else {
                Fate::Cut
            },
        );
        if tok == drawn {
            drawn_node = id;
        }
    }
    if drawn_node == 0 {
        drawn_node = t.add(parent, step, drawn, lp[drawn as usize], parent_lp + lp[drawn as usize]);
        t.set(drawn_node, Fate::Kept);
    }
    let sampled: Vec<f32> = dist.iter().map(|d| d.1.ln() as f32).collect();
    t.choices.push(StepChoice {
        step,
        candidates: top.iter().filter(|c| c.1.is_finite()).map(|&(tok, l)| (tok, l, kept(tok))).collect(),
        chosen: drawn,
        entropy: entropy_bits(lp),
        sampled_entropy: entropy_bits(&sampled),
    });
    drawn_node
}

/// Sampling; with `trace` (one source, one sample) it records each step's distribution and draw.
pub(crate) async fn sample_inner<M: AsyncStepModel + ?Sized>(
    model: &mut M,
    sources: &[Vec<u32>],
    cfg: &SamplingConfig,
    mut trace: Option<&mut Trace>,
) -> Result<Vec<Vec<Hypothesis>>, String> {
    if trace.is_some() && (sources.len() != 1 || cfg.samples != 1) {
        return Err("a search trace follows one sentence and one sample".into());
    }
    let mut node = 0;
    if cfg.samples == 0 {
        return Err("ask for at least one sample".into());
    }
    model.start(sources).await?;
    let (eos, bos, vocab) = (model.eos(), model.bos(), model.vocab_size());
    let n = cfg.samples;
    // Row i*n + j is sample j of sentence i.
    model.select_rows(&(0..sources.len() * n).map(|r| r / n).collect::<Vec<_>>()).await?;
    let mut out: Vec<Vec<Hypothesis>> = sources
        .iter()
        .map(|_| {
            (0..n)
                .map(|_| Hypothesis {
                    tokens: vec![],
                    token_log_probs: vec![],
                    log_prob: 0.0,
                    score: 0.0,
                    attention: cfg.want_attention.then(Vec::new),
                })
                .collect()
        })
        .collect();
    let mut rngs: Vec<SplitMix64> =
        (0..sources.len() * n).map(|r| SplitMix64::for_item(cfg.seed, &sources[r / n], r % n)).collect();
    let max_lens: Vec<usize> = sources.iter().map(|s| cfg.limits.max_len(s.len(), model.max_output_len())).collect();
    let mut live: Vec<usize> = (0..sources.len() * n).collect();
    let mut inputs = vec![bos; live.len()];
    let mut step = 0;
    while !live.is_empty() {
        let res = model.step(&inputs, cfg.want_attention).await?;
        let mut keep = Vec::new();
        for (row, &item) in live.iter().enumerate() {
            let mut lp = res.log_probs[row * vocab..(row + 1) * vocab].to_vec();
            if step < cfg.limits.min_len {
                lp[eos as usize] = f32::NEG_INFINITY;
            }
            let dist = sampling_distribution(&lp, cfg);
            let tok = draw(&dist, &mut rngs[item]);
            let h = &mut out[item / n][item % n];
            if let Some(t) = trace.as_deref_mut() {
                node = record_draw(t, &lp, &dist, tok, node, h.log_prob, step);
            }
            h.token_log_probs.push(lp[tok as usize]);
            h.log_prob += lp[tok as usize];
            if let (Some(att), Some(a)) = (h.attention.as_mut(), res.attention.as_ref()) {
                att.push(a[row].clone());
            }
            if tok == eos {
                continue;
            }
            h.tokens.push(tok);
            if h.tokens.len() < max_lens[item / n] {
                keep.push(row);
            }
        }
        if keep.is_empty() {
            break;
        }
        if keep.len() != live.len() {
            model.select_rows(&keep).await?;
        }
        inputs = keep.iter().map(|&r| *out[live[r] / n][live[r] % n].tokens.last().unwrap()).collect();
        live = keep.iter().map(|&r| live[r]).collect();
        step += 1;
    }
    for h in out.iter_mut().flatten() {
        h.score = h.log_prob;
    }
    if let (Some(t), Some(h)) = (trace, out.first().and_then(|o| o.first())) {
        t.finish(node, h, h.attention.as_deref().unwrap_or(&[]));
    }
    Ok(out)
}

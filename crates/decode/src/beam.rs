//! Batched beam search: each sentence keeps its own beam; finished hypotheses leave it (fairseq /
//! OpenNMT style) and a sentence stops once `beam` are finished and no live one can still beat them.

use crate::penalties::Scoring;
use crate::step::top_k;
use crate::trace::{Fate, Trace, CANDIDATES};
use crate::{block_on, AsyncStepModel, BeamChain, Hypothesis, LengthLimits, StepModel};

#[derive(Debug, Clone)]
pub struct BeamConfig {
    pub beam: usize,
    pub limits: LengthLimits,
    pub scoring: Scoring,
    /// How many finished hypotheses to return per sentence (at most `beam`).
    pub nbest: usize,
    /// Forbid repeating any n-gram of this size (0: off).
    pub no_repeat_ngram: usize,
    /// Keep each hypothesis' attention rows in the output.
    pub want_attention: bool,
}

impl Default for BeamConfig {
    fn default() -> Self {
        Self {
            beam: 4,
            limits: LengthLimits::default(),
            scoring: Scoring::default(),
            nbest: 1,
            no_repeat_ngram: 0,
            want_attention: false,
        }
    }
}

#[derive(Clone)]
struct Live {
    tokens: Vec<u32>,
    token_log_probs: Vec<f32>,
    log_prob: f32,
    attention: Vec<Vec<f32>>,
    /// Its node in the trace (0 when there is none).
    node: usize,
}

struct Sentence {
    live: Vec<Live>,
    finished: Vec<Hypothesis>,
    max_len: usize,
    source_len: usize,
    done: bool,
}

/// A candidate continuation: (cumulative log-prob, row, token, token log-prob).
type Candidate = (f32, usize, u32, f32);

/// Tokens that would repeat an n-gram already in `tokens`.
pub fn banned_by_ngram(tokens: &[u32], n: usize) -> Vec<u32> {
    if n == 0 || tokens.len() + 1 < n {
        return vec![];
    }
    let prefix = &tokens[tokens.len() + 1 - n..];
    tokens.windows(n).filter(|w| &w[..n - 1] == prefix).map(|w| w[n - 1]).collect()
}

/// Whether `tokens` hold some n-gram twice (what `no_repeat_ngram` forbids an output to do).
pub fn repeats_ngram(tokens: &[u32], n: usize) -> bool {
    n > 0 && (n..=tokens.len()).any(|end| banned_by_ngram(&tokens[..end - 1], n).contains(&tokens[end - 1]))
}

impl Sentence {
    fn finish(&mut self, h: &Live, scoring: &Scoring, want_attention: bool, trace: Option<&mut Trace>) {
        let len = h.token_log_probs.len();
        let score = scoring.score(h.log_prob, len, self.source_len, &h.attention);
        self.finished.push(Hypothesis {
            tokens: h.tokens.clone(),
            token_log_probs: h.token_log_probs.clone(),
            log_prob: h.log_prob,
            score,
            attention: want_attention.then(|| h.attention.clone()),
        });
        if let (Some(t), Some(f)) = (trace, self.finished.last()) {
            t.finish(h.node, f, &h.attention);
        }
    }

    fn can_stop(&self, beam: usize, scoring: &Scoring) -> bool {
        if self.live.is_empty() {
            return true;
        }
        if self.finished.len() < beam {
            return false;
        }
        let mut scores: Vec<f32> = self.finished.iter().map(|h| h.score).collect();
        scores.sort_by(|a, b| b.total_cmp(a));
        let kth = scores[beam - 1];
        self.live
            .iter()
            .all(|h| scoring.upper_bound(h.log_prob, h.token_log_probs.len() + 1, self.max_len, self.source_len) <= kth)
    }
}

/// Beam search on a synchronous model.
pub fn beam_search<M: StepModel + ?Sized>(
    model: &mut M,
    sources: &[Vec<u32>],
    cfg: &BeamConfig,
) -> Result<Vec<Vec<Hypothesis>>, String> {
    block_on(beam_search_async(model, sources, cfg))
}

/// Beam search for each source; returns up to `nbest` hypotheses per source, best first.
pub async fn beam_search_async<M: AsyncStepModel + ?Sized>(
    model: &mut M,
    sources: &[Vec<u32>],
    cfg: &BeamConfig,
) -> Result<Vec<Vec<Hypothesis>>, String> {
    beam_inner(model, sources, cfg, None).await
}

/// The trace's node for candidate `tok` of row `r`, added if the trace has none yet.
fn node_for(
    t: &mut Trace,
    nodes: &mut [Vec<(u32, usize)>],
    r: usize,
    tok: u32,
    new: (usize, usize, f32, f32),
) -> usize {
    if let Some(&(_, id)) = nodes[r].iter().find(|(k, _)| *k == tok) {
        return id;
    }
    let (parent, step, lp, cum) = new;
    let id = t.add(parent, step, tok, lp, cum);
    nodes[r].push((tok, id));
    id
}

/// One step of every unfinished sentence from its candidates ranked best first (`ranked[s]`, rows
/// indexing `rows`): hypotheses ending in EOS among the `beam` best finish, the `beam` best others
/// go on; returns the next rows (sentence, live index) and the row each continues.
#[allow(clippy::too_many_arguments)]
fn advance(
    sents: &mut [Sentence],
    ranked: Vec<Option<Vec<Candidate>>>,
    rows: &[(usize, usize)],
    attention: Option<&Vec<Vec<f32>>>,
    cfg: &BeamConfig,
    step: usize,
    eos: u32,
    trace: &mut Option<&mut Trace>,
    row_nodes: &mut [Vec<(u32, usize)>],
) -> (Vec<(usize, usize)>, Vec<usize>) {
    let mut next_rows = Vec::new();
    let mut parents = Vec::new();
    for (s, (sent, cands)) in sents.iter_mut().zip(ranked).enumerate() {
        let Some(cands) = cands.filter(|_| !sent.done) else { continue };
        let mut new_live: Vec<(Live, usize)> = Vec::new();
        for (rank, &(cum, r, tok, lp)) in cands.iter().enumerate() {
            if new_live.len() >= cfg.beam && rank >= cfg.beam {
                break;
            }
            let parent = &sent.live[rows[r].1];
            let node = match trace.as_deref_mut() {
                Some(t) => node_for(t, row_nodes, r, tok, (parent.node, step, lp, cum)),
                None => 0,
            };
            let mut h = Live {
                tokens: parent.tokens.clone(),
                token_log_probs: parent.token_log_probs.clone(),
                log_prob: cum,
                attention: parent.attention.clone(),
                node,
            };
            h.token_log_probs.push(lp);
            if let Some(a) = attention {
                h.attention.push(a[r].clone());
            }
            if tok == eos {
                if rank < cfg.beam {
                    sent.finish(&h, &cfg.scoring, cfg.want_attention, trace.as_deref_mut());
                }
            } else if new_live.len() < cfg.beam {
                h.tokens.push(tok);
                if let Some(t) = trace.as_deref_mut() {
                    t.set(node, Fate::Kept);
                }
                new_live.push((h, r));
            }
        }
        // At the length limit, live hypotheses end without EOS.
        let (keep, full): (Vec<_>, Vec<_>) = new_live.into_iter().partition(|(h, _)| h.tokens.len() < sent.max_len);
        for (h, _) in &full {
            sent.finish(h, &cfg.scoring, cfg.want_attention, trace.as_deref_mut());
        }
        sent.live = keep.iter().map(|(h, _)| h.clone()).collect();
        if sent.can_stop(cfg.beam, &cfg.scoring) {
            if let Some(t) = trace.as_deref_mut() {
                sent.live.iter().for_each(|h| t.set(h.node, Fate::CannotWin));
            }
            sent.done = true;
            sent.live.clear();
            continue;
        }
        for (i, (_, r)) in keep.iter().enumerate() {
            next_rows.push((s, i));
            parents.push(*r);
        }
    }
    (next_rows, parents)
}

/// Steps whose beam the model chooses itself ([`BeamChain`]), from the rows `rows` that the model
/// is to keep as `parents`: the host replays each step's ranked candidates with [`advance`]. Returns
/// the next rows, the parents for them and the steps run; None where the model cannot, or the rows
/// are not `beam` per sentence.
async fn chained_steps<M: AsyncStepModel + ?Sized>(
    model: &mut M,
    sents: &mut [Sentence],
    rows: &[(usize, usize)],
    parents: &[usize],
    (step, k, bos): (usize, usize, u32),
    cfg: &BeamConfig,
) -> Result<Option<(Vec<(usize, usize)>, Vec<usize>, usize)>, String> {
    let groups = rows.chunks(cfg.beam);
    if !groups.clone().all(|g| g.len() == cfg.beam && g.iter().all(|r| r.0 == g[0].0)) {
        return Ok(None);
    }
    // The device's rows stay sentence after sentence, `beam` each, for the whole chain.
    let slot_sentence: Vec<usize> = groups.map(|g| g[0].0).collect();
    let tokens: Vec<u32> = rows.iter().map(|&(s, h)| *sents[s].live[h].tokens.last().unwrap_or(&bos)).collect();
    let log_probs: Vec<f32> = rows.iter().map(|&(s, h)| sents[s].live[h].log_prob).collect();
    let max_steps = rows.iter().map(|&(s, _)| sents[s].max_len.saturating_sub(step)).max().unwrap_or(1);
    let request = BeamChain { parents, tokens: &tokens, log_probs: &log_probs, beam: cfg.beam, k, max_steps };
    let Some(ranked_steps) = model.beam_steps(&request).await? else { return Ok(None) };
    if ranked_steps.is_empty() {
        return Err("the device ran no beam step".into());
    }
    let eos = model.eos();
    let (mut next, mut ran) = ((vec![], vec![]), 0);
    for ranked in ranked_steps {
        let mut cands: Vec<Option<Vec<Candidate>>> = vec![None; sents.len()];
        for (slot, list) in ranked.into_iter().enumerate().take(slot_sentence.len()) {
            let first = slot * cfg.beam;
            cands[slot_sentence[slot]] =
                Some(list.into_iter().map(|(cum, i, tok, lp)| (cum, first + i, tok, lp)).collect());
        }
        next = advance(sents, cands, rows, None, cfg, step + ran, eos, &mut None, &mut []);
        ran += 1;
        if let Some(s) = sents.iter().position(|t| !t.done && t.live.len() != cfg.beam) {
            let kept = sents[s].live.len();
            return Err(format!("the device's beam search kept {kept} hypotheses for sentence {s}, not {}", cfg.beam));
        }
        if next.0.is_empty() {
            break;
        }
    }
    Ok(Some((next.0, next.1, ran)))
}

/// The search; with `trace` (one source only) it also records how it decided.
pub(crate) async fn beam_inner<M: AsyncStepModel + ?Sized>(
    model: &mut M,
    sources: &[Vec<u32>],
    cfg: &BeamConfig,
    mut trace: Option<&mut Trace>,
) -> Result<Vec<Vec<Hypothesis>>, String> {
    if cfg.beam == 0 {
        return Err("beam width must be at least 1".into());
    }
    if trace.is_some() && sources.len() != 1 {
        return Err("a search trace follows one sentence".into());
    }
    model.start(sources).await?;
    let (eos, bos, vocab) = (model.eos(), model.bos(), model.vocab_size());
    // A trace keeps the attention so that β can re-rank from it.
    let want_attention = cfg.scoring.needs_attention() || cfg.want_attention || trace.is_some();
    let mut sents: Vec<Sentence> = sources
        .iter()
        .map(|s| Sentence {
            live: vec![Live { tokens: vec![], token_log_probs: vec![], log_prob: 0.0, attention: vec![], node: 0 }],
            finished: vec![],
            max_len: cfg.limits.max_len(s.len(), model.max_output_len()),
            source_len: s.len(),
            done: false,
        })
        .collect();
    // rows[r] = (sentence, index into its live list)
    let mut rows: Vec<(usize, usize)> = (0..sources.len()).map(|s| (s, 0)).collect();
    let k = (2 * cfg.beam).min(vocab);
    // The device may choose the beam by itself, several steps per submission, once nothing needs
    // the host between steps: no trace, n-gram ban or attention, and EOS allowed for every sentence.
    let mut chain = trace.is_none() && cfg.no_repeat_ngram == 0 && !want_attention;
    let ban_until = sources.iter().map(|s| cfg.limits.min_len_for(s.len())).max().unwrap_or(0);
    // Rows the model is still to keep (`select_rows`), deferred so that a chain can do it on the device.
    let mut pending: Option<Vec<usize>> = None;
    let mut step = 0usize;
    while !rows.is_empty() {
        if let Some(parents) = pending.as_deref().filter(|_| chain && step >= ban_until) {
            match chained_steps(model, &mut sents, &rows, parents, (step, k, bos), cfg).await? {
                Some((next_rows, next_parents, ran)) => {
                    (rows, pending, step) = (next_rows, Some(next_parents), step + ran);
                    continue;
                }
                None => chain = false,
            }
        }
        if let Some(parents) = pending.take() {
            model.select_rows(&parents).await?;
        }
        let inputs: Vec<u32> = rows.iter().map(|&(s, h)| *sents[s].live[h].tokens.last().unwrap_or(&bos)).collect();
        let eos_banned = |s: usize| step < cfg.limits.min_len_for(sents[s].source_len);
        // A ban on repeated n-grams needs each row's every log-probability; one on EOS alone (the
        // first step, or `min_len`) only one candidate more, so the device still picks them.
        // Per row, the trace's node of each candidate recorded: (token, node).
        // Without a trace none, so that the plain search allocates nothing for it.
        let mut row_nodes: Vec<Vec<(u32, usize)>> = if trace.is_some() { vec![vec![]; rows.len()] } else { vec![] };
        let recorded = if trace.is_some() { k.max(CANDIDATES).min(vocab) } else { k };
        let (candidates, attention): (Vec<Vec<(u32, f32)>>, _) = if cfg.no_repeat_ngram == 0 {
            let banning = rows.iter().any(|&(s, _)| eos_banned(s));
            let wanted = if banning { (recorded + 1).min(vocab) } else { recorded };
            let out = model.step_top_k(&inputs, wanted, want_attention).await?;
            if let Some(t) = trace.as_deref_mut() {
                for (r, row) in out.candidates.iter().enumerate() {
                    let (s, h) = rows[r];
                    let parent = &sents[s].live[h];
                    for &(tok, lp) in row.iter().filter(|c| c.1.is_finite()) {
                        let id = t.add(parent.node, step, tok, lp, parent.log_prob + lp);
                        row_nodes[r].push((tok, id));
                        if eos_banned(s) && tok == eos {
                            t.set(id, Fate::EosTooEarly);
                        }
                    }
                }
            }
            let cands = out
                .candidates
                .into_iter()
                .zip(&rows)
                .map(|(row, &(s, _))| row.into_iter().filter(|c| !(eos_banned(s) && c.0 == eos)).take(k).collect())
                .collect();
            (cands, out.attention)
        } else {
            let out = model.step(&inputs, want_attention).await?;
            if let Some(t) = trace.as_deref_mut() {
                for (r, row) in out.log_probs.chunks(vocab).enumerate() {
                    let (s, h) = rows[r];
                    let parent = &sents[s].live[h];
                    let banned = banned_by_ngram(&parent.tokens, cfg.no_repeat_ngram);
                    for (tok, lp) in top_k(row, recorded).into_iter().filter(|c| c.1.is_finite()) {
                        let id = t.add(parent.node, step, tok, lp, parent.log_prob + lp);
                        row_nodes[r].push((tok, id));
                        if banned.contains(&tok) {
                            t.set(id, Fate::RepeatedNgram);
                        } else if eos_banned(s) && tok == eos {
                            t.set(id, Fate::EosTooEarly);
                        }
                    }
                }
            }
            let cands = out
                .log_probs
                .chunks(vocab)
                .zip(&rows)
                .map(|(row, &(s, h))| {
                    let mut row = row.to_vec();
                    for b in banned_by_ngram(&sents[s].live[h].tokens, cfg.no_repeat_ngram) {
                        row[b as usize] = f32::NEG_INFINITY;
                    }
                    if eos_banned(s) {
                        row[eos as usize] = f32::NEG_INFINITY;
                    }
                    top_k(&row, k).into_iter().filter(|c| c.1.is_finite()).collect::<Vec<_>>()
                })
                .collect::<Vec<_>>();
            (cands, out.attention)
        };
        // Per sentence, (cumulative log-prob, row, token, token log-prob), best first.
        let ranked: Vec<Option<Vec<Candidate>>> = sents
            .iter()
            .enumerate()
            .map(|(s, sent)| {
                let mut cands: Vec<Candidate> = Vec::new();
                for (r, &(rs, h)) in rows.iter().enumerate() {
                    if rs == s {
                        cands.extend(
                            candidates[r]
                                .iter()
                                .filter(|c| c.1.is_finite())
                                .map(|&(t, lp)| (sent.live[h].log_prob + lp, r, t, lp)),
                        );
                    }
                }
                cands.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
                (!sent.done).then_some(cands)
            })
            .collect();
        let (next_rows, parents) =
            advance(&mut sents, ranked, &rows, attention.as_ref(), cfg, step, eos, &mut trace, &mut row_nodes);
        if next_rows.is_empty() {
            break;
        }
        pending = Some(parents);
        rows = next_rows;
        step += 1;
    }
    Ok(sents
        .into_iter()
        .map(|s| {
            let mut f = s.finished;
            f.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.log_prob.total_cmp(&a.log_prob)));
            f.truncate(cfg.nbest.max(1).min(cfg.beam));
            if f.is_empty() {
                // No candidate was ever finite (a broken model or weights): one empty output, ranked
                // last, so that every sentence still has a best hypothesis.
                let attention = cfg.want_attention.then(Vec::new);
                f.push(Hypothesis {
                    tokens: vec![],
                    token_log_probs: vec![],
                    log_prob: f32::NEG_INFINITY,
                    score: f32::NEG_INFINITY,
                    attention,
                });
            }
            f
        })
        .collect())
}

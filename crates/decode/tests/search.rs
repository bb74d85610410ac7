//! Search correctness on a toy step model whose outputs depend only on the source and the prefix.

mod toy;

use toy::*;
use wgslate_decode::*;

#[test]
fn wide_beam_equals_brute_force_under_every_penalty() {
    let sources = vec![vec![7, 8, 9], vec![10, 11]];
    let max_len = 4;
    let penalties =
        [LengthPenalty::None, LengthPenalty::Average(1.0), LengthPenalty::Gnmt(0.6), LengthPenalty::Gnmt(2.0)];
    let extras = [(0.0, 0.0), (0.2, 0.0), (0.0, 0.5), (0.3, -0.4)];
    for lp in penalties {
        for (coverage, end_penalty) in extras {
            let scoring = Scoring { length_penalty: lp, coverage, end_penalty };
            let cfg = BeamConfig {
                beam: 200,
                limits: limits(max_len),
                scoring,
                nbest: 3,
                no_repeat_ngram: 0,
                want_attention: false,
            };
            let out = beam_search(&mut toy(50), &sources, &cfg).unwrap();
            for (s, src) in sources.iter().enumerate() {
                let (tokens, score) = brute_force(src, max_len, &scoring);
                assert_eq!(out[s][0].tokens, tokens, "{scoring:?} source {s}");
                assert!((out[s][0].score - score).abs() < 1e-4, "{scoring:?}: {} vs {score}", out[s][0].score);
                assert!(out[s].windows(2).all(|w| w[0].score >= w[1].score), "n-best is sorted");
            }
        }
    }
}

#[test]
fn beam_of_one_is_greedy() {
    let sources: Vec<Vec<u32>> = (0..6).map(|i| vec![20 + i, 30 + i, 40]).collect();
    let greedy_out = greedy(&mut toy(50), &sources, limits(6), false).unwrap();
    let cfg = BeamConfig { beam: 1, limits: limits(6), ..Default::default() };
    let beam_out = beam_search(&mut toy(50), &sources, &cfg).unwrap();
    for (g, b) in greedy_out.iter().zip(&beam_out) {
        assert_eq!(g.tokens, b[0].tokens);
        assert!((g.log_prob - b[0].log_prob).abs() < 1e-5);
    }
}

#[test]
fn nbest_reports_log_probs_per_token() {
    let cfg = BeamConfig { beam: 4, nbest: 4, limits: limits(5), ..Default::default() };
    let out = beam_search(&mut toy(50), &[vec![1, 2, 3]], &cfg).unwrap();
    assert_eq!(out[0].len(), 4);
    for h in &out[0] {
        let sum: f32 = h.token_log_probs.iter().sum();
        assert!((sum - h.log_prob).abs() < 1e-5);
        // recompute from the toy model
        let mut lp = 0.0;
        let mut prefix = vec![];
        for &t in h.tokens.iter().chain(std::iter::once(&EOS)).take(h.token_log_probs.len()) {
            lp += log_probs(&[1, 2, 3], &prefix)[t as usize];
            prefix.push(t);
        }
        assert!((lp - h.log_prob).abs() < 1e-5);
    }
}

#[test]
fn forced_scores_equal_the_models_own_sums_and_the_searchs_log_probs() {
    // Targets of different lengths in one batch, one longer than the model can emit.
    let sources: Vec<Vec<u32>> = vec![vec![1, 2, 3], vec![4, 3], vec![5], vec![3, 3, 3, 3]];
    let targets: Vec<Vec<u32>> = vec![vec![3, 4], vec![], vec![5, 5, 4, 3, 4], vec![4; 12]];
    let got = forced_log_probs(&mut toy(8), &sources, &targets).unwrap();
    for ((source, target), got) in sources.iter().zip(&targets).zip(&got) {
        let kept: Vec<u32> = target.iter().copied().take(7).chain([EOS]).collect();
        let want: f32 = (0..kept.len()).map(|j| log_probs(source, &kept[..j])[kept[j] as usize]).sum();
        assert!((want - got).abs() < 1e-5, "{target:?}: {got} against {want}");
    }
    // The beam's own n-best, handed back, scores what the search said it did.
    let cfg = BeamConfig { beam: 4, nbest: 4, limits: limits(5), ..Default::default() };
    let nbest = beam_search(&mut toy(50), &sources[..1], &cfg).unwrap().remove(0);
    let finished: Vec<&Hypothesis> = nbest.iter().filter(|h| h.reached_eos()).collect();
    assert!(!finished.is_empty());
    let hyps: Vec<Vec<u32>> = finished.iter().map(|h| h.tokens.clone()).collect();
    let scores = forced_log_probs(&mut toy(50), &vec![sources[0].clone(); hyps.len()], &hyps).unwrap();
    for (h, s) in finished.iter().zip(scores) {
        assert!((h.log_prob - s).abs() < 1e-5);
    }
    let err = forced_log_probs(&mut toy(8), &sources[..1], &[vec![6]]).unwrap_err();
    assert!(err.contains("outside the model's vocabulary"), "{err}");
    assert!(forced_log_probs(&mut toy(8), &sources[..2], &targets[..1]).is_err());
}

#[test]
fn penalty_formulas_match_hand_values() {
    assert_eq!(LengthPenalty::None.divisor(7), 1.0);
    assert!((LengthPenalty::Average(1.0).divisor(4) - 4.0).abs() < 1e-6);
    assert!((LengthPenalty::Average(0.5).divisor(9) - 3.0).abs() < 1e-6);
    // ((5 + 4) / 6)^0.6 = 1.5^0.6
    assert!((LengthPenalty::Gnmt(0.6).divisor(4) - 1.275_424).abs() < 1e-5);
    // coverage: source totals [1.1 → 1.0, 0.3]; 0.2 · (ln 1 + ln 0.3)
    let att = vec![vec![0.5, 0.2], vec![0.6, 0.1]];
    assert!((penalties::coverage_penalty(0.2, &att, 2) - (-0.240_794_6)).abs() < 1e-5);
    let s = Scoring { length_penalty: LengthPenalty::Average(1.0), coverage: 0.0, end_penalty: 0.5 };
    // -2 / 4 + 0.5 · 4 / 2
    assert!((s.score(-2.0, 4, 2, &[]) - 0.5).abs() < 1e-6);
}

#[test]
fn no_repeat_ngram_and_min_length_are_respected() {
    assert_eq!(banned_by_ngram(&[3, 4, 3], 2), vec![4]);
    assert_eq!(banned_by_ngram(&[3, 4, 5], 3), Vec::<u32>::new());
    let cfg = BeamConfig {
        beam: 3,
        no_repeat_ngram: 2,
        limits: LengthLimits { a: 0.0, b: 12, min_len: 5 },
        ..Default::default()
    };
    for src in [vec![1u32, 2], vec![5, 6, 7], vec![9]] {
        let out = beam_search(&mut toy(50), &[src], &cfg).unwrap();
        let t = &out[0][0].tokens;
        assert!(t.len() >= 5, "min length: {t:?}");
        let mut seen = std::collections::HashSet::new();
        for w in t.windows(2) {
            assert!(seen.insert(w.to_vec()), "repeated bigram in {t:?}");
        }
    }
}

/// A ban on EOS alone (the first step, `min_len`) takes the k + 1 best a device picks, not every
/// log-probability (which cost beam search 2.2 KB of readback a token): the same n-best as the
/// full rows, which a no-repeat size that no output reaches makes the search read.
#[test]
fn an_eos_ban_on_the_top_k_gives_the_full_rows_n_best() {
    let sources: Vec<Vec<u32>> = (0..5).map(|i| vec![30 + i, 40 + i, 50]).chain([vec![9]]).collect();
    for min_len in [0, 1, 3] {
        for beam in [1, 2, 3, 5] {
            let limits = LengthLimits { a: 0.0, b: 8, min_len };
            let cfg = BeamConfig { beam, nbest: beam, limits, ..Default::default() };
            let full = BeamConfig { no_repeat_ngram: 50, ..cfg.clone() };
            let (top, rows) = (
                beam_search(&mut toy(50), &sources, &cfg).unwrap(),
                beam_search(&mut toy(50), &sources, &full).unwrap(),
            );
            for (a, b) in top.iter().zip(&rows) {
                let tokens = |h: &[Hypothesis]| h.iter().map(|h| h.tokens.clone()).collect::<Vec<_>>();
                assert_eq!(tokens(a), tokens(b), "beam {beam}, min_len {min_len}");
                assert!(a.iter().zip(b).all(|(x, y)| (x.score - y.score).abs() < 1e-6));
            }
        }
    }
}

#[test]
fn samples_follow_the_model_distribution() {
    // One step from a fixed prefix: the first token's empirical distribution against the model's.
    let source = vec![42u32, 43];
    let n = 20_000;
    let cfg = SamplingConfig { samples: n, seed: 7, limits: limits(1), ..Default::default() };
    let out = sample(&mut toy(50), std::slice::from_ref(&source), &cfg).unwrap();
    let p = log_probs(&source, &[]);
    let mut counts = [0usize; 6];
    for h in &out[0] {
        let first = h.tokens.first().copied().unwrap_or(EOS);
        counts[first as usize] += 1;
    }
    let chi2: f64 = (2..6)
        .map(|t| {
            let e = n as f64 * (p[t] as f64).exp();
            (counts[t] as f64 - e).powi(2) / e
        })
        .sum();
    // 3 degrees of freedom: P(χ² > 16.27) = 0.001
    assert!(chi2 < 16.27, "chi-square {chi2} for counts {counts:?}");
    // Deterministic for a seed, different for another.
    let again = sample(&mut toy(50), std::slice::from_ref(&source), &cfg).unwrap();
    assert_eq!(
        out[0].iter().map(|h| h.tokens.clone()).collect::<Vec<_>>(),
        again[0].iter().map(|h| h.tokens.clone()).collect::<Vec<_>>()
    );
}

#[test]
fn top_k_and_top_p_never_emit_excluded_tokens() {
    let lp = log_probs(&[5, 5], &[3, 4]);
    let mut order: Vec<u32> = (2..6).collect();
    order.sort_by(|&a, &b| lp[b as usize].total_cmp(&lp[a as usize]));
    let top2 = SamplingConfig { top_k: 2, ..Default::default() };
    let d = sampling_distribution(&lp, &top2);
    assert_eq!(d.iter().map(|x| x.0).collect::<Vec<_>>(), order[..2].to_vec());
    assert!((d.iter().map(|x| x.1).sum::<f64>() - 1.0).abs() < 1e-9);
    let nucleus = SamplingConfig { top_p: 0.5, ..Default::default() };
    let d = sampling_distribution(&lp, &nucleus);
    // The nucleus is the shortest prefix of the tokens by probability whose mass reaches top-p,
    // counted here from the log-probabilities themselves (finite ones are the whole distribution).
    let probs: Vec<f64> = order.iter().map(|&t| (lp[t as usize] as f64).exp()).collect();
    let mass: f64 = probs.iter().sum();
    let want = 1 + probs
        .iter()
        .scan(0.0, |cum, p| {
            *cum += p / mass;
            Some(*cum)
        })
        .position(|c| c >= 0.5)
        .unwrap();
    assert_eq!(d.iter().map(|x| x.0).collect::<Vec<_>>(), order[..want].to_vec());
    assert!(want < 4, "the toy distribution is peaked enough for the nucleus to exclude a token");
    for seed in 0..50 {
        let cfg = SamplingConfig { top_k: 1, seed, limits: limits(6), ..Default::default() };
        let s = sample(&mut toy(50), &[vec![8, 9]], &cfg).unwrap();
        let g = greedy(&mut toy(50), &[vec![8, 9]], limits(6), false).unwrap();
        assert_eq!(s[0][0].tokens, g[0].tokens, "top-k 1 is greedy");
    }
}

static BEAM_CHAINS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The toy model chaining up to three greedy steps per call, as the GPU engines do on the device.
struct Chained(Toy);

impl StepModel for Chained {
    fn vocab_size(&self) -> usize {
        StepModel::vocab_size(&self.0)
    }
    fn bos(&self) -> u32 {
        BOS
    }
    fn eos(&self) -> u32 {
        EOS
    }
    fn max_output_len(&self) -> usize {
        self.0.max_len
    }
    fn start(&mut self, sources: &[Vec<u32>]) -> Result<(), String> {
        StepModel::start(&mut self.0, sources)
    }
    fn step(&mut self, tokens: &[u32], want_attention: bool) -> Result<StepOutput, String> {
        StepModel::step(&mut self.0, tokens, want_attention)
    }
    fn select_rows(&mut self, rows: &[usize]) -> Result<(), String> {
        StepModel::select_rows(&mut self.0, rows)
    }
    fn greedy_steps(&mut self, tokens: &[u32], max_steps: usize) -> Result<Option<ChainedPicks>, String> {
        let mut out = vec![Vec::new(); tokens.len()];
        let mut input = tokens.to_vec();
        // Rows keep running after EOS (as on the device); the search ignores what follows.
        for _ in 0..max_steps.min(3) {
            let lp = StepModel::step(&mut self.0, &input, false)?.log_probs;
            input = lp.chunks(6).map(|row| top_k(row, 1)[0].0).collect();
            for (r, row) in lp.chunks(6).enumerate() {
                out[r].push(top_k(row, 1)[0]);
            }
        }
        Ok(Some(out))
    }
    /// `BeamChain`'s contract run on the host, up to three steps per call.
    fn beam_steps(&mut self, c: &BeamChain) -> Result<Option<RankedSteps>, String> {
        BEAM_CHAINS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        StepModel::select_rows(&mut self.0, c.parents)?;
        let (mut input, mut cum) = (c.tokens.to_vec(), c.log_probs.to_vec());
        let mut steps = Vec::new();
        for s in 0..c.max_steps.min(3) {
            let lp = StepModel::step(&mut self.0, &input, false)?.log_probs;
            let mut ranked_step = Vec::new();
            let (mut parents, mut next_input, mut next_cum) = (vec![], vec![], vec![]);
            for slot in 0..input.len() / c.beam {
                let mut cands: Vec<(f32, usize, u32, f32)> = (0..c.beam)
                    .flat_map(|i| {
                        let r = slot * c.beam + i;
                        top_k(&lp[r * 6..(r + 1) * 6], c.k).into_iter().map(move |(t, l)| (i, t, l))
                    })
                    .map(|(i, t, l)| (cum[slot * c.beam + i] + l, i, t, l))
                    .collect();
                cands.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
                cands.truncate(2 * c.beam);
                for &(cu, i, t, _) in cands.iter().filter(|c| c.2 != EOS).take(c.beam) {
                    parents.push(slot * c.beam + i);
                    next_input.push(t);
                    next_cum.push(cu);
                }
                ranked_step.push(cands);
            }
            steps.push(ranked_step);
            if s + 1 < c.max_steps.min(3) {
                StepModel::select_rows(&mut self.0, &parents)?;
                (input, cum) = (next_input, next_cum);
            }
        }
        Ok(Some(steps))
    }
}

/// Beam search whose beam the model chooses itself, a few steps per call (as the GPU engine does
/// on the device), gives what the host's own choice gives: the n-best, their log-probabilities
/// and scores, under length limits, a minimum length, and length and end penalties.
#[test]
fn beam_with_chained_steps_equals_beam_one_step_at_a_time() {
    let sources: Vec<Vec<u32>> = (0..12u32).map(|i| vec![10 + i, 20 + i % 3, 30]).collect();
    let scorings = [
        Scoring::default(),
        Scoring { length_penalty: LengthPenalty::Gnmt(1.0), end_penalty: 0.5, ..Default::default() },
    ];
    for lim in [limits(2), limits(9), LengthLimits { a: 1.0, b: 4, min_len: 3 }] {
        for beam in [1, 2, 3] {
            for scoring in scorings {
                let cfg = BeamConfig { beam, nbest: beam, limits: lim, scoring, ..Default::default() };
                let plain = beam_search(&mut toy(50), &sources, &cfg).unwrap();
                let chained = beam_search(&mut Chained(toy(50)), &sources, &cfg).unwrap();
                for (a, b) in plain.iter().zip(&chained) {
                    let key = |h: &Vec<Hypothesis>| -> Vec<(Vec<u32>, Vec<f32>, f32)> {
                        h.iter().map(|h| (h.tokens.clone(), h.token_log_probs.clone(), h.score)).collect()
                    };
                    assert_eq!(key(a), key(b), "beam {beam}, {lim:?}, {scoring:?}");
                }
            }
        }
    }
    let chains = BEAM_CHAINS.load(std::sync::atomic::Ordering::Relaxed);
    assert!(chains >= 18, "the searches chained their steps ({chains} chains)");
}

#[test]
fn greedy_with_chained_steps_equals_greedy_one_step_at_a_time() {
    let sources: Vec<Vec<u32>> = (0..12u32).map(|i| vec![10 + i, 20 + i % 3, 30]).collect();
    for lim in [limits(2), limits(7), LengthLimits { a: 1.0, b: 4, min_len: 2 }] {
        let plain = greedy(&mut toy(50), &sources, lim, false).unwrap();
        let chained = greedy(&mut Chained(toy(50)), &sources, lim, false).unwrap();
        for (a, b) in plain.iter().zip(&chained) {
            assert_eq!(a.tokens, b.tokens);
            assert_eq!(a.token_log_probs, b.token_log_probs);
        }
    }
}

#[test]
fn a_model_with_no_finite_candidate_still_gives_one_hypothesis_per_source() {
    let cfg = BeamConfig { beam: 4, nbest: 4, limits: limits(5), ..Default::default() };
    let out = beam_search(&mut Toy { broken: true, ..toy(5) }, &[vec![8, 9], vec![3]], &cfg).unwrap();
    assert_eq!(out.len(), 2);
    for nbest in out {
        assert_eq!(nbest.len(), 1, "an empty n-best would make every caller index outputs[0]");
        assert!(nbest[0].tokens.is_empty() && nbest[0].score == f32::NEG_INFINITY);
    }
}

#[test]
fn a_sentence_draws_the_same_samples_alone_or_anywhere_in_a_batch() {
    let cfg = SamplingConfig { samples: 3, seed: 11, limits: limits(6), ..Default::default() };
    let tokens = |out: &[Vec<Hypothesis>], i: usize| out[i].iter().map(|h| h.tokens.clone()).collect::<Vec<_>>();
    let alone = sample(&mut toy(50), &[vec![8, 9]], &cfg).unwrap();
    let batch = sample(&mut toy(50), &[vec![3], vec![4, 5, 2], vec![8, 9]], &cfg).unwrap();
    assert_eq!(tokens(&batch, 2), tokens(&alone, 0));
    let other = sample(&mut toy(50), &[vec![8, 9], vec![3]], &cfg).unwrap();
    assert_eq!(tokens(&other, 0), tokens(&alone, 0));
}

#[test]
fn a_wide_beam_never_returns_the_empty_translation_of_words() {
    // Sources with words (ending in EOS, as the tokenizer gives them): with no length penalty the
    // lone EOS (one log-probability) would often outscore every longer hypothesis (a sum of several).
    let cfg = BeamConfig { beam: 6, nbest: 6, limits: limits(12), ..Default::default() };
    let sources: Vec<Vec<u32>> = (0..200u32).map(|i| vec![10 + i, 11 + i, EOS]).collect();
    let out = beam_search(&mut toy(50), &sources, &cfg).unwrap();
    for (src, hyps) in sources.iter().zip(&out) {
        assert!(
            hyps.iter().all(|h| !h.tokens.is_empty()),
            "{src:?}: {:?}",
            hyps.iter().map(|h| &h.tokens).collect::<Vec<_>>()
        );
    }
    // An empty source (only its EOS) may still end at once: its best is what brute force finds,
    // the empty output included.
    let cfg = BeamConfig { beam: 200, limits: limits(3), ..Default::default() };
    let out = beam_search(&mut toy(50), &[vec![EOS]], &cfg).unwrap();
    assert_eq!(out[0][0].tokens, brute_force(&[EOS], 3, &cfg.scoring).0);
}

//! The search trace is the search's own record, and generation from a prefix goes on from it: on the
//! toy model (tests/toy), against the searches without a trace.

mod toy;

use toy::*;
use wgslate_decode::trace::{Fate, CANDIDATES};
use wgslate_decode::*;

fn sources() -> Vec<Vec<u32>> {
    (0..40u32).map(|i| (0..(i % 7 + 1)).map(|j| 7 + (i * 13 + j * 5) % 50).chain([EOS]).collect()).collect()
}

fn beam_configs() -> Vec<BeamConfig> {
    let mut out = vec![];
    for beam in [1, 2, 4, 8] {
        for (lp, coverage, end_penalty) in [
            (LengthPenalty::None, 0.0, 0.0),
            (LengthPenalty::Gnmt(0.6), 0.2, 0.0),
            (LengthPenalty::Average(1.0), 0.0, 0.5),
        ] {
            for (no_repeat_ngram, min_len) in [(0, 0), (2, 3)] {
                out.push(BeamConfig {
                    beam,
                    nbest: beam,
                    limits: LengthLimits { a: 1.5, b: 3, min_len },
                    scoring: Scoring { length_penalty: lp, coverage, end_penalty },
                    no_repeat_ngram,
                    want_attention: false,
                });
            }
        }
    }
    out
}

/// Every node adds its token's log-probability to its parent's, as the search added them.
fn check_sums(trace: &Trace) {
    for n in &trace.nodes[1..] {
        let parent = &trace.nodes[n.parent as usize];
        assert_eq!(n.log_prob, parent.log_prob + n.token_log_prob, "node {n:?}");
        assert_eq!(n.step, if n.parent == 0 { 0 } else { parent.step + 1 });
    }
}

#[test]
fn the_beam_trace_ranks_the_searchs_n_best_with_its_scores() {
    for cfg in beam_configs() {
        for source in sources() {
            let want = beam_search(&mut toy(12), std::slice::from_ref(&source), &cfg).unwrap().remove(0);
            let (got, trace) = trace_search(&mut toy(12), &source, &Search::Beam(cfg.clone())).unwrap();
            assert_eq!(got, want, "the traced search returns what the search returns");
            check_sums(&trace);
            let ranked: Vec<_> = trace.ranking().into_iter().map(|i| &trace.finished[i]).collect();
            for (h, f) in want.iter().zip(&ranked) {
                assert_eq!(f.tokens, h.tokens);
                assert_eq!(f.terms.total, h.score);
                assert_eq!(f.terms.log_prob, h.log_prob);
                // The finished node's path is the hypothesis, and its cumulative log-probability its total.
                let path: Vec<u32> = trace.path(f.node).iter().map(|&n| trace.nodes[n].token).collect();
                let eos = if f.reached_eos { vec![EOS] } else { vec![] };
                assert_eq!(path, [h.tokens.clone(), eos].concat());
                assert_eq!(trace.nodes[f.node].log_prob, h.log_prob);
                assert!(matches!(trace.nodes[f.node].fate, Fate::Finished(_)));
                let t = f.terms;
                assert_eq!(
                    t.total,
                    t.log_prob / t.length_divisor + t.coverage + t.end,
                    "the terms add up to the score"
                );
            }
            // Each live hypothesis shows at least CANDIDATES candidates (the toy has 4 it can emit).
            for (i, n) in trace.nodes.iter().enumerate() {
                if n.fate == Fate::Kept && i > 0 {
                    let children = trace.nodes.iter().filter(|c| c.parent as usize == i).count();
                    assert!(children == 0 || children >= CANDIDATES.min(4) - 1, "{children} candidates of node {i}");
                }
            }
        }
    }
}

#[test]
fn the_trace_says_why_candidates_were_pruned() {
    let cfg = BeamConfig {
        beam: 2,
        nbest: 2,
        limits: LengthLimits { a: 2.0, b: 4, min_len: 3 },
        no_repeat_ngram: 1,
        ..Default::default()
    };
    let mut fates = std::collections::HashSet::new();
    for source in sources() {
        let (_, trace) = trace_search(&mut toy(12), &source, &Search::Beam(cfg.clone())).unwrap();
        for n in &trace.nodes[1..] {
            fates.insert(std::mem::discriminant(&n.fate));
            if n.fate == Fate::EosTooEarly {
                assert!(n.token == EOS && (n.step as usize) < 3);
            }
            if n.fate == Fate::RepeatedNgram {
                let path: Vec<u32> = trace.path(n.parent as usize).iter().map(|&p| trace.nodes[p].token).collect();
                assert!(path.contains(&n.token), "a repeated unigram repeats a token of its parent's path");
            }
        }
    }
    for f in [Fate::Kept, Fate::Finished(0), Fate::BelowBeam, Fate::EosTooEarly, Fate::RepeatedNgram] {
        assert!(fates.contains(&std::mem::discriminant(&f)), "{f:?} never seen");
    }
}

#[test]
fn reranking_from_the_trace_equals_a_new_search_where_pruning_did_not_change() {
    let (mut same, mut compared) = (0, 0);
    for source in sources() {
        let cfg =
            BeamConfig { beam: 4, nbest: 4, limits: LengthLimits { a: 1.5, b: 3, min_len: 0 }, ..Default::default() };
        let (_, trace) = trace_search(&mut toy(12), &source, &Search::Beam(cfg.clone())).unwrap();
        for (alpha, beta, gamma) in [(0.6, 0.0, 0.0), (1.0, 0.0, 0.0), (2.0, 0.3, 0.0), (0.0, 0.0, 1.0)] {
            let scoring = Scoring { length_penalty: LengthPenalty::Gnmt(alpha), coverage: beta, end_penalty: gamma };
            let fresh_cfg = BeamConfig { scoring, ..cfg.clone() };
            let (_, fresh) = trace_search(&mut toy(12), &source, &Search::Beam(fresh_cfg)).unwrap();
            compared += 1;
            let tokens = |t: &Trace| t.finished.iter().map(|f| f.tokens.clone()).collect::<Vec<_>>();
            if tokens(&fresh) != tokens(&trace) {
                continue; // the new search stopped at another step: pruning changed
            }
            same += 1;
            assert_eq!(trace.rerank(&scoring), fresh.ranking());
            assert_eq!(trace.rescore(&scoring), fresh.finished.iter().map(|f| f.terms.total).collect::<Vec<_>>());
        }
    }
    // Stopping on a score bound depends on the penalties, so a new search often holds other
    // finished hypotheses; enough of them do not for the comparison to mean something.
    assert!(same >= compared / 4, "pruning changed in {} of {compared}", compared - same);
}

#[test]
fn greedy_and_sampling_traces_are_their_searches() {
    let limits = LengthLimits { a: 1.5, b: 3, min_len: 2 };
    for source in sources() {
        let want = greedy(&mut toy(12), std::slice::from_ref(&source), limits, false).unwrap();
        let (got, trace) = trace_search(&mut toy(12), &source, &Search::Greedy(limits)).unwrap();
        assert_eq!(got, want);
        check_sums(&trace);
        assert_eq!(trace.choices.iter().map(|c| c.chosen).collect::<Vec<_>>().len(), want[0].token_log_probs.len());
        assert_eq!(trace.finished[0].terms.total, want[0].score);
        for cfg in [
            SamplingConfig { seed: 3, limits, ..Default::default() },
            SamplingConfig { seed: 5, temperature: 0.7, top_k: 2, limits, ..Default::default() },
            SamplingConfig { seed: 7, top_p: 0.6, limits, ..Default::default() },
        ] {
            let want = sample(&mut toy(12), std::slice::from_ref(&source), &cfg).unwrap().remove(0);
            let (got, trace) = trace_search(&mut toy(12), &source, &Search::Sample(cfg.clone())).unwrap();
            assert_eq!(got, want);
            check_sums(&trace);
            for c in &trace.choices {
                let kept: f64 = c.candidates.iter().filter_map(|x| x.2).sum();
                assert!((kept - 1.0).abs() < 1e-9, "the toy's distribution fits in the choices shown");
                assert!(c.candidates.iter().any(|x| x.0 == c.chosen && x.2.is_some()), "the drawn token was not cut");
                if cfg.top_k == 2 {
                    assert!(c.candidates.iter().filter(|x| x.2.is_none()).count() >= 1, "top-k 2 cuts the rest");
                }
            }
        }
    }
}

#[test]
fn a_beam_16_trace_over_200_tokens_stays_within_its_bound() {
    let cfg = BeamConfig { beam: 16, limits: LengthLimits { a: 0.0, b: 200, min_len: 200 }, ..Default::default() };
    let (_, trace) = trace_search(&mut toy(400), &[9, 9, EOS], &Search::Beam(cfg)).unwrap();
    let bound = 1 + 200 * 16 * ((2 * 16).max(CANDIDATES) + 2);
    assert!(trace.nodes.len() <= bound, "{} nodes", trace.nodes.len());
    assert!(trace.nodes.len() > 200, "it ran 200 steps");
}

#[test]
fn a_prefix_of_the_greedy_output_gives_the_greedy_output() {
    let limits = LengthLimits { a: 1.5, b: 3, min_len: 0 };
    for source in sources() {
        let want = greedy(&mut toy(12), std::slice::from_ref(&source), limits, false).unwrap().remove(0);
        for k in 0..=want.tokens.len() {
            let mut inner = toy(12);
            let mut forced = Prefixed::new(&mut inner, vec![want.tokens[..k].to_vec()]);
            let got =
                block_on(run_search_async(&mut forced, std::slice::from_ref(&source), &Search::Greedy(limits), false))
                    .unwrap()
                    .remove(0)
                    .remove(0);
            assert_eq!(got, want, "prefix of {k} tokens");
        }
    }
}

#[test]
fn a_forced_prefix_begins_every_search_and_keeps_the_models_log_probs() {
    let limits = LengthLimits { a: 2.0, b: 4, min_len: 0 };
    let prefix = vec![5, 5, 4];
    let searches = [
        Search::Greedy(limits),
        Search::Beam(BeamConfig { beam: 4, nbest: 4, limits, ..Default::default() }),
        Search::Sample(SamplingConfig { seed: 1, samples: 3, limits, ..Default::default() }),
    ];
    let srcs = sources();
    for search in &searches {
        let mut inner = toy(12);
        let mut forced = Prefixed::new(&mut inner, vec![prefix.clone(); srcs.len()]);
        let out = block_on(run_search_async(&mut forced, &srcs, search, false)).unwrap();
        for (source, hyps) in srcs.iter().zip(out) {
            for h in hyps {
                assert_eq!(h.tokens[..3], prefix[..], "{search:?}");
                // The score of the whole output is the model's: teacher forcing gives the same.
                let scored =
                    forced_scores(&mut toy(12), std::slice::from_ref(source), std::slice::from_ref(&h.tokens)).unwrap();
                if h.reached_eos() {
                    assert_eq!(scored[0].token_log_probs, h.token_log_probs);
                }
            }
        }
    }
}

#[test]
fn scoring_the_greedy_output_gives_the_log_probability_the_search_reports() {
    let limits = LengthLimits { a: 1.5, b: 3, min_len: 0 };
    let srcs = sources();
    let hyps = greedy(&mut toy(12), &srcs, limits, false).unwrap();
    let targets: Vec<Vec<u32>> = hyps.iter().map(|h| h.tokens.clone()).collect();
    let scores = forced_scores(&mut toy(12), &srcs, &targets).unwrap();
    for (h, s) in hyps.iter().zip(&scores) {
        if h.reached_eos() {
            assert_eq!(s.total(), h.log_prob);
            // Greedy picks the model's first choice, or its second where that is an EOS before the minimum length.
            assert!(s.ranks[0] <= 2 && s.ranks[1..].iter().all(|&r| r == 1), "{:?}", s.ranks);
        }
    }
}

#[test]
fn an_ensembles_trace_is_its_search_over_the_combined_distribution() {
    let cfg = BeamConfig { beam: 4, nbest: 4, limits: LengthLimits { a: 1.5, b: 3, min_len: 0 }, ..Default::default() };
    for source in sources().into_iter().take(10) {
        let members = || -> Vec<Box<dyn StepModel>> { vec![Box::new(toy(12)), Box::new(toy(12))] };
        let want = beam_search(&mut Ensemble::new(members()).unwrap(), std::slice::from_ref(&source), &cfg).unwrap();
        let (got, trace) =
            trace_search(&mut Ensemble::new(members()).unwrap(), &source, &Search::Beam(cfg.clone())).unwrap();
        assert_eq!(got, want[0]);
        check_sums(&trace);
    }
}

//! The lab views' searches on both engines: a forced prefix, the search trace and forced scores
//! give the same tokens and numbers on the GPU engine as on the candle reference.

use wgslate_decode::{block_on, forced_scores, trace_search, BeamConfig, Blocking, Search, StepModel};
use wgslate_engine::{Gpu, GpuEngine, KernelParams};
use wgslate_model::step::CpuStepper;
use wgslate_model::translate::{encode_sources, translate_from_async, translate_with};
use wgslate_model::weights::CheckedWeights;
use wgslate_model::Model;

use super::test_sentences;

fn searches() -> [Search; 2] {
    [Search::default(), Search::Beam(BeamConfig { beam: 4, nbest: 4, ..Default::default() })]
}

/// On the engine with `params` (its decoder steps fused or per-op).
pub fn lab_parity(model: &Model, weights: &CheckedWeights, gpu: &Gpu, params: KernelParams) {
    let sentences = test_sentences(8);
    let sources: Vec<Vec<u32>> = encode_sources(model, &sentences).unwrap().into_iter().map(|s| s.0).collect();
    let mut cpu = CpuStepper::new(&model.net, &model.config);
    let mut on_gpu = Blocking(GpuEngine::with_params(gpu, &model.config, weights, params).unwrap());
    let greedy = translate_with(&mut cpu, model, &sentences, &Search::default(), 8, false).unwrap();
    // A prefix that is not the greedy output's: its first two subwords, then the model's least likely
    // of its top 5 third subwords (the search must go on from somewhere it would not go).
    let prefixes: Vec<Vec<u32>> = greedy
        .iter()
        .map(|t| {
            let mut p: Vec<u32> = t.outputs[0].1.tokens.iter().copied().take(2).collect();
            p.push(7 + p.len() as u32 * 13);
            p
        })
        .collect();
    for search in searches() {
        let run = |engine: &mut dyn StepModel| {
            block_on(translate_from_async(engine, model, &sentences, &prefixes, &search, 4, false)).unwrap()
        };
        let (c, g) = (run(&mut cpu), run(&mut on_gpu));
        for (i, (a, b)) in c.iter().zip(&g).enumerate() {
            assert_eq!(
                a.outputs[0].0, b.outputs[0].0,
                "sentence {i}, {search:?}: the forced prefix gives the CPU's text"
            );
            assert_eq!(a.outputs[0].1.tokens[..3], prefixes[i][..]);
        }
        // The trace is the search's own, on either engine.
        for engine in [&mut cpu as &mut dyn StepModel, &mut on_gpu] {
            for (i, source) in sources.iter().enumerate().take(4) {
                let plain = wgslate_decode::run_search(engine, std::slice::from_ref(source), &search, false).unwrap();
                let (traced, trace) = trace_search(engine, source, &search).unwrap();
                assert_eq!(traced[0].tokens, plain[0][0].tokens, "sentence {i}, {search:?}: trace changed the search");
                let best = &trace.finished[trace.ranking()[0]];
                assert_eq!(best.tokens, plain[0][0].tokens);
                assert_eq!(best.terms.total, traced[0].score);
            }
        }
    }
    // Scoring an engine's greedy output gives the log-probability its greedy reported (the CPU exactly;
    // the GPU's greedy reads its log-probabilities from its top-k kernel, scoring from the whole row).
    for (engine, tolerance) in [(&mut cpu as &mut dyn StepModel, 0.0), (&mut on_gpu, 1e-4)] {
        let greedy = translate_with(engine, model, &sentences, &Search::default(), 8, false).unwrap();
        let targets: Vec<Vec<u32>> = greedy.iter().map(|t| t.outputs[0].1.tokens.clone()).collect();
        let scores = forced_scores(engine, &sources, &targets).unwrap();
        for (t, s) in greedy.iter().zip(&scores) {
            let h = &t.outputs[0].1;
            if h.reached_eos() {
                assert!((s.total() - h.log_prob).abs() <= tolerance, "{} vs {}", s.total(), h.log_prob);
            }
        }
    }
}

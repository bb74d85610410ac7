//! Noisy-channel reranking with the shipped en→de and de→en models: every hypothesis gains
//! weight · log P(source | hypothesis), checked against the de→en model's teacher-forced forward
//! pass over the whole sentence (not the cached stepping the reranker uses), and the n-best ends up
//! sorted by the combined score.

use std::path::Path;

use candle_core::{Device, Tensor};
use wgslate_decode::{block_on, BeamConfig, Search};
use wgslate_model::config::BOS_ID;
use wgslate_model::rerank::rerank_async;
use wgslate_model::step::{pad_batch, CpuStepper};
use wgslate_model::translate::translate_with;
use wgslate_model::{Model, Net};

const MODELS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models");

/// log P(target | source) by one forward pass over the whole target.
fn teacher_forced(model: &Model, source: &str, target: &str) -> f32 {
    let src = model.vocab.encode(source).unwrap();
    let mut tgt = vec![BOS_ID];
    tgt.extend(model.vocab.encode(target).unwrap()); // ends in EOS
    let (src_t, mask) = pad_batch(&[src]).unwrap();
    let inputs = Tensor::from_vec(tgt[..tgt.len() - 1].to_vec(), (1, tgt.len() - 1), &Device::Cpu).unwrap();
    let Net::Transformer(m) = &model.net else { panic!("the de-en model is a Transformer") };
    let logits = m.decode_train(&m.encode(&src_t, &mask, false).unwrap(), &mask, &inputs, false).unwrap();
    let lp = wgslate_model::ops::log_softmax_last_dim(&logits).unwrap().to_vec3::<f32>().unwrap();
    (1..tgt.len()).map(|t| lp[0][t - 1][tgt[t] as usize]).sum()
}

#[test]
fn reranking_adds_the_reverse_models_forced_score_and_sorts_by_it() {
    let forward = Model::from_dir(Path::new(&format!("{MODELS}/en-de/transformer"))).unwrap();
    let backward = Model::from_dir(Path::new(&format!("{MODELS}/de-en/transformer"))).unwrap();
    let sources: Vec<String> = [
        "A man in a blue shirt is standing on a ladder.",
        "Two dogs run through the snow.",
        "A little girl climbs into a wooden playhouse while her mother watches.",
    ]
    .map(String::from)
    .to_vec();
    let search = Search::Beam(BeamConfig { beam: 4, nbest: 4, ..Default::default() });
    let mut stepper = CpuStepper::new(&forward.net, &forward.config);
    let searched = translate_with(&mut stepper, &forward, &sources, &search, 2, false).unwrap();
    let mut reranked = searched.clone();
    let mut scorer = CpuStepper::new(&backward.net, &backward.config);
    block_on(rerank_async(&mut scorer, &backward, &sources, &mut reranked, 0.5, 3)).unwrap();
    for ((source, before), after) in sources.iter().zip(&searched).zip(&reranked) {
        assert_eq!(before.outputs.len(), 4);
        let mut texts_before: Vec<&str> = before.outputs.iter().map(|o| o.0.as_str()).collect();
        let mut texts_after: Vec<&str> = after.outputs.iter().map(|o| o.0.as_str()).collect();
        texts_before.sort();
        texts_after.sort();
        assert_eq!(texts_before, texts_after, "reranking keeps the n-best, only reorders it");
        for (text, h) in &after.outputs {
            let searched_score = before.outputs.iter().find(|o| &o.0 == text).unwrap().1.score;
            let want = searched_score + 0.5 * teacher_forced(&backward, text, source);
            assert!((h.score - want).abs() < 2e-3, "{text}: {} against {want}", h.score);
        }
        assert!(after.outputs.windows(2).all(|w| w[0].1.score >= w[1].1.score), "sorted best first");
    }
    // Weight 0 keeps the search's order.
    let mut same = searched.clone();
    block_on(rerank_async(&mut scorer, &backward, &sources, &mut same, 0.0, 3)).unwrap();
    for (a, b) in same.iter().zip(&searched) {
        assert_eq!(
            a.outputs.iter().map(|o| &o.0).collect::<Vec<_>>(),
            b.outputs.iter().map(|o| &o.0).collect::<Vec<_>>()
        );
    }
    assert!(
        block_on(rerank_async(&mut scorer, &backward, &sources[..1], &mut same, 0.5, 3)).is_err(),
        "counts must agree"
    );
}

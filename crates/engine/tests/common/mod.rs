//! Helpers shared by the engine's end-to-end tests.

pub mod lab;

use wgslate_decode::StepModel;
use wgslate_model::translate::Translation;

pub fn test_sentences(n: usize) -> Vec<String> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/data/test_2016_flickr.en")).unwrap();
    text.lines().take(n).map(str::to_string).collect()
}

/// Compares two engines' n-best lists entry by entry. Entries must have the same tokens unless
/// both scores are equal to 1e-5 (a tie the engines may break differently); returns the number of
/// entries compared and how many were such ties. Panics on any other difference.
pub fn compare_nbest(cpu: &[Translation], gpu: &[Translation]) -> (usize, usize) {
    assert_eq!(cpu.len(), gpu.len());
    let (mut entries, mut ties) = (0, 0);
    for (i, (c, g)) in cpu.iter().zip(gpu).enumerate() {
        assert_eq!(c.outputs.len(), g.outputs.len(), "sentence {i}: n-best lengths differ");
        for (rank, (a, b)) in c.outputs.iter().zip(&g.outputs).enumerate() {
            entries += 1;
            if a.1.tokens != b.1.tokens {
                assert!(
                    (a.1.score - b.1.score).abs() <= 1e-5,
                    "sentence {i} rank {rank}: {:?} ({}) vs {:?} ({})",
                    a.0,
                    a.1.score,
                    b.0,
                    b.1.score
                );
                ties += 1;
            }
        }
    }
    (entries, ties)
}

/// Steps two engines in lockstep for `steps` steps, feeding both the reference's argmax, and at
/// step `reorder_at` keeps the rows `order` gives (a permutation or a beam-style expansion).
/// Attention must agree within 1e-3; returns the largest log-prob difference.
pub fn lockstep(
    gpu_model: &mut dyn StepModel,
    cpu_model: &mut dyn StepModel,
    sources: &[Vec<u32>],
    steps: usize,
    reorder_at: usize,
    order: &[usize],
) -> f32 {
    gpu_model.start(sources).unwrap();
    cpu_model.start(sources).unwrap();
    let vocab = cpu_model.vocab_size();
    let mut tokens = vec![cpu_model.bos(); sources.len()];
    let mut worst = 0f32;
    for step in 0..steps {
        let g = gpu_model.step(&tokens, true).unwrap();
        let c = cpu_model.step(&tokens, true).unwrap();
        for (a, b) in g.log_probs.iter().zip(&c.log_probs) {
            worst = worst.max((a - b).abs());
        }
        for (ga, ca) in g.attention.unwrap().iter().zip(c.attention.unwrap().iter()) {
            assert_eq!(ga.len(), ca.len());
            ga.iter().zip(ca).for_each(|(a, b)| assert!((a - b).abs() < 1e-3, "attention differs at step {step}"));
        }
        tokens = c.log_probs.chunks(vocab).map(|r| wgslate_decode::top_k(r, 1)[0].0).collect();
        if step == reorder_at {
            gpu_model.select_rows(order).unwrap();
            cpu_model.select_rows(order).unwrap();
            tokens = order.iter().map(|&i| tokens[i]).collect();
        }
    }
    worst
}

/// The test GPU (lavapipe on CI). Sets XDG_RUNTIME_DIR when the caller did not (the Vulkan loader
/// wants it), and without an adapter fails with one line saying what to install.
pub fn gpu() -> wgslate_engine::Gpu {
    static ENV: std::sync::Once = std::sync::Once::new();
    ENV.call_once(|| {
        if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
            std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
        }
    });
    wgslate_engine::Gpu::new_blocking().unwrap_or_else(|e| {
        panic!("no Vulkan adapter ({e}): install Mesa's lavapipe driver (apt-get install mesa-vulkan-drivers)")
    })
}

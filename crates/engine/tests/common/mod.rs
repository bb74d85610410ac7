//! Helpers shared by the engine's end-to-end tests.

use wgslate_model::translate::Translation;

pub fn test_sentences(n: usize) -> Vec<String> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/data/test_2016_flickr.en")).unwrap();
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
                assert!((a.1.score - b.1.score).abs() <= 1e-5, "sentence {i} rank {rank}: {:?} ({}) vs {:?} ({})", a.0, a.1.score, b.0, b.1.score);
                ties += 1;
            }
        }
    }
    (entries, ties)
}

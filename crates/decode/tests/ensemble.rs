//! The ensemble: the mean of its members' probabilities, computed here independently in f64; one
//! member or identical members change nothing; searches run over it; mismatched members refused.

use wgslate_decode::*;

const V: usize = 7;

/// A member whose log-probs depend on its seed, the row's source and the prefix length.
struct Member {
    seed: u64,
    vocab: usize,
    rows: Vec<(u32, usize)>,
}

fn distribution(seed: u64, source: u32, t: usize) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ ((source as u64) << 20) ^ t as u64;
    let logits: Vec<f64> = (0..V)
        .map(|i| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407 + i as u64);
            if i == 1 {
                f64::NEG_INFINITY
            } else {
                ((x >> 40) as f64 / (1u64 << 24) as f64) * 6.0 - 3.0
            }
        })
        .collect();
    let lse = logits.iter().map(|l| l.exp()).sum::<f64>().ln();
    logits.iter().map(|l| (l - lse) as f32).collect()
}

impl StepModel for Member {
    fn vocab_size(&self) -> usize {
        self.vocab
    }
    fn bos(&self) -> u32 {
        1
    }
    fn eos(&self) -> u32 {
        2
    }
    fn max_output_len(&self) -> usize {
        6
    }
    fn start(&mut self, sources: &[Vec<u32>]) -> Result<(), String> {
        self.rows = sources.iter().map(|s| (s[0], 0)).collect();
        Ok(())
    }
    fn step(&mut self, tokens: &[u32], want_attention: bool) -> Result<StepOutput, String> {
        assert_eq!(tokens.len(), self.rows.len());
        let log_probs = self.rows.iter().flat_map(|&(s, t)| distribution(self.seed, s, t)).collect();
        let attention = want_attention.then(|| {
            self.rows
                .iter()
                .map(|&(_, t)| {
                    vec![0.25 * (self.seed % 3) as f32, 1.0 - 0.25 * (self.seed % 3) as f32 + t as f32 * 0.0]
                })
                .collect()
        });
        self.rows.iter_mut().for_each(|r| r.1 += 1);
        Ok(StepOutput { log_probs, attention })
    }
    fn select_rows(&mut self, rows: &[usize]) -> Result<(), String> {
        self.rows = rows.iter().map(|&r| self.rows[r]).collect();
        Ok(())
    }
}

fn member(seed: u64) -> Box<dyn StepModel> {
    Box::new(Member { seed, vocab: V, rows: vec![] })
}

#[test]
fn a_step_is_the_log_of_the_members_mean_probability() {
    let mut e = Ensemble::new(vec![member(1), member(2), member(3)]).unwrap();
    StepModel::start(&mut e, &[vec![5, 2], vec![9, 2]]).unwrap();
    let out = StepModel::step(&mut e, &[1, 1], true).unwrap();
    for (row, source) in [5u32, 9].into_iter().enumerate() {
        let got = &out.log_probs[row * V..(row + 1) * V];
        let members: Vec<Vec<f32>> = (1..=3).map(|s| distribution(s, source, 0)).collect();
        for j in 0..V {
            let mean: f64 = members.iter().map(|m| (m[j] as f64).exp()).sum::<f64>() / 3.0;
            assert!(
                (got[j] as f64 - mean.ln()).abs() < 1e-5 || (mean == 0.0 && got[j] == f32::NEG_INFINITY),
                "row {row} token {j}: {} vs {}",
                got[j],
                mean.ln()
            );
        }
        let total: f64 = got.iter().map(|&l| (l as f64).exp()).sum();
        assert!((total - 1.0).abs() < 1e-5, "a distribution: sums to {total}");
    }
    // Attention: the members' mean (0, 0.25, 0.5 and 1, 0.75, 0.5).
    assert_eq!(out.attention.unwrap()[0], vec![0.25, 0.75]);
}

#[test]
fn one_member_or_identical_members_change_nothing() {
    let sources = vec![vec![3, 2], vec![4, 2], vec![6, 2]];
    for search in [Search::default(), Search::Beam(BeamConfig { beam: 3, nbest: 3, ..Default::default() })] {
        let mut single = Member { seed: 7, vocab: V, rows: vec![] };
        let want = run_search(&mut single, &sources, &search, false).unwrap();
        for n in [1, 3] {
            let mut e = Ensemble::new((0..n).map(|_| member(7)).collect()).unwrap();
            let got = run_search(&mut e, &sources, &search, false).unwrap();
            for (w, g) in want.iter().zip(&got) {
                assert_eq!(
                    w.iter().map(|h| &h.tokens).collect::<Vec<_>>(),
                    g.iter().map(|h| &h.tokens).collect::<Vec<_>>(),
                    "{n} members, {search:?}"
                );
                assert!(w.iter().zip(g).all(|(a, b)| (a.score - b.score).abs() < 1e-5));
            }
        }
    }
}

#[test]
fn members_must_share_the_vocabulary() {
    let other = Box::new(Member { seed: 1, vocab: V + 1, rows: vec![] });
    let err = Ensemble::new(vec![member(1), other]).err().unwrap();
    assert!(err.contains("member 2 has another vocabulary"), "{err}");
    assert!(Ensemble::new(vec![]).is_err());
}

#[test]
fn the_async_ensemble_gives_the_ensembles_searches() {
    for search in [Search::Greedy(LengthLimits::default()), Search::Beam(BeamConfig { beam: 3, ..Default::default() })]
    {
        let sources = vec![vec![3, 4, 2], vec![5, 2]];
        let mut sync = Ensemble::new(vec![member(1), member(2)]).unwrap();
        let want = run_search(&mut sync, &sources, &search, false).unwrap();
        let (mut a, mut b) = (member(1), member(2));
        let mut ensemble = AsyncEnsemble::new(vec![a.as_mut(), b.as_mut()]).unwrap();
        let got = block_on(run_search_async(&mut ensemble, &sources, &search, false)).unwrap();
        assert_eq!(got, want);
    }
}

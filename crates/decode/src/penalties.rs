//! How a finished hypothesis is scored: log P(Y|X) / lp(|Y|) + cp(X; Y) + γ·|Y|/|X|.

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum LengthPenalty {
    None,
    /// score / |Y|^α
    Average(f32),
    /// score / ((5 + |Y|)^α / 6^α), Wu et al. 2016 (GNMT)
    Gnmt(f32),
}

impl LengthPenalty {
    /// The penalty named on the command line and in the page: none for α = 0, else "avg" or GNMT.
    pub fn from_alpha(alpha: f32, kind: &str) -> Self {
        match kind {
            _ if alpha == 0.0 => Self::None,
            "avg" => Self::Average(alpha),
            _ => Self::Gnmt(alpha),
        }
    }

    pub fn divisor(&self, len: usize) -> f32 {
        let len = len.max(1) as f32;
        match *self {
            LengthPenalty::None => 1.0,
            LengthPenalty::Average(a) => len.powf(a),
            LengthPenalty::Gnmt(a) => ((5.0 + len) / 6.0).powf(a),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Scoring {
    pub length_penalty: LengthPenalty,
    /// β of GNMT's coverage penalty β·Σᵢ log(min(Σⱼ aᵢⱼ, 1)); 0 turns it off.
    pub coverage: f32,
    /// γ of the end penalty γ·|Y|/|X| that favours outputs not much shorter than the source.
    pub end_penalty: f32,
}

impl Default for Scoring {
    fn default() -> Self {
        Self { length_penalty: LengthPenalty::None, coverage: 0.0, end_penalty: 0.0 }
    }
}

/// GNMT coverage penalty over the attention rows (one per emitted token, each over the source).
pub fn coverage_penalty(beta: f32, attention: &[Vec<f32>], source_len: usize) -> f32 {
    if beta == 0.0 {
        return 0.0;
    }
    let mut total = vec![0f32; source_len];
    for row in attention {
        for (t, a) in total.iter_mut().zip(row) {
            *t += a;
        }
    }
    beta * total.iter().map(|&c| c.clamp(1e-20, 1.0).ln()).sum::<f32>()
}

impl Scoring {
    pub fn needs_attention(&self) -> bool {
        self.coverage != 0.0
    }

    /// The final score of a hypothesis of `len` tokens (EOS included when emitted).
    pub fn score(&self, log_prob: f32, len: usize, source_len: usize, attention: &[Vec<f32>]) -> f32 {
        log_prob / self.length_penalty.divisor(len)
            + coverage_penalty(self.coverage, attention, source_len)
            + self.end_penalty * len as f32 / source_len.max(1) as f32
    }

    /// An upper bound on the final score of a live hypothesis with cumulative `log_prob` that may
    /// grow to at most `max_len` tokens: log-probs only fall, the coverage term is at most 0.
    pub fn upper_bound(&self, log_prob: f32, len: usize, max_len: usize, source_len: usize) -> f32 {
        let best_lp = (len.max(1)..=max_len.max(1))
            .map(|l| log_prob / self.length_penalty.divisor(l))
            .fold(f32::NEG_INFINITY, f32::max);
        let end =
            self.end_penalty * if self.end_penalty > 0.0 { max_len } else { len } as f32 / source_len.max(1) as f32;
        best_lp + end
    }
}

/// One finished output of a search.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Hypothesis {
    /// Output tokens, EOS not included.
    pub tokens: Vec<u32>,
    /// Log-probability of each emitted token (EOS last, when it was emitted).
    pub token_log_probs: Vec<f32>,
    /// Sum of `token_log_probs`.
    pub log_prob: f32,
    /// The score the search ranked by (log_prob with length/coverage/end penalties).
    pub score: f32,
    /// Attention over the source per emitted token, when asked for.
    pub attention: Option<Vec<Vec<f32>>>,
}

impl Hypothesis {
    /// False when the maximum output length stopped the search before it emitted EOS.
    pub fn reached_eos(&self) -> bool {
        self.token_log_probs.len() > self.tokens.len()
    }
}

/// Output length bounds: max = min(a·|src| + b, model limit); EOS is forbidden before `min_len`.
#[derive(Debug, Clone, Copy)]
pub struct LengthLimits {
    pub a: f32,
    pub b: usize,
    pub min_len: usize,
}

impl Default for LengthLimits {
    fn default() -> Self {
        Self { a: 2.0, b: 10, min_len: 0 }
    }
}

impl LengthLimits {
    pub fn max_len(&self, source_len: usize, model_limit: usize) -> usize {
        ((self.a * source_len as f32) as usize + self.b).min(model_limit).max(1)
    }

    /// The step before which greedy and beam search forbid EOS: `min_len`, and at least one token for a
    /// source with words (`source_len` counts its EOS). Beam search scores by the sum of
    /// log-probabilities, so a wide beam otherwise keeps the empty translation (one EOS) as its best.
    pub fn min_len_for(&self, source_len: usize) -> usize {
        match source_len > 1 {
            true => self.min_len.max(1),
            false => self.min_len,
        }
    }
}

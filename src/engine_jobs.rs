//! What the page asks of the engine worker and what it answers, as JSON over `postMessage`.

use serde::{Deserialize, Serialize};
use wgslate_model::attention::AttentionMaps;

/// Which search a translation job runs: the settings' own, or one of Compare's three columns.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub enum SearchChoice {
    Settings,
    Greedy,
    /// Beam search with the settings' width, at least 4.
    Beam,
    Sample,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Job {
    /// Decide the backend (WebGPU or CPU) and name it.
    Backend { backend: String },
    /// Load the settings' model (and build its engine) ahead of the first translation.
    Load { settings: Vec<(String, String)> },
    /// Translate `texts` (each one sentence) `batch` at a time; answers `Done` per batch.
    Translate { settings: Vec<(String, String)>, texts: Vec<String>, search: SearchChoice, batch: usize },
    /// Translate one sentence and return its attention maps.
    Attention { settings: Vec<(String, String)>, text: String },
}

/// One hypothesis, ready to show.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Output {
    pub text: String,
    /// Subword surface forms, EOS excluded, with the probability each was emitted with.
    pub tokens: Vec<String>,
    pub probs: Vec<f32>,
    /// -inf when no candidate had a finite score (JSON has no infinities: sent as null).
    #[serde(with = "non_finite_as_null")]
    pub log_prob: f32,
    #[serde(with = "non_finite_as_null")]
    pub score: f32,
}

/// JSON numbers are finite: -inf and NaN travel as null and come back as -inf.
mod non_finite_as_null {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(x: &f32, s: S) -> Result<S::Ok, S::Error> {
        x.is_finite().then_some(*x).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
        Ok(Option::<f32>::deserialize(d)?.unwrap_or(f32::NEG_INFINITY))
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Event {
    /// Share of the model's weights downloaded.
    Loading {
        model: String,
        share: f64,
    },
    /// The model could not be loaded (the job then fails).
    LoadFailed(String),
    /// The model is ready: "en-de/transformer loaded: weights int8 …".
    Loaded(String),
    /// The backend in use, as the page labels it.
    Backend(String),
    /// Sentences `first..first + n` of the job's texts, each its n-best (best first).
    Done {
        first: usize,
        sentences: Vec<Vec<Output>>,
    },
    /// The job is finished; what the user should be told about it.
    Finished {
        notices: Vec<String>,
    },
    Attention {
        maps: AttentionMaps,
        source: Vec<String>,
        target: Vec<String>,
    },
    Failed(String),
    Cancelled,
}

/// A message from the page: a job to run, or a job to stop.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Request {
    Run { id: u64, job: Job },
    Cancel { id: u64 },
}

/// A message from the worker.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Reply {
    Ready,
    Event {
        id: u64,
        event: Event,
    },
    /// The wasm instance panicked and is dead; the page starts a new worker.
    Panic(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_without_a_finite_value_survive_the_trip_to_the_page() -> Result<(), serde_json::Error> {
        let out = Output {
            text: "x".into(),
            tokens: vec!["x".into()],
            probs: vec![0.5],
            log_prob: f32::NEG_INFINITY,
            score: f32::NAN,
        };
        let reply = Reply::Event { id: 3, event: Event::Done { first: 0, sentences: vec![vec![out]] } };
        let back: Reply = serde_json::from_str(&serde_json::to_string(&reply)?)?;
        let sentences = match back {
            Reply::Event { event: Event::Done { sentences, .. }, .. } => sentences,
            other => vec![vec![Output {
                text: format!("{other:?}"),
                tokens: vec![],
                probs: vec![],
                log_prob: 0.0,
                score: 0.0,
            }]],
        };
        assert_eq!((sentences[0][0].log_prob, sentences[0][0].score), (f32::NEG_INFINITY, f32::NEG_INFINITY));
        let finite = Output { log_prob: -1.25, score: -0.5, ..sentences[0][0].clone() };
        let back: Output = serde_json::from_str(&serde_json::to_string(&finite)?)?;
        assert_eq!(back, finite);
        Ok(())
    }
}

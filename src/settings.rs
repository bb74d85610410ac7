//! Translation settings (search and its penalties), kept in the URL so a link reproduces the view.

use wgslate_decode::{BeamConfig, LengthLimits, LengthPenalty, SamplingConfig, Scoring, Search};

#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub model: String,
    pub beam: usize,
    pub lenpen_kind: String,
    pub lenpen: f32,
    pub coverage: f32,
    pub end_penalty: f32,
    pub max_len_a: f32,
    pub max_len_b: usize,
    pub sample: bool,
    pub temperature: f32,
    pub top_k: usize,
    pub top_p: f32,
    pub seed: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Self { model: "en-de/transformer".into(), beam: 1, lenpen_kind: "gnmt".into(), lenpen: 0.0, coverage: 0.0, end_penalty: 0.0, max_len_a: 2.0, max_len_b: 10, sample: false, temperature: 1.0, top_k: 0, top_p: 1.0, seed: 0 }
    }
}

impl Settings {
    pub fn limits(&self) -> LengthLimits {
        LengthLimits { a: self.max_len_a.max(0.0), b: self.max_len_b, min_len: 0 }
    }

    pub fn search(&self) -> Search {
        if self.sample {
            return Search::Sample(self.sampling());
        }
        if self.beam <= 1 && self.lenpen == 0.0 && self.coverage == 0.0 && self.end_penalty == 0.0 {
            return Search::Greedy(self.limits());
        }
        Search::Beam(self.beam_search(self.beam))
    }

    /// Beam search of the given width with these settings' scoring; the n-best is the whole beam.
    pub fn beam_search(&self, beam: usize) -> BeamConfig {
        let scoring = Scoring { length_penalty: LengthPenalty::from_alpha(self.lenpen, &self.lenpen_kind), coverage: self.coverage, end_penalty: self.end_penalty };
        BeamConfig { beam: beam.max(1), limits: self.limits(), scoring, nbest: beam.max(1), no_repeat_ngram: 0, want_attention: false }
    }

    pub fn sampling(&self) -> SamplingConfig {
        SamplingConfig { temperature: self.temperature.max(0.01), top_k: self.top_k, top_p: self.top_p.clamp(0.01, 1.0), seed: self.seed, samples: 1, limits: self.limits(), want_attention: false }
    }

    /// `key=value&…` for the URL (only what differs from the defaults, plus the text).
    pub fn to_query(&self, text: &str) -> String {
        let d = Settings::default();
        let p = web_sys::UrlSearchParams::new().expect("URLSearchParams");
        let put = |k: &str, v: String, dv: String| {
            if v != dv {
                p.append(k, &v);
            }
        };
        put("model", self.model.clone(), d.model.clone());
        put("beam", self.beam.to_string(), d.beam.to_string());
        put("lpk", self.lenpen_kind.clone(), d.lenpen_kind.clone());
        put("lp", self.lenpen.to_string(), d.lenpen.to_string());
        put("cov", self.coverage.to_string(), d.coverage.to_string());
        put("end", self.end_penalty.to_string(), d.end_penalty.to_string());
        put("a", self.max_len_a.to_string(), d.max_len_a.to_string());
        put("b", self.max_len_b.to_string(), d.max_len_b.to_string());
        put("sample", self.sample.to_string(), d.sample.to_string());
        put("t", self.temperature.to_string(), d.temperature.to_string());
        put("k", self.top_k.to_string(), d.top_k.to_string());
        put("p", self.top_p.to_string(), d.top_p.to_string());
        put("seed", self.seed.to_string(), d.seed.to_string());
        if !text.is_empty() {
            p.append("text", text);
        }
        String::from(p.to_string())
    }

    /// Settings and text from a `key=value&…` query; unknown or malformed values keep defaults.
    pub fn from_query(query: &str) -> (Settings, String) {
        let mut s = Settings::default();
        let Ok(p) = web_sys::UrlSearchParams::new_with_str(query) else { return (s, String::new()) };
        let get = |k: &str| p.get(k);
        if let Some(v) = get("model") {
            s.model = v;
        }
        macro_rules! num {
            ($field:ident, $key:expr) => {
                if let Some(v) = get($key).and_then(|v| v.parse().ok()) {
                    s.$field = v;
                }
            };
        }
        num!(beam, "beam");
        num!(lenpen, "lp");
        num!(coverage, "cov");
        num!(end_penalty, "end");
        num!(max_len_a, "a");
        num!(max_len_b, "b");
        num!(temperature, "t");
        num!(top_k, "k");
        num!(top_p, "p");
        num!(seed, "seed");
        if let Some(v) = get("lpk").filter(|v| v == "avg" || v == "gnmt") {
            s.lenpen_kind = v;
        }
        s.sample = get("sample").as_deref() == Some("true");
        s.beam = s.beam.clamp(1, 16);
        (s, get("text").unwrap_or_default())
    }
}

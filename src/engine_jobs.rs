//! What the page asks of the engine worker and what it answers, as JSON over `postMessage`.

use serde::{Deserialize, Serialize};
use wgslate_model::attention::AttentionMaps;
use wgslate_model::translate::Notices;

/// Which search a translation job runs: the settings' own, or one of Compare's three columns.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub enum SearchChoice {
    Settings,
    Greedy,
    /// Beam search with the settings' width, at least [`COMPARE_MIN_BEAM`].
    Beam,
    Sample,
}

/// Why Attention draws nothing for an ensemble (each member has its own maps).
pub const ATTENTION_OF_ONE_MODEL: &str =
    "Attention is drawn for one model at a time: choose one of the ensemble's members (the Use … buttons, or Translate's Model menu).";

/// The narrowest beam Compare's beam column runs: an n-best of fewer is hardly a list.
pub const COMPARE_MIN_BEAM: usize = 4;

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
    /// The Search view: search one sentence with its trace, from the settings' prefix, and score
    /// `candidate` (a translation the user gives) when it is not blank.
    Lab { settings: Vec<(String, String)>, text: String, candidate: String },
    /// "Measure this device": the settings' model timed on both engines over `texts` (see
    /// `device_measure`).
    Measure { settings: Vec<(String, String)>, texts: Vec<String> },
    /// A part of the memory benchmark: its translations numbered `translations` (from 0), of varied
    /// length and beam, the worker's wasm memory and GPU scratch memory sampled along the way.
    Memory { settings: Vec<(String, String)>, texts: Vec<String>, translations: std::ops::Range<usize> },
}

/// What the device is asked per output token (EOS included), counted by the GPU engine.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TokenCost {
    pub dispatches: f64,
    pub submissions: f64,
    pub readbacks: f64,
    pub bytes_read: f64,
}

/// The GPU engine's side of a measurement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GpuSpeed {
    /// Building the engine as the model loaded: its pipelines created and the weights queued (a
    /// browser may compile a pipeline at its first use, which the first token then includes).
    pub setup_ms: Option<f64>,
    /// One sentence's first output token: the encoder and one decoder step, with its readback.
    pub first_token_ms: f64,
    pub greedy_ms_per_token: f64,
    pub beam4_ms_per_token: f64,
    pub sentences_per_second_batched: f64,
    pub greedy_cost: TokenCost,
    pub beam4_cost: TokenCost,
    /// Sentences whose greedy output, and whose beam-4 best, equals the CPU engine's token for token.
    pub greedy_equal: usize,
    pub beam4_equal: usize,
}

/// "Measure this device"'s result for one model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Speed {
    pub model: String,
    /// The backend's label: the adapter, or why the CPU engine runs.
    pub backend: String,
    pub sentences: usize,
    pub cpu_greedy_ms_per_token: f64,
    pub cpu_beam4_ms_per_token: f64,
    /// None where the model has no GPU engine here (`backend` says why).
    pub gpu: Option<GpuSpeed>,
    pub wasm_memory_bytes: f64,
}

/// One sample of the memory benchmark.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryPoint {
    pub translations: usize,
    /// The engine worker's wasm memory.
    pub wasm_bytes: f64,
    /// The GPU engine's scratch buffers (its pool and readback buffer; the weights are apart);
    /// None on the CPU engine.
    pub gpu_scratch_bytes: Option<f64>,
    /// GPU buffers, and uniforms plus bind groups, the engine created so far.
    pub gpu_objects: Option<(usize, usize)>,
}

/// A translation scored by the model under teacher forcing (the Search view's "Score a translation").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scored {
    /// Subword surface forms, EOS last.
    pub subwords: Vec<String>,
    pub token_log_probs: Vec<f32>,
    pub ranks: Vec<usize>,
    pub total: f32,
    /// Subwords left out: the translation was longer than the model emits.
    pub cut: usize,
    /// Characters the model has never seen (scored as its unknown token).
    pub unseen: Vec<char>,
}

/// What the Search view shows of one sentence: the search's trace and hypotheses, and a given translation's score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lab {
    pub source: Vec<String>,
    pub trace: wgslate_decode::Trace,
    /// The surface form of every token id the trace names.
    pub words: Vec<(u32, String)>,
    pub outputs: Vec<Output>,
    /// The search as the results name it ("beam 4").
    pub search: String,
    /// Subwords the prefix forced.
    pub prefix_len: usize,
    pub candidate: Option<Scored>,
    pub notices: Notices,
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

/// Attention maps travel as raw little-endian f32 in base64: as JSON numbers a long sentence's
/// 300 000 weights took the page thread 90 ms to copy and parse.
mod packed_maps {
    use base64::Engine;
    use serde::{de::Error as _, ser::Error as _, Deserialize, Deserializer, Serialize, Serializer};
    use wgslate_model::attention::{AttentionMaps, Maps};

    /// One stack of maps: `[layers, heads, rows, cols]` and the weights in that order.
    #[derive(Serialize, Deserialize)]
    struct Packed {
        dims: [usize; 4],
        f32le: String,
    }

    fn pack(maps: &Maps) -> Result<Packed, String> {
        let layers = maps.len();
        let heads = maps.first().map_or(0, Vec::len);
        let rows = maps.first().and_then(|l| l.first()).map_or(0, Vec::len);
        let cols = maps.first().and_then(|l| l.first()).and_then(|h| h.first()).map_or(0, Vec::len);
        let mut bytes = Vec::with_capacity(layers * heads * rows * cols * 4);
        for head in maps.iter().flatten() {
            for row in head {
                if head.len() != rows || row.len() != cols {
                    return Err("attention maps of different shapes".into());
                }
                row.iter().for_each(|w| bytes.extend_from_slice(&w.to_le_bytes()));
            }
        }
        if bytes.len() != layers * heads * rows * cols * 4 {
            return Err("attention maps of different shapes".into());
        }
        Ok(Packed { dims: [layers, heads, rows, cols], f32le: base64::engine::general_purpose::STANDARD.encode(bytes) })
    }

    fn unpack(p: Packed) -> Result<Maps, String> {
        let bytes = base64::engine::general_purpose::STANDARD.decode(p.f32le).map_err(|e| e.to_string())?;
        let [layers, heads, rows, cols] = p.dims;
        // Layers and heads are a handful and the maps are pooled to at most 64 × 64: a larger
        // dimension is a corrupt message (and an empty one must not make millions of empty rows).
        if p.dims.iter().any(|&d| d > 4096) {
            return Err(format!("attention dimensions {:?} out of range", p.dims));
        }
        let expected = [layers, heads, rows, cols].iter().try_fold(4usize, |n, &d| n.checked_mul(d));
        if expected != Some(bytes.len()) {
            return Err(format!("{} bytes of attention for dimensions {:?}", bytes.len(), p.dims));
        }
        let mut weights = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let mut take = |n: usize| weights.by_ref().take(n).collect::<Vec<f32>>();
        Ok((0..layers).map(|_| (0..heads).map(|_| (0..rows).map(|_| take(cols)).collect()).collect()).collect())
    }

    pub fn serialize<S: Serializer>(m: &AttentionMaps, s: S) -> Result<S::Ok, S::Error> {
        let packed = [pack(&m.cross), pack(&m.encoder_self), pack(&m.decoder_self)];
        let [a, b, c] = packed.map(|p| p.map_err(S::Error::custom));
        (a?, b?, c?).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<AttentionMaps, D::Error> {
        let (cross, encoder_self, decoder_self) = <(Packed, Packed, Packed)>::deserialize(d)?;
        Ok(AttentionMaps {
            cross: unpack(cross).map_err(D::Error::custom)?,
            encoder_self: unpack(encoder_self).map_err(D::Error::custom)?,
            decoder_self: unpack(decoder_self).map_err(D::Error::custom)?,
        })
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
    /// Best quality's reverse model could not be loaded: the job translates on without reranking,
    /// and the chosen model's status stays.
    RerankSkipped(String),
    /// The models are ready: `status` says so ("en-de/transformer loaded: weights int8 …").
    Loaded {
        status: String,
        models: Vec<String>,
        /// One member of an ensemble, the others still to load.
        #[serde(default)]
        partial: bool,
    },
    /// The backend in use, for `members` models (an ensemble's), or for none yet.
    Backend {
        backend: Backend,
        members: usize,
    },
    /// Sentences `first..first + n` of the job's texts, each its n-best (best first), and what the
    /// user should be told about them (numbered in the job's texts, as Finished's: a Stop keeps them).
    Done {
        first: usize,
        sentences: Vec<Vec<Output>>,
        notices: Notices,
    },
    /// The job is finished; what the user should be told about it, and the milliseconds its
    /// search took as the worker timed it (after the model loaded): the page, busy drawing, may
    /// read the news of the load and of the end together.
    Finished {
        notices: Notices,
        search_ms: Option<f64>,
    },
    Attention {
        #[serde(with = "packed_maps")]
        maps: AttentionMaps,
        source: Vec<String>,
        target: Vec<String>,
        /// The source cut to the model's limit, the output stopped at the maximum length.
        notices: Notices,
    },
    Lab(Box<Lab>),
    Measured(Box<Speed>),
    /// The sample after a part of the memory benchmark, and the backend the part ran on.
    Memory {
        point: MemoryPoint,
        backend: String,
    },
    Failed(String),
    Cancelled,
}

/// Which engine runs the jobs: the WGSL engine on a WebGPU adapter (named when it says), or the
/// CPU engine and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Backend {
    Gpu {
        adapter: String,
        /// Why `auto` took it, when a probe decided ("3.1× the CPU here").
        #[serde(default)]
        note: String,
    },
    Cpu {
        why: String,
    },
}

/// The settings a job's `key=value` pairs name (they were checked when the page wrote them).
pub fn settings_of(pairs: &[(String, String)]) -> wgslate_decode::Settings {
    wgslate_decode::Settings::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))).0
}

/// A helper engine worker's settings: the job's, on the CPU engine whatever the backend setting.
/// (The default, auto, is not among the pairs, so the pair is added rather than rewritten.)
pub fn helper_settings(settings: &[(String, String)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = settings.iter().filter(|(key, _)| key != "backend").cloned().collect();
    out.push(("backend".into(), "cpu".into()));
    out
}

/// The name the backend label gives a WebGPU adapter: its description, or else its vendor,
/// architecture and device (browsers often leave the description empty).
pub fn adapter_name(description: &str, vendor: &str, architecture: &str, device: &str) -> String {
    if !description.trim().is_empty() {
        return description.trim().to_string();
    }
    let parts: Vec<&str> =
        [vendor, architecture, device].into_iter().map(str::trim).filter(|p| !p.is_empty()).collect();
    parts.join(" ")
}

/// Whether an adapter's name is one of the CPU implementations of WebGPU/Vulkan/D3D (for a browser
/// that does not set `isFallbackAdapter` on them).
pub fn is_software_adapter(name: &str) -> bool {
    let name = name.to_lowercase();
    ["swiftshader", "llvmpipe", "lavapipe", "softpipe", "basic render"].iter().any(|s| name.contains(s))
}

impl Backend {
    /// As the page shows it; `cpu_workers` is how many engine workers may share a long CPU job.
    pub fn label(&self, cpu_workers: usize, members: usize) -> String {
        let mut label = match self {
            Backend::Gpu { adapter, note } => {
                let parts: Vec<&str> =
                    [adapter.as_str(), note.as_str()].into_iter().filter(|p| !p.is_empty()).collect();
                match parts.is_empty() {
                    true => "GPU (WebGPU)".to_string(),
                    false => format!("GPU (WebGPU: {})", parts.join("; ")),
                }
            }
            Backend::Cpu { why } => match cpu_workers {
                1 => format!("CPU (WebAssembly, one thread: {why})"),
                n => format!("CPU (WebAssembly, up to {n} threads: {why})"),
            },
        };
        if members > 1 {
            label.push_str(&format!(", ensemble of {members}"));
        }
        label
    }
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
    fn the_adapter_is_named_by_its_description_or_else_its_vendor_and_architecture() {
        assert_eq!(adapter_name("NVIDIA GeForce RTX 4070", "nvidia", "lovelace", ""), "NVIDIA GeForce RTX 4070");
        assert_eq!(adapter_name("", "google", "swiftshader", ""), "google swiftshader");
        assert_eq!(adapter_name(" ", "", "", ""), "");
        let gpu = Backend::Gpu { adapter: adapter_name("", "apple", "metal-3", ""), note: String::new() };
        assert_eq!(gpu.label(1, 1), "GPU (WebGPU: apple metal-3)");
        let probed = Backend::Gpu { adapter: "apple metal-3".into(), note: "3.1× the CPU here".into() };
        assert_eq!(probed.label(1, 1), "GPU (WebGPU: apple metal-3; 3.1× the CPU here)");
    }

    #[test]
    fn helpers_run_on_the_cpu_whatever_the_backend_setting() {
        let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
        // The default backend (auto) is left out of the pairs; gpu and cpu are there.
        for settings in [vec![pair("model", "en-de/gru")], vec![pair("backend", "gpu"), pair("beam", "4")]] {
            let helper = helper_settings(&settings);
            assert_eq!(helper.iter().filter(|(k, _)| k == "backend").collect::<Vec<_>>(), [&pair("backend", "cpu")]);
            assert!(settings.iter().filter(|(k, _)| k != "backend").all(|p| helper.contains(p)));
        }
    }

    #[test]
    fn software_adapters_are_recognised_by_name() {
        for name in [
            "google swiftshader",
            "SwiftShader Device (Subzero)",
            "llvmpipe (LLVM 15.0.6, 256 bits)",
            "Microsoft Basic Render Driver",
        ] {
            assert!(is_software_adapter(name), "{name}");
        }
        for name in ["NVIDIA GeForce RTX 4070", "apple metal-3", "intel gen-12lp", ""] {
            assert!(!is_software_adapter(name), "{name}");
        }
    }

    #[test]
    fn scores_without_a_finite_value_survive_the_trip_to_the_page() -> Result<(), serde_json::Error> {
        let out = Output {
            text: "x".into(),
            tokens: vec!["x".into()],
            probs: vec![0.5],
            log_prob: f32::NEG_INFINITY,
            score: f32::NAN,
        };
        let reply = Reply::Event {
            id: 3,
            event: Event::Done { first: 0, sentences: vec![vec![out]], notices: Notices::default() },
        };
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

    #[test]
    fn attention_maps_survive_the_trip_to_the_page_bit_for_bit() -> Result<(), serde_json::Error> {
        let map = |k: f32| vec![vec![vec![vec![0.1 * k, 1.0 / 3.0, f32::MIN_POSITIVE], vec![0.0, 1e-30, 0.9]]; 3]; 2];
        let maps = AttentionMaps { cross: map(1.0), encoder_self: map(2.0), decoder_self: vec![] };
        let event = Event::Attention {
            maps: maps.clone(),
            source: vec!["a".into()],
            target: vec!["b".into()],
            notices: Notices::default(),
        };
        let back: Event = serde_json::from_str(&serde_json::to_string(&event)?)?;
        let Event::Attention { maps: got, .. } = back else { panic!("{back:?}") };
        assert_eq!((got.cross, got.encoder_self, got.decoder_self), (maps.cross, maps.encoder_self, maps.decoder_self));
        Ok(())
    }

    #[test]
    fn ragged_or_truncated_maps_are_an_error_not_a_panic() {
        let ragged = AttentionMaps { cross: vec![vec![vec![vec![1.0], vec![0.5, 0.5]]]], ..Default::default() };
        let event = Event::Attention { maps: ragged, source: vec![], target: vec![], notices: Notices::default() };
        assert!(serde_json::to_string(&event).is_err());
        let bad = r#"{"Attention":{"maps":[{"dims":[1,1,2,2],"f32le":"AACAPw=="},{"dims":[0,0,0,0],"f32le":""},{"dims":[0,0,0,0],"f32le":""}],"source":[],"target":[]}}"#;
        assert!(serde_json::from_str::<Event>(bad).is_err());
        let huge = bad.replace("[1,1,2,2]", "[18446744073709551615,2,2,2]");
        assert!(serde_json::from_str::<Event>(&huge).is_err());
        let empty_but_huge = bad.replace("[1,1,2,2]", "[18446744073709551615,0,0,0]").replace("AACAPw==", "");
        assert!(serde_json::from_str::<Event>(&empty_but_huge).is_err());
    }
}

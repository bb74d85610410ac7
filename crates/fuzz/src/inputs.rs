//! The structured inputs of the targets, each generated from one [`Rng`].

use std::fmt;

use wgslate_metrics::{BleuOptions, ChrfOptions, Smoothing, TerOptions, Tokenize};

use crate::gen::{Rng, TextGen};
use crate::mutate::{mutate, tweak_number};
use crate::samples::{CONFIG_ARCHS, CONFIG_DIMS, CONFIG_DROPOUTS, CONFIG_KEYS, CONFIG_SCORES};
use crate::seeds::{self, ModelFiles};

/// Lines of up to 300 words for everything but TER.
pub const TEXT: TextGen = TextGen { max_words: 300 };
/// TER's shift search is slow on long repetitive lines, so its lines stay short (a 1M-input run
/// of each target has to fit in about 40 minutes on 2 cores).
pub const TER_TEXT: TextGen = TextGen { max_words: 25 };

pub const TOKENIZERS: [Tokenize; 5] =
    [Tokenize::Thirteen, Tokenize::Intl, Tokenize::Zh, Tokenize::Char, Tokenize::None];

/// Hypotheses with 1–4 reference streams parallel to them.
#[derive(Debug)]
pub struct Corpus {
    pub hyps: Vec<String>,
    pub refs: Vec<Vec<String>>,
}

impl Corpus {
    /// 1 to `max_lines` lines. References are mostly edited copies of each hypothesis's source line,
    /// so n-grams match.
    pub fn generate(rng: &mut Rng, text: TextGen, max_lines: usize) -> Self {
        let mut refs = vec![Vec::new(); rng.between(1, 4)];
        let mut hyps = Vec::new();
        for _ in 0..rng.between(1, max_lines) {
            let base = text.line(rng);
            hyps.push(if rng.one_in(3) { base.clone() } else { text.variant(rng, &base) });
            for stream in refs.iter_mut() {
                stream.push(match rng.below(8) {
                    0 => text.line(rng),
                    1 => String::new(),
                    2 => base.clone(),
                    _ => text.variant(rng, &base),
                });
            }
        }
        Self { hyps, refs }
    }

    pub fn views(&self) -> (Vec<&str>, Vec<Vec<&str>>) {
        let hyps = self.hyps.iter().map(String::as_str).collect();
        let refs = self.refs.iter().map(|s| s.iter().map(String::as_str).collect()).collect();
        (hyps, refs)
    }

    /// The references of line `i`, one per stream.
    pub fn line_refs(&self, i: usize) -> Vec<&str> {
        self.refs.iter().map(|s| s[i].as_str()).collect()
    }
}

#[derive(Debug)]
pub struct BleuCase {
    pub options: BleuOptions,
    pub corpus: Corpus,
}

impl BleuCase {
    pub fn generate(rng: &mut Rng, max_lines: usize) -> Self {
        let smoothing = match rng.below(4) {
            0 => Smoothing::None,
            1 => Smoothing::Exp,
            2 => Smoothing::Floor(rng.pick(&[0.0, 0.01, 0.1, 1.0])),
            _ => Smoothing::AddK(rng.pick(&[0.0, 0.1, 1.0, 5.0])),
        };
        let options = BleuOptions {
            tokenize: rng.pick(&TOKENIZERS),
            lowercase: rng.one_in(2),
            smoothing,
            max_ngram_order: 4,
            effective_order: rng.one_in(2),
        };
        Self { options, corpus: Corpus::generate(rng, TEXT, max_lines) }
    }
}

#[derive(Debug)]
pub struct ChrfCase {
    pub options: ChrfOptions,
    pub corpus: Corpus,
}

impl ChrfCase {
    /// chrF (word order 0) or chrF++ (1–2), with any character order that leaves some n-gram order.
    pub fn generate(rng: &mut Rng, max_lines: usize) -> Self {
        let word_order = rng.between(0, 2);
        let options = ChrfOptions {
            char_order: rng.between(usize::from(word_order == 0), 6),
            word_order,
            beta: rng.pick(&[0, 1, 2, 3, 10]),
            lowercase: rng.one_in(2),
            whitespace: rng.one_in(2),
            eps_smoothing: rng.one_in(2),
        };
        Self { options, corpus: Corpus::generate(rng, TEXT, max_lines) }
    }
}

#[derive(Debug)]
pub struct TerCase {
    pub options: TerOptions,
    pub corpus: Corpus,
}

impl TerCase {
    pub fn generate(rng: &mut Rng, max_lines: usize) -> Self {
        let options = TerOptions {
            normalized: rng.one_in(2),
            no_punct: rng.one_in(2),
            asian_support: rng.one_in(2),
            case_sensitive: rng.one_in(2),
        };
        Self { options, corpus: Corpus::generate(rng, TER_TEXT, max_lines) }
    }
}

#[derive(Debug)]
pub struct VocabCase {
    pub text: String,
    /// Ids to decode: real ones, specials and ones past the vocabulary.
    pub ids: Vec<u32>,
}

impl VocabCase {
    pub fn generate(rng: &mut Rng) -> Self {
        let text = if rng.one_in(2) { TEXT.line(rng) } else { TEXT.text(rng) };
        let ids = (0..rng.between(0, 40))
            .map(|_| match rng.below(6) {
                0 => rng.below(4) as u32,
                1 => rng.pick(&[7999, 8000, 8001, u32::MAX, i32::MAX as u32]),
                _ => rng.below(8000) as u32,
            })
            .collect();
        Self { text, ids }
    }
}

/// Bytes shown escaped, cut after 2 000 (replay the index to get all of them).
pub struct Bytes(pub Vec<u8>);

impl fmt::Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let shown: String =
            self.0.iter().take(2000).flat_map(|&b| std::ascii::escape_default(b)).map(char::from).collect();
        let cut = if self.0.len() > 2000 { format!("… ({} bytes)", self.0.len()) } else { String::new() };
        write!(f, "b\"{shown}\"{cut}")
    }
}

/// A safetensors file: a mutated seed, a cut-off shipped file or random bytes.
#[derive(Debug)]
pub struct WeightsCase {
    pub seed: &'static str,
    pub bytes: Bytes,
}

impl WeightsCase {
    pub fn generate(rng: &mut Rng) -> Self {
        let seeds = seeds::get();
        let donor = &seeds.mini[rng.below(seeds.mini.len())].weights;
        let (seed, bytes) = match rng.below(10) {
            0..=2 => {
                let files = &seeds.mini[rng.below(seeds.mini.len())];
                (files.name, mutated(rng, &files.weights, files.weights.len(), donor))
            }
            3..=4 => {
                let file = &seeds.small_weights[rng.below(seeds.small_weights.len())];
                ("small", mutated(rng, file, file.len(), donor))
            }
            5..=8 => {
                let files = &seeds.shipped[rng.below(seeds.shipped.len())];
                (files.name, shipped_weights(rng, files, donor))
            }
            _ => ("random", (0..rng.between(0, 64)).map(|_| rng.next_u64() as u8).collect()),
        };
        Self { seed, bytes: Bytes(bytes) }
    }
}

fn mutated(rng: &mut Rng, data: &[u8], within: usize, donor: &[u8]) -> Vec<u8> {
    let mut out = mutate(rng, data, within, donor);
    if rng.one_in(3) {
        tweak_number(rng, &mut out, within);
    }
    out
}

/// A shipped weights file with its header mutated. Usually cut a little past the header (a
/// complete 15 MB file takes ~15 ms to widen to f32), whole one time in 500.
fn shipped_weights(rng: &mut Rng, files: &ModelFiles, donor: &[u8]) -> Vec<u8> {
    let header_end = files.header_end();
    let cut = if rng.one_in(500) { files.weights.len() } else { header_end + rng.below(4096) };
    mutated(rng, &files.weights[..cut], header_end, donor)
}

/// A config.json: mutated shipped or miniature config, or random JSON.
#[derive(Debug)]
pub struct ConfigCase {
    pub json: Bytes,
}

impl ConfigCase {
    pub fn generate(rng: &mut Rng) -> Self {
        let seeds = seeds::get();
        let json = match rng.below(3) {
            0 => random_config(rng),
            _ => {
                let all: Vec<&ModelFiles> = seeds.shipped.iter().chain(&seeds.mini).collect();
                let config = &rng.pick(&all).config;
                let donor = random_config(rng);
                mutated(rng, config, config.len(), &donor)
            }
        };
        Self { json: Bytes(json) }
    }
}

/// A JSON object with the config keys (sometimes missing) holding edge-case values.
pub fn random_config(rng: &mut Rng) -> Vec<u8> {
    let mut fields = vec![format!("\"arch\": {}", rng.pick(CONFIG_ARCHS))];
    for key in CONFIG_KEYS {
        if !rng.one_in(8) {
            fields.push(format!("\"{key}\": {}", rng.pick(CONFIG_DIMS)));
        }
    }
    fields.push(format!("\"score\": {}", rng.pick(CONFIG_SCORES)));
    fields.push(format!("\"dropout\": {}", rng.pick(CONFIG_DROPOUTS)));
    if rng.one_in(4) {
        fields.push(format!("\"extra\": {}", rng.pick(CONFIG_DIMS)));
    }
    format!("{{{}}}", fields.join(", ")).into_bytes()
}

/// The three files `Model::from_bytes` takes, some of them mutated.
#[derive(Debug)]
pub struct ModelCase {
    pub seed: &'static str,
    pub config: Bytes,
    pub weights: Bytes,
    pub tokenizer: Bytes,
}

impl ModelCase {
    pub fn generate(rng: &mut Rng) -> Self {
        let seeds = seeds::get();
        let full = rng.one_in(1000);
        let files = if full { &seeds.shipped[rng.below(2)] } else { &seeds.mini[rng.below(seeds.mini.len())] };
        let donor = &seeds.mini[rng.below(seeds.mini.len())];
        let mut config = files.config.clone();
        let mut weights = files.weights.clone();
        let mut tokenizer = files.tokenizer.clone();
        match rng.below(10) {
            0..=3 => config = mutated(rng, &config, config.len(), &donor.config),
            4..=6 => weights = mutated(rng, &weights, files.header_end(), &donor.weights),
            7 => tokenizer = mutated(rng, &tokenizer, tokenizer.len(), &donor.tokenizer),
            8 => config = donor.config.clone(),
            _ => {
                config = mutated(rng, &config, config.len(), &donor.config);
                weights = mutated(rng, &weights, weights.len(), &donor.weights);
            }
        }
        Self { seed: files.name, config: Bytes(config), weights: Bytes(weights), tokenizer: Bytes(tokenizer) }
    }
}

/// A page URL's settings query: known keys with edge values, unknown keys, and text.
#[derive(Debug)]
pub struct SettingsCase {
    pub pairs: Vec<(String, String)>,
}

impl SettingsCase {
    pub fn generate(rng: &mut Rng) -> Self {
        const KEYS: &[&str] =
            &["model", "beam", "lpk", "lp", "cov", "end", "a", "b", "sample", "t", "k", "p", "seed", "text", "n", "x"];
        const VALUES: &[&str] = &[
            "-1e30",
            "1e30",
            "NaN",
            "nan",
            "inf",
            "-inf",
            "4294967295",
            "18446744073709551616",
            "-1",
            "0",
            "1",
            "1.5",
            "16",
            "17",
            "0.01",
            "",
            " 3 ",
            "true",
            "false",
            "gnmt",
            "avg",
            "en-de/gru",
            "../x",
            "a/b",
            "1e-320",
            "9007199254740993",
        ];
        let pairs = (0..rng.between(0, 8))
            .map(|_| {
                let key = if rng.one_in(20) { TEXT.line(rng) } else { rng.pick(KEYS).to_string() };
                let value = if rng.one_in(4) { TEXT.line(rng) } else { rng.pick(VALUES).to_string() };
                (key, value)
            })
            .collect();
        Self { pairs }
    }
}

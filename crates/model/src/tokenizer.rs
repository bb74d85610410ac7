//! Joint subword vocabulary (Hugging Face `tokenizers`, BPE), saved as `tokenizer.json`.
//!
//! Metaspace pre-tokenization keeps word boundaries inside the tokens, so decoding gives back
//! normal detokenized text; punctuation is split off so BPE does not learn "word." merges.

use std::path::Path;

use tokenizers::decoders::metaspace::Metaspace as MetaspaceDecoder;
use tokenizers::models::bpe::{BpeTrainerBuilder, BPE};
use tokenizers::normalizers::unicode::NFC;
use tokenizers::pre_tokenizers::metaspace::{Metaspace, PrependScheme};
use tokenizers::pre_tokenizers::punctuation::Punctuation;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::{
    AddedToken, DecoderWrapper, NormalizerWrapper, PostProcessorWrapper, PreTokenizerWrapper, Tokenizer,
    TokenizerBuilder,
};

use crate::config::{EOS_ID, SPECIAL_TOKENS, UNK_ID};

pub struct Vocab {
    pub inner: Tokenizer,
}

impl Vocab {
    pub fn from_file(path: &Path) -> Result<Self, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Self::from_bytes(&bytes)
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Self, String> {
        // tokenizers 0.23 panics (an `expect`) on some malformed JSON inside "decoder": check the syntax first.
        serde_json::from_slice::<serde_json::Value>(bytes)
            .map_err(|e| format!("tokenizer.json is not valid JSON: {e}"))?;
        let inner =
            Tokenizer::from_bytes(bytes).map_err(|e| format!("tokenizer.json is not a valid tokenizer: {e}"))?;
        for (id, tok) in SPECIAL_TOKENS.iter().enumerate() {
            if inner.token_to_id(tok) != Some(id as u32) {
                return Err(format!("tokenizer.json: special token {tok} must have id {id}"));
            }
        }
        Ok(Self { inner })
    }

    /// Trains a joint BPE vocabulary on the given text files.
    pub fn train(files: &[String], vocab_size: usize) -> Result<Self, String> {
        let bpe = BPE::builder().unk_token("<unk>".into()).build().map_err(|e| e.to_string())?;
        let mut trainer = BpeTrainerBuilder::new()
            .vocab_size(vocab_size)
            .min_frequency(2)
            .show_progress(false)
            .special_tokens(SPECIAL_TOKENS.iter().map(|t| AddedToken::from(t.to_string(), true)).collect())
            .build();
        let pre =
            Sequence::new(vec![Metaspace::new('▁', PrependScheme::Always, true).into(), Punctuation::default().into()]);
        let mut tok =
            TokenizerBuilder::<BPE, NormalizerWrapper, PreTokenizerWrapper, PostProcessorWrapper, DecoderWrapper>::new(
            )
            .with_model(bpe)
            .with_normalizer(Some(NFC.into()))
            .with_pre_tokenizer(Some(pre.into()))
            .with_decoder(Some(MetaspaceDecoder::new('▁', PrependScheme::Always, true).into()))
            .build()
            .map_err(|e| e.to_string())?;
        // One sequence per line, line ends stripped: `train_from_files` keeps them, and BPE then
        // learns tokens such as "▁street\n" that decode to a line break (the shipped vocabularies
        // hold a dozen; `decode` makes them a space).
        let mut text = String::new();
        for file in files {
            text += &std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
            text.push('\n');
        }
        tok.train(&mut trainer, text.lines()).map_err(|e| e.to_string())?;
        let inner: Tokenizer = tok.into();
        Ok(Self { inner })
    }

    /// A copy that skips each BPE merge with probability `p` (BPE-dropout, Provilkov et al. 2020):
    /// the same vocabulary, a different segmentation on each call, for training only. The draws
    /// come from `tokenizers`' own unseeded generator, so they are not reproducible.
    pub fn with_bpe_dropout(&self, p: f32) -> Result<Self, String> {
        if !(0.0..1.0).contains(&p) {
            return Err(format!("BPE dropout must be at least 0 and below 1, not {p}"));
        }
        let mut json: serde_json::Value =
            serde_json::from_str(&self.inner.to_string(false).map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string())?;
        let model = json.get_mut("model").filter(|m| m["type"] == "BPE").ok_or("the tokenizer is not BPE")?;
        model["dropout"] = serde_json::json!(p);
        Self::from_bytes(json.to_string().as_bytes())
    }

    pub fn save(&self, path: &Path) -> Result<(), String> {
        self.inner.save(path, false).map_err(|e| e.to_string())
    }

    pub fn vocab_size(&self) -> usize {
        self.inner.get_vocab_size(true)
    }

    /// Subword ids of a sentence followed by EOS (no BOS: the decoder adds it on its side). Any
    /// run of whitespace (tabs, no-break spaces from web pages, doubled spaces) is one space, as in
    /// the training text: the pre-tokenizer splits on the space alone, so a tab would glue two
    /// words into one unseen token.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, String> {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let enc = self.inner.encode(text, false).map_err(|e| e.to_string())?;
        let mut ids = enc.get_ids().to_vec();
        ids.push(EOS_ID);
        Ok(ids)
    }

    /// The distinct characters of `text` the tokenizer maps to `<unk>` (never seen in training),
    /// in order of first appearance.
    pub fn unseen_chars(&self, text: &str) -> Vec<char> {
        let mut seen = std::collections::HashSet::new();
        text.chars()
            .filter(|c| !c.is_whitespace() && seen.insert(*c))
            .filter(|c| self.encode(&c.to_string()).is_ok_and(|ids| ids.contains(&UNK_ID)))
            .collect()
    }

    /// The translation of `ids` as one line. The shipped vocabularies hold tokens with a line break
    /// or a tab (BPE learnt them from the training files' line ends; training never targets them),
    /// which sampling can still draw: a translation must stay one line of an output file.
    pub fn decode(&self, ids: &[u32]) -> String {
        let ids: Vec<u32> = ids.iter().copied().filter(|&i| i >= SPECIAL_TOKENS.len() as u32 || i == UNK_ID).collect();
        one_line(&self.inner.decode(&ids, false).unwrap_or_default())
    }

    /// The surface form of each token, for display (▁ shown as a leading space).
    pub fn token_strings(&self, ids: &[u32]) -> Vec<String> {
        ids.iter()
            .map(|&i| {
                self.inner.id_to_token(i).unwrap_or_else(|| "<?>".into()).replace('▁', " ").replace(breaks_line, " ")
            })
            .collect()
    }
}

/// Control characters (line feed, carriage return, tab, NEL…) and the Unicode line and paragraph
/// separators.
fn breaks_line(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

/// `text` trimmed, with each run of spaces and line-breaking characters made one space where it
/// holds any of the latter (text without them is only trimmed, so ordinary output is unchanged).
fn one_line(text: &str) -> String {
    if !text.contains(breaks_line) {
        return text.trim().to_string();
    }
    text.split(|c: char| c == ' ' || breaks_line(c)).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

//! Signatures exactly as sacreBLEU prints them (`nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0`),
//! long or `--short` (`#:1|c:mixed|e:no|tok:13a|s:exp|v:2.6.0`).

use crate::{BleuOptions, ChrfOptions, Smoothing, TerOptions, SACREBLEU_VERSION};

/// Extra fields that sacreBLEU puts before the metric's own ones (bootstrap, paired tests).
#[derive(Debug, Clone, Default)]
pub struct Resampling {
    /// `bs:N` (bootstrap resamples)
    pub bootstrap: Option<usize>,
    /// `seed:S`
    pub seed: Option<String>,
}

/// Ordered (long name, short name, value) fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Signature {
    pub fields: Vec<(&'static str, &'static str, String)>,
}

impl Signature {
    pub fn format(&self, short: bool) -> String {
        self.fields.iter().map(|(l, s, v)| format!("{}:{v}", if short { s } else { l })).collect::<Vec<_>>().join("|")
    }
}

impl std::fmt::Display for Signature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.format(false))
    }
}

type Fields = Vec<(&'static str, &'static str, String)>;

fn build(num_refs: Option<usize>, r: &Resampling, own: Fields) -> Signature {
    build_versioned(num_refs, r, own, SACREBLEU_VERSION)
}

/// The fields with `version` naming what the metric agrees with (sacreBLEU's own: its version).
fn build_versioned(num_refs: Option<usize>, r: &Resampling, own: Fields, version: &str) -> Signature {
    let mut fields = vec![("nrefs", "#", num_refs.map(|n| n.to_string()).unwrap_or_else(|| "var".into()))];
    if let Some(bs) = r.bootstrap {
        fields.push(("bs", "bs", bs.to_string()));
    }
    if let Some(seed) = &r.seed {
        fields.push(("seed", "rs", seed.clone()));
    }
    fields.extend(own);
    fields.push(("version", "v", version.to_string()));
    Signature { fields }
}

fn yes_no(b: bool) -> String {
    (if b { "yes" } else { "no" }).to_string()
}

fn case(lowercase: bool) -> String {
    (if lowercase { "lc" } else { "mixed" }).to_string()
}

/// `num_refs`: Some(n) when every segment has n references, None ("var") otherwise.
pub fn bleu(o: &BleuOptions, num_refs: Option<usize>, r: &Resampling) -> Signature {
    let smooth = match o.smoothing {
        Smoothing::Floor(v) | Smoothing::AddK(v) => format!("{}[{}]", o.smoothing.name(), crate::pystr::fixed(v, 2)),
        s => s.name().to_string(),
    };
    build(
        num_refs,
        r,
        vec![
            ("case", "c", case(o.lowercase)),
            ("eff", "e", yes_no(o.effective_order)),
            ("tok", "tok", o.tokenize.name().into()),
            ("smooth", "s", smooth),
        ],
    )
}

pub fn chrf(o: &ChrfOptions, num_refs: Option<usize>, r: &Resampling) -> Signature {
    build(
        num_refs,
        r,
        vec![
            ("case", "c", case(o.lowercase)),
            ("eff", "e", yes_no(!o.eps_smoothing)),
            ("nc", "nc", o.char_order.to_string()),
            ("nw", "nw", o.word_order.to_string()),
            ("space", "s", yes_no(o.whitespace)),
        ],
    )
}

pub fn ter(o: &TerOptions, num_refs: Option<usize>, r: &Resampling) -> Signature {
    build(
        num_refs,
        r,
        vec![
            ("case", "c", case(!o.case_sensitive)),
            ("tok", "t", "tercom".into()),
            ("norm", "nr", yes_no(o.normalized)),
            ("punct", "pn", yes_no(!o.no_punct)),
            ("asian", "as", yes_no(o.asian_support)),
        ],
    )
}

/// WER scores the first reference only (jiwer takes one): `nrefs:1` whatever is given.
pub fn wer(r: &Resampling) -> Signature {
    build_versioned(Some(1), r, vec![("case", "c", case(false)), ("tok", "tok", "jiwer".into())], "jiwer-4.0.0")
}

/// PER's words and reference are WER's.
pub fn per(r: &Resampling) -> Signature {
    build_versioned(Some(1), r, vec![("case", "c", case(false)), ("tok", "tok", "jiwer".into())], "moses-per")
}

pub fn meteor(stemmer: crate::meteor::Stemmer, num_refs: Option<usize>, r: &Resampling) -> Signature {
    let own = vec![("case", "c", case(true)), ("tok", "tok", "13a".into()), ("stem", "st", stemmer.name().into())];
    build_versioned(num_refs, r, own, "nltk-3.10.4")
}

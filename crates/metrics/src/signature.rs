//! Signatures exactly as sacreBLEU prints them (`nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0`).

use crate::{BleuOptions, ChrfOptions, Smoothing, TerOptions, SACREBLEU_VERSION};

/// Extra fields that sacreBLEU puts before the metric's own ones (bootstrap, paired tests).
#[derive(Debug, Clone, Default)]
pub struct Resampling {
    /// `bs:N` (bootstrap resamples)
    pub bootstrap: Option<usize>,
    /// `seed:S`
    pub seed: Option<String>,
}

fn nrefs(n: Option<usize>) -> String {
    n.map(|n| n.to_string()).unwrap_or_else(|| "var".into())
}

fn join(nrefs_value: String, r: &Resampling, fields: Vec<(&str, String)>) -> String {
    let mut parts = vec![format!("nrefs:{nrefs_value}")];
    if let Some(bs) = r.bootstrap {
        parts.push(format!("bs:{bs}"));
    }
    if let Some(seed) = &r.seed {
        parts.push(format!("seed:{seed}"));
    }
    parts.extend(fields.into_iter().map(|(k, v)| format!("{k}:{v}")));
    parts.push(format!("version:{SACREBLEU_VERSION}"));
    parts.join("|")
}

fn yes_no(b: bool) -> String {
    (if b { "yes" } else { "no" }).to_string()
}

/// `num_refs`: Some(n) when every segment has n references, None ("var") otherwise.
pub fn bleu(o: &BleuOptions, num_refs: Option<usize>, r: &Resampling) -> String {
    let smooth = match o.smoothing {
        Smoothing::Floor(v) | Smoothing::AddK(v) => format!("{}[{v:.2}]", o.smoothing.name()),
        s => s.name().to_string(),
    };
    join(nrefs(num_refs), r, vec![
        ("case", if o.lowercase { "lc" } else { "mixed" }.into()),
        ("eff", yes_no(o.effective_order)),
        ("tok", o.tokenize.name().into()),
        ("smooth", smooth),
    ])
}

pub fn chrf(o: &ChrfOptions, num_refs: Option<usize>, r: &Resampling) -> String {
    join(nrefs(num_refs), r, vec![
        ("case", if o.lowercase { "lc" } else { "mixed" }.into()),
        ("eff", yes_no(!o.eps_smoothing)),
        ("nc", o.char_order.to_string()),
        ("nw", o.word_order.to_string()),
        ("space", yes_no(o.whitespace)),
    ])
}

pub fn ter(o: &TerOptions, num_refs: Option<usize>, r: &Resampling) -> String {
    join(nrefs(num_refs), r, vec![
        ("case", if o.case_sensitive { "mixed" } else { "lc" }.into()),
        ("tok", "tercom".into()),
        ("norm", yes_no(o.normalized)),
        ("punct", yes_no(!o.no_punct)),
        ("asian", yes_no(o.asian_support)),
    ])
}

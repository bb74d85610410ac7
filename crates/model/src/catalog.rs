//! The shipped models' index (`www/models/index.json`): which directions and architectures exist,
//! their download size and test BLEU, and the choices the page's language pickers offer.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CatalogEntry {
    /// Source and target language codes: "en-de".
    pub pair: String,
    /// The directory under the pair: "transformer".
    pub arch: String,
    /// What the picker calls it: "Transformer".
    pub title: String,
    /// Bytes to download: config.json, tokenizer.json and model.safetensors.
    pub bytes: u64,
    /// sacreBLEU 13a, cased, greedy, on test_2016_flickr.
    pub test_bleu: f64,
    /// For an ensemble: the architectures (of the same pair) whose models it averages; its own
    /// directory holds no files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<String>,
}

impl CatalogEntry {
    /// "en-de/transformer", the `model` setting.
    pub fn name(&self) -> String {
        format!("{}/{}", self.pair, self.arch)
    }

    /// The models to load: the members of an ensemble, or this one.
    pub fn model_names(&self) -> Vec<String> {
        if self.members.is_empty() {
            return vec![self.name()];
        }
        self.members.iter().map(|a| format!("{}/{a}", self.pair)).collect()
    }

    pub fn source(&self) -> &str {
        self.pair.split('-').next().unwrap_or("")
    }

    pub fn target(&self) -> &str {
        self.pair.split('-').nth(1).unwrap_or("")
    }

    /// "Transformer · 7.8 MB · test BLEU 38.1": the size shows before anything is downloaded.
    pub fn label(&self) -> String {
        format!("{} · {:.1} MB · test BLEU {:.1}", self.title, self.bytes as f64 / 1e6, self.test_bleu)
    }
}

pub fn parse(json: &str) -> Result<Vec<CatalogEntry>, String> {
    let entries: Vec<CatalogEntry> = serde_json::from_str(json).map_err(|e| format!("models/index.json: {e}"))?;
    if let Some(e) = entries.iter().find(|e| e.source().is_empty() || e.target().is_empty()) {
        return Err(format!("models/index.json: the pair {:?} is not source-target", e.pair));
    }
    for e in entries.iter().filter(|e| !e.members.is_empty()) {
        if let Some(m) =
            e.model_names().iter().find(|m| !entries.iter().any(|x| &x.name() == *m && x.members.is_empty()))
        {
            return Err(format!("models/index.json: {} has a member {m} that is not a model of the index", e.name()));
        }
    }
    Ok(entries)
}

/// English name of a language code the models use.
pub fn language_name(code: &str) -> String {
    match code {
        "en" => "English",
        "de" => "German",
        "fr" => "French",
        "cs" => "Czech",
        "es" => "Spanish",
        "it" => "Italian",
        "nl" => "Dutch",
        "pt" => "Portuguese",
        other => other,
    }
    .to_string()
}

fn unique<'a>(codes: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in codes {
        if !out.iter().any(|o| o == c) {
            out.push(c.to_string());
        }
    }
    out
}

/// Languages some model translates from, in index order.
pub fn sources(entries: &[CatalogEntry]) -> Vec<String> {
    unique(entries.iter().map(CatalogEntry::source))
}

/// Languages some model translates `source` into.
pub fn targets(entries: &[CatalogEntry], source: &str) -> Vec<String> {
    unique(entries.iter().filter(|e| e.source() == source).map(CatalogEntry::target))
}

/// The index's entry for `name` (a `pair/arch` name), a model or an ensemble.
pub fn find<'a>(entries: &'a [CatalogEntry], name: &str) -> Option<&'a CatalogEntry> {
    entries.iter().find(|e| e.name() == name)
}

/// The models `name` stands for: an ensemble's members (`pair/arch` names), else itself.
pub fn model_names(entries: &[CatalogEntry], name: &str) -> Vec<String> {
    find(entries, name).map_or_else(|| vec![name.to_string()], CatalogEntry::model_names)
}

/// Whether the index lists `model` (a `pair/arch` name) as a model or an ensemble.
pub fn lists(entries: &[CatalogEntry], model: &str) -> bool {
    find(entries, model).is_some()
}

/// The models of one direction, in index order.
pub fn models_for<'a>(entries: &'a [CatalogEntry], source: &str, target: &str) -> Vec<&'a CatalogEntry> {
    entries.iter().filter(|e| e.source() == source && e.target() == target).collect()
}

/// The model for `source` → `target`, keeping the architecture `arch` when that direction has it;
/// a target the source lacks falls back to the source's first target.
pub fn pick(entries: &[CatalogEntry], source: &str, target: &str, arch: &str) -> Option<String> {
    let targets = targets(entries, source);
    let target = if targets.iter().any(|t| t == target) { target } else { targets.first()? };
    let models = models_for(entries, source, target);
    models.iter().find(|e| e.arch == arch).or(models.first()).map(|e| e.name())
}

/// The model of the opposite direction (same architecture when there is one), if any.
pub fn swapped(entries: &[CatalogEntry], name: &str) -> Option<String> {
    let current = find(entries, name)?;
    let back = models_for(entries, current.target(), current.source());
    back.iter().find(|e| e.arch == current.arch).or(back.first()).map(|e| e.name())
}

/// The single model that reranks `name`'s hypotheses (the page's Rerank setting and Best quality,
/// the CLI's `--best`): the model of the opposite direction, an ensemble there giving its first member.
pub fn reranker(entries: &[CatalogEntry], name: &str) -> Option<String> {
    let back = swapped(entries, name)?;
    find(entries, &back)?.model_names().into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(pair: &str, arch: &str) -> CatalogEntry {
        CatalogEntry {
            pair: pair.into(),
            arch: arch.into(),
            title: arch.into(),
            bytes: 1_500_000,
            test_bleu: 30.04,
            members: vec![],
        }
    }

    fn index() -> Vec<CatalogEntry> {
        vec![
            entry("en-de", "transformer"),
            entry("en-de", "gru"),
            entry("de-en", "transformer"),
            entry("en-fr", "transformer"),
        ]
    }

    #[test]
    fn pickers_offer_only_directions_that_exist() {
        let i = index();
        assert_eq!(sources(&i), ["en", "de"]);
        assert_eq!(targets(&i, "en"), ["de", "fr"]);
        assert_eq!(targets(&i, "de"), ["en"]);
        assert_eq!(pick(&i, "en", "fr", "gru").as_deref(), Some("en-fr/transformer"));
        assert_eq!(pick(&i, "en", "de", "gru").as_deref(), Some("en-de/gru"));
        // German has no German target: its first target is taken.
        assert_eq!(pick(&i, "de", "de", "transformer").as_deref(), Some("de-en/transformer"));
        assert_eq!(pick(&i, "cs", "en", "transformer"), None);
    }

    #[test]
    fn only_listed_models_count_as_shipped() {
        let i = index();
        assert!(lists(&i, "en-de/gru"));
        assert!(!lists(&i, "xx/yy"));
        assert!(!lists(&i, "en-de"));
    }

    #[test]
    fn swap_finds_the_opposite_direction() {
        let i = index();
        assert_eq!(swapped(&i, "en-de/transformer").as_deref(), Some("de-en/transformer"));
        assert_eq!(swapped(&i, "en-de/gru").as_deref(), Some("de-en/transformer"));
        assert_eq!(swapped(&i, "en-fr/transformer"), None);
    }

    #[test]
    fn the_reranker_is_one_model_of_the_opposite_direction() {
        let mut i = index();
        assert_eq!(reranker(&i, "en-de/gru").as_deref(), Some("de-en/transformer"));
        assert_eq!(reranker(&i, "en-fr/transformer"), None);
        // An ensemble there reranks with its first member.
        i.insert(0, CatalogEntry { members: vec!["gru".into(), "transformer".into()], ..entry("fr-en", "ensemble") });
        i.push(entry("fr-en", "gru"));
        i.push(entry("fr-en", "transformer"));
        assert_eq!(reranker(&i, "en-fr/transformer").as_deref(), Some("fr-en/transformer"));
        assert_eq!(reranker(&i, "en-fr/ensemble"), None, "not listed");
        i.push(entry("en-fr", "ensemble"));
        assert_eq!(reranker(&i, "en-fr/ensemble").as_deref(), Some("fr-en/gru"));
    }

    #[test]
    fn labels_show_size_and_quality() -> Result<(), String> {
        assert_eq!(entry("en-de", "gru").label(), "gru · 1.5 MB · test BLEU 30.0");
        assert!(parse(r#"[{"pair":"ende","arch":"x","title":"x","bytes":1,"test_bleu":1}]"#).is_err());
        assert!(parse("[]")?.is_empty());
        Ok(())
    }

    #[test]
    fn an_ensemble_names_its_members_which_must_exist() -> Result<(), String> {
        let one = r#"{"pair":"en-de","arch":"transformer","title":"T","bytes":1,"test_bleu":1}"#;
        let ens = |m: &str| {
            format!(
                r#"[{one},{{"pair":"en-de","arch":"ensemble","title":"E","bytes":2,"test_bleu":2,"members":["transformer","{m}"]}}]"#
            )
        };
        let entries = parse(&ens("transformer"))?;
        assert_eq!(entries[1].model_names(), ["en-de/transformer", "en-de/transformer"]);
        assert_eq!(entries[0].model_names(), ["en-de/transformer"]);
        assert!(parse(&ens("gru")).is_err_and(|e| e.contains("en-de/gru")));
        Ok(())
    }
}

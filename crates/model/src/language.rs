//! Which of the models' languages a text is written in, to tell a user who typed German into an
//! English → German model (which then "translates" it into nonsense) what happened. Common
//! function words and each language's own letters; no answer unless the text says it clearly.

use crate::catalog::{self, language_name, CatalogEntry};

/// Frequent words of one language that the others seldom write as words (so not "in" or "an").
#[rustfmt::skip]
const WORDS: [(&str, &[&str]); 4] = [
    ("en", &[
        "a", "on", "as", "into", "near", "over", "around", "outside", "other", "its", "old", "small", "large",
        "blue", "red", "green", "shirt", "hat", "water", "children", "the", "is", "and", "of", "with", "are", "to",
        "at", "his", "her", "while", "two", "three", "man", "woman", "men", "women", "people", "wearing", "young",
        "sitting", "standing", "playing", "walking", "holding", "looking", "by", "for", "from", "their", "this",
        "that", "it", "some", "next", "front", "down", "up", "little", "girl", "boy", "dog", "street", "through",
        "white", "black", "one", "who", "has", "was", "what", "you", "i", "my", "we", "not", "be", "have", "how",
        "where", "there",
    ]),
    ("de", &[
        "der", "die", "das", "ein", "beim", "oder", "sehr", "zusammen", "diesem", "ihre", "ihrem", "ihren", "seine",
        "seinem", "seinen", "junger", "jungen", "kleine", "kleiner", "kleinen", "wasser", "roten", "blauen",
        "weißen", "schwarzen", "eine", "einem", "einen", "einer", "eines", "und", "im", "auf", "mit", "ist", "sind",
        "zwei", "drei", "mann", "frau", "männer", "frauen", "von", "vor", "bei", "den", "dem", "sich", "nicht",
        "zu", "am", "über", "unter", "trägt", "steht", "sitzt", "spielt", "hält", "mädchen", "junge", "hund",
        "straße", "während", "gruppe", "menschen", "personen", "kind", "kinder", "neben", "aus", "durch", "um",
        "ich", "du", "wir", "es", "wie", "wo", "was", "hat", "haben", "mein", "nach",
    ]),
    ("fr", &[
        "un", "une", "de", "du", "des", "le", "la", "les", "et", "est", "sont", "dans", "sur", "avec", "au", "aux",
        "en", "deux", "trois", "homme", "femme", "hommes", "femmes", "personnes", "jeune", "tandis", "devant",
        "fille", "garçon", "assis", "debout", "chien", "rue", "groupe", "portant", "gens", "qui", "que", "pour",
        "par", "se", "sa", "ses", "il", "elle", "je", "tu", "nous", "vous", "pas", "près", "côté", "enfant",
        "enfants", "regarde", "tient", "joue", "être", "avoir", "mon", "où", "ce",
    ]),
    // Czech, which no model here translates: named so that it is not taken for French ("je", "se").
    ("cs", &[
        "je", "se", "na", "v", "ve", "s", "z", "ze", "do", "k", "o", "u", "po", "za", "od", "si", "muž", "muži",
        "žena", "ženy", "dva", "dvě", "tři", "jsou", "který", "která", "které", "pes", "lidé", "malý", "malé",
        "malá", "mladý", "mladá", "při", "před", "děti", "dítě", "chlapec", "dívka", "skupina", "zatímco", "bílé",
        "černé", "červené", "modré", "tričku", "ulici", "nějaký", "jeho", "její",
    ]),
];

/// Letters that only one of them writes, and "é", which French and Czech both do.
const LETTERS: [(&str, &str); 3] = [("de", "äöüß"), ("fr", "éèêëàâçîïôûùœ"), ("cs", "éáíúýčďěňřšťžů")];

/// French elisions: "d'un", "l'homme", "qu'il".
const ELIDED: [&str; 7] = ["d'", "l'", "qu'", "j'", "n'", "s'", "c'"];

/// How strongly the text reads as each language: one point per word of its list, per word with
/// one of its letters, per French elision.
pub fn scores(text: &str) -> Vec<(&'static str, usize)> {
    let lower = text.to_lowercase().replace('’', "'");
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\''))
        .filter(|w| !w.is_empty())
        .collect();
    WORDS
        .iter()
        .map(|(code, list)| {
            let mut score = 0;
            for w in &words {
                let elided = ELIDED.iter().find_map(|e| w.strip_prefix(e));
                if *code == "fr" && elided.is_some() {
                    score += 1;
                }
                let w = elided.unwrap_or(w);
                score += list.contains(&w) as usize;
                score +=
                    LETTERS.iter().any(|(c, letters)| c == code && w.chars().any(|ch| letters.contains(ch))) as usize;
            }
            (*code, score)
        })
        .collect()
}

/// The language `text` is written in, when it says so clearly: at least two points, and at least
/// twice the runner-up's. None for a word or two, names, numbers, or a mixture.
pub fn guess(text: &str) -> Option<&'static str> {
    let mut s = scores(text);
    s.sort_by_key(|(_, score)| std::cmp::Reverse(*score));
    let (best, runner_up) = (s[0], s[1].1);
    (best.1 >= 2 && best.1 >= 2 * runner_up).then_some(best.0)
}

/// The language most of `lines` with text are written in, with how many read as it and how many
/// have text: for a file, where a stray line or a heading does not decide.
pub fn of_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> Option<(&'static str, usize, usize)> {
    let mut counts: Vec<(&str, usize)> = WORDS.iter().map(|(c, _)| (*c, 0)).collect();
    let mut with_text = 0;
    for line in lines.into_iter().filter(|l| !l.trim().is_empty()) {
        with_text += 1;
        if let Some(code) = guess(line) {
            counts.iter_mut().find(|(c, _)| *c == code).unwrap().1 += 1;
        }
    }
    let (code, n) = counts.into_iter().max_by_key(|(_, n)| *n)?;
    (2 * n > with_text).then_some((code, n, with_text))
}

/// Text in another language than a model translates from: what it reads as, and the index's model
/// that translates that language (to the same target when one does), if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub read_as: &'static str,
    pub model: CatalogEntry,
    pub instead: Option<String>,
}

impl Mismatch {
    /// None when `model` is not in the index or the text reads as its source language (or as nothing clearly).
    pub fn find(entries: &[CatalogEntry], model: &str, read_as: Option<&'static str>) -> Option<Mismatch> {
        let entry = catalog::find(entries, model)?;
        let read_as = read_as.filter(|l| *l != entry.source())?;
        let instead = catalog::pick(entries, read_as, entry.target(), &entry.arch);
        Some(Mismatch { read_as, model: entry.clone(), instead })
    }

    /// "The text reads as German, but en-de/transformer translates English → German", from "The text reads".
    pub fn message(&self, subject_reads: &str) -> String {
        format!(
            "{subject_reads} as {}, but {} translates {} → {}",
            language_name(self.read_as),
            self.model.name(),
            language_name(self.model.source()),
            language_name(self.model.target())
        )
    }

    /// "German → English" for the model to use instead.
    pub fn instead_label(&self) -> Option<String> {
        let (source, target) = self.instead.as_deref()?.split('/').next()?.split_once('-')?;
        Some(format!("{} → {}", language_name(source), language_name(target)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clear_sentences_are_named_and_unclear_ones_are_not() {
        assert_eq!(guess("Ein Mann fährt Fahrrad auf der Straße."), Some("de"));
        assert_eq!(guess("A man is riding a bike down the street."), Some("en"));
        assert_eq!(guess("Un homme fait du vélo dans la rue."), Some("fr"));
        assert_eq!(guess("L'enfant qu'il regarde."), Some("fr"));
        assert_eq!(guess("Hund"), None);
        assert_eq!(guess("Berlin 2024"), None);
        assert_eq!(guess(""), None);
        assert_eq!(guess("the der"), None);
    }

    #[test]
    fn a_mismatch_names_the_model_for_the_language_read() {
        let index =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models/index.json")).unwrap();
        let entries = catalog::parse(&index).unwrap();
        let german = guess("Zwei Hunde spielen im Schnee.");
        let m = Mismatch::find(&entries, "en-de/transformer", german).unwrap();
        assert_eq!(m.instead.as_deref(), Some("de-en/transformer"));
        assert_eq!(m.instead_label().as_deref(), Some("German → English"));
        assert_eq!(
            m.message("The text reads"),
            "The text reads as German, but en-de/transformer translates English → German"
        );
        // French into en→de: French → German does not exist, French → English does.
        let m = Mismatch::find(&entries, "en-de/gru", guess("Deux chiens jouent dans la neige.")).unwrap();
        assert_eq!(m.instead.as_deref(), Some("fr-en/transformer"));
        // Czech: no model translates it.
        let m = Mismatch::find(&entries, "en-de/transformer", guess("Dva psi si hrají ve sněhu.")).unwrap();
        assert_eq!((m.read_as, m.instead), ("cs", None));
        assert_eq!(Mismatch::find(&entries, "de-en/transformer", german), None);
        assert_eq!(Mismatch::find(&entries, "en-de/transformer", None), None);
        assert_eq!(Mismatch::find(&entries, "xx-yy/unlisted", german), None);
    }
}

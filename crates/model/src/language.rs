//! Which language a text is written in, to tell a user who typed German into an English → German
//! model (which then "translates" it into nonsense) what happened. Common function words and each
//! language's own letters of the models' languages, and of neighbours no model translates (so that
//! Spanish is not taken for French); no answer unless the text says it clearly.

use crate::catalog::{self, language_name, CatalogEntry};

/// Frequent words of each language; one of two lists ("en" in French, Spanish and Dutch) counts for
/// both, so only the words that tell two languages apart decide between them.
#[rustfmt::skip]
const WORDS: [(&str, &[&str]); 8] = [
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
        "černé", "červené", "modré", "tričku", "ulici", "nějaký", "jeho", "její", "lidí", "několik", "hraje", "přes",
        "drží", "během", "kolem", "stojí", "vedle", "pro", "jde", "pod", "venku", "nad", "běží", "aby", "sedí", "ulice",
        "člověk", "okolo", "jede", "mezi", "jdou", "skrz", "osoba", "dětí", "blízko", "mnoho", "nebo", "dělá",
    ]),
    // Neighbours that no model here translates, named so that they are not taken for French, German
    // or Czech (a hint would then offer the wrong model).
    ("es", &[
        "el", "los", "las", "la", "en", "una", "y", "con", "por", "para", "es", "está", "están", "del", "al", "hombre",
        "mujer", "niño", "niña", "perro", "calle", "dos", "tres", "mientras", "pero", "muy", "su", "sus", "hay",
        "lo", "también", "gente", "personas", "camisa", "sobre", "cuando", "donde", "yo", "tiene",
    ]),
    ("it", &[
        "il", "lo", "gli", "della", "delle", "di", "che", "è", "sono", "con", "uomo", "donna", "ragazzo",
        "ragazza", "cane", "strada", "due", "tre", "mentre", "una", "uno", "nel", "nella", "sul", "sulla",
        "per", "del", "non", "questo", "questa", "anche", "molto", "gruppo", "persone",
    ]),
    ("nl", &[
        "de", "het", "een", "en", "van", "op", "met", "vrouw", "jongen", "meisje", "hond", "straat", "twee",
        "drie", "terwijl", "zijn", "niet", "dat", "voor", "bij", "naar", "ook", "wordt", "staat", "loopt",
        "zit", "mensen", "kinderen", "ik", "je", "wij", "heeft",
    ]),
    ("pt", &[
        "os", "um", "uma", "com", "em", "no", "na", "do", "da", "dos", "das", "homem", "mulher", "menino",
        "menina", "cachorro", "cão", "rua", "dois", "duas", "três", "enquanto", "está", "estão", "que", "para",
        "por", "não", "seu", "sua", "pessoas", "grupo", "camisa",
    ]),
];

/// Letters that only one of these languages writes, and "é", which French and Czech both do.
const LETTERS: [(&str, &str); 5] =
    [("de", "äöüß"), ("fr", "éèêëàâçîïôûùœ"), ("cs", "éáíúýčďěňřšťžů"), ("es", "ñ¿¡"), ("pt", "ãõ")];

/// French elisions: "d'un", "l'homme", "qu'il".
const ELIDED: [&str; 7] = ["d'", "l'", "qu'", "j'", "n'", "s'", "c'"];

/// The words of `text`, lower-cased, apostrophes kept ("l'homme"), without one-letter words that
/// a period follows (the initials of "U.S." or "J. K. Rowling" are not Czech "u" and "k").
fn words(text: &str) -> Vec<String> {
    let lower = text.to_lowercase().replace('’', "'");
    let mut words = Vec::new();
    let mut chars = lower.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if !(c.is_alphanumeric() || c == '\'') {
            continue;
        }
        let mut end = start + c.len_utf8();
        while let Some(&(i, c)) = chars.peek().filter(|(_, c)| c.is_alphanumeric() || *c == '\'') {
            end = i + c.len_utf8();
            chars.next();
        }
        let word = lower[start..end].trim_matches('\'');
        let initial = word.chars().count() == 1 && chars.peek().is_some_and(|&(_, c)| c == '.');
        if !word.is_empty() && !initial {
            words.push(word.to_string());
        }
    }
    words
}

/// How strongly the text reads as each language: (language, words of its list, points), a point
/// per word of its list, per word with one of its letters, per French elision.
pub fn scores(text: &str) -> Vec<(&'static str, usize, usize)> {
    let words = words(text);
    WORDS
        .iter()
        .map(|(code, list)| {
            let (mut listed, mut points) = (0, 0);
            for w in &words {
                let elided = ELIDED.iter().find_map(|e| w.strip_prefix(e));
                if *code == "fr" && elided.is_some() {
                    points += 1;
                }
                let w = elided.unwrap_or(w);
                if list.contains(&w) {
                    listed += 1;
                    points += 1;
                }
                points +=
                    LETTERS.iter().any(|(c, letters)| c == code && w.chars().any(|ch| letters.contains(ch))) as usize;
            }
            (*code, listed, points)
        })
        .collect()
}

/// Whether `guess` can name `code` (a text in another language reads as one of these, or as nothing).
pub fn knows(code: &str) -> bool {
    WORDS.iter().any(|(c, _)| *c == code)
}

/// The language `text` is written in, when it says so clearly: at least two points, one of them a
/// word of its list (letters alone are names: "Müller, Schäfer"), and at least twice the
/// runner-up's points. None for a word or two, names, numbers, or a mixture.
pub fn guess(text: &str) -> Option<&'static str> {
    let mut s = scores(text);
    s.sort_by_key(|(_, _, points)| std::cmp::Reverse(*points));
    let ((code, listed, points), runner_up) = (s[0], s[1].2);
    (points >= 2 && listed >= 1 && points >= 2 * runner_up).then_some(code)
}

/// The language most of `lines` with text are written in, with how many read as it and how many
/// have text: for a file, where a stray line or a heading does not decide.
pub fn of_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> Option<(&'static str, usize, usize)> {
    let mut counts = LineCounts::default();
    lines.into_iter().for_each(|l| counts.add(l));
    counts.most()
}

/// `of_lines` gathered a line at a time, for input that is not kept (standard input may never end).
#[derive(Clone, Debug, Default)]
pub struct LineCounts {
    /// Lines read as each language of `WORDS`, in its order.
    read_as: [usize; WORDS.len()],
    with_text: usize,
}

impl LineCounts {
    pub fn add(&mut self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        self.with_text += 1;
        if let Some(code) = guess(line) {
            self.read_as[WORDS.iter().position(|(c, _)| *c == code).expect("guess names a language of WORDS")] += 1;
        }
    }

    /// What `of_lines` says of the lines added so far.
    pub fn most(&self) -> Option<(&'static str, usize, usize)> {
        let (k, &n) = self.read_as.iter().enumerate().max_by_key(|(_, n)| **n)?;
        (2 * n > self.with_text).then_some((WORDS[k].0, n, self.with_text))
    }
}

/// Text in another language than a model translates from: what it reads as, and the index's model
/// that translates that language (to the same target when one does), if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub read_as: &'static str,
    /// The model's name ("en-de/transformer") or folder.
    pub model: String,
    pub source: String,
    pub target: String,
    pub instead: Option<String>,
}

impl Mismatch {
    /// For a model of the index; None when `model` is not in it or the text reads as its source
    /// language (or as nothing clearly).
    pub fn find(entries: &[CatalogEntry], model: &str, read_as: Option<&'static str>) -> Option<Mismatch> {
        let e = catalog::find(entries, model)?;
        Self::of(entries, &e.name(), (e.source(), e.target()), &e.arch, read_as)
    }

    /// For any model whose languages are known; `entries` (which may be empty) names the model to
    /// use instead, of the architecture `arch` where that language has one.
    pub fn of(
        entries: &[CatalogEntry],
        model: &str,
        (source, target): (&str, &str),
        arch: &str,
        read_as: Option<&'static str>,
    ) -> Option<Mismatch> {
        let read_as = read_as.filter(|l| *l != source)?;
        // Text in the target language most likely wants the way back (English typed into French →
        // English: English → French); else the same target where that language has it.
        let wanted = if read_as == target { source } else { target };
        let instead = catalog::pick(entries, read_as, wanted, arch);
        Some(Mismatch { read_as, model: model.into(), source: source.into(), target: target.into(), instead })
    }

    /// "The text reads as German, but en-de/transformer translates English → German", from "The text reads".
    pub fn message(&self, subject_reads: &str) -> String {
        format!(
            "{subject_reads} as {}, but {} translates {} → {}",
            language_name(self.read_as),
            self.model,
            language_name(&self.source),
            language_name(&self.target)
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
    fn initials_names_and_neighbouring_languages_are_not_taken_for_a_models_language() {
        for english in ["The U.S. Army", "In the U.S.", "The U.K. government", "U.S. President Joe Biden"] {
            assert!(matches!(guess(english), None | Some("en")), "{english}: {:?}", guess(english));
        }
        assert_eq!(guess("A book by J. K. Rowling and the U.S. Army."), Some("en"));
        assert_eq!(guess("Müller, Schäfer, Jäger"), None);
        // Each guessed as itself or not at all, never as a language a model translates.
        for (text, lang) in [
            ("El hombre está en la calle con su perro.", "es"),
            ("El perro corre en la calle.", "es"),
            ("Una mujer y un niño caminan por la playa.", "es"),
            ("Il ragazzo e la ragazza giocano con il cane nel parco.", "it"),
            ("Un uomo con una camicia blu è seduto sulla panchina.", "it"),
            ("De man en de vrouw lopen op straat met hun hond.", "nl"),
            ("Een jongen speelt met een bal terwijl zijn vader kijkt.", "nl"),
            ("O homem está andando na rua com seu cachorro.", "pt"),
            ("Uma mulher e duas crianças estão na praia.", "pt"),
        ] {
            assert!(guess(text).is_none_or(|g| g == lang), "{text}: {:?}", guess(text));
        }
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
        // English typed into French → English: the way back, English → French.
        let m = Mismatch::find(&entries, "fr-en/transformer", guess("A dog runs in the snow.")).unwrap();
        assert_eq!(m.instead.as_deref(), Some("en-fr/transformer"));
        // Czech: no model translates it.
        let m = Mismatch::find(&entries, "en-de/transformer", guess("Dva psi si hrají ve sněhu.")).unwrap();
        assert_eq!((m.read_as, m.instead), ("cs", None));
        assert_eq!(Mismatch::find(&entries, "de-en/transformer", german), None);
        assert_eq!(Mismatch::find(&entries, "en-de/transformer", None), None);
        assert_eq!(Mismatch::find(&entries, "xx-yy/unlisted", german), None);
        // A model outside the index whose config.json records en-de: named, nothing to offer.
        let m = Mismatch::of(&[], "runs/x/best", ("en", "de"), "", german).unwrap();
        assert_eq!(
            (m.message("It reads").as_str(), m.instead),
            ("It reads as German, but runs/x/best translates English → German", None)
        );
    }
}

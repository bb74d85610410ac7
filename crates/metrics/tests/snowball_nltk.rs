//! `snowball::snowball_stem` against NLTK 3.10.4's `SnowballStemmer("german")` and
//! `SnowballStemmer("french")`: tests/data/snowball_nltk.tsv holds the stems of 5800 words (written
//! by tests/data/snowball_nltk.py) with every suffix of every step, Multi30k tokens reaching every
//! branch of NLTK's code, its quirks, case, accents, ß, punctuation and random strings.

use wgslate_metrics::snowball::{snowball_stem, SnowballLanguage};

#[test]
fn stems_equal_nltk() {
    let tsv = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/snowball_nltk.tsv")).unwrap();
    let mut lines = tsv.split_terminator('\n');
    assert!(lines.next().is_some_and(|header| header.starts_with("# NLTK 3.10.4 SnowballStemmer")));
    let (mut compared, mut differences) = ([0, 0], Vec::new());
    for line in lines {
        let mut fields = line.splitn(3, '\t');
        let (Some(lang), Some(word), Some(want)) = (fields.next(), fields.next(), fields.next()) else {
            panic!("not three fields in {line:?}");
        };
        let (language, count) = match lang {
            "de" => (SnowballLanguage::German, &mut compared[0]),
            "fr" => (SnowballLanguage::French, &mut compared[1]),
            _ => panic!("unknown language {lang:?} in {line:?}"),
        };
        *count += 1;
        let got = snowball_stem(language, word);
        if got != want {
            differences.push(format!("{lang} {word:?}: NLTK {want:?}, wgslate {got:?}"));
        }
    }
    let [german, french] = compared;
    assert!(german >= 2000 && french >= 2000, "only {german} German and {french} French words");
    assert!(
        differences.is_empty(),
        "{} of {} words differ from NLTK; the first:\n{}",
        differences.len(),
        german + french,
        differences[..differences.len().min(10)].join("\n")
    );
}

//! `porter::porter_stem` against NLTK 3.10.4's `PorterStemmer().stem`: tests/data/porter_nltk.tsv
//! holds the stems of 5500 words (written by tests/data/porter_nltk.py) reaching every rule of every
//! step, with NLTK's irregular forms and quirks, case, punctuation and non-ASCII letters.

use wgslate_metrics::porter::porter_stem;

#[test]
fn stems_equal_nltk() {
    let tsv = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/porter_nltk.tsv")).unwrap();
    let mut lines = tsv.split_terminator('\n');
    assert!(lines.next().is_some_and(|header| header.starts_with("# NLTK 3.10.4 PorterStemmer")));
    let (mut compared, mut differences) = (0, Vec::new());
    for line in lines {
        let (word, want) = line.split_once('\t').unwrap_or_else(|| panic!("no tab in {line:?}"));
        let got = porter_stem(word);
        compared += 1;
        if got != want {
            differences.push(format!("{word:?}: NLTK {want:?}, wgslate {got:?}"));
        }
    }
    assert!(compared >= 5000, "only {compared} words");
    assert!(
        differences.is_empty(),
        "{} of {compared} words differ from NLTK; the first:\n{}",
        differences.len(),
        differences[..differences.len().min(10)].join("\n")
    );
}

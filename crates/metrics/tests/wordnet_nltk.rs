//! `WordNet::synonyms` against NLTK 3.10.4: tests/data/wordnet_nltk.tsv holds the synonyms NLTK's
//! METEOR takes for 2500 words (written by tests/data/wordnet_nltk.py from Debian's WordNet 3.0),
//! and the table built here from the same files, after a trip through its bytes, must give each.

use std::path::Path;

use wgslate_metrics::WordNet;

const DEBIAN_DIR: &str = "/usr/share/wordnet";

fn debian_wordnet() -> WordNet {
    let dir = Path::new(DEBIAN_DIR);
    assert!(
        dir.join("index.noun").is_file(),
        "{DEBIAN_DIR} has no WordNet 3.0: install it with `apt-get install wordnet-base` (Debian/Ubuntu)"
    );
    WordNet::from_dir(dir).unwrap_or_else(|e| panic!("reading {DEBIAN_DIR}: {e}"))
}

/// The TSV's word field: \\, \t, \n, \r escaped.
fn unescape(field: &str) -> String {
    let mut out = String::new();
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            other => panic!("bad escape \\{other:?} in {field:?}"),
        }
    }
    out
}

#[test]
fn synonyms_equal_nltk() {
    let built = debian_wordnet();
    let bytes = built.to_bytes();
    let wordnet = WordNet::from_bytes(&bytes).expect("the table reads back");
    assert!(wordnet.to_bytes() == bytes, "to_bytes(from_bytes(bytes)) differs from bytes");

    let tsv = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/wordnet_nltk.tsv")).unwrap();
    let mut lines = tsv.split_terminator('\n');
    assert!(lines.next().is_some_and(|header| header.starts_with("# NLTK 3.10.4 WordNet 3.0")));
    let (mut compared, mut with_synonyms, mut differences) = (0, 0, Vec::new());
    for line in lines {
        let (word, want) = line.split_once('\t').unwrap_or_else(|| panic!("no tab in {line:?}"));
        let word = unescape(word);
        let want: Vec<&str> = want.split(' ').filter(|s| !s.is_empty()).collect();
        let got = wordnet.synonyms(&word);
        assert_eq!(got, built.synonyms(&word), "{word:?}: the table read back answers otherwise");
        compared += 1;
        with_synonyms += !want.is_empty() as usize;
        if got != want {
            differences.push(format!("{word:?}:\n  NLTK    {}\n  wgslate {}", want.join(" "), got.join(" ")));
        }
    }
    assert!(compared >= 2000 && with_synonyms >= 1000, "{compared} words, {with_synonyms} with synonyms");
    assert!(
        differences.is_empty(),
        "{} of {compared} words differ from NLTK; the first:\n{}",
        differences.len(),
        differences[..differences.len().min(10)].join("\n")
    );
}

#[test]
fn bad_tables_are_errors() {
    let bytes = debian_wordnet().to_bytes();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    // Truncated: every length up to 64, then 300 more spread over the table.
    let lengths = (0..64).chain((0..300).map(|_| (next() % bytes.len() as u64) as usize));
    for len in lengths {
        assert!(WordNet::from_bytes(&bytes[..len]).is_err(), "a table cut to {len} bytes was accepted");
    }
    // Garbage, with and without the table's header; one flipped bit.
    for round in 0..2000 {
        let mut garbage: Vec<u8> = (0..next() % 4096).map(|_| next() as u8).collect();
        if round % 2 == 0 && garbage.len() >= 8 {
            garbage[..8].copy_from_slice(&bytes[..8]);
        }
        assert!(WordNet::from_bytes(&garbage).is_err(), "{} random bytes were accepted", garbage.len());
    }
    for _ in 0..20 {
        let mut flipped = bytes.clone();
        let at = (next() % bytes.len() as u64) as usize;
        flipped[at] ^= 1 << (next() % 8);
        assert!(WordNet::from_bytes(&flipped).is_err(), "a table with byte {at} changed was accepted");
    }
    let mut longer = bytes;
    longer.push(0);
    assert!(WordNet::from_bytes(&longer).is_err());
    assert!(WordNet::empty().synonyms("dog").is_empty());
}

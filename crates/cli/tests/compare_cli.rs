//! `wgslate compare`: its tables on a small case, and one-line errors (exit code 2) for bad input.

use std::path::PathBuf;
use std::process::Command;

/// A fresh directory holding `files` (name, bytes).
fn files(test: &str, files: &[(&str, &[u8])]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wgslate-compare-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    dir
}

fn compare(dir: &PathBuf, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wgslate")).arg("compare").args(args).current_dir(dir).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn bad_input_gets_one_clear_line() {
    let hundred_thousand = "ein Mann\n".repeat(100_000);
    let dir = files(
        "bad",
        &[
            ("ref", b"a b\nc d\ne f\n"),
            ("two", b"a b\nc d\n"),
            ("three", b"a b\n\nx\n"),
            ("empty", b""),
            ("latin1", b"caf\xe9\nb\nc\n"),
            ("many", hundred_thousand.as_bytes()),
        ],
    );
    let cases: [(&[&str], &str); 7] = [
        (&["ref", "three", "two"], "wgslate compare: SYS2 (two) has 2 lines but REF (ref) has 3 lines"),
        (&["ref", "empty", "three"], "wgslate compare: SYS1 (empty) is empty but REF (ref) has 3 lines"),
        (&["empty", "empty", "empty"], "wgslate compare: REF (empty) is empty: nothing to compare"),
        (&["ref", "three", "many"], "wgslate compare: SYS2 (many) has 100000 lines but REF (ref) has 3 lines"),
        (&["ref", "three", "latin1"], "wgslate compare: latin1 is not UTF-8 text (invalid byte at offset 3)"),
        (&["ref", "three", "missing"], "wgslate compare: cannot read missing:"),
        (&["ref", "three"], "wgslate compare: needs 3 files (REF SYS1 SYS2), got 2"),
    ];
    for (args, message) in cases {
        let (code, out, err) = compare(&dir, args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty() && err.starts_with(message), "{args:?}: {err}");
    }
    let (code, _, err) = compare(&dir, &["ref", "ref", "three", "--freq-corpus"]);
    assert!(code == 2 && err.starts_with("wgslate compare: --freq-corpus needs a file"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn empty_lines_and_long_lines_are_compared() {
    let long = format!("{}\n", vec!["Wort"; 10_000].join(" "));
    let (reference, sys2) = (format!("a b c\n\n{long}"), format!("\n\n{long}"));
    let dir =
        files("long", &[("ref", reference.as_bytes()), ("sys1", reference.as_bytes()), ("sys2", sys2.as_bytes())]);
    let (code, out, err) = compare(&dir, &["ref", "sys1", "sys2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("3 lines compared"), "{out}");
    assert!(out.contains("\n>=60         1  100.0000  100.0000\n"), "{out}");
    // compare-mt's BLEU, quirks and all: an empty line is one empty word, and a line's 2- to 4-grams
    // count at least 1 each, so a system equal to the reference scores below 100 here.
    assert!(out.contains("\n<10          2   75.9836   30.9349\n"), "{out}");
    let (code, json, err) = compare(&dir, &["ref", "sys1", "sys2", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["top_lines"][0]["line"], 1);
    assert_eq!(v["ngrams"][0][0]["ngram"], "a");
    assert_eq!(v["histogram"][10]["lines"], 2);
    std::fs::remove_dir_all(dir).unwrap();
}

/// compare-mt lists its top n-grams each way whatever their score; the text report keeps those on
/// each system's side (a tie, "the", and the other system's "cat" are not n-grams sys2 matches more).
#[test]
fn the_ngram_lists_keep_each_systems_side() {
    let dir = files("sides", &[("ref", b"the cat sat\n"), ("sys1", b"the cat sat\n"), ("sys2", b"the dog sat\n")]);
    let (code, out, err) = compare(&dir, &["ref", "sys1", "sys2"]);
    assert_eq!(code, 0, "{err}");
    let sys1 = out.split("n-grams sys1 matches more than sys2").nth(1).unwrap();
    let (sys1, sys2) = sys1.split_once("n-grams sys2 matches more than sys1").unwrap();
    assert!(sys1.contains("\ncat ") && sys1.contains("\nthe cat sat ") && !sys1.contains("0.5000"), "{sys1}");
    assert!(sys2.contains("(none: every matched n-gram is matched as often by both, or more by the other)"), "{sys2}");
    let (_, json, _) = compare(&dir, &["ref", "sys1", "sys2", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(!v["ngrams"][1].as_array().unwrap().is_empty(), "the JSON keeps compare-mt's lists");
    std::fs::remove_dir_all(dir).unwrap();
}

//! Text in another language than the model's source gets a note naming the model for it: German
//! captions (Multi30k's val, which nobody here wrote) into the English → German model.

mod common;

use std::process::Command;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn first_lines(name: &str, n: usize) -> String {
    let text = std::fs::read_to_string(format!("{ROOT}/www/data/{name}")).unwrap();
    text.lines().take(n).map(|l| format!("{l}\n")).collect()
}

#[test]
fn german_into_an_english_model_is_named_and_the_german_model_suggested() {
    let model = format!("{ROOT}/www/models/en-de/transformer");
    let (ok, out, err) = common::translate(&["--model", &model, "--backend", "cpu"], &first_lines("val.de", 20));
    assert!(ok, "{err}");
    assert_eq!(out.lines().count(), 20);
    assert!(
        err.contains("20 of 20 lines read as German, but en-de/transformer translates English → German: --model ")
            && err.contains("www/models/de-en/transformer translates German → English"),
        "{err}"
    );
    let (ok, _, err) = common::translate(&["--model", &model, "--backend", "cpu"], &first_lines("val.en", 20));
    assert!(ok && !err.contains("read as"), "{err}");
    // French: no French → German model, so the French → English one.
    let (_, _, err) = common::translate(&["--model", &model, "--backend", "cpu"], &first_lines("val.fr", 5));
    assert!(err.contains("5 of 5 lines read as French") && err.contains("fr-en/transformer"), "{err}");
    // A model copied out of the models' tree: its config.json still tells its source language.
    let copy = std::env::temp_dir().join(format!("wgslate-language-copy-{}", std::process::id()));
    std::fs::create_dir_all(&copy).unwrap();
    for f in ["config.json", "model.safetensors", "tokenizer.json"] {
        std::fs::copy(format!("{ROOT}/www/models/de-en/transformer/{f}"), copy.join(f)).unwrap();
    }
    let (ok, _, err) =
        common::translate(&["--model", copy.to_str().unwrap(), "--backend", "cpu"], &first_lines("val.en", 3));
    let note = format!("3 of 3 lines read as English, but {} translates German → English\n", copy.display());
    assert!(ok && err.contains(&note), "{err}");
    std::fs::remove_dir_all(&copy).unwrap();
}

#[test]
fn eval_names_a_source_file_in_the_wrong_language() {
    let out = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        // The default backend, auto, looks for adapters (Vulkan among them).
        .args(["eval", "--model", &format!("{ROOT}/www/models/en-de/transformer")])
        .args(["--src", &format!("{ROOT}/www/data/test_2016_flickr.de")])
        .args(["--ref", &format!("{ROOT}/www/data/test_2016_flickr.de"), "--max-len-a", "0", "--max-len-b", "3"])
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{err}");
    assert!(err.contains("lines read as German, but en-de/transformer translates English → German"), "{err}");
    // Without a runtime directory the Vulkan loader's Wayland probe would print this twice.
    assert!(!err.contains("XDG_RUNTIME_DIR"), "{err}");
}

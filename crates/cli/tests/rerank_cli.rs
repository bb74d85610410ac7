//! `--rerank DIR`: the beam's n-best reordered with a reverse-direction model; weight 0 keeps the
//! beam's own choice, and misuse gets a message.

mod common;

const MODELS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models");

/// The default en→de model on the CPU reference, on three sentences.
fn translate(args: &[&str]) -> (bool, String, String) {
    let model = format!("{MODELS}/en-de/transformer");
    let all = [&["--model", model.as_str(), "--backend", "cpu"], args].concat();
    common::translate(
        &all,
        "A man is riding a bike.\nTwo dogs play in the snow.\nA woman in a red coat reads a book on a bench.\n",
    )
}

#[test]
fn weight_zero_keeps_the_beams_choice_and_a_weight_gives_german() {
    let reverse = format!("{MODELS}/de-en/transformer");
    let (ok, beam, err) = translate(&["--beam", "4"]);
    assert!(ok, "{err}");
    let (ok, same, err) = translate(&["--beam", "4", "--rerank", &reverse, "--rerank-weight", "0"]);
    assert!(ok, "{err}");
    assert_eq!(same, beam);
    let (ok, reranked, err) = translate(&["--best", "--rerank", &reverse]);
    assert!(ok && reranked.lines().count() == 3 && reranked.contains("Hund"), "{reranked}{err}");
}

#[test]
fn reranking_changes_what_beam_search_chose_where_it_dropped_part_of_the_source() {
    // A val sentence: beam 4 alone says "in a small boat" twice and drops the red life jacket.
    let sentence = "A balding man wearing a red life jacket is sitting in a small boat.\n";
    let run = |extra: &[&str]| {
        let model = format!("{MODELS}/en-de/transformer");
        let (ok, out, err) = common::translate(
            &[&["--model", model.as_str(), "--backend", "cpu", "--beam", "4"], extra].concat(),
            sentence,
        );
        assert!(ok, "{err}");
        out
    };
    let plain = run(&[]);
    let reranked = run(&["--rerank", &format!("{MODELS}/de-en/transformer")]);
    assert!(!plain.contains("Schwimmweste"), "{plain}");
    assert!(reranked.contains("Schwimmweste") && reranked != plain, "{reranked}");
}

#[test]
fn misuse_is_refused_with_a_message() {
    let reverse = format!("{MODELS}/de-en/transformer");
    let (ok, _, err) = translate(&["--rerank", &reverse]);
    assert!(!ok && err.contains("--rerank reorders a beam's n-best"), "{err}");
    let (ok, _, err) = translate(&["--beam", "4", "--rerank", &reverse, "--rerank-weight", "-1"]);
    assert!(!ok && err.contains("--rerank-weight must be a number ≥ 0"), "{err}");
    let (ok, _, err) = translate(&["--beam", "4", "--rerank-weight", "0.5"]);
    assert!(!ok && err.contains("add --rerank"), "{err}");
    let (ok, _, err) = translate(&["--beam", "4", "--rerank", "/no/such/model"]);
    assert!(!ok && err.contains("/no/such/model"), "{err}");
    // A model the index lists for another direction than de-en.
    for wrong in ["en-fr", "en-de"] {
        let (ok, out, err) = translate(&["--beam", "4", "--rerank", &format!("{MODELS}/{wrong}/transformer")]);
        assert!(!ok && out.is_empty(), "{wrong}: {out}");
        assert!(err.contains(&format!("translates {wrong}")) && err.contains("reverse direction, de-en"), "{err}");
    }
    // The same direction's model copied out of the tree: its config.json still says en-de.
    let copy = std::env::temp_dir().join(format!("wgslate-rerank-copy-{}", std::process::id()));
    std::fs::create_dir_all(&copy).unwrap();
    for f in ["config.json", "model.safetensors", "tokenizer.json"] {
        std::fs::copy(format!("{MODELS}/en-de/gru/{f}"), copy.join(f)).unwrap();
    }
    let (ok, _, err) = translate(&["--beam", "4", "--rerank", copy.to_str().unwrap()]);
    assert!(!ok && err.contains("translates en-de") && err.contains("reverse direction, de-en"), "{err}");
    std::fs::remove_dir_all(&copy).unwrap();
}

//! `--model A --model B`: an ensemble. Identical members give the single model's output, the WGSL
//! engine's ensemble gives the CPU reference's tokens, and models with different tokenizers or of
//! different directions are refused with a message.

mod common;

const MODELS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models/en-de");

fn translate(args: &[&str]) -> (bool, String, String) {
    common::translate(
        args,
        "A man is riding a bike.\nTwo dogs play in the snow.\nA woman in a red coat reads a book on a bench.\n",
    )
}

#[test]
fn identical_members_give_the_single_models_output() {
    let t = format!("{MODELS}/transformer");
    let (ok, single, err) = translate(&["--model", &t, "--backend", "cpu", "--beam", "3"]);
    assert!(ok, "{err}");
    let (ok, twice, err) = translate(&["--model", &t, "--model", &t, "--beam", "3"]);
    assert!(ok, "{err}");
    assert_eq!(twice, single);
    assert_eq!(single.lines().count(), 3);
    // Two different models (same tokenizer) run, and give German.
    let (ok, mixed, err) = translate(&["--model", &t, "--model", &format!("{MODELS}/gru")]);
    assert!(ok && mixed.lines().count() == 3 && mixed.contains("Mann"), "{mixed}{err}");
}

#[test]
fn mismatched_members_are_refused() {
    let t = format!("{MODELS}/transformer");
    let other = std::env::temp_dir().join(format!("wgslate-ensemble-{}", std::process::id()));
    std::fs::create_dir_all(&other).unwrap();
    for f in ["config.json", "model.safetensors"] {
        std::fs::copy(format!("{t}/{f}"), other.join(f)).unwrap();
    }
    std::fs::write(
        other.join("tokenizer.json"),
        std::fs::read_to_string(format!("{t}/tokenizer.json")).unwrap() + "\n",
    )
    .unwrap();
    let (ok, _, err) = translate(&["--model", &t, "--model", other.to_str().unwrap()]);
    assert!(!ok && err.contains("has another tokenizer.json") && err.contains("must share one"), "{err}");
    let _ = std::fs::remove_dir_all(&other);
}

#[test]
fn members_of_opposite_directions_are_refused() {
    // en-de and de-en share one tokenizer.json: config.json (and the index) tell their directions apart.
    let (en_de, de_en) = (format!("{MODELS}/transformer"), format!("{MODELS}/../de-en/transformer"));
    assert_eq!(
        std::fs::read(format!("{en_de}/tokenizer.json")).unwrap(),
        std::fs::read(format!("{de_en}/tokenizer.json")).unwrap()
    );
    let (ok, out, err) = translate(&["--model", &en_de, "--model", &de_en, "--backend", "cpu"]);
    assert!(!ok && out.is_empty(), "{out}");
    assert!(err.contains("translates de-en but") && err.contains("must translate the same direction"), "{err}");
    // Copied out of the models' tree, the de-en model still says so: its config.json records it.
    let dir = std::env::temp_dir().join(format!("wgslate-direction-{}", std::process::id()));
    let copy = dir.join("copied");
    std::fs::create_dir_all(&copy).unwrap();
    for f in ["config.json", "model.safetensors", "tokenizer.json"] {
        std::fs::copy(format!("{de_en}/{f}"), copy.join(f)).unwrap();
    }
    let (ok, _, err) = translate(&["--model", &en_de, "--model", copy.to_str().unwrap(), "--backend", "cpu"]);
    assert!(!ok && err.contains("copied translates de-en but"), "{err}");
    // A config.json that contradicts the index it sits under is refused.
    let listed = dir.join("models/en-de/transformer");
    std::fs::create_dir_all(&listed).unwrap();
    for f in ["config.json", "model.safetensors", "tokenizer.json"] {
        std::fs::copy(copy.join(f), listed.join(f)).unwrap();
    }
    let index = r#"[{"pair": "en-de", "arch": "transformer", "title": "T", "bytes": 1, "test_bleu": 1.0}]"#;
    std::fs::write(dir.join("models/index.json"), index).unwrap();
    let (ok, _, err) = translate(&["--model", listed.to_str().unwrap(), "--model", &en_de, "--backend", "cpu"]);
    assert!(!ok && err.contains("translates de-en, but") && err.contains("lists it under en-de"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_gpu_ensemble_gives_the_cpu_ensembles_tokens() {
    let (t, g) = (format!("{MODELS}/transformer"), format!("{MODELS}/gru"));
    let run = |backend: &str| {
        let (ok, out, err) = translate(&["--model", &t, "--model", &g, "--backend", backend, "--beam", "2"]);
        assert!(ok, "{backend}: {err}");
        out
    };
    let cpu = run("cpu");
    assert_eq!(cpu.lines().count(), 3);
    assert_eq!(run("gpu"), cpu, "the WGSL engine (lavapipe in CI) as ensemble members");
}

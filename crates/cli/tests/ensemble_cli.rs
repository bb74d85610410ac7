//! `--model A --model B`: an ensemble on the CPU. Identical members give the single model's output;
//! models with different tokenizers, and ensembles on `--backend gpu`, are refused with a message.

use std::process::Command;

const MODELS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models/en-de");

fn translate(args: &[&str]) -> (bool, String, String) {
    let input = "A man is riding a bike.\nTwo dogs play in the snow.\nA woman in a red coat reads a book on a bench.\n";
    let mut child = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .arg("translate")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A refused command exits before reading its input.
    let _ = std::io::Write::write_all(child.stdin.as_mut().unwrap(), input.as_bytes());
    let out = child.wait_with_output().unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
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
fn mismatched_members_and_gpu_ensembles_are_refused() {
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
    let (ok, _, err) = translate(&["--model", &t, "--model", &t, "--backend", "gpu"]);
    assert!(!ok && err.contains("ensembles (several --model) run on the CPU backend"), "{err}");
    let _ = std::fs::remove_dir_all(&other);
}

//! `wgslate bleu -m wer per meteor` against PyPI jiwer 4.0.0, nltk 3.10.4 (reading Debian's WordNet
//! 3.0) and PER's definition, in a venv under `target/`, on seeded random corpora:
//! `tests/differential/metrics_diff.py` makes the cases and compares every digit.
//! WGSLATE_METRICS_CASES (default 500) and WGSLATE_METRICS_SEED (default "ci") choose the run.

use std::path::Path;
use std::process::Command;

mod peers;
use peers::workspace_target;

const PEERS: [&str; 3] = ["jiwer==4.0.0", "nltk==3.10.4", "sacrebleu==2.6.0"];

/// The venv's python, with the peers installed into it on first use.
fn peers_python() -> std::path::PathBuf {
    let check = "import jiwer, nltk, sacrebleu; from importlib.metadata import version as v; \
                 assert (v('jiwer'), nltk.__version__, sacrebleu.__version__) == ('4.0.0', '3.10.4', '2.6.0')";
    peers::python("metrics-venv", &PEERS, check)
}

#[test]
fn wer_per_meteor_equal_jiwer_nltk_and_the_per_oracle() {
    let table = workspace_target().join("wordnet-3.0.bin");
    let made = Command::new(env!("CARGO_BIN_EXE_wgslate")).args(["wordnet", "--out"]).arg(&table).status();
    assert!(made.is_ok_and(|s| s.success()), "wgslate wordnet failed: METEOR needs Debian's wordnet-base");
    let cases = std::env::var("WGSLATE_METRICS_CASES").unwrap_or_else(|_| "500".into());
    let seed = std::env::var("WGSLATE_METRICS_SEED").unwrap_or_else(|_| "ci".into());
    let status = Command::new(peers_python())
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential"))
        .args(["metrics_diff.py", "--wgslate", env!("CARGO_BIN_EXE_wgslate"), "--wordnet-table"])
        .arg(&table)
        .args(["--cases", &cases, "--seed", &seed])
        .env("NLTK_DATA", workspace_target().join("nltk_data"))
        .status()
        .expect("run metrics_diff.py");
    assert!(status.success(), "wgslate's WER, PER or METEOR differ from their peers (cases above)");
}

//! `wgslate compare` against compare-mt 0.2.10 itself (PyPI, in a venv under `target/`) on held-in
//! files made from Multi30k and adversarial ones: `tests/differential/compare_mt_diff.py` makes them
//! and compares every number. WGSLATE_COMPARE_SEED (default "ci") chooses the run.

use std::path::Path;
use std::process::Command;

mod peers;

// compare-mt imports `six` without declaring it; sacreBLEU checks the sentence-BLEU tables.
const PEERS: [&str; 3] = ["compare-mt==0.2.10", "six", "sacrebleu==2.6.0"];

/// The venv's python, with the peers installed into it on first use.
fn compare_mt_python() -> std::path::PathBuf {
    let check = "import compare_mt.compare_mt_main, sacrebleu; from compare_mt import __version__ as v; \
                 assert (v, sacrebleu.__version__) == ('0.2.10', '2.6.0')";
    peers::python("compare-mt-venv", &PEERS, check)
}

#[test]
fn wgslate_compare_equals_compare_mt() {
    let seed = std::env::var("WGSLATE_COMPARE_SEED").unwrap_or_else(|_| "ci".into());
    let status = Command::new(compare_mt_python())
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential"))
        .args(["compare_mt_diff.py", "--wgslate", env!("CARGO_BIN_EXE_wgslate"), "--seed", &seed])
        .env("MPLBACKEND", "agg")
        .status()
        .expect("run compare_mt_diff.py");
    assert!(status.success(), "wgslate compare and compare-mt differ (cases above)");
}

//! `wgslate bleu` against sacreBLEU 2.6.0 itself (PyPI, in a venv under `target/`) on seeded random
//! corpora: `tests/differential/diff.py` generates the cases and compares both outputs byte for byte.
//! WGSLATE_DIFF_CASES (default 500) and WGSLATE_DIFF_SEED (default "ci") choose the run.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace_target() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target")
}

fn run(cmd: &mut Command) -> bool {
    cmd.status().map(|s| s.success()).unwrap_or(false)
}

/// The venv's python, with sacreBLEU 2.6.0 installed into it on first use.
fn sacrebleu_python() -> PathBuf {
    let venv = workspace_target().join("sacrebleu-venv");
    let python = venv.join("bin/python");
    let ready = || run(Command::new(&python).args(["-c", "import sacrebleu; assert sacrebleu.__version__ == '2.6.0'"]));
    if !ready() {
        assert!(
            run(Command::new("python3").args(["-m", "venv"]).arg(&venv)),
            "python3 -m venv failed: install python3-venv"
        );
        let pip = [venv.join("bin/pip").to_str().unwrap(), "install", "-q", "sacrebleu==2.6.0"].map(String::from);
        assert!(run(Command::new(&pip[0]).args(&pip[1..])), "pip install sacrebleu==2.6.0 failed");
        assert!(ready(), "sacreBLEU 2.6.0 is not importable from {}", venv.display());
    }
    python
}

#[test]
fn wgslate_bleu_equals_sacrebleu_on_random_corpora() {
    let cases = std::env::var("WGSLATE_DIFF_CASES").unwrap_or_else(|_| "500".into());
    let seed = std::env::var("WGSLATE_DIFF_SEED").unwrap_or_else(|_| "ci".into());
    let report = workspace_target().join(format!("sacrebleu-differential-{seed}-{cases}.json"));
    let status = Command::new(sacrebleu_python())
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential"))
        .args(["diff.py", "--wgslate", env!("CARGO_BIN_EXE_wgslate"), "--cases", &cases, "--seed", &seed, "--report"])
        .arg(&report)
        .status()
        .expect("run diff.py");
    assert!(status.success(), "wgslate bleu and sacreBLEU differ (cases above; counts in {})", report.display());
}

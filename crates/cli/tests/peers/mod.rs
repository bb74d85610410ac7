//! The differential tests' peers: a venv under `target/` with PyPI packages, made on first use.

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn workspace_target() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target")
}

fn run(cmd: &mut Command) -> bool {
    cmd.status().map(|s| s.success()).unwrap_or(false)
}

/// The python of `target/<venv>`, with `packages` installed on first use; `check` is Python that
/// fails unless the right versions are importable.
pub fn python(venv: &str, packages: &[&str], check: &str) -> PathBuf {
    let venv = workspace_target().join(venv);
    let python = venv.join("bin/python");
    let ready = || run(Command::new(&python).args(["-c", check]));
    if !ready() {
        assert!(
            run(Command::new("python3").args(["-m", "venv"]).arg(&venv)),
            "python3 -m venv failed: install python3-venv"
        );
        assert!(
            run(Command::new(venv.join("bin/pip")).args(["install", "-q"]).args(packages)),
            "pip install {packages:?} failed"
        );
        assert!(ready(), "the peers {packages:?} are not importable from {}", venv.display());
    }
    python
}

//! What the CLI tests share: `wgslate translate` run on some input, or any `wgslate` command.

use std::process::{Command, Stdio};

/// `wgslate translate ARGS` fed `input`: (success, stdout, stderr).
pub fn translate(args: &[&str], input: &str) -> (bool, String, String) {
    translate_bytes(args, input.as_bytes())
}

/// `translate` fed bytes that need not be UTF-8.
pub fn translate_bytes(args: &[&str], input: &[u8]) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .arg("translate")
        .args(args)
        // Vulkan (lavapipe) wants a runtime directory.
        .env("XDG_RUNTIME_DIR", std::env::var_os("XDG_RUNTIME_DIR").unwrap_or_else(|| std::env::temp_dir().into()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A refused command exits before reading its input.
    let _ = std::io::Write::write_all(child.stdin.as_mut().unwrap(), input);
    let out = child.wait_with_output().unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// `wgslate ARGS` with no input: (success, stdout, stderr). Not every test file runs other commands.
#[allow(dead_code)]
pub fn wgslate(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .args(args)
        .env("XDG_RUNTIME_DIR", std::env::var_os("XDG_RUNTIME_DIR").unwrap_or_else(|| std::env::temp_dir().into()))
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

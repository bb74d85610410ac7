//! `--backend auto` runs the WGSL engine only on a hardware adapter: on a machine whose only Vulkan
//! adapter is a CPU emulation (lavapipe in CI) it uses the CPU reference, and says so; `--backend gpu`
//! runs there, with a note.

use std::process::Command;

/// The backend named on `wgslate eval`'s summary line, e.g. `gpu (llvmpipe …, Cpu)`.
fn eval_backend(backend: &str) -> String {
    eval_backend_said(backend).0
}

/// The backend named on `wgslate eval`'s summary line, and its standard error.
fn eval_backend_said(backend: &str) -> (String, String) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www");
    let sources = std::env::temp_dir().join(format!("wgslate-auto-{}.en", std::process::id()));
    let refs = sources.with_extension("de");
    std::fs::write(&sources, "A man is riding a bike.\nTwo dogs play in the snow.\n").unwrap();
    std::fs::write(&refs, "Ein Mann fährt Fahrrad.\nZwei Hunde spielen im Schnee.\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .args(["eval", "--model", &format!("{dir}/models/en-de/gru"), "--backend", backend])
        .args(["--src", sources.to_str().unwrap(), "--ref", refs.to_str().unwrap()])
        .env("XDG_RUNTIME_DIR", std::env::var_os("XDG_RUNTIME_DIR").unwrap_or_else(|| std::env::temp_dir().into()))
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "--backend {backend}: {stdout}{}", String::from_utf8_lossy(&out.stderr));
    let line = stdout.lines().last().unwrap();
    let named = line.split("(backend ").nth(1).unwrap().split(", \"").next().unwrap().to_string();
    (named, String::from_utf8(out.stderr).unwrap())
}

#[test]
fn auto_prefers_the_cpu_reference_over_a_cpu_emulated_gpu() {
    let (gpu, said) = eval_backend_said("gpu");
    let auto = eval_backend("auto");
    assert!(gpu.starts_with("gpu ("), "{gpu}");
    if gpu.ends_with(", Cpu)") {
        assert!(auto.starts_with("cpu (auto: the only adapter, "), "{auto}");
        assert!(auto.ends_with("is a CPU emulation)"), "{auto}");
        // --backend gpu runs there, as asked, and says what it costs.
        assert!(said.contains("is a CPU emulation: --backend cpu (or auto) translates several times faster"), "{said}");
    } else {
        assert_eq!(auto, gpu, "a hardware adapter is used");
    }
    assert_eq!(eval_backend("cpu"), "cpu");
}

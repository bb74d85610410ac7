//! `wgslate serve` takes `--port N` before or after the directory.

use std::process::Command;

fn serve(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wgslate")).arg("serve").args(args).output().unwrap();
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn port_flag_anywhere_and_bad_arguments_refused() {
    for args in [["--port", "9000", "/no/such/dist"], ["/no/such/dist", "--port", "9000"]] {
        let (code, err) = serve(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("cannot serve /no/such/dist: there is no such folder"), "{args:?}: {err}");
    }
    let file = env!("CARGO_MANIFEST_DIR").to_string() + "/Cargo.toml";
    assert!(serve(&[&file]).1.contains("it is a file, not a folder"));
    let empty = std::env::temp_dir().join(format!("wgslate-serve-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    assert!(serve(&[empty.to_str().unwrap()]).1.contains("index.html not found: build the app first"));
    let _ = std::fs::remove_dir(&empty);
    assert!(serve(&["--port", "http"]).1.contains("--port needs a number"));
    assert!(serve(&["dist", "--bogus"]).1.contains("unknown option --bogus"));
    assert!(serve(&["a", "b"]).1.contains("unexpected argument b"));
    assert!(serve(&["--port", "9000", "--port", "9001"]).1.contains("--port is given twice: give it once"));
}

#[test]
fn a_port_in_use_is_refused_before_anything_is_compressed() {
    let taken = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let dir = std::env::temp_dir().join(format!("wgslate-serve-taken-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("index.html"), "<p>wgslate</p>\n".repeat(200)).unwrap();
    let (code, err) = serve(&[dir.to_str().unwrap(), "--port", &port]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(&format!("cannot listen on 127.0.0.1:{port}")), "{err}");
    assert!(
        !dir.join("index.html.br").exists() && !dir.join("index.html.gz").exists(),
        "compressed copies were written"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

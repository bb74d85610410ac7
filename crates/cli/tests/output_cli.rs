//! `-o FILE` on what is not a plain new file: a symbolic link is followed (the link stays), a FIFO
//! is written through (not replaced by a file), `/dev/stdout` appends to what standard output is
//! redirected to, a replaced file keeps its permissions, and Ctrl-C leaves neither a changed FILE
//! nor a temporary file.

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};

mod common;

const MODEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models/en-de/transformer");

fn translate_to(out: &std::path::Path) -> (bool, String) {
    let (ok, _, err) =
        common::translate(&["--model", MODEL, "--backend", "cpu", "-o", out.to_str().unwrap()], "A dog runs.\n");
    (ok, err)
}

#[test]
fn o_follows_links_writes_through_fifos_and_keeps_permissions() {
    let dir = std::env::temp_dir().join(format!("wgslate-output-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (ok, want, _) = common::translate(&["--model", MODEL, "--backend", "cpu"], "A dog runs.\n");
    assert!(ok);
    // A link: its target gets the translation, and it is still a link.
    std::fs::write(dir.join("target.de"), "old\n").unwrap();
    std::os::unix::fs::symlink(dir.join("target.de"), dir.join("link.de")).unwrap();
    let (ok, err) = translate_to(&dir.join("link.de"));
    assert!(ok, "{err}");
    assert!(std::fs::symlink_metadata(dir.join("link.de")).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(dir.join("target.de")).unwrap(), want);
    // A file keeps its permissions (a mode no umask gives a new file).
    std::fs::write(dir.join("private.de"), "old\n").unwrap();
    std::fs::set_permissions(dir.join("private.de"), std::fs::Permissions::from_mode(0o604)).unwrap();
    let (ok, err) = translate_to(&dir.join("private.de"));
    assert!(ok, "{err}");
    assert_eq!(std::fs::metadata(dir.join("private.de")).unwrap().permissions().mode() & 0o777, 0o604);
    assert_eq!(std::fs::read_to_string(dir.join("private.de")).unwrap(), want);
    // A FIFO: its reader gets the translation, and it is still a FIFO.
    let fifo = dir.join("fifo.de");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let (ok, err) = translate_to(&fifo);
    assert!(ok, "{err}");
    // Checked before waiting for the reader, which a FIFO replaced by a file would leave waiting.
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(reader.join().unwrap(), want);
    // A link whose target does not exist yet: the target is created, the link stays.
    std::os::unix::fs::symlink("later.de", dir.join("dangling.de")).unwrap();
    let (ok, err) = translate_to(&dir.join("dangling.de"));
    assert!(ok, "{err}");
    assert!(std::fs::symlink_metadata(dir.join("dangling.de")).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(dir.join("later.de")).unwrap(), want);
    let names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(!names.iter().any(|n| n.ends_with(".part")), "{names:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A translation of 20 000 lines into `dir`/out.de (which holds "old"), under way: the child and its
/// temporary file, which holds translations already. It starts ignoring the signal `ignoring`.
fn run_under_way(dir: &std::path::Path, ignoring: Option<i32>) -> (std::process::Child, std::path::PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("out.de"), "old\n").unwrap();
    let input: String = (0..20_000).map(|i| format!("A dog runs across the field number {i}.\n")).collect();
    std::fs::write(dir.join("in.en"), input).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_wgslate"));
    command
        .args(["translate", "--model", MODEL, "--backend", "cpu", "-i"])
        .arg(dir.join("in.en"))
        .arg("-o")
        .arg(dir.join("out.de"))
        .stderr(Stdio::null());
    // SAFETY: only async-signal-safe calls between fork and exec. The signals start at their default
    // (a test run from a script's `&` inherits SIGINT ignored), except `ignoring`, as `nohup` leaves SIGHUP.
    unsafe {
        command.pre_exec(move || {
            for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::signal(s, if Some(s) == ignoring { libc::SIG_IGN } else { libc::SIG_DFL });
            }
            Ok(())
        });
    }
    let mut child = command.spawn().unwrap();
    let part = dir.join(format!(".out.de.{}.part", child.id()));
    while std::fs::metadata(&part).map_or(true, |m| m.len() == 0) {
        assert!(child.try_wait().unwrap().is_none(), "the run ended before it could be signalled");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    (child, part)
}

fn signal(child: &std::process::Child, name: &str) {
    assert!(Command::new("kill").args([&format!("-{name}"), &child.id().to_string()]).status().unwrap().success());
}

#[test]
fn ctrl_c_kill_or_a_hangup_leave_the_file_as_it_was_and_no_temporary_file() {
    // Ctrl-C, `kill` (SIGTERM) and a closed terminal (SIGHUP).
    for (name, number) in [("INT", 2), ("TERM", 15), ("HUP", 1)] {
        let dir = std::env::temp_dir().join(format!("wgslate-output-{name}-{}", std::process::id()));
        let (mut child, part) = run_under_way(&dir, None);
        signal(&child, name);
        // It dies of the signal, as without -o, so a shell loop around it stops too.
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(number), "SIG{name}: {status:?}");
        assert_eq!(std::fs::read_to_string(dir.join("out.de")).unwrap(), "old\n");
        assert!(!part.exists(), "SIG{name}: {} was left behind", part.display());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_run_started_under_nohup_keeps_running_after_a_hangup() {
    let dir = std::env::temp_dir().join(format!("wgslate-output-nohup-{}", std::process::id()));
    let (mut child, part) = run_under_way(&dir, Some(libc::SIGHUP));
    signal(&child, "HUP");
    std::thread::sleep(std::time::Duration::from_secs(1));
    assert!(child.try_wait().unwrap().is_none(), "a hangup stopped a run started with it ignored");
    signal(&child, "TERM");
    assert_eq!(child.wait().unwrap().signal(), Some(15));
    assert!(!part.exists(), "{} was left behind", part.display());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn o_dev_stdout_is_standard_output_not_the_file_it_is_redirected_to() {
    // `wgslate translate -o /dev/stdout >> log`: /dev/stdout resolves to `log`, which used to be replaced.
    let dir = std::env::temp_dir().join(format!("wgslate-output-stdout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("log.de");
    std::fs::write(&log, "kept\n").unwrap();
    let appended = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .args(["translate", "--model", MODEL, "--backend", "cpu", "-o", "/dev/stdout"])
        .stdin(Stdio::piped())
        .stdout(appended)
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), b"A dog runs.\n").unwrap();
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    let (_, want, _) = common::translate(&["--model", MODEL, "--backend", "cpu"], "A dog runs.\n");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), format!("kept\n{want}"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `-o X.gz` is gzip (it was plain text under a .gz name, which `wgslate bleu` then refused): gzip
/// itself reads it back, and `-i X.gz` takes it; a replaced one keeps its permissions, and no
/// temporary file is left.
#[test]
fn o_a_gz_file_is_written_gzipped() {
    let dir = std::env::temp_dir().join(format!("wgslate-output-gz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (ok, want, _) = common::translate(&["--model", MODEL, "--backend", "cpu"], "A dog runs.\n");
    assert!(ok);
    let out = dir.join("out.de.gz");
    std::fs::write(&out, "old\n").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o444)).unwrap();
    let (ok, err) = translate_to(&out);
    assert!(ok, "{err}");
    assert_eq!(std::fs::metadata(&out).unwrap().permissions().mode() & 0o777, 0o444);
    let unzipped = Command::new("gzip").arg("-dc").arg(&out).output().unwrap();
    assert!(unzipped.status.success(), "{}", String::from_utf8_lossy(&unzipped.stderr));
    assert_eq!(String::from_utf8(unzipped.stdout).unwrap(), want);
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, [std::ffi::OsString::from("out.de.gz")]);
    // Read back as the input of another run: the German text, gunzipped, not its bytes.
    let (ok, back, err) = common::translate(&["--model", MODEL, "--backend", "cpu", "-i", out.to_str().unwrap()], "");
    assert!(ok && !err.contains("not UTF-8"), "{err}");
    assert_eq!(back.lines().count(), 1, "{back}");
    std::fs::remove_dir_all(&dir).unwrap();
}

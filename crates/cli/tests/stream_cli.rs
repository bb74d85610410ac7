//! `wgslate translate` writes its translations chunk by chunk as they are done, not all at the end:
//! `| head -1` on a long file used to wait for every line.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

mod common;

const MODEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models/en-de/transformer");

fn test_set() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/data/test_2016_flickr.en");
    std::fs::read_to_string(path).unwrap().lines().map(String::from).collect()
}

#[test]
fn the_first_lines_come_out_while_the_rest_are_still_being_translated() {
    // 20 000 lines: minutes of work on any machine, so the run is still going when the first lines arrive.
    let lines = test_set();
    let input: String = (0..20).flat_map(|_| lines.iter()).map(|l| format!("{l}\n")).collect();
    let file = std::env::temp_dir().join(format!("wgslate-stream-{}.en", std::process::id()));
    std::fs::write(&file, input).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .args(["translate", "--model", MODEL, "--backend", "cpu", "--batch", "8", "-i"])
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The first write: the first chunk (--batch 8: its first 8 sentences) as soon as it is done.
    // Written at the end, the output came out in the 8 KiB blocks of its buffer (≈ 120 lines).
    let mut first = vec![0u8; 1 << 16];
    let n = child.stdout.as_mut().unwrap().read(&mut first).unwrap();
    let still_running = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    child.wait().unwrap();
    std::fs::remove_file(&file).unwrap();
    let first = String::from_utf8(first[..n].to_vec()).unwrap();
    assert!(still_running, "the first lines came out only once the whole input was translated");
    assert_eq!(first.lines().count(), 8, "{first}");
    let head: String = lines[..8].iter().map(|l| format!("{l}\n")).collect();
    let (ok, alone, _) = common::translate(&["--model", MODEL, "--backend", "cpu"], &head);
    assert!(ok);
    assert_eq!(first, alone);
}

#[test]
fn n_best_lists_keep_their_line_numbers_across_chunks() {
    // A file, --batch 2: chunks of 2, 4 and 2 lines with text (standard input's groups depend on timing).
    let lines = test_set();
    let mut input: Vec<&str> = lines.iter().take(8).map(String::as_str).collect();
    input.insert(3, "");
    input.push("");
    let file = std::env::temp_dir().join(format!("wgslate-nbest-{}.en", std::process::id()));
    std::fs::write(&file, input.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let (ok, out, err) = common::translate(
        &[
            "--model",
            MODEL,
            "--backend",
            "cpu",
            "--beam",
            "3",
            "--nbest",
            "2",
            "--batch",
            "2",
            "-i",
            file.to_str().unwrap(),
        ],
        "",
    );
    std::fs::remove_file(&file).unwrap();
    assert!(ok, "{err}");
    let indices: Vec<usize> = out.lines().map(|l| l.split(" ||| ").next().unwrap().parse().unwrap()).collect();
    let expected: Vec<usize> =
        input.iter().enumerate().flat_map(|(i, l)| std::iter::repeat_n(i, if l.is_empty() { 1 } else { 2 })).collect();
    assert_eq!(indices, expected);
    // Each line's list is the one it gets alone.
    let (ok, alone, _) = common::translate(
        &["--model", MODEL, "--backend", "cpu", "--beam", "3", "--nbest", "2"],
        &format!("{}\n", input[8]),
    );
    assert!(ok);
    let eighth: Vec<&str> =
        out.lines().filter(|l| l.starts_with("8 ||| ")).map(|l| l.split_once(" ||| ").unwrap().1).collect();
    let alone: Vec<&str> = alone.lines().map(|l| l.split_once(" ||| ").unwrap().1).collect();
    assert_eq!(eighth, alone);
}

#[test]
fn a_line_typed_at_a_terminal_is_translated_when_enter_is_pressed() {
    // Standard input is a terminal (a pseudo-terminal Python opens); no end of input comes until
    // the translation of each line has come out, or 60 s have passed. A last line ended by Ctrl-D
    // instead of Enter is translated at that Ctrl-D, and the next Ctrl-D ends the run (as `cat` does).
    let script = r#"
import os, pty, select, subprocess, sys
master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
os.close(slave)
def answer():
    ready, _, _ = select.select([p.stdout], [], [], 60)
    print(p.stdout.readline().decode().rstrip("\n") if ready else "(nothing before the end of input)")
os.write(master, b"A dog runs.\n")
answer()
os.write(master, b"Two men.\x04")
answer()
os.write(master, b"\x04")
try:
    p.wait(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    print("(still running after the second Ctrl-D)")
print(p.stderr.read().decode().splitlines()[0])
"#;
    let out = Command::new("python3")
        .args(["-c", script, env!("CARGO_BIN_EXE_wgslate"), "translate", "--model", MODEL, "--backend", "cpu"])
        .output()
        .unwrap();
    let said = String::from_utf8(out.stdout).unwrap();
    let (ok, alone, _) = common::translate(&["--model", MODEL, "--backend", "cpu"], "A dog runs.\nTwo men.\n");
    assert!(ok);
    assert_eq!(
        said,
        format!("{alone}wgslate: type a line and press Enter to translate it; Ctrl-D ends\n"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_line_from_a_slow_program_is_translated_before_the_next_comes() {
    // `(echo A; sleep 6; echo B) | wgslate translate` printed both at the end: the input was read to its end first.
    let mut child = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .args(["translate", "--model", MODEL, "--backend", "cpu"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"A dog runs.\n").unwrap();
    let stdout = child.stdout.take().unwrap();
    let (send, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
            let _ = send.send(line.unwrap());
        }
    });
    let first = lines.recv_timeout(std::time::Duration::from_secs(60));
    stdin.write_all(b"A cat sleeps.\n").unwrap();
    drop(stdin);
    let second = lines.recv_timeout(std::time::Duration::from_secs(60));
    assert!(child.wait().unwrap().success());
    let (ok, want, _) = common::translate(&["--model", MODEL, "--backend", "cpu"], "A dog runs.\nA cat sleeps.\n");
    assert!(ok);
    let want: Vec<&str> = want.lines().collect();
    assert_eq!(first.as_deref().ok(), Some(want[0]), "nothing came out before the second line was written");
    assert_eq!(second.as_deref().ok(), Some(want[1]));
}

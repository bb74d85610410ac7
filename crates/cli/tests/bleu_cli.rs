//! `wgslate bleu` against recorded sacreBLEU 2.6.0 output (see scripts/record_sacrebleu.py),
//! and its one-line errors with exit code 2.

use std::process::{Command, Stdio};

fn data_dir() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data").to_string()
}

fn wgslate(args: &[&str], stdin: Option<&[u8]>) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .arg("bleu")
        .args(args)
        .current_dir(data_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut input = child.stdin.take().unwrap();
        // A command refused before it reads its input closes the pipe: not this helper's failure.
        let _ = input.write_all(stdin.unwrap_or(b""));
    }
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn output_matches_recorded_sacrebleu() {
    let text = std::fs::read_to_string(format!("{}/sacrebleu_cli.json", data_dir())).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let cases = v["cases"].as_array().unwrap();
    assert!(cases.len() >= 40);
    for c in cases {
        let args: Vec<&str> = c["args"].as_str().unwrap().split(' ').collect();
        let (code, out, err) = wgslate(&args, None);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert_eq!(out, c["stdout"].as_str().unwrap(), "output differs for {args:?}");
    }
}

#[test]
fn hypothesis_from_stdin_equals_file() {
    let file = std::fs::read(format!("{}/hyp1.de", data_dir())).unwrap();
    let (_, from_file, _) = wgslate(&["ref.de", "-i", "hyp1.de", "-w", "6"], None);
    let (code, from_stdin, _) = wgslate(&["ref.de", "-w", "6"], Some(&file));
    assert_eq!(code, 0);
    assert_eq!(from_file, from_stdin);
}

fn assert_error(args: &[&str], stdin: Option<&[u8]>, needle: &str) {
    let (code, out, err) = wgslate(args, stdin);
    assert_eq!(code, 2, "{args:?} should fail with exit code 2");
    assert!(out.is_empty(), "{args:?} printed to stdout: {out}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: expected a one-line error, got {err}");
    assert!(err.contains(needle), "{args:?}: '{err}' does not mention '{needle}'");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
}

#[test]
fn bad_input_gets_a_one_line_error() {
    let dir = std::env::temp_dir().join(format!("wgslate-bleu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let short = dir.join("short.txt");
    std::fs::write(&short, "one line\n").unwrap();
    let latin1 = dir.join("latin1.txt");
    std::fs::write(&latin1, b"M\xe4nner\n").unwrap();
    assert_error(&["ref.de", "-i", short.to_str().unwrap()], None, "different lengths");
    assert_error(&["ref.de", "-i", "no-such-file.txt"], None, "no-such-file.txt");
    assert_error(&[latin1.to_str().unwrap(), "-i", "hyp1.de"], None, "is not UTF-8 text (invalid byte at offset");
    // What Windows Notepad saves as "Unicode": little-endian UTF-16 with its byte order mark.
    let utf16 = dir.join("utf16.txt");
    std::fs::write(&utf16, b"\xff\xfeM\x00\xe4\x00n\x00\n\x00").unwrap();
    assert_error(
        &[utf16.to_str().unwrap(), "-i", "hyp1.de"],
        None,
        "is UTF-16 text (Windows calls it \"Unicode\"); save it as UTF-8",
    );
    assert_error(&["ref.de", "-i", "hyp1.de", "--frobnicate"], None, "--frobnicate");
    assert_error(&["ref.de", "-i", "hyp1.de", "-tok", "moses"], None, "moses");
    assert_error(&["ref.de", "-i", "hyp1.de", "-w"], None, "expected one argument");
    assert_error(&["ref.de", "-i", "hyp1.de", "-sl", "-m", "bleu", "chrf"], None, "sentence-level");
    assert_error(&["ref.de", "-i", "hyp1.de", "--paired-bs"], None, "multiple input systems");
    assert_error(&["-i", "hyp1.de"], None, "reference");
    assert_error(&["ref.de"], Some(b"\xff\xfe\n"), "standard input is UTF-16 text");
    assert_error(&["ref.de", "-i", short.to_str().unwrap(), "hyp1.de", "--confidence"], None, "paired");
    // A name ending in .gz is gunzipped: plain text under that name is refused, an empty file is
    // empty text (as Python's gzip.open reads them).
    let fake_gz = dir.join("plain.gz");
    std::fs::write(&fake_gz, "one line\n").unwrap();
    assert_error(&["ref.de", "-i", fake_gz.to_str().unwrap()], None, "is not a gzip file");
    // A gzip file cut short (a download stopped) is said to be one, not "not a gzip file".
    let hyp = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/hyp1.de");
    let whole = std::process::Command::new("gzip").arg("-c").arg(hyp).output().unwrap().stdout;
    let cut_gz = dir.join("cut.gz");
    std::fs::write(&cut_gz, &whole[..whole.len() / 2]).unwrap();
    assert_error(&["ref.de", "-i", cut_gz.to_str().unwrap()], None, "is a damaged or cut-short gzip file");
    let empty_gz = dir.join("empty.gz");
    std::fs::write(&empty_gz, "").unwrap();
    assert_error(&["ref.de", "-i", empty_gz.to_str().unwrap()], None, "contains no sentence");
}

/// Issue 18's reproductions (TER's shift search, double normalisation, an interval only when its
/// mean is above 0, a repeated metric, NaN), with sacreBLEU 2.6.0's output recorded beside them.
#[test]
fn reproductions_match_recorded_sacrebleu() {
    let text = std::fs::read_to_string(format!("{}/sacrebleu_reproductions.json", data_dir())).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let dir = std::env::temp_dir().join(format!("wgslate-repro-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = v["files"].as_object().unwrap();
    for (name, content) in files {
        std::fs::write(dir.join(name), content.as_str().unwrap()).unwrap();
    }
    for c in v["cases"].as_array().unwrap() {
        let path = |a: &str| if files.contains_key(a) { dir.join(a).display().to_string() } else { a.to_string() };
        let args: Vec<String> = c["args"].as_str().unwrap().split(' ').map(path).collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = wgslate(&args, None);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert_eq!(out, c["stdout"].as_str().unwrap(), "output differs for {}", c["args"]);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_carriage_return_in_standard_input_ends_a_line_as_in_python() {
    let dir = std::env::temp_dir().join(format!("wgslate-cr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let reference = dir.join("ref.txt");
    std::fs::write(&reference, "a b c d\n").unwrap();
    // sacreBLEU 2.6.0: "System and reference streams have different lengths.", then 100.0.
    assert_error(&[reference.to_str().unwrap()], Some(b"a b\rc d\n"), "different lengths");
    let (code, out, _) = wgslate(&[reference.to_str().unwrap(), "-b"], Some(b"a b c d\r\n"));
    assert_eq!((code, out.as_str()), (0, "100.0\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_double_dash_ends_the_options_as_in_argparse_and_version_answers() {
    let text = std::fs::read_to_string(format!("{}/sacrebleu_cli.json", data_dir())).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let recorded = v["cases"].as_array().unwrap().iter().find(|c| c["args"] == "ref.de -i hyp1.de -b").unwrap();
    // sacreBLEU's own output for the same files, written with "--" before the reference.
    let (code, out, err) = wgslate(&["-b", "-i", "hyp1.de", "--", "ref.de"], None);
    assert_eq!((code, out.as_str()), (0, recorded["stdout"].as_str().unwrap()), "{err}");
    // After "--" they are file names, as in argparse.
    for flag in ["--version", "-h"] {
        let (code, out, err) = wgslate(&["-i", "hyp1.de", "--", flag], None);
        assert!(code == 2 && out.is_empty() && err.contains(flag), "{flag}: {out}{err}");
    }
    for flag in ["--version", "-V"] {
        let (code, out, _) = wgslate(&["ref.de", flag], None);
        assert_eq!(code, 0);
        assert!(out.starts_with("wgslate bleu ") && out.contains("sacreBLEU 2.6.0"), "{out}");
    }
}

/// argparse's spellings (sacreBLEU's parser): the differential test tries them at random against
/// sacreBLEU itself; these are the ones the README names.
#[test]
fn options_are_spelled_as_sacrebleu_accepts_them() {
    let text = std::fs::read_to_string(format!("{}/sacrebleu_cli.json", data_dir())).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let recorded = v["cases"].as_array().unwrap().iter().find(|c| c["args"] == "ref.de -i hyp1.de -b").unwrap();
    let expected = recorded["stdout"].as_str().unwrap();
    for args in [
        &["ref.de", "-i", "hyp1.de", "--score"][..],
        &["ref.de", "--inp", "hyp1.de", "-bq"],
        &["ref.de", "--input=hyp1.de", "-b", "--tok=13a"],
        &["ref.de", "-ihyp1.de", "-b", "-w1"],
        &["ref.de", "-i", "hyp1.de", "-b", "-tok=13a", "--no-c"],
    ] {
        let (code, out, err) = wgslate(args, None);
        assert_eq!((code, out.as_str()), (0, expected), "{args:?}: {err}");
    }
    assert_error(
        &["ref.de", "-i", "hyp1.de", "--sm", "floor"],
        None,
        "ambiguous option: --sm could match --smooth-method, --smooth-value",
    );
    // The reference files are one run of words, as sacreBLEU's parser takes them.
    assert_error(&["ref.de", "-i", "hyp1.de", "-b", "ref.de"], None, "unrecognized arguments: ref.de");
    assert_error(&["ref.de", "-i", "hyp1.de", "--score-only=1"], None, "ignored explicit argument '1'");
    // Values past what fits in memory are refused, not allocated (these panicked or aborted).
    assert_error(&["ref.de", "-i", "hyp1.de", "-ci", "-cin", "99999999999999999999"], None, "at most 1000000");
    assert_error(&["ref.de", "-i", "hyp1.de", "hyp2.de", "-pbs", "-pbsn", "1000000000000"], None, "at most 1000000");
    assert_error(&["ref.de", "-i", "hyp1.de", "-m", "chrf", "-cc", "100000000000"], None, "at most 10000");
    // A negative smoothing value that makes a precision negative: sacreBLEU stops with "math domain
    // error" (this printed a NaN score and exit 0), at corpus and sentence level, with a bootstrap.
    // The hypothesis: each reference line's first word, then words it does not have (no bigram matches).
    let reference = std::fs::read_to_string(format!("{}/ref.de", data_dir())).unwrap();
    let unmatched: String = reference
        .lines()
        .map(|l| l.split_whitespace().enumerate().map(|(i, w)| if i == 0 { w.to_string() } else { format!("{w}x") }))
        .map(|words| words.collect::<Vec<_>>().join(" ") + "\n")
        .collect();
    for extra in [&[][..], &["-sl"], &["-ci", "-cin", "20"]] {
        let args = [&["ref.de", "-s", "floor", "-sv", "-1"][..], extra].concat();
        assert_error(&args, Some(unmatched.as_bytes()), "-s floor -sv -1.0 makes an n-gram precision negative");
    }
    // The first line matches at every order, the others have no bigram matches: the corpus scores
    // (as in sacreBLEU), but a bootstrap resample without the first line has a negative precision
    // (sacreBLEU stops there), with --confidence and with --paired-bs.
    let first_whole: String =
        reference.lines().take(1).chain(unmatched.lines().skip(1)).map(|l| format!("{l}\n")).collect();
    let (code, out, err) = wgslate(&["ref.de", "-s", "floor", "-sv", "-1", "-b"], Some(first_whole.as_bytes()));
    assert_eq!((code, out.trim()), (0, "2.3"), "{err}");
    let negative = "-s floor -sv -1.0 makes an n-gram precision negative";
    assert_error(&["ref.de", "-s", "floor", "-sv", "-1", "-ci", "-cin", "20"], Some(first_whole.as_bytes()), negative);
    let two_systems: String = first_whole.lines().map(|l| format!("{l}\t{l}\n")).collect();
    assert_error(
        &["ref.de", "-s", "floor", "-sv", "-1", "-pbs", "-pbsn", "20"],
        Some(two_systems.as_bytes()),
        negative,
    );
    let (code, out, err) =
        wgslate(&["ref.de", "-i", "hyp1.de", "-s", "add-k", "-sv=1e308", "-w", "70000", "-f", "text", "-b"], None);
    assert!(code == 0 && !out.is_empty(), "{err}");
    let (code, out, _) = wgslate(&["ref.de", "-i", "hyp1.de", "--vers"], None);
    assert!(code == 0 && out.starts_with("wgslate bleu "), "{out}");
}

/// `-e` decodes as Python's codec of that name does: Latin-1 bytes score as their UTF-8 text does
/// (the differential test compares such cases with sacreBLEU itself); codecs wgslate does not read
/// get a message, after a later `-h` has had its say, as in argparse.
#[test]
fn encodings_are_read_as_python_names_them() {
    let dir = std::env::temp_dir().join(format!("wgslate-enc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = "Zwei Männer stehen am Straßenrand.\nÉin Hund läuft.\n";
    let hyp = "Zwei Männer stehen am Rand.\nEin Hund läuft schnell.\n";
    let latin1 = |s: &str| s.chars().map(|c| c as u32 as u8).collect::<Vec<u8>>();
    let files = [
        ("r.utf8", text.as_bytes().to_vec()),
        ("h.utf8", hyp.as_bytes().to_vec()),
        ("r.l1", latin1(text)),
        ("h.l1", latin1(hyp)),
    ];
    for (name, bytes) in &files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let path = |n: &str| dir.join(n).display().to_string();
    let (code, utf8, err) = wgslate(&[&path("r.utf8"), "-i", &path("h.utf8"), "-m", "bleu", "chrf"], None);
    assert_eq!(code, 0, "{err}");
    for name in ["latin-1", "ISO-8859-1", "l1", "cp819"] {
        let (code, out, err) = wgslate(&[&path("r.l1"), "-i", &path("h.l1"), "-m", "bleu", "chrf", "-e", name], None);
        assert_eq!((code, out.as_str()), (0, utf8.as_str()), "-e {name}: {err}");
    }
    assert_error(&[&path("r.l1"), "-i", &path("h.l1")], None, "if it is Latin-1 text, add -e latin-1");
    assert_error(
        &[&path("r.l1"), "-i", &path("h.l1"), "-e", "ascii"],
        None,
        "is not ASCII text (byte 0xe4 at offset 6)",
    );
    assert_error(
        &[&path("r.utf8"), "-i", &path("h.utf8"), "-e", "cp1252"],
        None,
        "--encoding cp1252: wgslate reads UTF-8",
    );
    let (code, out, _) = wgslate(&[&path("r.utf8"), "-i", &path("h.utf8"), "-e", "cp1252", "-h"], None);
    assert!(code == 0 && out.starts_with("usage: wgslate bleu"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Random command lines from words that stress the parser (prefixes, joined values, `=`, `--`,
/// digits of other scripts, multi-byte option names, huge numbers): a result or a one-line error,
/// never a panic.
#[test]
fn random_command_lines_never_panic() {
    let pool = [
        "-",
        "--",
        "-i",
        "--input",
        "-m",
        "bleu",
        "chrf",
        "ter",
        "-tok",
        "intl",
        "-w",
        "-w3",
        "-bq",
        "-b",
        "--sc",
        "--s",
        "-s",
        "-sv",
        "-٣",
        "٣",
        "-1",
        "-1.5",
        "-.5",
        "-1e5",
        "=",
        "-w=",
        "--tok=zh",
        "-é",
        "-éx",
        "--é",
        "-x",
        "-lc",
        "-l",
        "en-zh",
        "en",
        "-e",
        "latin-1",
        "cp1252",
        "-h",
        "-V",
        "--vers",
        "-d",
        "-j",
        "-pbs",
        "-pbsn",
        "0",
        "-ci",
        "-cin",
        "-nr",
        "2",
        "-cc",
        "-cw",
        "99999999999999999999",
        "-q",
        "-f",
        "text",
        "-sl",
        "-t",
        "--list",
        "a b",
        "-a b",
        "-1\n",
        "",
        "ref.de",
        "hyp1.de",
        "hyp2.de",
        "-bhx",
        "-qb",
        "--chrf-beta",
        "-par",
        "-ol",
        "-w١٢",
        "-w 70000",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    for _ in 0..300 {
        let mut args: Vec<&str> = (0..next(9)).map(|_| pool[next(pool.len())]).collect();
        if next(10) < 7 {
            args.insert(0, "ref.de");
        }
        let (code, _, err) = wgslate(&args, Some(b"a b c\n"));
        assert!(
            (0..=2).contains(&code) && !err.contains("panicked") && !err.contains("internal error"),
            "{args:?}: {code} {err}"
        );
    }
}

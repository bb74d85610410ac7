//! What a new user meets first: `--help` on every command, n-best lists from `translate`, and
//! `eval`'s refusals and summary line.

mod common;

use common::wgslate;
use std::process::Command;

const MODELS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models");
const THREE: &str =
    "A man is riding a bike.\nTwo dogs play in the snow.\nA woman in a red coat reads a book on a bench.\n";

#[test]
fn every_command_prints_its_usage_on_help() {
    for command in ["bleu", "translate", "eval", "bench", "quantize", "serve"] {
        for flag in ["--help", "-h"] {
            let (ok, out, err) = wgslate(&[command, flag]);
            assert!(ok, "{command} {flag}: {err}");
            assert!(out.starts_with("usage: wgslate"), "{command} {flag}: {out}");
        }
    }
    for top in ["help", "--help", "-h"] {
        assert!(wgslate(&[top]).1.starts_with("usage: wgslate <command>"), "{top}");
    }
    // No command at all: the usage on stderr, and a failure (a script that lost its command must not pass).
    let (ok, out, err) = wgslate(&[]);
    assert!(!ok && out.is_empty() && err.starts_with("usage: wgslate <command>"), "{out}{err}");
    for version in ["--version", "-V", "version"] {
        let (ok, out, err) = wgslate(&[version]);
        assert!(ok && out.trim() == concat!("wgslate ", env!("CARGO_PKG_VERSION")), "{version}: {out}{err}");
    }
}

#[test]
fn a_model_given_as_a_file_or_a_missing_reranker_says_what_it_is() {
    let weights = format!("{MODELS}/en-de/transformer/model.safetensors");
    let (ok, _, err) = wgslate(&["translate", "--model", &weights]);
    assert!(!ok && err.contains("is a file, not a model directory"), "{err}");
    let (ok, _, err) = wgslate(&[
        "translate",
        "--model",
        &format!("{MODELS}/en-de/transformer"),
        "--beam",
        "4",
        "--rerank",
        "/no/such/dir",
    ]);
    assert!(!ok && err.contains("--rerank: cannot read the model directory /no/such/dir: it does not exist"), "{err}");
    let (ok, _, err) =
        wgslate(&["translate", "--model", &format!("{MODELS}/en-de/transformer"), "--sample", "--nbest", "2"]);
    assert!(!ok && err.contains("give --samples 2"), "{err}");
}

#[test]
fn nbest_and_samples_print_moses_nbest_lists() {
    let model = format!("{MODELS}/en-de/transformer");
    let run = |flags: &[&str]| {
        let (ok, out, err) =
            common::translate(&[&["--model", model.as_str(), "--backend", "cpu"], flags].concat(), THREE);
        assert!(ok, "{flags:?}: {err}");
        out
    };
    let best = run(&["--beam", "3"]);
    let nbest = run(&["--beam", "3", "--nbest", "3"]);
    let rows: Vec<Vec<&str>> = nbest.lines().map(|l| l.split(" ||| ").collect()).collect();
    assert_eq!(rows.len(), 9, "{nbest}");
    for (k, row) in rows.iter().enumerate() {
        // Moses / Marian: index ||| text ||| features ||| total score.
        assert_eq!(row.len(), 4, "{nbest}");
        assert_eq!(row[0], (k / 3).to_string());
        assert!(row[2].starts_with("F0= "), "{nbest}");
    }
    // Each sentence's list is best first, and its first entry is what --beam 3 alone prints.
    for (s, line) in best.lines().enumerate() {
        assert_eq!(rows[3 * s][1], line);
        let scores: Vec<f32> = rows[3 * s..3 * s + 3].iter().map(|r| r[3].parse().unwrap()).collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    }
    let samples = run(&["--sample", "--samples", "2", "--seed", "1"]);
    let indices: Vec<&str> = samples.lines().map(|l| l.split(" ||| ").next().unwrap()).collect();
    assert_eq!(indices, ["0", "0", "1", "1", "2", "2"], "{samples}");
    assert_eq!(run(&["--sample", "--seed", "1"]).lines().count(), 3, "one sample: plain lines");
    // --best's beam is a preset: a --sample after it samples.
    assert_eq!(run(&["--best", "--sample", "--seed", "1"]), run(&["--sample", "--seed", "1"]));
    // Asking for more than the search gives is refused, not cut silently.
    for (flags, needle) in [
        (&["--beam", "3", "--nbest", "5"][..], "add --beam 5 or more"),
        (&["--nbest", "2"][..], "add --beam 2 or more"),
        (&["--samples", "3"][..], "add --sample"),
        // A flag the chosen search would ignore is refused too.
        (&["--temperature", "0.5"][..], "--temperature shapes sampling, which is off: add --sample"),
        (&["--sample", "--seed", "1", "--top-k", "5", "--best"][..], "--top-k shapes sampling, which is off"),
        (&["--sample", "--beam", "4"][..], "--beam shapes beam search, but --sample draws samples instead"),
        (&["--lenpen", "1", "--sample"][..], "--lenpen shapes beam search"),
        (&["--nbest", "3", "--best", "--sample"][..], "--nbest shapes beam search"),
        (&["--beam", "2", "--beam", "5"][..], "--beam is given twice"),
        (&["--sample", "--seed", "1", "--seed", "2"][..], "--seed is given twice"),
    ] {
        let (ok, out, err) =
            common::translate(&[&["--model", model.as_str(), "--backend", "cpu"], flags].concat(), THREE);
        assert!(!ok && out.is_empty() && err.contains(needle), "{flags:?}: {err}");
    }
}

#[test]
fn a_byte_order_mark_is_not_part_of_the_first_sentence_to_translate() {
    let model = format!("{MODELS}/en-de/transformer");
    let run = |input: &str| {
        let (ok, out, err) = common::translate(&["--model", model.as_str(), "--backend", "cpu"], input);
        assert!(ok, "{err}");
        (out, err)
    };
    let (plain, _) = run(THREE);
    let (marked, notes) = run(&format!("\u{feff}{THREE}"));
    assert_eq!(marked, plain);
    assert!(notes.is_empty(), "no unseen character reported: {notes}");
}

#[test]
fn utf16_without_a_byte_order_mark_is_named_not_translated() {
    let model = format!("{MODELS}/en-de/transformer");
    let dir = std::env::temp_dir().join(format!("wgslate-utf16-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let little: Vec<u8> = THREE.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let big: Vec<u8> = THREE.encode_utf16().flat_map(u16::to_be_bytes).collect();
    // A short first line, and an empty one, leave too few bytes to judge on the line alone.
    let short: Vec<u8> = "Hi\nTwo dogs play.\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
    let empty: Vec<u8> = "\nTwo dogs play.\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
    for (endian, bytes) in [("little", little), ("big", big), ("short first line", short), ("empty first line", empty)]
    {
        // Was translated as garbage with exit 0 (little-endian: one line more than given).
        let (ok, out, err) = common::translate_bytes(&["--model", model.as_str(), "--backend", "cpu"], &bytes);
        // (The empty first line, read before the bytes that tell, is translated as an empty line.)
        assert!(!ok && out.trim().is_empty(), "{endian}: {out}");
        assert!(err.contains("standard input looks like UTF-16 text without a byte order mark"), "{endian}: {err}");
        assert!(err.contains("iconv -f UTF-16LE -t UTF-8"), "{endian}: {err}");
        let file = dir.join(format!("{endian}.en"));
        std::fs::write(&file, &bytes).unwrap();
        let file = file.to_str().unwrap();
        let (ok, out, err) = wgslate(&["translate", "--model", &model, "--backend", "cpu", "-i", file]);
        assert!(!ok && out.is_empty() && err.contains(&format!("{file} looks like UTF-16 text")), "{endian}: {err}");
        let (ok, _, err) = wgslate(&["eval", "--model", &model, "--backend", "cpu", "--src", file, "--ref", file]);
        assert!(!ok && err.contains(&format!("{file} looks like UTF-16 text")), "{endian}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn eval_refuses_empty_files_and_names_its_search() {
    let dir = std::env::temp_dir().join(format!("wgslate-usage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (empty, one) = (dir.join("empty"), dir.join("one"));
    std::fs::write(&empty, "").unwrap();
    std::fs::write(&one, "A dog runs.\n").unwrap();
    let model = format!("{MODELS}/en-de/transformer");
    let eval = |file: &std::path::Path, flags: &[&str]| {
        let f = file.to_str().unwrap();
        wgslate(&[&["eval", "--model", model.as_str(), "--backend", "cpu", "--src", f, "--ref", f], flags].concat())
    };
    let (ok, _, err) = eval(&empty, &[]);
    assert!(!ok && err.contains("contains no sentence"), "{err}");
    let summary = |flags: &[&str]| {
        let (ok, out, err) = eval(&one, flags);
        assert!(ok, "{err}");
        // The same file as --src and --ref scores near 0: said (it was not).
        let same =
            format!("wgslate: --src and --ref are the same file ({}): the translations are scored", one.display());
        assert!(err.contains(&same), "{err}");
        out.lines().last().unwrap().to_string()
    };
    let (plain, penalised) = (summary(&["--beam", "4"]), summary(&["--beam", "4", "--lenpen", "0.6"]));
    // A reference in the source language, as a copy: named as not the model's target.
    let (copy, german) = (dir.join("copy.en"), dir.join("ref.de"));
    std::fs::write(&copy, "A dog runs.\n").unwrap();
    std::fs::write(&german, "Ein Hund rennt.\n").unwrap();
    for (reference, note) in [(&copy, true), (&german, false)] {
        let (src, r) = (one.to_str().unwrap(), reference.to_str().unwrap());
        let (ok, _, err) = wgslate(&["eval", "--model", &model, "--backend", "cpu", "--src", src, "--ref", r]);
        let said = format!("wgslate: the line of --ref {r} reads as English, but the model translates into German");
        assert!(ok && err.contains(&said) == note && err.contains("of --ref") == note, "{r}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(plain.starts_with("1 sentence in "), "{plain}");
    assert!(plain.contains(", \"beam 4\", weights"), "{plain}");
    assert!(penalised.contains(", \"beam 4, gnmt(0.6)\", weights"), "{penalised}");
}

/// The exit code and stderr of `wgslate ARGS > /dev/full` (a disk with no space left).
fn to_full_disk(args: &[&str]) -> (Option<i32>, String) {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_wgslate")).args(args).stdout(full).output().unwrap();
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn an_output_that_cannot_be_written_is_an_error_in_one_line_not_a_panic() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let (hyp, reference) = (format!("{data}/hyp1.de"), format!("{data}/ref.de"));
    let one = std::env::temp_dir().join(format!("wgslate-full-{}.en", std::process::id()));
    std::fs::write(&one, "A dog runs.\n").unwrap();
    let model = format!("{MODELS}/en-de/transformer");
    let translate = ["translate", "--model", &model, "--backend", "cpu", "-i", one.to_str().unwrap()];
    for args in [vec!["--help"], vec!["bleu", "--help"], vec!["bleu", &reference, "-i", &hyp], translate.to_vec()] {
        let (code, err) = to_full_disk(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert_eq!(err, "wgslate: cannot write the output: No space left on device (os error 28)\n", "{args:?}");
    }
}

#[test]
fn quantize_refuses_what_would_write_elsewhere_and_warns_of_rounding_twice() {
    let model = format!("{MODELS}/en-de/gru");
    let dir = std::env::temp_dir().join(format!("wgslate-quantize-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (file, out) = (dir.join("a-file"), dir.join("q"));
    std::fs::write(&file, "not a directory").unwrap();
    let (file, out) = (file.to_str().unwrap(), out.to_str().unwrap());
    let missing = dir.join("no-such-model");
    let refused = [
        // Wrote the model into the working directory, exit 0.
        (vec!["quantize", "--model", &model, "--out", ""], "--out names no directory".to_string()),
        // Said "--out must be another directory than --model".
        (
            vec!["quantize", "--model", missing.to_str().unwrap(), "--out", out],
            format!("cannot read the model directory {}: it does not exist", missing.display()),
        ),
        // Dropped the first --model (or --out) without a word.
        (vec!["quantize", "--model", &model, "--model", &model, "--out", out], "--model is given twice".into()),
        (vec!["quantize", "--model", &model, "--out", out, "--out", out], "--out is given twice".into()),
        (vec!["quantize", "--model", &model, "--out", file], format!("--out {file} is a file, not a directory")),
    ];
    for (args, why) in refused {
        let (ok, stdout, err) = wgslate(&args);
        assert!(!ok && stdout.is_empty() && err.contains(&why), "{args:?}: {err}");
    }
    assert!(!std::path::Path::new(out).exists() && !std::path::Path::new("model.safetensors").exists());
    let (ok, _, err) = wgslate(&["quantize", "--model", &model, "--out", out, "--format", "int8-16"]);
    assert!(ok && err.contains("weights are int8 already (int8, one scale per row): as int8, one scale per 16 values they are rounded twice"), "{err}");
    // Blocks of 1 048 576 divide no row, so every matrix keeps one scale per row: nothing is rounded again.
    let again = dir.join("again");
    let (ok, _, err) =
        wgslate(&["quantize", "--model", &model, "--out", again.to_str().unwrap(), "--format", "int8-1048576"]);
    assert!(ok && !err.contains("rounded twice"), "{err}");
    let read = |d: &std::path::Path| std::fs::read(d.join("model.safetensors")).unwrap();
    assert_eq!(read(&again), read(std::path::Path::new(&model)), "the per-row weights were written as they were read");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn flags_of_another_command_repeats_and_unknown_bench_flags_are_refused() {
    let (model, gru) = (format!("{MODELS}/en-de/transformer"), format!("{MODELS}/en-de/gru"));
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let (src, reference) = (format!("{data}/hyp1.de"), format!("{data}/ref.de"));
    let refused = [
        (vec!["translate", "--model", &model, "--src", &src], "--src and --ref are eval's"),
        (vec!["translate", "--model", &model, "-i", &src, "--input", &src], "--input is given twice"),
        (vec!["eval", "--model", &model, "--src", &src, "--ref", &reference, "--ref", &src], "--ref is given twice"),
        (vec!["eval", "--model", &model, "--src", &src, "--ref", &reference, "-i", &src], "-i is translate's"),
        (vec!["bench", "--model", &model, "--frob", "1"], "unknown argument '--frob'"),
        (vec!["bench", "--model", &model, "--backend"], "unknown argument '--backend'"),
        (vec!["bench", "--model", &model, "--src"], "--src needs a value"),
        (vec!["bench", "--model", &model, "--sentences", "1", "--sentences", "2"], "--sentences is given twice"),
        (
            vec!["bench", "--model", &model, "--layers", "all"],
            "--layers is fused, per-op or per-op-attention, not 'all'",
        ),
        (
            vec!["bench", "--model", &gru, "--src", &src, "--layers", "per-op-attention"],
            "--layers per-op-attention is a Transformer's step",
        ),
    ];
    for (args, why) in refused {
        let (ok, out, err) = wgslate(&args);
        assert!(!ok && out.is_empty() && err.contains(why), "{args:?}: {err}");
    }
}

#[test]
fn bench_without_a_gpu_times_the_cpu_and_says_why_the_gpu_is_missing() {
    let model = format!("{MODELS}/en-de/transformer");
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/data/val.en");
    let out = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .args(["bench", "--model", &model, "--src", src, "--sentences", "3", "--batched", "2"])
        // No Vulkan driver to be found: no adapter at all.
        .env("VK_ICD_FILENAMES", "/nonexistent.json")
        .env("VK_DRIVER_FILES", "/nonexistent.json")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    // Each count is its own flag's (--batched does not cap --sentences).
    assert_eq!(json["sentences_one_at_a_time"], 3);
    assert_eq!(json["sentences_in_batches_of_64"], 2);
    assert!(json["gpu"]["unavailable"].as_str().unwrap().starts_with("no GPU adapter"), "{stdout}");
    assert!(json["cpu"]["greedy_ms_per_sentence_batch1"].as_f64().unwrap() > 0.0, "{stdout}");
}

#[test]
fn a_model_error_is_one_line_even_with_rust_backtrace_set() {
    let dir = std::env::temp_dir().join(format!("wgslate-wrongdim-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let shipped = std::path::Path::new(MODELS).join("en-de/transformer");
    for f in ["model.safetensors", "tokenizer.json"] {
        std::fs::copy(shipped.join(f), dir.join(f)).unwrap();
    }
    let config = std::fs::read_to_string(shipped.join("config.json")).unwrap();
    let d_model = config.split("\"d_model\":").nth(1).unwrap().split([',', '}']).next().unwrap().trim().to_string();
    std::fs::write(dir.join("config.json"), config.replacen(&format!("\"d_model\": {d_model}"), "\"d_model\": 64", 1))
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .args(["translate", "--model", dir.to_str().unwrap(), "--backend", "cpu"])
        .env("RUST_BACKTRACE", "1")
        .env_remove("RUST_LIB_BACKTRACE")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("config.json implies"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A file name in another encoding than UTF-8 (Latin-1 bytes) gets a message, not a panic.
#[test]
fn an_argument_that_is_not_utf8_gets_a_message() {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::OsStr::from_bytes(b"M\xe4nner.txt");
    for command in [&["bleu", "ref.txt", "-i"][..], &["translate", "-i"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_wgslate")).args(command).arg(name).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command:?}: {err}");
        assert!(err.contains("is not UTF-8 text") && !err.contains("panicked"), "{command:?}: {err}");
    }
}

/// A blank line in n-best or sampling mode gets one empty entry, not words made of nothing; a line
/// of several sentences is listed whole, with a note that says so.
#[test]
fn lists_keep_blank_lines_empty_and_name_lines_of_several_sentences() {
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models/en-de/transformer");
    for flags in [&["--beam", "2", "--nbest", "2"][..], &["--sample", "--samples", "3"]] {
        let args = [&["--model", model, "--backend", "cpu"][..], flags].concat();
        let (ok, stdout, stderr) = common::translate(&args, "A dog runs.\n\n   \nA dog runs. A cat sleeps.\n");
        assert!(ok, "{flags:?}: {stderr}");
        for blank in ["1", "2"] {
            let entries: Vec<&str> = stdout.lines().filter(|l| l.starts_with(&format!("{blank} |||"))).collect();
            assert_eq!(entries, [format!("{blank} |||  ||| F0= 0.0000 ||| 0.0000")], "{flags:?}: {stdout}");
        }
        assert!(stdout.lines().any(|l| l.starts_with("3 ||| ")), "{stdout}");
        assert!(stderr.contains("1 input line holds several sentences"), "{flags:?}: {stderr}");
    }
}

/// Spellings a user brings from other tools: the page's ensemble as a --model (its members loaded),
/// `--flag=value`, `-i -` for standard input and a gzipped input file; a folder that is not a model
/// says so.
#[test]
fn ensembles_by_name_flag_equals_value_stdin_dash_and_gzip_input() {
    use std::io::Write;
    let models = MODELS;
    // common::translate puts "translate" first.
    let run = |args: &[&str], input: &str| common::translate(&args[1..], input);
    let (a, b) = (format!("{models}/en-de/transformer-d224-distilled"), format!("{models}/en-de/transformer-d224-bt"));
    let members = run(&["translate", "--model", &a, "--model", &b, "--backend", "cpu"], THREE);
    assert!(members.0, "{}", members.2);
    let named = run(&["translate", "--model", &format!("{models}/en-de/ensemble"), "--backend", "cpu"], THREE);
    assert_eq!(named, members, "the index's ensemble is its two members");
    let single = run(
        &["translate", "--model", &format!("{models}/en-de/transformer"), "--backend", "cpu", "--beam", "2"],
        THREE,
    );
    assert!(single.0, "{}", single.2);
    let dir = std::env::temp_dir().join(format!("wgslate-spell-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let gz = dir.join("three.en.gz");
    let mut enc = flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), flate2::Compression::default());
    enc.write_all(THREE.as_bytes()).unwrap();
    enc.finish().unwrap();
    let model = format!("--model={models}/en-de/transformer");
    for args in [
        vec!["translate", model.as_str(), "--backend=cpu", "--beam=2", "-i", "-"],
        vec!["translate", model.as_str(), "--backend", "cpu", "--beam", "2", "-i", gz.to_str().unwrap()],
    ] {
        assert_eq!(run(&args, THREE), single, "{args:?}");
    }
    let (ok, _, err) = run(&["translate", "--model", models, "--backend", "cpu"], THREE);
    assert!(!ok && err.contains("is not a model directory (no config.json)"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// eval's score lines are `wgslate bleu REF -i HYP -m bleu chrf -f text -w 2` of translate's output
/// (which the differential test holds to sacreBLEU's own text output), BP and lengths included; `-o`
/// writes translate's output and eval's hypotheses to a file.
#[test]
fn eval_prints_what_bleu_prints_for_translates_output() {
    let dir = std::env::temp_dir().join(format!("wgslate-eval-bleu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/data");
    for (name, from) in [("s.en", "val.en"), ("r.de", "val.de")] {
        let text = std::fs::read_to_string(format!("{data}/{from}")).unwrap();
        let head: String = text.lines().take(12).map(|l| format!("{l}\n")).collect();
        std::fs::write(dir.join(name), head).unwrap();
    }
    let path = |n: &str| dir.join(n).display().to_string();
    let model = format!("{MODELS}/en-de/transformer");
    let (ok, eval, err) =
        wgslate(&["eval", "--model", &model, "--backend", "cpu", "--src", &path("s.en"), "--ref", &path("r.de")]);
    assert!(ok, "{err}");
    let (ok, hyp, err) = common::translate(&["--model", &model, "--backend", "cpu", "-i", &path("s.en")], "");
    assert!(ok, "{err}");
    std::fs::write(dir.join("h.de"), &hyp).unwrap();
    // -o: translate's output in a file instead, and eval's hypotheses, the same lines.
    let (ok, nothing, err) =
        common::translate(&["--model", &model, "--backend", "cpu", "-i", &path("s.en"), "-o", &path("o.de")], "");
    assert!(ok && nothing.is_empty(), "{err}");
    assert_eq!(std::fs::read_to_string(dir.join("o.de")).unwrap(), hyp);
    let (ok, eval_o, err) = wgslate(&[
        "eval",
        "--model",
        &model,
        "--backend",
        "cpu",
        "--src",
        &path("s.en"),
        "--ref",
        &path("r.de"),
        "--output",
        &path("e.de"),
    ]);
    assert!(ok, "{err}");
    assert_eq!(std::fs::read_to_string(dir.join("e.de")).unwrap(), hyp);
    assert_eq!(eval_o.lines().take(2).collect::<Vec<_>>(), eval.lines().take(2).collect::<Vec<_>>());
    // -o naming an input is refused before anything is written; a path that cannot be written fails
    // before the translation.
    let before = std::fs::read_to_string(dir.join("s.en")).unwrap();
    let (ok, _, err) =
        common::translate(&["--model", &model, "--backend", "cpu", "-i", &path("s.en"), "-o", &path("s.en")], "");
    assert!(!ok && err.contains("is the input"), "{err}");
    let (ok, _, err) =
        wgslate(&["eval", "--model", &model, "--src", &path("s.en"), "--ref", &path("r.de"), "-o", &path("r.de")]);
    assert!(!ok && err.contains("is the input"), "{err}");
    assert_eq!(std::fs::read_to_string(dir.join("s.en")).unwrap(), before);
    let (ok, _, err) = common::translate(&["--model", &model, "-i", &path("s.en"), "-o", &path("no/such/dir")], "");
    assert!(
        err.contains(&format!("cannot write {}: there is no folder {}", path("no/such/dir"), path("no/such"))),
        "{err}"
    );
    assert!(!ok, "{err}");
    let (ok, _, err) = common::translate(&["--model", &model, "-i", "", "-o", &path("x.de")], "");
    assert!(!ok && err.contains("'' names no file (-i, --src and --ref take a file name)"), "{err}");
    let (ok, _, err) = common::translate(&["--model", &model, "-i", &path("s.en"), "-o", dir.to_str().unwrap()], "");
    assert!(!ok && err.contains("is a folder"), "{err}");
    // A run that fails after -o was opened (no GPU to be found) leaves the file as it was, and no
    // temporary file.
    std::fs::write(dir.join("kept.de"), "kept\n").unwrap();
    let failed = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .args(["translate", "--model", &model, "--backend", "gpu", "-i", &path("s.en"), "-o", &path("kept.de")])
        .env("VK_ICD_FILENAMES", "/nonexistent.json")
        .env("VK_DRIVER_FILES", "/nonexistent.json")
        .output()
        .unwrap();
    assert!(!failed.status.success(), "{}", String::from_utf8_lossy(&failed.stderr));
    assert_eq!(std::fs::read_to_string(dir.join("kept.de")).unwrap(), "kept\n");
    let names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(!names.iter().any(|n| n.ends_with(".part")), "{names:?}");
    // A hard link to the input is replaced by the translation; the input keeps its text.
    std::fs::hard_link(dir.join("s.en"), dir.join("linked.en")).unwrap();
    let (ok, _, err) =
        common::translate(&["--model", &model, "--backend", "cpu", "-i", &path("s.en"), "-o", &path("linked.en")], "");
    assert!(ok, "{err}");
    assert_eq!(std::fs::read_to_string(dir.join("s.en")).unwrap(), before);
    assert_eq!(std::fs::read_to_string(dir.join("linked.en")).unwrap(), hyp);
    let (ok, bleu, err) =
        wgslate(&["bleu", &path("r.de"), "-i", &path("h.de"), "-m", "bleu", "chrf", "-f", "text", "-w", "2"]);
    assert!(ok, "{err}");
    let eval_scores: Vec<&str> = eval.lines().take(2).collect();
    assert_eq!(eval_scores, bleu.lines().collect::<Vec<_>>());
    assert!(eval_scores[0].contains("(BP = "), "{eval}");
    std::fs::remove_dir_all(&dir).unwrap();
}

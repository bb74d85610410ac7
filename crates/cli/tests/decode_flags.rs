//! `wgslate translate`'s decoding flags are checked against the page's settings ranges
//! (`wgslate_decode::settings`): one line on stderr, exit code 2, before any model is loaded.

use std::process::Command;

mod common;

#[test]
fn out_of_range_decoding_flags_are_refused_with_one_line() {
    let cases = [
        (["--lenpen-kind", "avg"], "length penalty, which is off: add --lenpen A"),
        (["--min-len", "5"], "--min-len 5 is longer than the longest output allowed (--max-len-a 0 --max-len-b 2)"),
        (["--coverage", "-1e30"], "coverage β must be between 0 and 5"),
        (["--lenpen", "NaN"], "length penalty α must be between 0 and 5"),
        (["--max-len-a", "1e30"], "max length a must be between 0 and 10"),
        (["--temperature", "inf"], "temperature must be between 0.01 and 10"),
        (["--top-p", "-1"], "top-p must be between 0.01 and 1"),
        (["--beam", "0"], "beam width must be between 1 and 16"),
        (["--seed", "2.5"], "seed must be a whole number"),
        (["--samples", "100000000000"], "number of samples must be between 1 and 100"),
        (["--nbest", "0"], "n-best size must be between 1 and 16"),
        (["--batch", "0"], "--batch must be a whole number of sentences, 1 or more"),
        (["--min-len", "-3"], "minimum length must be between 0 and 200"),
        (["--no-repeat-ngram", "1e9"], "no-repeat n-gram size must be between 0 and 10"),
        // Gave one word.
        (["--max-len-b", "0"], "--max-len-a 0 --max-len-b 0 leaves no room for a word"),
    ];
    for (flags, needle) in cases {
        // The longest output the --min-len case allows is 2 tokens.
        let limits = match flags[0] {
            "--min-len" => &["--max-len-a", "0", "--max-len-b", "2"][..],
            "--max-len-b" => &["--max-len-a", "0"][..],
            _ => &[],
        };
        let out = Command::new(env!("CARGO_BIN_EXE_wgslate"))
            .args(["translate", "--model", "no-such-model"])
            .args(flags)
            .args(limits)
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{flags:?}: {err}");
        assert!(err.contains(needle), "{flags:?}: '{err}' does not say '{needle}'");
    }
}

/// `wgslate translate` with the default model on the CPU reference: (stdout, stderr).
fn run(flags: &[&str], input: &str) -> (String, String) {
    use std::io::Write;
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models/en-de/transformer");
    let mut child = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .args(["translate", "--model", model, "--backend", "cpu"])
        .args(flags)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{flags:?}");
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// The CLI says when the maximum length stopped an output before its end and which characters the
/// model has never seen; the translations themselves still go to stdout, one line each.
#[test]
fn cut_outputs_and_unseen_characters_are_reported_on_stderr() {
    let man = "A man in a blue shirt is standing on a ladder.\n";
    let (stdout, stderr) = run(&["--max-len-a", "0", "--max-len-b", "3"], man);
    assert_eq!(stdout.lines().count(), 1);
    assert!(stdout.split_whitespace().count() <= 3, "three tokens at most: {stdout}");
    assert!(stderr.contains("1 translation (line 1) stopped at the maximum output length"), "{stderr}");
    let (_, stderr) = run(&[], man);
    assert_eq!(stderr, "", "a full translation has nothing to report");
    let (stdout, stderr) = run(&[], "A man says 你好 to a dog.\nA dog.\n");
    assert_eq!(stdout.lines().count(), 2);
    assert!(stderr.contains("characters the model has never seen (translated as unknown): 你 好"), "{stderr}");
    // An old Mac file: its lone carriage returns end no line, and the note says so.
    let (stdout, stderr) = run(&[], "A dog.\rA cat.\r\nTwo men.\n");
    assert_eq!(stdout.lines().count(), 2);
    assert!(stderr.contains("1 input line holds a carriage return that ends no line (old Mac line ends?)"), "{stderr}");
}

/// The notes say which lines they are about (a file of thousands of lines is no use with a count alone):
/// in line numbers from 1, blank lines counted, several sentences of a line named once, for a
/// translation and for an n-best list.
#[test]
fn notes_name_the_lines_they_are_about() {
    let long = "a ".repeat(300);
    let input = format!("A dog.\n\n{long}\nA cat. A {long}. A {long}\n");
    let short = ["--max-len-a", "0", "--max-len-b", "4"];
    let (stdout, stderr) = run(&short, &input);
    assert_eq!(stdout.lines().count(), 4);
    assert!(stderr.contains("3 sentences (lines 3 and 4) were cut to the model's limit of 256 subwords"), "{stderr}");
    let (_, stderr) = run(&[&short[..], &["--beam", "2", "--nbest", "2"]].concat(), &input);
    assert!(stderr.contains("2 sentences (lines 3 and 4) were cut"), "{stderr}");
}

/// `--best` is beam 4 reranked with the reverse direction's model (chosen on val: README,
/// "Decoding on test_2016_flickr"), found through the index beside the model, without sampling;
/// flags after it override its parts.
#[test]
fn best_is_beam_4_reranked_with_the_index_reverse_model() {
    let val = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/data/val.en")).unwrap();
    let input: String = val.lines().take(20).map(|l| format!("{l}\n")).collect();
    let (best, err) = run(&["--best"], &input);
    assert_eq!(best.lines().count(), 20, "{err}");
    let reverse = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models/de-en/transformer");
    let (spelled_out, _) = run(&["--beam", "4", "--rerank", reverse], &input);
    assert_eq!(best, spelled_out);
    let (beam, _) = run(&["--beam", "4"], &input);
    assert_ne!(best, beam, "reranking changes some of 20 translations");
    // It turns sampling and the end penalty given before it off.
    let (after_sampling, _) = run(&["--sample", "--end-penalty", "2", "--best"], &input);
    assert_eq!(after_sampling, best);
    // A later --beam 1 leaves nothing to rerank: greedy search, no message.
    let (best_beam_1, err) = run(&["--best", "--beam", "1"], &input);
    let (greedy, _) = run(&[], &input);
    assert_eq!(best_beam_1, greedy, "{err}");
    assert!(!err.contains("rerank"), "{err}");
    // Its weight can be set, and weight 0 keeps the beam's own order.
    let (weight_0, err) = run(&["--best", "--rerank-weight", "0"], &input);
    assert_eq!(weight_0, beam, "{err}");
    // A relative model path inside the tree finds the index too.
    let models = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models/en-de");
    let file = std::env::temp_dir().join(format!("wgslate-best-input-{}", std::process::id()));
    std::fs::write(&file, &input).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .current_dir(models)
        .args(["translate", "--model", "transformer", "--backend", "cpu", "--best", "-i"])
        .arg(&file)
        .output()
        .unwrap();
    std::fs::remove_file(&file).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), best);
}

/// A model outside the shipped tree, or missing from its index, has no reverse model to find:
/// `--best` says what to add instead of running another search.
#[test]
fn best_without_an_index_listing_the_model_asks_for_rerank() {
    let dir = std::env::temp_dir().join(format!("wgslate-best-{}", std::process::id()));
    let model = dir.join("en-de").join("mine");
    std::fs::create_dir_all(&model).unwrap();
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models");
    for f in ["config.json", "tokenizer.json", "model.safetensors"] {
        std::fs::copy(format!("{shipped}/en-de/transformer/{f}"), model.join(f)).unwrap();
    }
    let best = |model: &str| common::translate(&["--model", model, "--backend", "cpu", "--best"], "A dog.\n");
    let (no_index, _, no_index_err) = best(model.to_str().unwrap());
    std::fs::copy(format!("{shipped}/index.json"), dir.join("index.json")).unwrap();
    let (unlisted, _, unlisted_err) = best(model.to_str().unwrap());
    let (missing, _, missing_err) = best(dir.join("en-de").join("nothing").to_str().unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
    let asks = "--best reranks with the reverse direction's model, but";
    assert!(
        !no_index && no_index_err.contains(asks) && no_index_err.contains("index.json cannot be read"),
        "{no_index_err}"
    );
    assert!(no_index_err.contains("add --rerank DIR"), "{no_index_err}");
    assert!(
        !unlisted && unlisted_err.contains(asks) && unlisted_err.contains("does not list en-de/mine"),
        "{unlisted_err}"
    );
    assert!(!missing && missing_err.contains("cannot read the model directory"), "{missing_err}");
}

#[test]
fn a_wide_beam_gives_words_not_the_empty_translation() {
    // Found by a new user: with beam 16 and no length penalty, the lone EOS (log-prob -8.10)
    // outscored every sentence (-8.34 and below), and the translation was an empty line.
    let (out, _) = run(&["--beam", "16"], "A man number 0 walks his dog in the park while it rains heavily.\n");
    assert!(out.split_whitespace().count() >= 5, "{out:?}");
}

#[test]
fn tabs_and_no_break_spaces_translate_as_spaces() {
    // Pasted from web pages: a tab used to glue words into unseen tokens ("Ein
    // Broschroschle-Baseballspieler wird." for "A\tdog\truns.").
    let (out, _) = run(&[], "A dog runs.\nA\tdog\truns.\nA\u{a0}dog\u{a0}runs.\nA  dog   runs.\n");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out:?}");
    assert!(lines.iter().all(|l| *l == lines[0]), "{out:?}");
}

/// eval scores one translation per sentence: a list of several (--nbest, --samples) is refused
/// rather than scored by its first entry without a word; a list of one is what eval does anyway.
#[test]
fn eval_refuses_lists_of_translations() {
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models/en-de/transformer");
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/data");
    let (src, reference) = (format!("{data}/val.en"), format!("{data}/val.de"));
    for flags in [&["--beam", "4", "--nbest", "3"][..], &["--beam", "4", "--nbest=3"], &["--sample", "--samples", "2"]]
    {
        let out = Command::new(env!("CARGO_BIN_EXE_wgslate"))
            .args(["eval", "--model", model, "--src", &src, "--ref", &reference, "--backend", "cpu"])
            .args(flags)
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {err}");
        assert!(err.contains("eval scores one per sentence"), "{flags:?}: {err}");
    }
    let head = std::env::temp_dir().join(format!("wgslate-eval-one-{}", std::process::id()));
    std::fs::create_dir_all(&head).unwrap();
    for (name, from) in [("s.en", &src), ("r.de", &reference)] {
        let first: String = std::fs::read_to_string(from).unwrap().lines().take(2).map(|l| format!("{l}\n")).collect();
        std::fs::write(head.join(name), first).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .args(["eval", "--model", model, "--backend", "cpu", "--beam", "2", "--nbest", "1", "--src"])
        .arg(head.join("s.en"))
        .arg("--ref")
        .arg(head.join("r.de"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::remove_dir_all(&head).unwrap();
}

/// eval says what translate says of its sentences (a score of cut ones is not the model's on the
/// whole text): a source cut to the model's limit, an output stopped at the maximum length, and
/// characters the model has never seen, each with its line.
#[test]
fn eval_reports_cut_sentences_and_unseen_characters() {
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models/en-de/transformer");
    let dir = std::env::temp_dir().join(format!("wgslate-eval-notes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let long = "man dog ".repeat(200);
    std::fs::write(dir.join("s.en"), format!("A dog runs.\n{long}\nA man says 你好.\n")).unwrap();
    std::fs::write(dir.join("r.de"), "Ein Hund rennt.\nMann Hund\nEin Mann sagt hallo.\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .args(["eval", "--model", model, "--backend", "cpu", "--max-len-a", "0", "--max-len-b", "20", "--src"])
        .arg(dir.join("s.en"))
        .arg("--ref")
        .arg(dir.join("r.de"))
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{err}");
    assert!(err.contains("1 sentence (line 2) was cut to the model's limit of 256 subwords"), "{err}");
    assert!(err.contains("(line 2) stopped at the maximum output length"), "{err}");
    assert!(err.contains("characters the model has never seen (translated as unknown): 你 好"), "{err}");
    let scores = String::from_utf8(out.stdout).unwrap();
    assert!(scores.trim_start().starts_with("BLEU|"), "{scores}");
    // `--src -` (or `--ref -`) is standard input, as `-i -` is translate's (it read a file named "-"):
    // the same scores.
    let same_scores = |text: &str| text.lines().take(2).map(str::to_string).collect::<Vec<_>>();
    for (piped, name, given, other) in [("--src", "s.en", "--ref", "r.de"), ("--ref", "r.de", "--src", "s.en")] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_wgslate"))
            .args(["eval", "--model", model, "--backend", "cpu", "--max-len-a", "0", "--max-len-b", "20", piped, "-"])
            .arg(given)
            .arg(dir.join(other))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let text = std::fs::read(dir.join(name)).unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), &text).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{piped} -: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(same_scores(&String::from_utf8(out.stdout).unwrap()), same_scores(&scores), "{piped} -");
    }
    let both = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .args(["eval", "--model", model, "--src", "-", "--ref", "-"])
        .output()
        .unwrap();
    assert_eq!(both.status.code(), Some(2));
    assert!(String::from_utf8(both.stderr).unwrap().contains("both name standard input"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A paragraph on one line is translated sentence by sentence, as the page does, and comes back on
/// one line: the same words as its sentences translated on lines of their own.
#[test]
fn a_line_of_several_sentences_is_translated_sentence_by_sentence() {
    let (alone, _) =
        run(&[], "A dog runs on the beach.\nTwo men play guitar.\n\nMr. Smith walks past a J.P. Morgan sign.\n");
    let alone: Vec<&str> = alone.lines().collect();
    assert_eq!(alone.len(), 4);
    let (together, _) =
        run(&[], "A dog runs on the beach. Two men play guitar.\n\nMr. Smith walks past a J.P. Morgan sign.\n");
    let together: Vec<&str> = together.lines().collect();
    assert_eq!(together, [format!("{} {}", alone[0], alone[1]).as_str(), "", alone[3]]);
    // An n-best list is of the whole line.
    let (nbest, _) = run(&["--beam", "2", "--nbest", "2"], "A dog runs. Two men play.\n");
    assert_eq!(nbest.lines().filter(|l| l.starts_with("0 ||| ")).count(), 2, "{nbest}");
}

/// Windows line ends in, Windows line ends out (as the page's file translation keeps them).
#[test]
fn windows_line_ends_come_back() {
    let (unix, _) = run(&[], "A dog runs.\n\nTwo cats.\n");
    let (windows, _) = run(&[], "A dog runs.\r\n\r\nTwo cats.\r\n");
    assert_eq!(windows, unix.replace('\n', "\r\n"));
}

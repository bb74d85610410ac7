//! `wgslate translate --prefix/--prefixes` and `wgslate score`: a prefix taken from the greedy output
//! gives the greedy output, every output begins with its prefix, scoring the search's own outputs
//! gives the log-probability the search printed, and bad prefixes get one clear line.

mod common;
use common::{translate, wgslate};

const MODELS: [&str; 2] = [
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models/en-de/transformer"),
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models/en-de/gru"),
];

fn sentences(n: usize) -> Vec<String> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/data/test_2016_flickr.en")).unwrap();
    text.lines().take(n).map(str::to_string).collect()
}

fn temp(name: &str, lines: &[String]) -> String {
    let dir = std::env::temp_dir().join(format!("wgslate-lab-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    path.to_string_lossy().into_owned()
}

fn lines(out: &str) -> Vec<String> {
    out.lines().map(str::to_string).collect()
}

#[test]
fn a_prefix_of_the_greedy_output_gives_the_greedy_output() {
    let src = sentences(6);
    let src_file = temp("greedy-src", &src);
    for model in MODELS {
        let (ok, out, err) = translate(&["--model", model, "--backend", "cpu"], &src.join("\n"));
        assert!(ok, "{err}");
        let greedy = lines(&out);
        for k in 1..4 {
            // Each line's first k words as its prefix (--prefixes), and the first line's alone (--prefix).
            let prefixes: Vec<String> =
                greedy.iter().map(|g| g.split(' ').take(k).collect::<Vec<_>>().join(" ")).collect();
            let file = temp(&format!("prefixes-{k}"), &prefixes);
            let (ok, out, err) =
                translate(&["--model", model, "--backend", "cpu", "-i", &src_file, "--prefixes", &file], "");
            assert!(ok, "{err}");
            assert_eq!(lines(&out), greedy, "{model}, prefixes of {k} words");
            let (ok, out, _) = translate(&["--model", model, "--backend", "cpu", "--prefix", &prefixes[0]], &src[0]);
            assert!(ok);
            assert_eq!(out.trim_end(), greedy[0]);
        }
    }
}

#[test]
fn every_output_begins_with_its_prefix() {
    let src = sentences(5);
    for model in MODELS {
        for search in [vec![], vec!["--beam", "4"], vec!["--sample", "--seed", "3"]] {
            let args = [vec!["--model", model, "--backend", "cpu", "--prefix", "Zwei Katzen"], search.clone()].concat();
            let (ok, out, err) = translate(&args, &src.join("\n"));
            assert!(ok, "{err}");
            for l in lines(&out) {
                assert!(l.starts_with("Zwei Katzen"), "{model} {search:?}: {l}");
            }
        }
    }
}

#[test]
fn bad_prefixes_get_one_clear_line() {
    let model = MODELS[0];
    let long = "Hund ".repeat(300);
    let forty = "Hund ".repeat(40);
    let src = sentences(2);
    let two = temp("two", &src);
    let one = temp("one", &src[..1]);
    let cases: [(Vec<&str>, &str); 9] = [
        // Refused for its "<" and ">" (or, with a vocabulary that has them, as special tokens).
        (vec!["--prefix", "Ein </s> Hund"], "--prefix: the prefix h"),
        (vec!["--prefix", "ein Hund und ein Hund", "--beam", "4", "--no-repeat-ngram", "2"], "repeats a 2-gram"),
        (vec!["--prefixes", &one], "give the input as -i FILE"),
        (vec!["--prefix", "Привет мир"], "cannot spell (П, р, и, в, е, т, м)"),
        (vec!["--prefix", &long], "the prefix is 300 subwords"),
        (vec!["--prefix", "  "], "--prefix is empty"),
        (vec!["--prefix", "Ein", "--prefixes", &one], "give one of them"),
        (vec!["-i", &two, "--prefixes", &one], "has 1 line but the input has 2 lines"),
        (vec!["--prefix", &forty], "the translation of a sentence this long stops at"),
    ];
    for (args, want) in cases {
        let all = [vec!["--model", model, "--backend", "cpu"], args.clone()].concat();
        let (ok, out, err) = translate(&all, "A dog.");
        assert!(!ok && out.is_empty(), "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

#[test]
fn scoring_the_searchs_outputs_gives_the_log_probability_it_printed() {
    let src = sentences(20);
    let src_file = temp("score-src", &src);
    for model in MODELS {
        // The n-best list prints each hypothesis' log-probability (F0) with four decimals.
        let (ok, out, err) =
            translate(&["--model", model, "--backend", "cpu", "--beam", "2", "--nbest", "2"], &src.join("\n"));
        assert!(ok, "{err}");
        let entries: Vec<(usize, String, f64)> = out
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split(" ||| ").collect();
                (f[0].parse().unwrap(), f[1].to_string(), f[2].trim_start_matches("F0= ").parse().unwrap())
            })
            .collect();
        for rank in 0..2 {
            let hyps: Vec<String> =
                (0..src.len()).map(|i| entries.iter().filter(|e| e.0 == i).nth(rank).unwrap().1.clone()).collect();
            let hyp_file = temp(&format!("score-hyp-{rank}"), &hyps);
            let (ok, json, err) = wgslate(&[
                "score",
                "--model",
                model,
                "--src",
                &src_file,
                "--hyp",
                &hyp_file,
                "--backend",
                "cpu",
                "--json",
            ]);
            assert!(ok, "{err}");
            let scored: serde_json::Value = serde_json::from_str(&json).unwrap();
            let mut same = 0;
            for i in 0..src.len() {
                let want = entries.iter().filter(|e| e.0 == i).nth(rank).unwrap().2;
                let got = scored[i]["log_prob"].as_f64().unwrap();
                // The text is tokenized again: where that gives the search's subwords, the same figure.
                if format!("{got:.4}") == format!("{want:.4}") {
                    same += 1;
                }
                let lps: f64 =
                    scored[i]["token_log_probs"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).sum();
                assert!((lps - got).abs() < 1e-4, "the tokens' log-probabilities add up to the total");
            }
            assert!(same >= src.len() - 1, "{model} rank {rank}: {same} of {} equal", src.len());
        }
        // The text form: total, subwords, each subword's log-probability.
        let (ok, text, _) =
            wgslate(&["score", "--model", model, "--src", &src_file, "--hyp", &src_file, "--backend", "cpu"]);
        assert!(ok);
        let first: Vec<&str> = text.lines().next().unwrap().split('\t').collect();
        assert_eq!(first[2].split(' ').count(), first[1].parse::<usize>().unwrap());
    }
    let (ok, _, err) =
        wgslate(&["score", "--model", MODELS[0], "--src", &src_file, "--hyp", &temp("short", &src[..3])]);
    assert!(!ok && err.contains("has 20 lines but") && err.contains("has 3 lines"), "{err}");
}

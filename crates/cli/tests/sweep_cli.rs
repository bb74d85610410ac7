//! `wgslate eval --sweep`: each row is what a plain `wgslate eval` with that setting prints.

use std::process::Command;

fn eval(args: &[&str], src: &std::path::Path, reference: &std::path::Path) -> (bool, String, String) {
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/models/en-de/transformer-small");
    let out = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .args(["eval", "--model", model, "--backend", "cpu", "--src"])
        .arg(src)
        .arg("--ref")
        .arg(reference)
        .args(args)
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// `eval`'s "BLEU|… = 12.34 …" and "chrF2|… = 56.78" figures.
fn scores(report: &str) -> (String, String) {
    let figure = |name: &str| {
        let line = report.lines().find(|l| l.trim_start().starts_with(name)).unwrap();
        line.split(" = ").nth(1).unwrap().split_whitespace().next().unwrap().to_string()
    };
    (figure("BLEU|"), figure("chrF2|"))
}

#[test]
fn each_row_of_a_sweep_is_a_plain_eval_with_that_setting() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/data");
    let dir = std::env::temp_dir().join(format!("wgslate-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, reference) = (dir.join("s.en"), dir.join("r.de"));
    for (to, from) in [(&src, "val.en"), (&reference, "val.de")] {
        let text = std::fs::read_to_string(format!("{data}/{from}")).unwrap();
        std::fs::write(to, text.lines().take(12).map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    }
    let (ok, table, err) = eval(&["--sweep", "beam=1,3", "--csv"], &src, &reference);
    assert!(ok, "{err}");
    let rows: Vec<Vec<&str>> = table.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(table.lines().next(), Some("beam,BLEU,chrF2,ratio,hyp_len,ref_len,seconds"));
    assert_eq!(rows.len(), 2);
    for (row, beam) in rows.iter().zip(["1", "3"]) {
        let (ok, report, err) = eval(&["--beam", beam], &src, &reference);
        assert!(ok, "{err}");
        assert_eq!((row[0], row[1].to_string(), row[2].to_string()), (beam, scores(&report).0, scores(&report).1));
    }
    // A value the setting refuses, or a flag the sweep sets itself, is one line before any work.
    let (ok, _, err) = eval(&["--sweep", "beam=1,17"], &src, &reference);
    assert!(!ok && err.contains("between 1 and 16"), "{err}");
    let (ok, _, err) = eval(&["--sweep", "alpha=0,1", "--lenpen", "1"], &src, &reference);
    assert!(!ok && err.contains("drop --lenpen"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

//! `wgslate compare`: where two systems differ, as compare-mt 0.2.10 reports it by default (BLEU by
//! reference length, word F-measure by frequency, the n-grams each system matches more), plus the
//! spread of sentence-BLEU differences and the lines that differ most (`wgslate_metrics::compare`).

use wgslate_metrics::compare::{self, ngram_on_side, CompareOptions, Comparison};
use wgslate_metrics::{plural, pystr};

pub const USAGE: &str = "usage: wgslate compare REF SYS1 SYS2 [--freq-corpus FILE] [--json]

Where SYS1 and SYS2 differ against the reference REF, one line per sentence, tokenized text (words
are split at spaces as compare-mt does, case kept): compare-mt 0.2.10's BLEU by reference length,
word F-measure by frequency (in the --freq-corpus FILE, say the training data's target side, else
in REF) and the 20 n-grams each system matches more; then the histogram of sentence-BLEU differences
(sacreBLEU's sentence BLEU, SYS1 minus SYS2) and the 10 lines that differ most (numbered from 1).
--json writes it all as one JSON object. A name ending in .gz is read gunzipped.";

const ROLES: [&str; 3] = ["REF", "SYS1", "SYS2"];

pub fn run(args: &[String]) -> Result<(), String> {
    let (mut files, mut freq_corpus, mut as_json) = (Vec::new(), None, false);
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => as_json = true,
            "--freq-corpus" => freq_corpus = Some(args.next().ok_or(format!("--freq-corpus needs a file\n{USAGE}"))?),
            "--" => files.extend(args.by_ref()),
            flag if flag.starts_with("--") => return Err(format!("unknown argument '{flag}'\n{USAGE}")),
            _ => files.push(arg),
        }
    }
    let [reference, sys1, sys2] = files[..] else {
        return Err(format!("needs 3 files (REF SYS1 SYS2), got {}\n{USAGE}", files.len()));
    };
    let [refs, out1, out2] = [reference, sys1, sys2].map(|path| read_lines(path));
    let (refs, out1, out2) = (refs?, out1?, out2?);
    check_lines(&[reference, sys1, sys2], &[&refs, &out1, &out2])?;
    let freq_counts = match freq_corpus {
        Some(path) => Some(compare::word_counts(read_lines(path)?.iter().map(String::as_str))),
        None => None,
    };
    let options = CompareOptions { freq_counts, ..Default::default() };
    let c = compare::compare(&as_strs(&refs), &as_strs(&out1), &as_strs(&out2), &options)?;
    if as_json {
        println!("{}", c.to_json([sys1, sys2], freq_corpus.map_or("reference", String::as_str)));
    } else {
        print!("{}", to_text(&c, freq_corpus.map(String::as_str)));
    }
    Ok(())
}

fn as_strs(lines: &[String]) -> Vec<&str> {
    lines.iter().map(String::as_str).collect()
}

/// The file's lines as `wgslate bleu` reads them: UTF-8 (or why not), split on "\n".
fn read_lines(path: &str) -> Result<Vec<String>, String> {
    let bytes = crate::bleu_cmd::read_bytes(path)?;
    if wgslate_metrics::utf16_without_bom(&bytes) {
        return Err(wgslate_metrics::utf16_without_bom_message(path));
    }
    Ok(pystr::lines(&wgslate_metrics::utf8_text(path, bytes)?))
}

fn check_lines(paths: &[&String; 3], lines: &[&Vec<String>; 3]) -> Result<(), String> {
    let name = |i: usize| format!("{} ({})", ROLES[i], paths[i]);
    if lines[0].is_empty() {
        return Err(format!("{} is empty: nothing to compare", name(0)));
    }
    for i in 1..3 {
        if lines[i].len() != lines[0].len() {
            let has =
                if lines[i].is_empty() { "is empty".into() } else { format!("has {}", plural(lines[i].len(), "line")) };
            return Err(format!("{} {has} but {} has {}", name(i), name(0), plural(lines[0].len(), "line")));
        }
    }
    Ok(())
}

/// Rows as columns two spaces apart: the first left-aligned, the others right-aligned.
fn columns(rows: &[Vec<String>]) -> String {
    let width = |c: usize| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..rows.first().map_or(0, Vec::len)).map(width).collect();
    let line = |r: &Vec<String>| {
        let cells = r.iter().enumerate().map(|(c, s)| {
            if c == 0 {
                format!("{s:<w$}", w = widths[0])
            } else {
                format!("{s:>w$}", w = widths[c])
            }
        });
        cells.collect::<Vec<_>>().join("  ").trim_end().to_string() + "\n"
    };
    rows.iter().map(line).collect()
}

fn row(first: impl Into<String>, rest: impl IntoIterator<Item = String>) -> Vec<String> {
    std::iter::once(first.into()).chain(rest).collect()
}

fn f4(x: f64) -> String {
    pystr::fixed(x, 4)
}

fn to_text(c: &Comparison, freq_corpus: Option<&str>) -> String {
    let header = |first: &str, more: &[&str]| row(first, more.iter().map(|s| s.to_string()));
    let mut out = format!("{} compared; words split at spaces, as compare-mt splits them\n\n", plural(c.lines, "line"));

    out += "BLEU by reference length (compare-mt's BLEU, bucket_type=length)\n";
    let mut rows = vec![
        header("length", &["lines", "sys1", "sys2"]),
        row("all", [c.lines.to_string(), f4(c.bleu[0]), f4(c.bleu[1])]),
    ];
    rows.extend(c.length_buckets.iter().map(|b| row(&b.label, [b.lines.to_string(), f4(b.bleu[0]), f4(b.bleu[1])])));
    out += &columns(&rows);

    let source = freq_corpus.map_or("the reference".to_string(), |f| f.to_string());
    out += &format!("\nword F-measure by frequency in {source} (compare-mt's bucket_type=freq)\n");
    let mut rows = vec![header("frequency", &["ref words", "sys1 words", "sys1", "sys2 words", "sys2"])];
    rows.extend(c.frequency_buckets.iter().map(|b| {
        let [a, z] = &b.systems;
        row(
            &b.label,
            [b.ref_words.to_string(), a.words.to_string(), f4(a.f_measure), z.words.to_string(), f4(z.f_measure)],
        )
    }));
    out += &columns(&rows);

    for (s, (ahead, behind)) in [("sys1", "sys2"), ("sys2", "sys1")].into_iter().enumerate() {
        out += &format!("\nn-grams {ahead} matches more than {behind} (compare-mt's compare_type=match, alpha=1)\n");
        let on_side: Vec<_> = c.ngrams[s].iter().filter(|d| ngram_on_side(d.score, s)).collect();
        if on_side.is_empty() {
            out += "(none: every matched n-gram is matched as often by both, or more by the other)\n";
            continue;
        }
        let mut rows = vec![header("n-gram", &["score", "sys1", "sys2"])];
        rows.extend(
            on_side.iter().map(|d| row(&d.ngram, [f4(d.score), d.matches[0].to_string(), d.matches[1].to_string()])),
        );
        out += &columns(&rows);
    }

    out += "\nsentence BLEU of sys1 minus sys2 (sacreBLEU's sentence BLEU): lines\n";
    let most = c.histogram.iter().map(|b| b.lines).max().unwrap_or(0).max(1);
    let digits = most.to_string().len();
    for b in &c.histogram {
        let bar = "#".repeat((b.lines * 40).div_ceil(most));
        out += format!("{:<10}  {:>digits$}  {bar}", b.label, b.lines).trim_end();
        out += "\n";
    }

    out += "\nlines that differ most (sacreBLEU's sentence BLEU)\n";
    let mut rows = vec![header("line", &["sys1", "sys2", "sys1-sys2"])];
    rows.extend(
        c.top_lines
            .iter()
            .map(|d| row((d.line + 1).to_string(), [d.bleu[0], d.bleu[1], d.difference()].map(|x| pystr::fixed(x, 1)))),
    );
    out += &columns(&rows);
    out
}

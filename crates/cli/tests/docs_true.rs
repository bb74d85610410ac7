//! The documentation stays true: every relative link and #anchor in README.md and docs/*.md
//! resolves, every `wgslate` command and long flag they name exists in that command's `--help`, and
//! the README's table of shipped models is what `www/models/index.json` lists.
//!
//! The checks are pure functions over strings (the unit tests at the end feed each one a broken
//! link, an unknown flag or a wrong model row and see it reported); the tests above them run the
//! checks on the repository and the built `wgslate`, one `--help` per command.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::process::Command;

/// One markdown file: its path from the repository root ("README.md", "docs/cli.md") and text.
struct Doc {
    path: String,
    text: String,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// README.md and every docs/*.md, in name order.
fn repository_docs() -> Vec<Doc> {
    let root = root();
    let mut paths = vec!["README.md".to_string()];
    let mut in_docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    in_docs.sort();
    paths.extend(in_docs);
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(root.join(&path)).unwrap_or_else(|e| panic!("{path}: {e}"));
            Doc { path, text }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Markdown, as far as the checks need it.

/// One line of a markdown file: its 1-based number, its text, and whether it is code (inside a
/// fence, or an indented block after a blank line).
struct Line<'a> {
    number: usize,
    text: &'a str,
    code: bool,
}

fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    let mut previous_blank_or_code = true;
    for (i, text) in text.lines().enumerate() {
        let trimmed = text.trim_start();
        let indent = text.len() - trimmed.len();
        let marker = ["```", "~~~"].into_iter().find(|m| indent < 4 && trimmed.starts_with(m));
        let code = match (fence, marker) {
            (Some(open), Some(m)) if m == open => {
                fence = None;
                true
            }
            (Some(_), _) => true,
            (None, Some(m)) => {
                fence = Some(m);
                true
            }
            (None, None) => {
                (text.starts_with("    ") || text.starts_with('\t')) && previous_blank_or_code && !trimmed.is_empty()
            }
        };
        previous_blank_or_code = trimmed.is_empty() || code;
        out.push(Line { number: i + 1, text, code });
    }
    out
}

/// A paragraph's inline code spans (each with the offset, in chars, where it starts), and the
/// paragraph with each span blanked out (so its offsets stay those of the paragraph).
fn code_spans(line: &str) -> (Vec<(usize, String)>, String) {
    let chars: Vec<char> = line.chars().collect();
    let (mut spans, mut prose) = (Vec::new(), String::new());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            prose.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|&&c| c == '`').count();
        // The closing run has the same length; without one the backticks are literal.
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let r = chars[j..].iter().take_while(|&&c| c == '`').count();
                if r == run {
                    close = Some(j);
                    break;
                }
                j += r;
            } else {
                j += 1;
            }
        }
        match close {
            Some(j) => {
                spans.push((i, chars[i + run..j].iter().collect::<String>().trim().to_string()));
                prose.extend(std::iter::repeat_n(' ', j + run - i));
                i = j + run;
            }
            None => {
                prose.extend(&chars[i..i + run]);
                i += run;
            }
        }
    }
    (spans, prose)
}

/// The targets of the inline links and images `[text](target "title")` in a paragraph, each with
/// the offset (in chars) of its `(`.
fn link_targets(prose: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = prose.chars().collect();
    let mut out = Vec::new();
    for i in 1..chars.len() {
        if chars[i - 1] != ']' || chars[i] != '(' {
            continue;
        }
        // The link text's opening bracket must exist.
        let mut depth = 0;
        let opened = (0..i - 1).rev().any(|k| match chars[k] {
            ']' => {
                depth += 1;
                false
            }
            '[' if depth == 0 => true,
            '[' => {
                depth -= 1;
                false
            }
            _ => false,
        });
        if !opened {
            continue;
        }
        let mut depth = 0;
        let mut end = None;
        for (k, &c) in chars.iter().enumerate().skip(i + 1) {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = Some(k);
                    break;
                }
                ')' => depth -= 1,
                _ => {}
            }
        }
        let Some(end) = end else { continue };
        let inside: String = chars[i + 1..end].iter().collect();
        let target = inside.split_whitespace().next().unwrap_or("");
        out.push((i, target.trim_start_matches('<').trim_end_matches('>').to_string()));
    }
    out
}

/// A run of prose lines that markdown reads as one paragraph (so a code span or a link may cross a
/// line break), joined with spaces; `starts` maps an offset (in chars) back to its line.
struct Paragraph {
    text: String,
    starts: Vec<(usize, usize)>,
}

impl Paragraph {
    /// The line number of the char at `offset`.
    fn line_at(&self, offset: usize) -> usize {
        self.starts.iter().take_while(|(start, _)| *start <= offset).last().map_or(0, |(_, n)| *n)
    }
}

/// The prose of a markdown text as paragraphs: a blank line, a code line, a heading, a table row or
/// a list item starts a new one.
fn paragraphs(text: &str) -> Vec<Paragraph> {
    let mut out: Vec<Paragraph> = Vec::new();
    let mut open = false;
    for line in lines(text) {
        let trimmed = line.text.trim_start();
        if line.code || trimmed.is_empty() {
            open = false;
            continue;
        }
        let list_item = trimmed.starts_with("- ")
            || trimmed.starts_with("* ")
            || trimmed.split_once(". ").is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        let alone = trimmed.starts_with('#') || trimmed.starts_with('|');
        if !open || list_item || alone {
            out.push(Paragraph { text: String::new(), starts: Vec::new() });
        }
        let p = out.last_mut().unwrap();
        if !p.text.is_empty() {
            p.text.push(' ');
        }
        p.starts.push((p.text.chars().count(), line.number));
        p.text.push_str(trimmed);
        open = !alone;
    }
    out
}

/// GitHub's anchor for a heading's text: markup dropped, lower case, letters, digits, `-` and `_`
/// kept, each space a `-`, everything else dropped.
fn slug(heading: &str) -> String {
    // Links keep their text: [text](target) -> text.
    let mut text = String::new();
    let chars: Vec<char> = heading.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == ']' && chars.get(i + 1) == Some(&'(') {
            let close = chars[i..].iter().position(|&c| c == ')').map(|p| p + i);
            if let Some(close) = close {
                i = close + 1;
                continue;
            }
        }
        if chars[i] != '[' && chars[i] != '`' && chars[i] != '*' {
            text.push(chars[i]);
        }
        i += 1;
    }
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// Every heading anchor of a markdown text, duplicates numbered as GitHub numbers them (`x`,
/// `x-1`, `x-2`).
fn anchors(text: &str) -> Vec<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for line in lines(text).into_iter().filter(|l| !l.code) {
        let trimmed = line.text.trim_start();
        let hashes = trimmed.chars().take_while(|&c| c == '#').count();
        if line.text.len() - trimmed.len() > 3 || !(1..=6).contains(&hashes) {
            continue;
        }
        let rest = &trimmed[hashes..];
        if !(rest.is_empty() || rest.starts_with(' ')) {
            continue;
        }
        let base = slug(rest.trim().trim_end_matches('#'));
        let n = seen.entry(base.clone()).or_insert(0);
        out.push(if *n == 0 { base.clone() } else { format!("{base}-{n}") });
        *n += 1;
    }
    out
}

// ---------------------------------------------------------------------------------------------
// (a) Relative links and anchors.

/// What a link's path names: a markdown file (its text, for its anchors) or any other file or
/// folder; None when nothing is there.
enum Target {
    Markdown(String),
    Other,
}

/// `base` (a doc's folder, from the root) joined with a relative path, `..` resolved; None when it
/// climbs out of the repository.
fn join(base: &str, relative: &str) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for c in Path::new(base).join(relative).components() {
        match c {
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(parts.join("/"))
}

fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        if let (b'%', Some(Ok(b))) = (bytes[i], hex.map(|h| u8::from_str_radix(h, 16))) {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Every relative link of `docs` whose file, or whose #anchor in a markdown file, does not exist.
/// `find` looks a path (from the repository root) up.
fn check_links(docs: &[Doc], find: &dyn Fn(&str) -> Option<Target>) -> Vec<String> {
    let mut errors = Vec::new();
    for doc in docs {
        let dir = Path::new(&doc.path).parent().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        for paragraph in paragraphs(&doc.text) {
            let (_, prose) = code_spans(&paragraph.text);
            for (offset, target) in link_targets(&prose) {
                let at = format!("{}:{}", doc.path, paragraph.line_at(offset));
                let scheme = target.split_once(':').is_some_and(|(s, _)| {
                    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
                });
                if scheme || target.starts_with("//") {
                    continue;
                }
                let (path, anchor) = match target.split_once('#') {
                    Some((p, a)) => (p, Some(a)),
                    None => (target.as_str(), None),
                };
                let (shown, text) = if path.is_empty() {
                    (doc.path.clone(), Some(doc.text.clone()))
                } else {
                    let Some(full) = join(&dir, &percent_decoded(path)) else {
                        errors.push(format!("{at}: link `{target}` leaves the repository"));
                        continue;
                    };
                    match find(&full) {
                        None => {
                            errors.push(format!("{at}: link `{target}`: no file {full}"));
                            continue;
                        }
                        Some(Target::Markdown(text)) => (full, Some(text)),
                        Some(Target::Other) => (full, None),
                    }
                };
                match (anchor, text) {
                    (None, _) => {}
                    (Some(a), Some(text)) => {
                        if !anchors(&text).iter().any(|x| x == a) {
                            errors.push(format!("{at}: link `{target}`: {shown} has no heading #{a}"));
                        }
                    }
                    (Some(_), None) => {
                        errors.push(format!("{at}: link `{target}`: an anchor into {shown}, which is not markdown"))
                    }
                }
            }
        }
    }
    errors
}

// ---------------------------------------------------------------------------------------------
// (b) Commands and long flags.

/// sacreBLEU 2.6.0's long options whose `wgslate bleu --help` (argparse's usage line) shows only
/// the short spelling: a long one is named there through its short one.
const BLEU_SPELLINGS: &[(&str, &str)] = &[
    ("--language-pair", "-l"),
    ("--input", "-i"),
    ("--num-refs", "-nr"),
    ("--encoding", "-e"),
    ("--metrics", "-m"),
    ("--sentence-level", "-sl"),
    ("--smooth-method", "-s"),
    ("--smooth-value", "-sv"),
    ("--tokenize", "-tok"),
    ("--lowercase", "-lc"),
    ("--chrf-char-order", "-cc"),
    ("--chrf-word-order", "-cw"),
    ("--confidence", "-ci"),
    ("--confidence-n", "-cin"),
    ("--paired-bs", "-pbs"),
    ("--paired-bs-n", "-pbsn"),
    ("--paired-jobs", "-j"),
    ("--quiet", "-q"),
    ("--short", "-sh"),
    ("--score-only", "-b"),
    ("--width", "-w"),
    ("--detail", "-d"),
    ("--no-color", "-nc"),
    ("--format", "-f"),
    ("--version", "-V"),
    ("--test-set", "-t"),
];

/// The texts where commands are written: each inline code span of prose, each line of code; with
/// the line each starts on.
fn command_texts(doc: &Doc) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> =
        lines(&doc.text).into_iter().filter(|l| l.code).map(|l| (l.number, l.text.to_string())).collect();
    for paragraph in paragraphs(&doc.text) {
        out.extend(code_spans(&paragraph.text).0.into_iter().map(|(offset, s)| (paragraph.line_at(offset), s)));
    }
    out.sort_by_key(|(number, _)| *number);
    out
}

/// Whether `word` appears in `text` on its own (not as the start of a longer flag).
fn names(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '-')
            && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

/// The commands the top-level usage lists: the indented lines under "commands:".
fn listed_commands(top_help: &str) -> Vec<String> {
    top_help
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// A token that ends the current command in a shell line.
fn ends_command(token: &str) -> bool {
    matches!(token, ";" | "|" | "||" | "&" | "&&" | ">" | ">>" | "<" | "2>" | ")" | "do" | "then")
        || token.starts_with('#')
        || is_program(token)
}

/// A program's name, after which a token is not a flag of `wgslate`'s.
fn is_program(token: &str) -> bool {
    let name = token.rsplit('/').next().unwrap_or(token);
    (name.starts_with("wgslate") && !name.contains('_'))
        || ["cargo", "sacrebleu", "python", "python3", "node"].contains(&name)
}

/// Every `wgslate SUB` of `docs` whose SUB is not a command, and every `--flag` written after it
/// (in the same code span or code line) that its `--help` does not name. `helps` holds each
/// command's `--help` output ("help" included, as `wgslate help` prints the top-level usage).
fn check_commands(docs: &[Doc], top_help: &str, helps: &BTreeMap<String, String>) -> Vec<String> {
    let mut errors = Vec::new();
    for doc in docs {
        for (number, text) in command_texts(doc) {
            let tokens: Vec<&str> = text.split_whitespace().collect();
            for (i, &token) in tokens.iter().enumerate() {
                let name = token.trim_start_matches(['(', '[', '"', '\'']);
                // `wgslate SUB`, `…/wgslate SUB`, or `cargo run -p wgslate-cli -- SUB`.
                let sub_at = if name == "wgslate" || name.ends_with("/wgslate") {
                    i + 1
                } else if name == "wgslate-cli" && tokens.get(i + 1) == Some(&"--") {
                    i + 2
                } else {
                    continue;
                };
                let Some(&sub) = tokens.get(sub_at) else { continue };
                let at = format!("{}:{number}", doc.path);
                let sub = sub.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
                let (help, first_flag) = if sub.starts_with("--") {
                    (top_help, sub_at)
                } else if sub.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                    && sub.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                {
                    match helps.get(sub) {
                        Some(help) => (help.as_str(), sub_at + 1),
                        None => {
                            errors.push(format!("{at}: `wgslate {sub}`: no such command (`{text}`)"));
                            continue;
                        }
                    }
                } else {
                    continue; // a placeholder such as <command>
                };
                let command = if sub.starts_with("--") { "wgslate".to_string() } else { format!("wgslate {sub}") };
                for &t in tokens[first_flag..].iter().take_while(|t| !ends_command(t)) {
                    let t = t.trim_start_matches(['(', '[', '{', '"', '\'']);
                    if !t.starts_with("--") || !t[2..].starts_with(|c: char| c.is_ascii_alphabetic()) {
                        continue;
                    }
                    let flag: String = t.chars().take_while(|&c| c.is_ascii_alphanumeric() || c == '-').collect();
                    let flag = flag.trim_end_matches('-');
                    let short = if sub == "bleu" {
                        BLEU_SPELLINGS.iter().find(|(long, _)| *long == flag).map(|(_, short)| *short)
                    } else {
                        None
                    };
                    let known = flag == "--help" || names(help, flag) || short.is_some_and(|s| names(help, s));
                    if !known {
                        errors.push(format!("{at}: `{command}` has no flag {flag} in its --help (`{text}`)"));
                    }
                }
            }
        }
    }
    errors
}

// ---------------------------------------------------------------------------------------------
// (c) The README's table of shipped models.

/// The heading the models table sits under.
const MODELS_HEADING: &str = "shipped-models";

/// The first table under the README's "Shipped models" heading against `www/models/index.json`:
/// the same models in the same order, each row's model (`pair/arch`), title, bytes, size in MB
/// (bytes / 10^6, one decimal) and test BLEU (two decimals) as the index states them.
fn check_models_table(readme: &str, index_json: &str) -> Vec<String> {
    let index: Vec<serde_json::Value> = match serde_json::from_str(index_json) {
        Ok(v) => v,
        Err(e) => return vec![format!("www/models/index.json: {e}")],
    };
    let all = lines(readme);
    let Some(start) = all.iter().position(|l| {
        !l.code && l.text.starts_with('#') && slug(l.text.trim_start_matches('#').trim()) == MODELS_HEADING
    }) else {
        return vec![format!("README.md: no heading #{MODELS_HEADING}")];
    };
    let table: Vec<&Line> = all[start + 1..]
        .iter()
        .skip_while(|l| !l.text.starts_with('|') && !l.text.starts_with('#'))
        .take_while(|l| l.text.starts_with('|'))
        .collect();
    if table.len() < 2 {
        return vec![format!("README.md: no table under #{MODELS_HEADING}")];
    }
    let cells = |l: &str| -> Vec<String> {
        l.trim().trim_matches('|').split('|').map(|c| c.trim().replace(['`', '*'], "")).collect()
    };
    let header = cells(table[0].text);
    let column = |name: &str| header.iter().position(|h| h == name);
    let columns = ["model", "title", "MB", "bytes", "test BLEU"];
    let missing: Vec<&str> = columns.iter().copied().filter(|c| column(c).is_none()).collect();
    if !missing.is_empty() {
        return vec![format!("README.md:{}: the models table has no column {}", table[0].number, missing.join(", "))];
    }
    let mut errors = Vec::new();
    let rows = &table[2..];
    for (k, entry) in index.iter().enumerate() {
        let pair = entry["pair"].as_str().unwrap_or("?");
        let arch = entry["arch"].as_str().unwrap_or("?");
        let id = format!("{pair}/{arch}");
        let bytes = entry["bytes"].as_u64().unwrap_or(0);
        let expected = [
            ("model", id.clone()),
            ("title", entry["title"].as_str().unwrap_or("?").to_string()),
            ("MB", format!("{:.1}", bytes as f64 / 1e6)),
            ("bytes", bytes.to_string()),
            ("test BLEU", format!("{:.2}", entry["test_bleu"].as_f64().unwrap_or(f64::NAN))),
        ];
        let Some(row) = rows.get(k) else {
            errors.push(format!("README.md: the models table lacks {id} (row {} of the index)", k + 1));
            continue;
        };
        let got = cells(row.text);
        for (name, want) in expected {
            let cell = got.get(column(name).unwrap()).cloned().unwrap_or_default();
            // Digits may be grouped with spaces (3 815 317).
            let cell = if name == "bytes" { cell.replace([' ', '\u{202f}', '\u{a0}', ','], "") } else { cell };
            if cell != want {
                errors.push(format!("README.md:{}: {id}'s {name} is {cell:?}, the index says {want:?}", row.number));
            }
        }
    }
    for row in rows.iter().skip(index.len()) {
        errors.push(format!("README.md:{}: a model the index does not list: {}", row.number, row.text));
    }
    errors
}

// ---------------------------------------------------------------------------------------------
// (d) No internal work counters: the docs name a date, a commit or a command instead.

fn check_no_counters(docs: &[Doc]) -> Vec<String> {
    let word = ["ses", "sion"].concat();
    let mut errors = Vec::new();
    for doc in docs {
        for (i, line) in doc.text.lines().enumerate() {
            let lower = line.to_lowercase();
            for (at, _) in lower.match_indices(&word) {
                let rest = lower[at + word.len()..].trim_start_matches('s').trim_start_matches(['-', ' ']);
                if rest.starts_with(|c: char| c.is_ascii_digit()) {
                    errors.push(format!("{}:{}: a work counter: {}", doc.path, i + 1, line.trim()));
                }
            }
        }
    }
    errors
}

// ---------------------------------------------------------------------------------------------
// The checks on the repository.

fn wgslate(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .args(args)
        .env("XDG_RUNTIME_DIR", std::env::var_os("XDG_RUNTIME_DIR").unwrap_or_else(|| std::env::temp_dir().into()))
        .output()
        .unwrap();
    assert!(out.status.success(), "wgslate {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn report(what: &str, errors: Vec<String>) {
    assert!(errors.is_empty(), "{what}:\n{}", errors.join("\n"));
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let root = root();
    let find = |path: &str| -> Option<Target> {
        let full = root.join(path);
        if !full.exists() {
            None
        } else if path.ends_with(".md") && full.is_file() {
            Some(Target::Markdown(std::fs::read_to_string(full).ok()?))
        } else {
            Some(Target::Other)
        }
    };
    report("links that do not resolve", check_links(&repository_docs(), &find));
}

#[test]
fn every_command_and_long_flag_named_exists() {
    let top = wgslate(&["--help"]);
    let mut helps = BTreeMap::new();
    for command in listed_commands(&top) {
        helps.insert(command.clone(), wgslate(&[&command, "--help"]));
    }
    assert!(helps.contains_key("translate"), "wgslate --help lists no commands:\n{top}");
    helps.insert("help".to_string(), wgslate(&["help"]));
    report("commands or flags the docs name that do not exist", check_commands(&repository_docs(), &top, &helps));
}

#[test]
fn the_readme_models_table_is_the_index() {
    let root = root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let index = std::fs::read_to_string(root.join("www/models/index.json")).unwrap();
    report("the README's models table against www/models/index.json", check_models_table(&readme, &index));
}

#[test]
fn the_docs_name_no_work_counters() {
    report("work counters (say the date, the commit or the command)", check_no_counters(&repository_docs()));
}

// ---------------------------------------------------------------------------------------------
// The checks can fail.

fn doc(path: &str, text: &str) -> Doc {
    Doc { path: path.to_string(), text: text.to_string() }
}

#[test]
fn slugs_follow_github() {
    assert_eq!(slug("Set-up (fresh Debian with rustup)"), "set-up-fresh-debian-with-rustup");
    assert_eq!(slug("GPU = CPU parity"), "gpu--cpu-parity");
    assert_eq!(slug("`wgslate bleu` and sacreBLEU"), "wgslate-bleu-and-sacrebleu");
    assert_eq!(slug("int8 against f16, test_2016_flickr"), "int8-against-f16-test_2016_flickr");
    assert_eq!(slug("[Links](x.md) and **bold**"), "links-and-bold");
    assert_eq!(slug("English → German"), "english--german");
    assert_eq!(anchors("# A\n## A\n```\n# not a heading\n```\n### A\n"), ["a", "a-1", "a-2"]);
}

#[test]
fn a_broken_link_or_anchor_is_reported() {
    let guide = "# Guide\n\n## The BLEU view\n\nSee [cli](cli.md#flags) and [up](#the-bleu-view).\n";
    let cli = "# CLI\n\n## Flags\n\n![shot](img/a.png) [readme](../README.md) [web](https://example.org/x)\n";
    let files: BTreeMap<&str, Option<&str>> = [
        ("docs/guide.md", Some(guide)),
        ("docs/cli.md", Some(cli)),
        ("README.md", Some("# wgslate\n")),
        ("docs/img/a.png", None),
        ("src", None),
    ]
    .into_iter()
    .collect();
    let find = |p: &str| {
        files.get(p).map(|t| match t {
            Some(text) => Target::Markdown(text.to_string()),
            None => Target::Other,
        })
    };
    assert_eq!(check_links(&[doc("docs/guide.md", guide), doc("docs/cli.md", cli)], &find), Vec::<String>::new());

    let broken = doc(
        "docs/broken.md",
        "# Broken\n\n[a](missing.md) [b](cli.md#no-such-heading) [c](#nowhere) [d](../../outside.md)\n\
         [e](../src#anchor) `[not a link](nowhere.md)`\n\n    [code](nowhere.md)\n\n\
         A [link over\ntwo lines](gone.md) and `a span [over\ntwo lines](nowhere.md)`.\n",
    );
    let errors = check_links(&[broken], &find);
    assert_eq!(errors.len(), 6, "{errors:#?}");
    assert!(errors[0].contains("docs/broken.md:3") && errors[0].contains("no file docs/missing.md"), "{errors:#?}");
    assert!(errors[1].contains("docs/cli.md has no heading #no-such-heading"), "{errors:#?}");
    assert!(errors[2].contains("docs/broken.md has no heading #nowhere"), "{errors:#?}");
    assert!(errors[3].contains("leaves the repository"), "{errors:#?}");
    assert!(errors[4].contains("not markdown"), "{errors:#?}");
    assert!(errors[5].contains("docs/broken.md:9: link `gone.md`"), "{errors:#?}");
}

#[test]
fn an_unknown_command_or_flag_is_reported() {
    let top = "usage: wgslate <command> [args]\n\ncommands:\n  bleu   score\n  translate   translate\n\n\
               wgslate <command> --help shows a command's flags; wgslate --version its version.\n";
    let helps: BTreeMap<String, String> = [
        ("bleu", "usage: wgslate bleu REF [-i HYP] [-m {bleu,chrf}] [-pbs] [-w N] [--chrf-whitespace]"),
        ("translate", "usage: wgslate translate --model DIR [--beam K] [--top-k K] [-o FILE]"),
        ("help", top),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(listed_commands(top), ["bleu", "translate"]);
    let good = doc(
        "docs/cli.md",
        "Run `wgslate translate --model m --beam=4` or `wgslate bleu REF -i HYP --paired-bs --width 2`.\n\
         `wgslate --version`, `wgslate help`, `wgslate <command> --help`, `wgslate-train --epochs 3`.\n\n\
         ```sh\n./target/release/wgslate translate --model m -i x > out   # then --whatever in a comment\n\
         cargo run --release -p wgslate-cli -- bleu ref -i hyp [--chrf-whitespace] | sacrebleu ref --paired-ar\n```\n",
    );
    assert_eq!(check_commands(&[good], top, &helps), Vec::<String>::new());

    let bad = doc(
        "README.md",
        "`wgslate translate --model m --beem 4` and `wgslate frobnicate --x`\n\n\
         ```\nM=x; ./runs/bin/wgslate translate --model $M --top-p 0.9 & done\n```\n\
         `wgslate bleu REF -i HYP --paired-ar` `wgslate --versions`\n\n\
         A span over two lines, `wgslate translate --model m\n--top-k 3 --frob 1`, is one command.\n",
    );
    let errors = check_commands(&[bad], top, &helps);
    assert_eq!(errors.len(), 6, "{errors:#?}");
    assert!(errors[0].contains("README.md:1") && errors[0].contains("`wgslate translate` has no flag --beem"));
    assert!(errors[1].contains("`wgslate frobnicate`: no such command"), "{errors:#?}");
    assert!(errors[2].contains("README.md:4") && errors[2].contains("no flag --top-p"), "{errors:#?}");
    assert!(errors[3].contains("`wgslate bleu` has no flag --paired-ar"), "{errors:#?}");
    assert!(errors[4].contains("`wgslate` has no flag --versions"), "{errors:#?}");
    assert!(errors[5].contains("README.md:8") && errors[5].contains("no flag --frob"), "{errors:#?}");
}

#[test]
fn a_wrong_or_missing_model_row_is_reported() {
    let index = r#"[
      {"pair": "en-de", "arch": "transformer", "title": "Transformer (distilled)", "bytes": 3815317, "test_bleu": 38.71},
      {"pair": "de-en", "arch": "transformer", "title": "Transformer", "bytes": 7787885, "test_bleu": 41.35}
    ]"#;
    let table = |rows: &str| {
        format!(
            "# wgslate\n\n## Shipped models\n\nText.\n\n| model | title | MB | bytes | test BLEU |\n|---|---|---|---|---|\n{rows}\n\
             ## Next\n"
        )
    };
    let good = "| `en-de/transformer` | Transformer (distilled) | 3.8 | 3 815 317 | **38.71** |\n\
                | `de-en/transformer` | Transformer | 7.8 | 7 787 885 | 41.35 |\n";
    assert_eq!(check_models_table(&table(good), index), Vec::<String>::new());

    let wrong = "| `en-de/transformer` | Transformer (distilled) | 3.8 | 3 815 318 | 38.71 |\n\
                 | `de-en/transformer` | Transformer | 7.8 | 7 787 885 | 41.53 |\n";
    let errors = check_models_table(&table(wrong), index);
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(errors[0].contains("README.md:9") && errors[0].contains("en-de/transformer's bytes"), "{errors:#?}");
    assert!(errors[1].contains("de-en/transformer's test BLEU is \"41.53\""), "{errors:#?}");

    let missing = "| `en-de/transformer` | Transformer (distilled) | 3.8 | 3 815 317 | 38.71 |\n";
    let errors = check_models_table(&table(missing), index);
    assert!(errors.len() == 1 && errors[0].contains("lacks de-en/transformer"), "{errors:#?}");

    let extra = format!("{good}| `fr-en/transformer` | Transformer | 7.8 | 7 791 932 | 51.24 |\n");
    let errors = check_models_table(&table(&extra), index);
    assert!(errors.len() == 1 && errors[0].contains("does not list"), "{errors:#?}");

    let errors = check_models_table("# wgslate\n\n## Models\n", index);
    assert!(errors.len() == 1 && errors[0].contains("no heading #shipped-models"), "{errors:#?}");
}

#[test]
fn a_work_counter_is_reported() {
    let word = ["Ses", "sion"].concat();
    let text = format!(
        "Measured on 2026-11-26 (a3c6dc8).\nIn {word} 26 it was shipped; {word}s 28–29; the {word}-30 student.\n"
    );
    let errors = check_no_counters(&[doc("docs/models.md", &text)]);
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(errors.iter().all(|e| e.starts_with("docs/models.md:2:")), "{errors:#?}");
    assert!(check_no_counters(&[doc("docs/guide.md", "sessionStorage keeps the boxes.\n")]).is_empty());
}

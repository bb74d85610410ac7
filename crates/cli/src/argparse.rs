//! Python 3.11's argparse, as far as sacreBLEU's parser uses it (`allow_abbrev`, one positional
//! argument with nargs='*'): which option a word names, how many values it takes, which words are
//! positional, and Python's `int()` and `float()` of a value. `bleu_args.rs` holds sacreBLEU's
//! options and what each does.

use wgslate_metrics::pystr::decimal_value;

/// How many values an option takes (argparse's nargs).
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Takes {
    Nothing,
    One,
    /// nargs='*'
    Any,
    /// nargs='+'
    AtLeastOne,
}

/// Options in the order the parser registers them, each with all its spellings: argparse resolves
/// abbreviations against this list and names ambiguous matches in this order.
pub type Options = [(&'static [&'static str], Takes)];

/// Whether parsing goes on after an option has acted.
pub enum Flow {
    Go,
    Stop,
}

/// How argparse names an option in a message: "argument --width/-w".
pub fn argument(options: &Options, opt: usize) -> String {
    format!("argument {}", options[opt].0.join("/"))
}

/// One command-line word as argparse sees it before consuming any.
#[derive(Debug, Clone)]
enum Word {
    /// A value or a file name ('A').
    Value,
    /// The first "--" ('-'): every word after it is a value.
    Dashes,
    /// An option ('O'): which one (None: unknown), as spelled, and a value joined to it.
    Opt { opt: Option<usize>, spelled: String, joined: Option<String> },
}

fn exact(options: &Options, spelled: &str) -> Option<usize> {
    options.iter().position(|(names, _)| names.contains(&spelled))
}

/// argparse's `_parse_optional` and `_get_option_tuples` (Python 3.11, `allow_abbrev`): exact
/// spellings, `--opt=value`, unique prefixes of long options, and a one-letter option with its
/// value or further one-letter flags joined (`-w3`, `-bq`).
fn classify(options: &Options, arg: &str) -> Result<Word, String> {
    if !arg.starts_with('-') || arg.len() == 1 {
        return Ok(Word::Value);
    }
    if let Some(opt) = exact(options, arg) {
        return Ok(Word::Opt { opt: Some(opt), spelled: arg.into(), joined: None });
    }
    if let Some((name, value)) = arg.split_once('=') {
        if let Some(opt) = exact(options, name) {
            return Ok(Word::Opt { opt: Some(opt), spelled: name.into(), joined: Some(value.into()) });
        }
    }
    let mut matches: Vec<(usize, &str, Option<String>)> = Vec::new();
    for (k, (names, _)) in options.iter().enumerate() {
        for name in names.iter() {
            if let Some(long) = arg.strip_prefix("--") {
                let (prefix, value) = match long.split_once('=') {
                    Some((p, v)) => (p, Some(v.to_string())),
                    None => (long, None),
                };
                if name.starts_with(&format!("--{prefix}")) {
                    matches.push((k, name, value));
                }
            } else if arg.get(..2) == Some(name) {
                matches.push((k, name, Some(arg[2..].to_string())));
            } else if name.starts_with(arg) {
                matches.push((k, name, None));
            }
        }
    }
    match matches.len() {
        0 => {}
        1 => {
            let (k, name, joined) = matches.pop().expect("one match");
            return Ok(Word::Opt { opt: Some(k), spelled: name.into(), joined });
        }
        _ => {
            let names: Vec<&str> = matches.iter().map(|m| m.1).collect();
            return Err(format!("ambiguous option: {arg} could match {}", names.join(", ")));
        }
    }
    // A negative number or a word with a space is a value, not an unknown option. argparse's
    // pattern, `^-\d+$|^-\d*\.\d+$`: digits of any script, and `$` also before a last line break.
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| decimal_value(c).is_some());
    let number = arg[1..].strip_suffix('\n').unwrap_or(&arg[1..]);
    let negative_number =
        digits(number) || number.split_once('.').is_some_and(|(a, b)| (a.is_empty() || digits(a)) && digits(b));
    if negative_number || arg.contains(' ') {
        return Ok(Word::Value);
    }
    Ok(Word::Opt { opt: None, spelled: arg.into(), joined: None })
}

/// The word as Python's number parsers see it: digits of every script as ASCII digits.
fn ascii_digits(v: &str) -> String {
    v.trim().chars().map(|c| decimal_value(c).and_then(|d| char::from_digit(d, 10)).unwrap_or(c)).collect()
}

/// Python's `int()` of a command-line word: surrounding whitespace, a sign, `_` between digits, and
/// digits of any script (`٣`).
pub fn python_int(v: &str) -> Option<i64> {
    let t = &ascii_digits(v);
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let ok = !body.is_empty()
        && !body.starts_with('_')
        && !body.ends_with('_')
        && !body.contains("__")
        && body.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    if !ok {
        return None;
    }
    // Python ints have no bound: one past i64 is kept as the nearest i64, past every limit a use sets.
    let digits = body.replace('_', "");
    let n: i64 = digits.parse().unwrap_or(i64::MAX);
    Some(if neg { -n } else { n })
}

/// Python's `float()` of a command-line word (whitespace, `_` between digits, digits of any script).
pub fn python_float(v: &str) -> Option<f64> {
    let t = &ascii_digits(v);
    let lower = t.to_ascii_lowercase();
    let bare = lower.trim_start_matches(['+', '-']);
    if ["inf", "infinity", "nan"].contains(&bare) {
        return t.parse().ok().or_else(|| lower.replace("infinity", "inf").parse().ok());
    }
    let underscores_ok = t.split('_').count() == 1
        || t.as_bytes().windows(3).all(|w| w[1] != b'_' || (w[0].is_ascii_digit() && w[2].is_ascii_digit()))
            && !t.starts_with('_')
            && !t.ends_with('_');
    if !underscores_ok || bare.starts_with(|c: char| !c.is_ascii_digit() && c != '.') {
        return None;
    }
    t.replace('_', "").parse().ok()
}

/// Reads `argv` as argparse reads it against `options` (one positional argument with nargs='*'):
/// each option is handed to `take` with its values, in order, as argparse takes its action
/// (`Flow::Stop` ends there: help and version); then the positional words come back. Errors carry
/// argparse's messages.
pub fn parse(
    options: &Options,
    argv: &[String],
    mut take: impl FnMut(usize, Vec<String>) -> Result<Flow, String>,
) -> Result<Option<Vec<String>>, String> {
    let mut words = Vec::with_capacity(argv.len());
    let mut after_dashes = false;
    for arg in argv {
        words.push(if after_dashes {
            Word::Value
        } else if arg == "--" {
            after_dashes = true;
            Word::Dashes
        } else {
            classify(options, arg)?
        });
    }
    let mut positional: Option<Vec<String>> = None;
    let mut extras: Vec<String> = Vec::new();
    let is_opt = |k: usize| matches!(words.get(k), Some(Word::Opt { .. }));
    // The positional words: one run of values (and "--") from `start`, the first "--" dropped.
    let positionals = |start: usize, positional: &mut Option<Vec<String>>| -> usize {
        if positional.is_some() {
            return start;
        }
        let end = (start..words.len()).find(|&k| is_opt(k)).unwrap_or(words.len());
        let mut refs = argv[start..end].to_vec();
        if let Some(k) = refs.iter().position(|r| r == "--") {
            refs.remove(k);
        }
        *positional = Some(refs);
        end
    };
    let last_opt = (0..words.len()).rev().find(|&k| is_opt(k));
    let mut start = 0;
    while last_opt.is_some_and(|last| start <= last) {
        let next = (start..words.len()).find(|&k| is_opt(k)).expect("an option at or after start");
        if start != next {
            let end = positionals(start, &mut positional);
            if end > start {
                start = end;
                continue;
            }
            extras.extend(argv[start..next].iter().cloned());
            start = next;
        }
        let Word::Opt { opt, spelled, joined } = words[start].clone() else { unreachable!("an option") };
        let (mut opt, mut spelled, mut joined) = (opt, spelled, joined);
        // As argparse: a chain such as `-bq` is checked whole before any of it acts.
        let mut actions: Vec<(usize, Vec<String>)> = Vec::new();
        loop {
            let Some(k) = opt else {
                extras.push(argv[start].clone());
                start += 1;
                break;
            };
            let takes = options[k].1;
            if let Some(value) = joined.take() {
                if takes == Takes::Nothing {
                    // `-bq`: a one-letter flag followed by more one-letter options.
                    let first = value.chars().next();
                    let next = first.map(|c| format!("-{c}")).and_then(|s| exact(options, &s).map(|o| (o, s)));
                    match next.filter(|_| !spelled.starts_with("--")) {
                        Some((o, s)) => {
                            actions.push((k, vec![]));
                            let rest = &value[first.map_or(0, char::len_utf8)..];
                            (opt, spelled, joined) = (Some(o), s, (!rest.is_empty()).then(|| rest.to_string()));
                            continue;
                        }
                        None => return Err(format!("{}: ignored explicit argument '{value}'", argument(options, k))),
                    }
                }
                actions.push((k, vec![value]));
                start += 1;
                break;
            }
            let values_end =
                (start + 1..words.len()).find(|&j| !matches!(words[j], Word::Value)).unwrap_or(words.len());
            let available = values_end - start - 1;
            let count = match takes {
                Takes::Nothing => 0,
                Takes::One | Takes::AtLeastOne if available == 0 => {
                    let what = if takes == Takes::One { "one argument" } else { "at least one argument" };
                    return Err(format!("{}: expected {what}", argument(options, k)));
                }
                Takes::One => 1,
                Takes::Any | Takes::AtLeastOne => available,
            };
            actions.push((k, argv[start + 1..start + 1 + count].to_vec()));
            start += 1 + count;
            break;
        }
        for (k, values) in actions {
            if let Flow::Stop = take(k, values)? {
                return Ok(None);
            }
        }
    }
    let stop = positionals(start, &mut positional);
    extras.extend(argv[stop..].iter().cloned());
    if !extras.is_empty() {
        return Err(format!("unrecognized arguments: {}", extras.join(" ")));
    }
    Ok(Some(positional.unwrap_or_default()))
}

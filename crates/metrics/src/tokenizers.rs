//! sacreBLEU's BLEU tokenizers: 13a (default), intl, zh, char, none.

use crate::pystr;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tokenize {
    Thirteen,
    Intl,
    Zh,
    Char,
    None,
}

impl Tokenize {
    pub fn parse(name: &str) -> Result<Self, String> {
        Ok(match name {
            "13a" => Tokenize::Thirteen,
            "intl" => Tokenize::Intl,
            "zh" => Tokenize::Zh,
            "char" => Tokenize::Char,
            "none" => Tokenize::None,
            other => return Err(format!("unknown tokenizer '{other}' (choose from 13a, intl, zh, char, none)")),
        })
    }

    pub fn name(&self) -> &'static str {
        match self {
            Tokenize::Thirteen => "13a",
            Tokenize::Intl => "intl",
            Tokenize::Zh => "zh",
            Tokenize::Char => "char",
            Tokenize::None => "none",
        }
    }

    pub fn apply(&self, line: &str) -> String {
        match self {
            Tokenize::Thirteen => tokenize_13a(line),
            Tokenize::Intl => tokenize_intl(line),
            Tokenize::Zh => tokenize_zh(line),
            Tokenize::Char => line.chars().map(|c| c.to_string()).collect::<Vec<_>>().join(" "),
            Tokenize::None => line.to_string(),
        }
    }
}

/// mteval's punctuation class `[\{-\~\[-\` -\&\(-\+\:-\@\/]`.
pub(crate) fn is_13a_punct(c: char) -> bool {
    matches!(c, '{'..='~' | '['..='`' | ' '..='&' | '('..='+' | ':'..='@' | '/')
}

/// `re.sub` of a two-character pattern: scans left to right over non-overlapping matches.
pub(crate) fn sub_pairs(
    chars: &[char],
    hit: impl Fn(char, char) -> bool,
    replace: impl Fn(char, char, &mut Vec<char>),
) -> Vec<char> {
    let mut out = Vec::with_capacity(chars.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        if i + 1 < chars.len() && hit(chars[i], chars[i + 1]) {
            replace(chars[i], chars[i + 1], &mut out);
            i += 2;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Surrounds every character matching `class` with spaces.
pub(crate) fn space_around(chars: &[char], class: impl Fn(char) -> bool) -> Vec<char> {
    let mut out = Vec::with_capacity(chars.len() * 2);
    for &c in chars {
        if class(c) {
            out.extend([' ', c, ' ']);
        } else {
            out.push(c);
        }
    }
    out
}

/// The last three substitutions of mteval-v13a (periods and commas unless next to digits, dashes
/// after digits), shared by the 13a, zh and TER tokenizers.
pub(crate) fn split_periods_and_dashes(chars: &[char]) -> Vec<char> {
    let digit = |c: char| c.is_ascii_digit();
    let period = |c: char| c == '.' || c == ',';
    let chars = sub_pairs(chars, |a, b| !digit(a) && period(b), |a, b, o| o.extend([a, ' ', b, ' ']));
    let chars = sub_pairs(&chars, |a, b| period(a) && !digit(b), |a, b, o| o.extend([' ', a, ' ', b]));
    sub_pairs(&chars, |a, b| digit(a) && b == '-', |a, b, o| o.extend([a, ' ', b, ' ']))
}

/// sacreBLEU's TokenizerRegexp: the four substitutions of mteval-v13a, then whitespace squeezing.
pub fn tokenize_regexp(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let chars = split_periods_and_dashes(&space_around(&chars, is_13a_punct));
    pystr::squeeze_spaces(&chars.into_iter().collect::<String>())
}

pub fn tokenize_13a(line: &str) -> String {
    let mut line = line.replace("<skipped>", "").replace("-\n", "").replace('\n', " ");
    if line.contains('&') {
        line = line.replace("&quot;", "\"").replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">");
    }
    tokenize_regexp(&format!(" {line} "))
}

fn tokenize_intl(line: &str) -> String {
    crate::tokenizers_intl::tokenize(line)
}

fn tokenize_zh(line: &str) -> String {
    crate::tokenizers_intl::tokenize_zh(line)
}

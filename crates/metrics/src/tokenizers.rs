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

fn is_13a_punct(c: char) -> bool {
    // [\{-\~\[-\` -\&\(-\+\:-\@\/]
    matches!(c, '{'..='~' | '['..='`' | ' '..='&' | '('..='+' | ':'..='@' | '/')
}

/// sacreBLEU's TokenizerRegexp: the four substitutions of mteval-v13a, then whitespace squeezing.
pub fn tokenize_regexp(line: &str) -> String {
    let mut s = String::with_capacity(line.len() * 2);
    for c in line.chars() {
        if is_13a_punct(c) {
            s.push(' ');
            s.push(c);
            s.push(' ');
        } else {
            s.push(c);
        }
    }
    let digit = |c: char| c.is_ascii_digit();
    let period = |c: char| c == '.' || c == ',';
    // Each rule scans left to right over non-overlapping two-character matches, like re.sub.
    let s = substitute_pairs(&s, |a, b| !digit(a) && period(b), |a, b, out| {
        out.push(a);
        out.push(' ');
        out.push(b);
        out.push(' ');
    });
    let s = substitute_pairs(&s, |a, b| period(a) && !digit(b), |a, b, out| {
        out.push(' ');
        out.push(a);
        out.push(' ');
        out.push(b);
    });
    let s = substitute_pairs(&s, |a, b| digit(a) && b == '-', |a, b, out| {
        out.push(a);
        out.push(' ');
        out.push(b);
        out.push(' ');
    });
    pystr::squeeze_spaces(&s)
}

fn substitute_pairs(s: &str, matches: impl Fn(char, char) -> bool, replace: impl Fn(char, char, &mut String)) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        if i + 1 < chars.len() && matches(chars[i], chars[i + 1]) {
            replace(chars[i], chars[i + 1], &mut out);
            i += 2;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
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

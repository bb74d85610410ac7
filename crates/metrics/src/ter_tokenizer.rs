//! sacreBLEU's TercomTokenizer.

use crate::pystr;

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TerOptions {
    pub normalized: bool,
    pub no_punct: bool,
    pub asian_support: bool,
    pub case_sensitive: bool,
}

fn is_13a_punct(c: char) -> bool {
    matches!(c, '{'..='~' | '['..='`' | ' '..='&' | '('..='+' | ':'..='@' | '/')
}

fn is_asian_punct(c: char) -> bool {
    matches!(c, '\u{3001}' | '\u{3002}' | '\u{3008}'..='\u{3011}' | '\u{3014}'..='\u{301f}' | '\u{ff61}'..='\u{ff65}' | '\u{30fb}')
}

fn is_full_width_punct(c: char) -> bool {
    matches!(c, '\u{ff0e}' | '\u{ff0c}' | '\u{ff1f}' | '\u{ff1a}' | '\u{ff1b}' | '\u{ff01}' | '\u{ff02}' | '\u{ff08}' | '\u{ff09}')
}

/// Characters `_normalize_asian` surrounds with spaces. Its three kana rules are anchored at the
/// string start, which is always a space after the western normalisation, so they never apply.
fn is_asian_spaced(c: char) -> bool {
    matches!(c,
        '\u{4e00}'..='\u{9fff}' | '\u{3400}'..='\u{4dbf}' | '\u{31c0}'..='\u{31ef}' | '\u{2e80}'..='\u{2eff}'
        | '\u{3300}'..='\u{33ff}' | '\u{f900}'..='\u{faff}' | '\u{fe30}'..='\u{fe4f}' | '\u{3200}'..='\u{3f22}')
        || is_asian_punct(c)
        || is_full_width_punct(c)
}

fn pairs(chars: Vec<char>, hit: impl Fn(char, char) -> bool, out_pair: impl Fn(char, char, &mut Vec<char>)) -> Vec<char> {
    let mut out = Vec::with_capacity(chars.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        if i + 1 < chars.len() && hit(chars[i], chars[i + 1]) {
            out_pair(chars[i], chars[i + 1], &mut out);
            i += 2;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

fn normalize_western(sent: &str) -> String {
    let s = sent.replace("\n-", "").replace('\n', " ").replace("&quot;", "\"").replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">");
    let s = format!(" {s} ");
    let mut spaced = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        if is_13a_punct(c) {
            spaced.push(' ');
            spaced.push(c);
            spaced.push(' ');
        } else {
            spaced.push(c);
        }
    }
    // "'s$" never matches: the string ends with the space added above.
    let s = spaced.replace("'s ", " 's ");
    let digit = |c: char| c.is_ascii_digit();
    let period = |c: char| c == '.' || c == ',';
    let chars = pairs(s.chars().collect(), |a, b| !digit(a) && period(b), |a, b, o| o.extend([a, ' ', b, ' ']));
    let chars = pairs(chars, |a, b| period(a) && !digit(b), |a, b, o| o.extend([' ', a, ' ', b]));
    let chars = pairs(chars, |a, b| digit(a) && b == '-', |a, b, o| o.extend([a, ' ', b, ' ']));
    chars.into_iter().collect()
}

pub fn tokenize(sent: &str, o: &TerOptions) -> String {
    if sent.is_empty() {
        return String::new();
    }
    let mut s = if o.case_sensitive { sent.to_string() } else { pystr::lower(sent) };
    if o.normalized {
        s = normalize_western(&s);
        if o.asian_support {
            let mut spaced = String::with_capacity(s.len() * 2);
            for c in s.chars() {
                if is_asian_spaced(c) {
                    spaced.push(' ');
                    spaced.push(c);
                    spaced.push(' ');
                } else {
                    spaced.push(c);
                }
            }
            s = spaced;
        }
    }
    if o.no_punct {
        s = s.chars().filter(|c| !matches!(c, '.' | ',' | '?' | ':' | ';' | '!' | '"' | '(' | ')')).collect();
        if o.asian_support {
            s = s.chars().filter(|&c| !is_asian_punct(c) && !is_full_width_punct(c)).collect();
        }
    }
    pystr::squeeze_spaces(&s)
}

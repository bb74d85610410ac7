//! sacreBLEU's TercomTokenizer.

use crate::pystr;
use crate::tokenizers::{is_13a_punct, space_around, split_periods_and_dashes};

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TerOptions {
    pub normalized: bool,
    pub no_punct: bool,
    pub asian_support: bool,
    pub case_sensitive: bool,
}

fn is_asian_punct(c: char) -> bool {
    matches!(c, '\u{3001}' | '\u{3002}' | '\u{3008}'..='\u{3011}' | '\u{3014}'..='\u{301f}' | '\u{ff61}'..='\u{ff65}' | '\u{30fb}')
}

fn is_full_width_punct(c: char) -> bool {
    matches!(
        c,
        '\u{ff0e}'
            | '\u{ff0c}'
            | '\u{ff1f}'
            | '\u{ff1a}'
            | '\u{ff1b}'
            | '\u{ff01}'
            | '\u{ff02}'
            | '\u{ff08}'
            | '\u{ff09}'
    )
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

fn normalize_western(sent: &str) -> String {
    let s = sent
        .replace("\n-", "")
        .replace('\n', " ")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">");
    let s: Vec<char> = format!(" {s} ").chars().collect();
    let spaced: String = space_around(&s, is_13a_punct).into_iter().collect();
    // "'s$" never matches: the string ends with the space added above.
    let s: Vec<char> = spaced.replace("'s ", " 's ").chars().collect();
    split_periods_and_dashes(&s).into_iter().collect()
}

pub fn tokenize(sent: &str, o: &TerOptions) -> String {
    if sent.is_empty() {
        return String::new();
    }
    let mut s = if o.case_sensitive { sent.to_string() } else { pystr::lower(sent) };
    if o.normalized {
        s = normalize_western(&s);
        if o.asian_support {
            s = space_around(&s.chars().collect::<Vec<_>>(), is_asian_spaced).into_iter().collect();
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

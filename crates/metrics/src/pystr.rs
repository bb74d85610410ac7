//! Python string semantics that sacreBLEU's results depend on.

/// `str.isspace()` / the separators of `str.split()`: Unicode White_Space plus U+001C..U+001F.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `line.split()` with no argument.
pub fn split(line: &str) -> impl Iterator<Item = &str> {
    line.split(is_space).filter(|s| !s.is_empty())
}

/// `' '.join(line.split())`
pub fn squeeze_spaces(line: &str) -> String {
    split(line).collect::<Vec<_>>().join(" ")
}

pub fn rstrip(line: &str) -> &str {
    line.trim_end_matches(is_space)
}

pub fn strip(line: &str) -> &str {
    line.trim_matches(is_space)
}

/// `str.lower()`: full Unicode lowercasing (Rust's `to_lowercase` follows the same Unicode rules,
/// including final sigma).
pub fn lower(line: &str) -> String {
    line.to_lowercase()
}

/// Lines as sacreBLEU reads a file (split on "\n" only, no empty last line), each rstripped.
pub fn lines(text: &str) -> Vec<String> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    lines.into_iter().map(|l| rstrip(l).to_string()).collect()
}

/// Fractional digits past which every f64 is exact: its binary expansion ends by 2^-1074.
pub const EXACT_DIGITS: usize = 1074;

/// Python's `f"{x:.{digits}f}"` (Rust writes NaN as "NaN", Python as "nan"), for any number of
/// digits: Rust's formatter takes at most 65 535, and past `EXACT_DIGITS` they are all zeros.
pub fn fixed(x: f64, digits: usize) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        (if x > 0.0 { "inf" } else { "-inf" }).into()
    } else if digits <= EXACT_DIGITS {
        format!("{x:.digits$}")
    } else {
        format!("{x:.EXACT_DIGITS$}{}", "0".repeat(digits - EXACT_DIGITS))
    }
}

/// Python's `unicodedata.decimal(c)`: the value of a decimal digit of any script (`int()` and
/// `float()` read them all). Unicode encodes every such digit in a run of ten, 0 to 9, so the value
/// is the count of digits before it in its run of runs.
pub fn decimal_value(c: char) -> Option<u32> {
    use unicode_general_category::{get_general_category, GeneralCategory};
    let is_digit = |c: char| get_general_category(c) == GeneralCategory::DecimalNumber;
    if c.is_ascii_digit() {
        return c.to_digit(10);
    }
    if !is_digit(c) {
        return None;
    }
    let before = (1..=c as u32).take_while(|k| char::from_u32(c as u32 - k).is_some_and(is_digit)).count();
    Some(before as u32 % 10)
}

//! The `intl` (mteval-v14 international) and `zh` tokenizers.

use unicode_general_category::{get_general_category, GeneralCategory as G};

use crate::pystr;
use crate::tokenizers::{space_around, sub_pairs, tokenize_regexp};

fn is_number(c: char) -> bool {
    matches!(get_general_category(c), G::DecimalNumber | G::LetterNumber | G::OtherNumber)
}

fn is_punct(c: char) -> bool {
    matches!(
        get_general_category(c),
        G::ConnectorPunctuation
            | G::DashPunctuation
            | G::OpenPunctuation
            | G::ClosePunctuation
            | G::InitialPunctuation
            | G::FinalPunctuation
            | G::OtherPunctuation
    )
}

fn is_symbol(c: char) -> bool {
    matches!(get_general_category(c), G::MathSymbol | G::CurrencySymbol | G::ModifierSymbol | G::OtherSymbol)
}

pub fn tokenize(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let chars = sub_pairs(&chars, |a, b| !is_number(a) && is_punct(b), |a, b, o| o.extend([a, ' ', b, ' ']));
    let chars = sub_pairs(&chars, |a, b| is_punct(a) && !is_number(b), |a, b, o| o.extend([' ', a, ' ', b]));
    pystr::squeeze_spaces(&space_around(&chars, is_symbol).into_iter().collect::<String>())
}

/// sacreBLEU's `_UCODE_RANGES`. Two entries were written as 5-hex-digit `\u` escapes, which Python
/// reads as a 4-digit code point followed by a digit; compared with one character, they cover
/// U+2001..=U+2A6D and U+2F81..=U+2FA1. We reproduce what sacreBLEU does, not what it meant.
const CHINESE_RANGES: [(u32, u32); 22] = [
    (0x3400, 0x4db5),
    (0x4e00, 0x9fa5),
    (0x9fa6, 0x9fbb),
    (0xf900, 0xfa2d),
    (0xfa30, 0xfa6a),
    (0xfa70, 0xfad9),
    (0x2001, 0x2a6d),
    (0x2f81, 0x2fa1),
    (0xff00, 0xffef),
    (0x2e80, 0x2eff),
    (0x3000, 0x303f),
    (0x31c0, 0x31ef),
    (0x2f00, 0x2fdf),
    (0x2ff0, 0x2fff),
    (0x3100, 0x312f),
    (0x31a0, 0x31bf),
    (0xfe10, 0xfe1f),
    (0xfe30, 0xfe4f),
    (0x2600, 0x26ff),
    (0x2700, 0x27bf),
    (0x3200, 0x32ff),
    (0x3300, 0x33ff),
];

fn is_chinese(c: char) -> bool {
    let c = c as u32;
    CHINESE_RANGES.iter().any(|&(a, b)| a <= c && c <= b)
}

pub fn tokenize_zh(line: &str) -> String {
    let chars: Vec<char> = pystr::strip(line).chars().collect();
    tokenize_regexp(&space_around(&chars, is_chinese).into_iter().collect::<String>())
}

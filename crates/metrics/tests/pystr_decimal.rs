//! `pystr::decimal_value` against Python's `unicodedata.decimal` (CPython 3.11.7, whose answers for
//! these characters are written beside them): ASCII, Arabic-Indic, Devanagari, fullwidth, Balinese
//! and the five adjacent runs of mathematical digits, and characters that are numbers but not digits.

use wgslate_metrics::pystr::decimal_value;

#[test]
fn digits_of_other_scripts_have_their_values() {
    // (character, value) as unicodedata.decimal gives them.
    for (c, v) in [
        ('0', 0),
        ('9', 9),
        ('٣', 3),
        ('۷', 7),
        ('३', 3),
        ('５', 5),
        ('𝟎', 0),
        ('𝟗', 9),
        ('𝟘', 0),
        ('𝟡', 9),
        ('𝟿', 9),
        ('᭙', 9),
    ] {
        assert_eq!(decimal_value(c), Some(v), "{c} U+{:04X}", c as u32);
    }
    for c in ['a', '²', '½', 'Ⅻ', '-', ' '] {
        assert_eq!(decimal_value(c), None, "{c}");
    }
}

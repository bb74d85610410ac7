//! Telling UTF-16 without a byte order mark from UTF-8 text, on text encoded by the standard library.

use wgslate_metrics::utf16_without_bom;

fn utf16(text: &str, little_endian: bool) -> Vec<u8> {
    text.encode_utf16().flat_map(|u| if little_endian { u.to_le_bytes() } else { u.to_be_bytes() }).collect()
}

#[test]
fn latin_text_in_utf16_is_recognised_in_either_byte_order() {
    for text in
        ["A dog runs.\nTwo men fish.\n", "Zwei Männer stehen am Straßenrand.\n", "Un chien court dans la neige.\r\n"]
    {
        assert!(utf16_without_bom(&utf16(text, true)), "{text:?} little-endian");
        assert!(utf16_without_bom(&utf16(text, false)), "{text:?} big-endian");
    }
    // Two characters are enough ("Hi" of a file or a first line "Hi").
    assert!(utf16_without_bom(&utf16("Hi", true)) && utf16_without_bom(&utf16("Hi", false)));
}

#[test]
fn with_a_byte_order_mark_it_is_left_to_utf8_text_which_names_it() {
    let bytes = utf16("\u{feff}A dog runs.\n", true);
    assert!(!utf16_without_bom(&bytes));
    assert!(wgslate_metrics::utf8_text("notepad.txt", bytes).unwrap_err().contains("is UTF-16 text"));
}

#[test]
fn utf8_text_is_not_taken_for_utf16() {
    let texts = [
        "A dog runs.\nTwo men fish.\n",
        "Zwei Männer stehen am Straßenrand. „Hallo“ — 1,000.50 €\n",
        "東京の犬が走る。🐶🏃‍♂️ القاهرة\n",
        // A few NUL bytes (sacreBLEU reads them as text) are not UTF-16.
        "a\0b c d e f g h i j k l m n o p\0\n",
        // Too short to judge.
        "a\0b",
        "",
    ];
    for text in texts {
        assert!(!utf16_without_bom(text.as_bytes()), "{text:?}");
    }
}

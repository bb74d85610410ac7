//! What the generators draw from: words, separators, JSON tokens and edge-case values (kept
//! compact: rustfmt skips this file).

pub const TINY: &[&str] = &["a", "b", "c"];
pub const LATIN: &[&str] = &[
    "the", "cat", "sat", "on", "mat", "a", "Haus", "über", "naïve", "don't", "l'homme", "state-of-the-art", "e-mail",
    "U.S.", "Dr.", "etc.", "it's", "'s", "O'Neill", "rock'n'roll", "ΣΊΣΥΦΟΣ", "İstanbul", "Straße", "ǅemal", "ﬁne",
    "-", "--", "—", "'", "\"", "'quoted'", "\"quoted\"", "(x)", "[y]", "{z}", "x/y", "and/or", "C++", "A.B.C.", "...",
];
pub const NUMBERS: &[&str] = &[
    "1,000", "1.000,50", "3.14", "-5", "10-20", "2-", "12:30", "1 000", "1'000", "٣٤٥", "१२३", "½", "²", "Ⅻ", "1e10",
    "0x1F", "$5", "5%", "€3,50", "1.", ".5", ",5", "1,", "1-2-3", "-1-", "3.", "4,",
];
pub const PUNCT: &[&str] = &[
    ".", ",", "!", "?", ";", ":", "…", "«", "»", "„", "“", "”", "‘", "’", "‹", "›", "–", "‐", "‑", "‒", "―", "·", "¿",
    "¡", "、", "。", "،", "؛", "؟", "।", "॥", "‼", "⁇", "¶", "§", "〈", "〉", "【", "】", "〔", "〕", "・", "｡", "･",
    "．", "，", "？", "：", "；", "！", "＂", "（", "）", "@", "#", "^", "~", "`", "|", "\\", "_", "<", ">", "=", "+",
];
/// HTML entities, the 13a/TER special strings, the tokenizer's specials and its word marker ▁.
pub const MARKUP: &[&str] = &[
    "&amp;", "&quot;", "&lt;", "&gt;", "&apos;", "&#39;", "&nbsp;", "&amp;quot;", "&", "&;", "&amp", "<skipped>",
    "<b>", "</b>", "<s>", "</s>", "<unk>", "<pad>", "▁", "▁▁", "▁a", "-\n", "\n-", "'s", "-\r\n",
];
pub const CJK: &[&str] = &[
    "中文", "漢字", "日本語", "ひらがな", "カタカナ", "한국어", "「引用」", "ｈｅｌｌｏ", "㈱", "〇", "𠀀", "ｶﾀｶﾅ", "中", "国",
    "的", "。", "、", "！", "？", "（", "）", "㍿", "⺀", "⼀", "☃", "✂",
];
pub const EMOJI: &[&str] = &["👩‍👩‍👧‍👦", "👍🏽", "🏳️‍🌈", "❤️", "🇩🇪", "1️⃣", "🧑🏿‍🦰", "😀", "🏽", "\u{200d}", "\u{fe0f}"];
pub const COMBINING: &[&str] = &[
    "e\u{301}", "a\u{308}\u{323}", "\u{301}", "\u{1100}\u{1161}\u{11a8}", "A\u{30a}", "\u{915}\u{94d}\u{937}", "ที่",
    "o\u{302}\u{303}\u{304}\u{305}", "\u{20dd}", "Z\u{335}\u{336}\u{337}",
];
pub const RTL: &[&str] = &[
    "שלום", "مرحبا", "\u{200f}", "\u{200e}", "\u{202e}abc\u{202c}", "\u{61c}", "،", "؛", "؟", "ﷺ",
];
pub const INVISIBLE: &[&str] = &[
    "\u{200b}", "\u{200c}", "\u{200d}", "\u{feff}", "\u{2060}", "\u{180e}", "\u{ad}", "\u{34f}",
];
/// Unicode and Python (U+001C..U+001F) whitespace, line ends, zero-width space, nothing, runs of spaces.
pub const SEPARATORS: &[&str] = &[
    "\t", "\u{a0}", "\r", "\n", "\r\n", "\u{2028}", "\u{2029}", "\u{3000}", "\u{85}", "\u{b}", "\u{c}", "\u{1c}",
    "\u{1f}", "\u{1680}", "\u{2003}", "\u{202f}", "\u{205f}", "\u{200b}", "", "  ", "          ", " \t ",
];

/// Bytes, JSON tokens and little-endian words that byte mutation writes into seed files.
pub const BYTES: &[u8] = &[
    0, 1, 0x7f, 0x80, 0xff, b'"', b'{', b'}', b'[', b']', b',', b':', b'\\', b'-', b'0', b'9', b' ',
];
pub const TOKENS: &[&str] = &[
    "\"", "{", "}", "[", "]", ",", ":", "-1", "0", "1e999", "18446744073709551616", "9999999999", "null", "true",
    "\"F16\"", "\"F32\"", "\"BF16\"", "\"U8\"", "\"F8_E4M3\"", "\"shape\"", "\"data_offsets\"", "\"dtype\"",
    "\"__metadata__\"", "[]", "[0]", "[0,0]", "{}", "\"arch\"", "\"transformer\"", "\"gru\"", "\"dot\"", "\u{feff}",
];
pub const WORDS: &[u64] = &[
    0, 1, 2, 0x7f, 0xff, 0xffff, 0x7fff_ffff, 0xffff_ffff, 1 << 32, 1 << 63, u64::MAX, 100_000_000,
];

/// Keys and values of random config.json files.
pub const CONFIG_KEYS: &[&str] = &[
    "vocab_size", "d_model", "n_heads", "d_ff", "encoder_layers", "decoder_layers", "max_len", "emb_dim",
    "encoder_hidden", "decoder_hidden", "attention_dim",
];
pub const CONFIG_DIMS: &[&str] = &[
    "0", "1", "2", "3", "4", "7", "8", "16", "40", "224", "256", "512", "896", "8000", "4294967296",
    "9223372036854775808", "18446744073709551615", "18446744073709551616", "-1", "1.5", "1e308", "\"8\"", "null",
];
pub const CONFIG_ARCHS: &[&str] = &["\"transformer\"", "\"gru\"", "\"lstm\"", "\"\"", "null", "1"];
pub const CONFIG_SCORES: &[&str] = &["\"additive\"", "\"dot\"", "\"general\"", "\"Dot\"", "null"];
pub const CONFIG_DROPOUTS: &[&str] = &["0.1", "0", "1", "-1", "1e39", "-0.0", "\"0.1\"", "NaN"];

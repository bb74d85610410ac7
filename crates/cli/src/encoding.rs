//! `wgslate bleu -e`: the text encodings it reads, named as Python names its codecs.

/// The text encodings `-e` takes: Python's codecs whose decoding is simple enough to be exact here.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Encoding {
    Utf8,
    /// UTF-8 without a leading byte order mark.
    Utf8Sig,
    Latin1,
    Ascii,
}

impl Encoding {
    /// The codec Python's `codecs.lookup` finds for `name` (its normalisation: lower case, runs of
    /// other characters than letters, digits and `.` as one `_`; then its alias table).
    pub fn named(name: &str) -> Option<Self> {
        let mut norm = String::new();
        for c in name.to_ascii_lowercase().chars() {
            if c.is_ascii_alphanumeric() || c == '.' {
                norm.push(c);
            } else if !norm.is_empty() && !norm.ends_with('_') {
                norm.push('_');
            }
        }
        let norm = norm.trim_end_matches('_');
        const ALIASES: [(Encoding, &[&str]); 4] = [
            (Encoding::Utf8, &["u8", "utf", "utf8", "utf8_ucs2", "utf8_ucs4", "cp65001"]),
            (Encoding::Utf8Sig, &[]),
            (
                Encoding::Latin1,
                &[
                    "8859",
                    "cp819",
                    "csisolatin1",
                    "ibm819",
                    "iso8859",
                    "iso8859_1",
                    "iso_8859_1",
                    "iso_8859_1_1987",
                    "iso_ir_100",
                    "l1",
                    "latin",
                    "latin1",
                ],
            ),
            (
                Encoding::Ascii,
                &[
                    "646",
                    "ansi_x3.4_1968",
                    "ansi_x3.4_1986",
                    "ansi_x3_4_1968",
                    "cp367",
                    "csascii",
                    "ibm367",
                    "iso646_us",
                    "iso_646.irv_1991",
                    "iso_ir_6",
                    "us",
                    "us_ascii",
                ],
            ),
        ];
        let modules = [
            (Encoding::Utf8, "utf_8"),
            (Encoding::Utf8Sig, "utf_8_sig"),
            (Encoding::Latin1, "latin_1"),
            (Encoding::Ascii, "ascii"),
        ];
        // `open(encoding="locale")` (Python 3.10+): the locale's, UTF-8 on every Linux Python 3.11
        // runs on (PEP 538 coerces the C locale to UTF-8).
        if name == "locale" {
            return Some(Encoding::Utf8);
        }
        let alias = |n: &str| ALIASES.iter().find(|(_, names)| names.contains(&n)).map(|(e, _)| *e);
        alias(norm)
            .or_else(|| alias(&norm.replace('.', "_")))
            .or_else(|| modules.iter().find(|(_, m)| *m == norm).map(|(e, _)| *e))
    }

    /// The text of `bytes` read from `name`, decoded as Python decodes it (strictly).
    pub fn decode(self, name: &str, bytes: Vec<u8>) -> Result<String, String> {
        match self {
            Encoding::Utf8 => wgslate_metrics::utf8_text(name, bytes).map_err(|e| {
                if e.contains("UTF-16") {
                    e
                } else {
                    format!("{e}; if it is Latin-1 text, add -e latin-1")
                }
            }),
            Encoding::Utf8Sig => {
                let body = bytes.strip_prefix(b"\xEF\xBB\xBF").map(<[u8]>::to_vec).unwrap_or(bytes);
                wgslate_metrics::utf8_text(name, body)
            }
            Encoding::Latin1 => Ok(bytes.iter().map(|&b| b as char).collect()),
            Encoding::Ascii => match bytes.iter().position(|b| !b.is_ascii()) {
                Some(at) => Err(format!("{name} is not ASCII text (byte {:#04x} at offset {at})", bytes[at])),
                None => Ok(bytes.iter().map(|&b| b as char).collect()),
            },
        }
    }
}

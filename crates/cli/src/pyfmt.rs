//! Python's number formatting and JSON layout, so our output matches sacreBLEU's byte for byte.

/// `repr(float)`: shortest round-trip digits, scientific below 1e-4 and from 1e16.
pub fn repr(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    let sci = shortest(x);
    let (mantissa, exp) = sci.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    if (-4..16).contains(&exp) {
        let s = positional(mantissa, exp);
        if s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        format!("{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    }
}

/// The shortest digits that read back as `x`, in `{:e}` form. Where two such digit strings are
/// equally close to `x` (its exact value ends in a 5 just past them), Python keeps the one with an
/// even last digit and Rust the upper one: 0.80170440673828125 is 0.8017044067382812 in Python.
fn shortest(x: f64) -> String {
    let rust = format!("{x:e}");
    // `{:e}` of a finite f64 always has an exponent part.
    let (mantissa, _) = rust.split_once('e').unwrap();
    let n = mantissa.bytes().filter(u8::is_ascii_digit).count();
    let exact = format!("{:.*e}", n + 24, x);
    let (exact_mantissa, exact_exp) = exact.split_once('e').unwrap();
    let digits: Vec<u8> = exact_mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let tie = digits[n] == b'5' && digits[n + 1..].iter().all(|&d| d == b'0');
    if !tie || (digits[n - 1] - b'0') % 2 == 1 {
        return rust;
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let lower: String = digits[..n].iter().map(|&d| d as char).collect();
    let candidate = if n > 1 {
        format!("{sign}{}.{}e{exact_exp}", &lower[..1], &lower[1..])
    } else {
        format!("{sign}{lower}e{exact_exp}")
    };
    if candidate.parse::<f64>() == Ok(x) {
        candidate
    } else {
        rust
    }
}

/// `d.ddd` × 10^exp written without an exponent, as Python's repr does for -4 <= exp < 16.
fn positional(mantissa: &str, exp: i32) -> String {
    let (sign, m) = mantissa.strip_prefix('-').map_or(("", mantissa), |m| ("-", m));
    let digits: String = m.chars().filter(char::is_ascii_digit).collect();
    let point = exp + 1;
    if point <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-point) as usize))
    } else if point as usize >= digits.len() {
        format!("{sign}{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        format!("{sign}{}.{}", &digits[..point as usize], &digits[point as usize..])
    }
}

/// `float(f"{x:.{w}f}")` as JSON shows it.
pub fn rounded(x: f64, width: usize) -> String {
    let width = width.min(wgslate_metrics::pystr::EXACT_DIGITS);
    repr(format!("{x:.width$}").parse::<f64>().unwrap_or(x))
}

/// A JSON value with insertion-ordered objects.
pub enum Json {
    Str(String),
    Raw(String),
    Null,
    Obj(Vec<(String, Json)>),
    List(Vec<Json>),
}

/// A JSON string as Python writes it; with `ascii` (`ensure_ascii=True`) every character outside
/// space..`~` as `\uXXXX`, beyond the BMP as its UTF-16 surrogate pair.
fn escape(s: &str, ascii: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (ascii && !(' '..='~').contains(&c)) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Json {
    /// `json.dumps(value, indent=indent, ensure_ascii=False)`
    pub fn dumps(&self, indent: usize) -> String {
        let mut out = String::new();
        self.write(indent, 0, false, &mut out);
        out
    }

    /// `json.dumps(value, indent=indent)`: non-ASCII characters escaped.
    pub fn dumps_ascii(&self, indent: usize) -> String {
        let mut out = String::new();
        self.write(indent, 0, true, &mut out);
        out
    }

    fn write(&self, indent: usize, level: usize, ascii: bool, out: &mut String) {
        let pad = |l: usize| " ".repeat(indent * l);
        match self {
            Json::Str(s) => out.push_str(&escape(s, ascii)),
            Json::Raw(s) => out.push_str(s),
            Json::Null => out.push_str("null"),
            Json::Obj(items) if items.is_empty() => out.push_str("{}"),
            Json::List(items) if items.is_empty() => out.push_str("[]"),
            Json::Obj(items) => {
                out.push_str("{\n");
                for (i, (k, v)) in items.iter().enumerate() {
                    out.push_str(&pad(level + 1));
                    out.push_str(&escape(k, ascii));
                    out.push_str(": ");
                    v.write(indent, level + 1, ascii, out);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                out.push_str(&pad(level));
                out.push('}');
            }
            Json::List(items) => {
                out.push_str("[\n");
                for (i, v) in items.iter().enumerate() {
                    out.push_str(&pad(level + 1));
                    v.write(indent, level + 1, ascii, out);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                out.push_str(&pad(level));
                out.push(']');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    // The literals are the exact binary values (ties between two shortest digit strings), on purpose.
    #[allow(clippy::excessive_precision)]
    fn repr_matches_python() {
        for (x, want) in [
            (0.25, "0.25"),
            (1e-7, "1e-07"),
            (1e-6, "1e-06"),
            (100.0, "100.0"),
            (1e16, "1e+16"),
            (54.65, "54.65"),
            (0.0001, "0.0001"),
            (123456789012345678.0, "1.2345678901234568e+17"),
        ] {
            assert_eq!(repr(x), want);
        }
        // Exact ties between two shortest digit strings; Python's answers (repr in CPython 3.11).
        for (x, want) in [
            (0.80170440673828125, "0.8017044067382812"),
            (-0.80170440673828125, "-0.8017044067382812"),
            (5e-324, "5e-324"),
            (-1.5, "-1.5"),
            (0.3, "0.3"),
        ] {
            assert_eq!(repr(x), want);
        }
        assert_eq!(rounded(54.600075123, 1), "54.6");
        assert_eq!(rounded(0.0000004, 6), "0.0");
    }
}

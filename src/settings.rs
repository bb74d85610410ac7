//! The translation settings in the page's URL: decoding and encoding the query around the checks
//! in `wgslate_decode::settings`.

use wgslate_decode::settings::percent_decoded;
pub use wgslate_decode::Settings;

/// Settings and text from a `key=value&…` query, and a message per value refused.
pub fn from_query(query: &str) -> (Settings, String, Vec<String>) {
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(query) else {
        return (Settings::default(), String::new(), vec![]);
    };
    let pairs: Vec<(String, String)> = js_sys::try_iter(&params)
        .ok()
        .flatten()
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let pair: js_sys::Array = entry.ok()?.into();
            Some((pair.get(0).as_string()?, pair.get(1).as_string()?))
        })
        .collect();
    let (settings, mut text, mut problems) = Settings::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    if let Some((repaired, damage)) = without_damage(query, &text) {
        text = repaired;
        problems.push(match damage {
            Damage::CutAtTheEnd => {
                "the text's last character, whose %-escape was cut short (perhaps the link was cut when it was copied)"
            }
            Damage::Broken => "the text's broken %-escapes (bytes that are not UTF-8 characters)",
        }
        .into());
    }
    (settings, text, problems)
}

#[derive(Debug, PartialEq)]
enum Damage {
    /// Only the text's end: an escape or a character's escapes cut short, as a cut link leaves them.
    CutAtTheEnd,
    /// Escapes that are not UTF-8 (also) inside the text.
    Broken,
}

/// The text without the characters its broken %-escapes became (`%E2%82` is a cut-short "€";
/// URLSearchParams turns it into U+FFFD without a word) and without an escape cut at the link's end
/// (`%E`, which it keeps as written), and where the damage was; or None when nothing was dropped:
/// its escapes are whole, or the link also holds a real U+FFFD (then those are kept). A lone `%` is
/// kept: it is a character (`50%`) as often as a cut escape. Only the last `text` counts, as it is
/// the one used.
fn without_damage(query: &str, text: &str) -> Option<(String, Damage)> {
    let pairs = || query.split('&').filter_map(|pair| pair.split_once('='));
    let value = pairs().rfind(|(key, _)| *key == "text")?.1;
    let text_ends_link = matches!(query.rsplit('&').next().and_then(|pair| pair.split_once('=')), Some(("text", _)));
    let cut = if text_ends_link { cut_escape(value) } else { "" };
    let decoded = percent_decoded(&value[..value.len() - cut.len()]);
    let broken =
        std::str::from_utf8(&decoded).is_err() && !decoded.utf8_chunks().any(|c| c.valid().contains('\u{fffd}'));
    let kept = text.strip_suffix(cut).filter(|_| !cut.is_empty());
    if !broken && kept.is_none() {
        return None;
    }
    // A cut link ends the text with a character's first bytes (an error without a length: it
    // ran out), and nothing else is wrong before them.
    let cut_short = match std::str::from_utf8(&decoded) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    };
    let damage = if text_ends_link && cut_short { Damage::CutAtTheEnd } else { Damage::Broken };
    let text =
        if broken { without_broken_characters(&value[..value.len() - cut.len()]) } else { kept.unwrap_or(text).into() };
    Some((text, damage))
}

/// The text link `value` holds, read as URLSearchParams reads it (`+` is a space, `%XY` a byte)
/// but without the bytes that are not UTF-8 (it shows each run of them as U+FFFD) nor a `%X` cut
/// short right after part of a character (`%E0%A4%A` inside a text: the rest of that character,
/// dropped as at the link's end; a `%A` written as `%25A` is text and stays).
fn without_broken_characters(value: &str) -> String {
    let b = value.as_bytes();
    let mut bytes = Vec::with_capacity(b.len());
    // The continuation bytes the character being escaped still lacks.
    let (mut i, mut lacking) = (0, 0u32);
    while i < b.len() {
        let hex = |k: usize| b.get(i + k).and_then(|&c| (c as char).to_digit(16));
        lacking = match (b[i], hex(1), hex(2)) {
            (b'%', Some(high), Some(low)) => {
                let byte = (high * 16 + low) as u8;
                bytes.push(byte);
                i += 3;
                match byte {
                    0x80..=0xBF => lacking.saturating_sub(1),
                    0xC2..=0xF4 => byte.leading_ones() - 1,
                    _ => 0,
                }
            }
            (b'%', Some(_), None) if lacking > 0 => {
                i += 2;
                0
            }
            (c, ..) => {
                bytes.push(if c == b'+' { b' ' } else { c });
                i += 1;
                0
            }
        };
    }
    bytes.utf8_chunks().map(|chunk| chunk.valid()).collect()
}

/// The `%X` (one hex digit) that ends `value`, or "".
fn cut_escape(value: &str) -> &str {
    let b = value.as_bytes();
    match b {
        [.., b'%', h] if h.is_ascii_hexdigit() => &value[b.len() - 2..],
        _ => "",
    }
}

/// `key=value&…` for the URL: the settings that differ from the defaults, then the text.
pub fn to_query(settings: &Settings, text: &str) -> String {
    // An empty URLSearchParams cannot fail to construct in a page (it only needs the global).
    let p = web_sys::UrlSearchParams::new().expect("URLSearchParams");
    for (k, v) in settings.to_pairs() {
        p.append(k, &v);
    }
    if !text.is_empty() {
        p.append("text", text);
    }
    String::from(p.to_string())
}

#[cfg(test)]
mod tests {
    use super::{without_damage, Damage};

    fn repaired(query: &str, text: &str) -> Option<String> {
        without_damage(query, text).map(|(t, _)| t)
    }

    // The texts are what URLSearchParams gives for these queries.
    #[test]
    fn a_cut_escape_is_dropped_and_whole_ones_are_kept() {
        assert_eq!(without_damage("beam=4&text=caf%C3%A9%20%E2%82%AC", "café €"), None);
        // Cut short at the end of the link; the same, with the link going on, or a byte UTF-8 never
        // has, is not a cut link.
        assert_eq!(without_damage("beam=4&text=5%E2%82", "5\u{fffd}"), Some(("5".into(), Damage::CutAtTheEnd)));
        assert_eq!(without_damage("text=5%E2%82&beam=4", "5\u{fffd}"), Some(("5".into(), Damage::Broken)));
        assert_eq!(without_damage("text=a%FF", "a\u{fffd}"), Some(("a".into(), Damage::Broken)));
        assert_eq!(without_damage("text=a%FFb", "a\u{fffd}b"), Some(("ab".into(), Damage::Broken)));
        // Cut short inside the text (the link goes on): the whole character goes, as at its end.
        assert_eq!(
            without_damage("text=A%20%E0%A4%A%20dog&beam=2", "A \u{fffd}%A dog"),
            Some(("A  dog".into(), Damage::Broken))
        );
        assert_eq!(repaired("text=%E0%A4%A&beam=2", "\u{fffd}%A").as_deref(), Some(""));
        // A `%` after it that is text, not a cut escape, stays; so does a `+`'s space.
        assert_eq!(repaired("text=a%E2%2550%25&beam=2", "a\u{fffd}%50%").as_deref(), Some("a%50%"));
        assert_eq!(repaired("text=%FF%25A+dog&beam=2", "\u{fffd}%A dog").as_deref(), Some("%A dog"));
        // After a whole character, a `%A` is text (URLSearchParams keeps it), not the rest of one.
        assert_eq!(repaired("text=%C3%A9%Az%FF&beam=2", "é%Az\u{fffd}").as_deref(), Some("é%Az"));
        assert_eq!(repaired("text=%F0%9F%90%95%Ag%E2&beam=2", "🐕%Ag\u{fffd}").as_deref(), Some("🐕%Ag"));
        assert_eq!(
            without_damage("text=A%00B%EF%BF%BF%ED%A0%80dog.", "A\u{0}B\u{ffff}\u{fffd}\u{fffd}\u{fffd}dog."),
            Some(("A\u{0}B\u{ffff}dog.".into(), Damage::Broken))
        );
        // Not escapes at all: kept as written by URLSearchParams, not damaged.
        assert_eq!(without_damage("text=100%25%&x=%zz%+F", "100%%"), None);
        // A replacement character the link really holds is the user's: nothing is dropped.
        assert_eq!(without_damage("text=%EF%BF%BD%E2", "\u{fffd}\u{fffd}"), None);
        assert_eq!(without_damage("beam=%FF&text=ok", "ok"), None);
        // Only the text used (the last) counts.
        assert_eq!(without_damage("text=a%E2&text=ok", "ok"), None);
        assert_eq!(repaired("text=ok&text=a%E2", "a\u{fffd}").as_deref(), Some("a"));
    }

    #[test]
    fn an_escape_cut_at_the_end_of_the_link_is_dropped() {
        // Cut inside the third escape of "क" (%E0%A4%95): the whole character goes.
        assert_eq!(without_damage("text=a%20%E0%A4%9", "a \u{fffd}%9"), Some(("a ".into(), Damage::CutAtTheEnd)));
        assert_eq!(repaired("text=caf%C", "caf%C").as_deref(), Some("caf"));
        // A lone % is a character as often as a cut escape: kept.
        assert_eq!(without_damage("beam=4&text=50%", "50%"), None);
        assert_eq!(repaired("text=%E2%82%AC%", "€%"), None);
        // Not at the end of the link, or not an escape's start: kept.
        assert_eq!(without_damage("text=50%&beam=4", "50%"), None);
        assert_eq!(without_damage("text=50%&x", "50%"), None);
        assert_eq!(without_damage("text=50%25", "50%"), None);
        assert_eq!(without_damage("text=a%zz", "a%zz"), None);
        // A real U+FFFD keeps the broken escapes' too; the cut one still goes.
        assert_eq!(repaired("text=%EF%BF%BD%E2%A", "\u{fffd}\u{fffd}%A").as_deref(), Some("\u{fffd}\u{fffd}"));
    }
}

//! The Porter stemmer exactly as NLTK 3.10.4's `PorterStemmer().stem(word)` (mode `NLTK_EXTENSIONS`,
//! `to_lowercase=True`), which METEOR's stem stage uses.
//!
//! NLTK's departures from Porter's 1980 paper are all kept: a pool of irregular forms looked up
//! first; words of at most two characters (counted before lower-casing) returned lower-cased;
//! "ies" → "ie" and "ied" → "ie" in four-letter words ("ied" → "i" otherwise); y → i only after a
//! consonant that is not the whole stem; "alli" → "al" tried before the rest of step 2, "fulli" and
//! "logi" added there; and a two-letter vowel-consonant stem counting as cvc.
//!
//! Letters are Unicode scalar values, as Python's are, and only "a", "e", "i", "o" and "u" are
//! vowels (with "y" after a consonant): "é", "ß", digits and punctuation are consonants.
//!
//! Lower-casing is Rust's `to_lowercase`, as in `pystr::lower`. Its Unicode is newer than Python
//! 3.11's (14.0): the two differ only on letters given case since then (U+1C89, U+A7CB..U+A7DC,
//! Garay, Beria Erfe) and on a capital sigma beside letters or marks whose case properties changed.

/// `PorterStemmer().stem(word)`.
pub fn porter_stem(word: &str) -> String {
    let lower = word.to_lowercase();
    if let Some(stem) = irregular(&lower) {
        return stem.to_string();
    }
    if word.chars().count() <= 2 {
        return lower;
    }
    let mut w: Vec<char> = lower.chars().collect();
    step1a(&mut w);
    step1b(&mut w);
    step1c(&mut w);
    step2(&mut w);
    step3(&mut w);
    step4(&mut w);
    step5a(&mut w);
    step5b(&mut w);
    w.into_iter().collect()
}

fn irregular(word: &str) -> Option<&'static str> {
    Some(match word {
        "sky" | "skies" => "sky",
        "dying" => "die",
        "lying" => "lie",
        "tying" => "tie",
        "news" => "news",
        "innings" | "inning" => "inning",
        "outings" | "outing" => "outing",
        "cannings" | "canning" => "canning",
        "howe" => "howe",
        "proceed" => "proceed",
        "exceed" => "exceed",
        "succeed" => "succeed",
        _ => return None,
    })
}

/// Whether each letter of `w` is a consonant. A "y" is one at the start or after a vowel, so
/// whether a "y" is one depends only on the letters before it: the flags of a prefix of `w` are a
/// prefix of the flags of `w`.
fn consonants(w: &[char]) -> impl Iterator<Item = bool> + '_ {
    w.iter().scan(false, |after_consonant, &c| {
        let consonant = match c {
            'a' | 'e' | 'i' | 'o' | 'u' => false,
            'y' => !*after_consonant,
            _ => true,
        };
        *after_consonant = consonant;
        Some(consonant)
    })
}

fn is_consonant(w: &[char], i: usize) -> bool {
    consonants(&w[..=i]).last() == Some(true)
}

/// Porter's m: the number of vowel-consonant boundaries in `stem`.
fn measure(stem: &[char]) -> usize {
    let mut after_vowel = false;
    let mut m = 0;
    for consonant in consonants(stem) {
        if consonant && after_vowel {
            m += 1;
        }
        after_vowel = !consonant;
    }
    m
}

fn contains_vowel(stem: &[char]) -> bool {
    consonants(stem).any(|consonant| !consonant)
}

/// Porter's *d.
fn ends_double_consonant(w: &[char]) -> bool {
    let n = w.len();
    n >= 2 && w[n - 1] == w[n - 2] && is_consonant(w, n - 1)
}

/// Porter's *o, which NLTK also grants a two-letter vowel-consonant word (even one ending in w, x
/// or y).
fn ends_cvc(w: &[char]) -> bool {
    let flags: Vec<bool> = consonants(w).collect();
    match (flags.as_slice(), w.last()) {
        ([.., true, false, true], Some(last)) => !matches!(last, 'w' | 'x' | 'y'),
        ([false, true], _) => true,
        _ => false,
    }
}

/// Whether `w` ends with `suffix`. Suffixes are ASCII, so their length in bytes is their length in
/// letters.
fn ends_with(w: &[char], suffix: &str) -> bool {
    suffix.len() <= w.len() && w[w.len() - suffix.len()..].iter().copied().eq(suffix.chars())
}

/// Replaces `suffix`, which ends `w`.
fn replace_suffix(w: &mut Vec<char>, suffix: &str, replacement: &str) {
    w.truncate(w.len() - suffix.len());
    w.extend(replacement.chars());
}

type Rules = [(&'static str, &'static str)];

/// The first rule whose suffix ends `w`, and the length of the stem before it. NLTK tries no later
/// rule when this one's condition fails.
fn first_match(w: &[char], rules: &Rules) -> Option<(usize, &'static str, &'static str)> {
    let &(suffix, replacement) = rules.iter().find(|(suffix, _)| ends_with(w, suffix))?;
    Some((w.len() - suffix.len(), suffix, replacement))
}

fn step1a(w: &mut Vec<char>) {
    if w.len() == 4 && ends_with(w, "ies") {
        replace_suffix(w, "ies", "ie");
    } else if let Some((_, suffix, replacement)) =
        first_match(w, &[("sses", "ss"), ("ies", "i"), ("ss", "ss"), ("s", "")])
    {
        replace_suffix(w, suffix, replacement);
    }
}

fn step1b(w: &mut Vec<char>) {
    if ends_with(w, "ied") {
        let replacement = if w.len() == 4 { "ie" } else { "i" };
        replace_suffix(w, "ied", replacement);
    } else if ends_with(w, "eed") {
        if measure(&w[..w.len() - 3]) > 0 {
            replace_suffix(w, "eed", "ee");
        }
    } else if let Some(suffix) = ["ed", "ing"].into_iter().find(|suffix| ends_with(w, suffix)) {
        let stem_len = w.len() - suffix.len();
        if contains_vowel(&w[..stem_len]) {
            w.truncate(stem_len);
            tidy_after_1b(w);
        }
    }
}

/// What follows taking "ed" or "ing" off `w` (which has a vowel, so is not empty).
fn tidy_after_1b(w: &mut Vec<char>) {
    if ["at", "bl", "iz"].iter().any(|suffix| ends_with(w, suffix)) {
        w.push('e');
    } else if ends_double_consonant(w) {
        if !matches!(w.last(), Some('l' | 's' | 'z')) {
            w.pop();
        }
    } else if ends_with(w, "*d") {
        // NLTK names the double-consonant rule by the suffix "*d", and when the stem does not end
        // in a double consonant it matches that suffix literally, replacing it with the stem's
        // last letter.
        replace_suffix(w, "*d", "d");
    } else if measure(w) == 1 && ends_cvc(w) {
        w.push('e');
    }
}

fn step1c(w: &mut [char]) {
    let n = w.len();
    if ends_with(w, "y") && n > 2 && is_consonant(w, n - 2) {
        w[n - 1] = 'i';
    }
}

const STEP2: &Rules = &[
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("bli", "ble"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
    ("fulli", "ful"),
    ("logi", "log"),
];

fn step2(w: &mut Vec<char>) {
    if ends_with(w, "alli") && measure(&w[..w.len() - 4]) > 0 {
        replace_suffix(w, "alli", "al");
        return step2(w);
    }
    if let Some((stem_len, suffix, replacement)) = first_match(w, STEP2) {
        // The "l" of "logi" is measured with the stem, so that "geo" and "theo" qualify.
        let measured = if suffix == "logi" { stem_len + 1 } else { stem_len };
        if measure(&w[..measured]) > 0 {
            replace_suffix(w, suffix, replacement);
        }
    }
}

const STEP3: &Rules =
    &[("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"), ("ful", ""), ("ness", "")];

fn step3(w: &mut Vec<char>) {
    if let Some((stem_len, suffix, replacement)) = first_match(w, STEP3) {
        if measure(&w[..stem_len]) > 0 {
            replace_suffix(w, suffix, replacement);
        }
    }
}

const STEP4: &[&str] = &[
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate", "iti",
    "ous", "ive", "ize",
];

fn step4(w: &mut Vec<char>) {
    let Some(suffix) = STEP4.iter().find(|suffix| ends_with(w, suffix)) else { return };
    let stem = &w[..w.len() - suffix.len()];
    if measure(stem) > 1 && (*suffix != "ion" || matches!(stem.last(), Some('s' | 't'))) {
        w.truncate(stem.len());
    }
}

fn step5a(w: &mut Vec<char>) {
    if ends_with(w, "e") {
        let stem = &w[..w.len() - 1];
        let m = measure(stem);
        if m > 1 || (m == 1 && !ends_cvc(stem)) {
            w.pop();
        }
    }
}

fn step5b(w: &mut Vec<char>) {
    if ends_with(w, "ll") && measure(&w[..w.len() - 1]) > 1 {
        w.pop();
    }
}

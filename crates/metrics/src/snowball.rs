//! The German and French Snowball stemmers exactly as NLTK 3.10.4's
//! `SnowballStemmer("german").stem(word)` and `SnowballStemmer("french").stem(word)`
//! (`ignore_stopwords=False`), which METEOR's stem stage uses for those languages.
//!
//! NLTK's code departs from the Snowball algorithms in places, and every departure is kept:
//!
//! - a step takes the first suffix of its list that the word (or region) ends with, in NLTK's
//!   order, and stops there even where that suffix's condition fails;
//! - "is the suffix in R1/R2/RV" is a substring test on the region as it was computed before the
//!   step, not a test that the suffix lies inside the region (so after French "emment" → "ent",
//!   which leaves RV stale, and in step 4 after a final "s" is dropped, the two differ; and "ic"
//!   is always "in R2" after "atrice" went, since "atrice" holds "ic");
//! - a region is trimmed by Python slicing, so trimming past its start empties it;
//! - German step 3 looks for the "ig", "e", "er"/"en" and "lich" before a suffix inside R2 or R1,
//!   not in the word; German R1 starts after the third letter at the earliest, but R2 is found in
//!   the unadjusted R1;
//! - French RV starts after "par", "col" or "tap" and otherwise after the first vowel past the
//!   first letter; a "u" after "q" is marked as a consonant first, then an "i" or "u" between
//!   vowels and a "y" beside one in a left-to-right pass that sees its own earlier marks;
//! - French step 2a looks up the letter before the suffix's last occurrence in RV, and one at
//!   index −1 is Python's last letter; step 4 tries later suffixes when one ends the word but is
//!   not in RV, and its "s" rule ignores RV; step 6 looks for the last vowel after the first letter.
//!
//! Letters are Unicode scalar values, as Python's are. Lower-casing is Rust's `to_lowercase`, as
//! in `pystr::lower`, whose Unicode is newer than Python 3.11's (14.0): the two differ only on
//! letters given case since then and on a capital sigma beside letters whose case properties
//! changed.

/// A language of `snowball_stem`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnowballLanguage {
    German,
    French,
}

/// `SnowballStemmer(language).stem(word)`.
pub fn snowball_stem(language: SnowballLanguage, word: &str) -> String {
    match language {
        SnowballLanguage::German => german(word),
        SnowballLanguage::French => french(word),
    }
}

/// Whether `s` ends with `suffix`.
fn ends_with(s: &[char], suffix: &str) -> bool {
    let n = suffix.chars().count();
    s.len() >= n && s[s.len() - n..].iter().copied().eq(suffix.chars())
}

/// Whether `s` starts with `prefix`.
fn starts_with(s: &[char], prefix: &str) -> bool {
    let n = prefix.chars().count();
    s.len() >= n && s[..n].iter().copied().eq(prefix.chars())
}

/// The start of the last occurrence of `needle` in `s` (Python's `str.rfind`).
fn rfind(s: &[char], needle: &str) -> Option<usize> {
    let needle: Vec<char> = needle.chars().collect();
    if needle.len() > s.len() {
        return None;
    }
    (0..=s.len() - needle.len()).rev().find(|&i| s[i..i + needle.len()] == needle[..])
}

/// Python's `needle in s`.
fn contains(s: &[char], needle: &str) -> bool {
    rfind(s, needle).is_some()
}

/// Python's `s == text`.
fn equals(s: &[char], text: &str) -> bool {
    s.iter().copied().eq(text.chars())
}

/// Python's `s[-from:-to]`, for `from` > `to` > 0.
fn before_end(s: &[char], from: usize, to: usize) -> &[char] {
    let start = s.len().saturating_sub(from);
    let end = s.len().saturating_sub(to);
    &s[start..end.max(start)]
}

/// Python's `s[index]`, where a negative index counts from the end; `None` where Python raises.
fn char_at(s: &[char], index: isize) -> Option<char> {
    let i = if index < 0 { s.len().checked_sub(index.unsigned_abs())? } else { index as usize };
    s.get(i).copied()
}

/// Python's `s = s[:-n]` for `n` > 0: everything when `n` reaches the length.
fn drop_last(s: &mut Vec<char>, n: usize) {
    s.truncate(s.len().saturating_sub(n));
}

/// `suffix_replace(s, old, new)`: `s[:-len(old)] + new`.
fn replace_end(s: &mut Vec<char>, old: &str, new: &str) {
    drop_last(s, old.chars().count());
    s.extend(new.chars());
}

/// NLTK's `_r1r2_standard`: the starts of R1 and R2 in `word`.
fn r1r2_standard(word: &[char], is_vowel: fn(char) -> bool) -> (usize, usize) {
    let after_vowel_consonant =
        |from: usize| (from + 1..word.len()).find(|&i| !is_vowel(word[i]) && is_vowel(word[i - 1])).map(|i| i + 1);
    match after_vowel_consonant(0) {
        Some(r1) => (r1, after_vowel_consonant(r1).unwrap_or(word.len())),
        None => (word.len(), word.len()),
    }
}

fn is_german_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y' | 'ä' | 'ö' | 'ü')
}

const GERMAN_STEP1: [&str; 7] = ["ern", "em", "er", "en", "es", "e", "s"];
const GERMAN_STEP2: [&str; 4] = ["est", "en", "er", "st"];
const GERMAN_STEP3: [&str; 8] = ["isch", "lich", "heit", "keit", "end", "ung", "ig", "ik"];

fn german(word: &str) -> String {
    let mut word: Vec<char> = word.to_lowercase().replace('ß', "ss").chars().collect();
    for i in 1..word.len().saturating_sub(1) {
        if is_german_vowel(word[i - 1]) && is_german_vowel(word[i + 1]) {
            match word[i] {
                'u' => word[i] = 'U',
                'y' => word[i] = 'Y',
                _ => {}
            }
        }
    }

    let (r1_start, r2_start) = r1r2_standard(&word, is_german_vowel);
    let r1_start = if r1_start == 2 { word.len().min(3) } else { r1_start };
    let mut r1 = word[r1_start..].to_vec();
    let mut r2 = word[r2_start..].to_vec();
    let cut = |n: usize, word: &mut Vec<char>, r1: &mut Vec<char>, r2: &mut Vec<char>| {
        drop_last(word, n);
        drop_last(r1, n);
        drop_last(r2, n);
    };

    if let Some(suffix) = GERMAN_STEP1.into_iter().find(|s| ends_with(&r1, s)) {
        let n = suffix.chars().count();
        if matches!(suffix, "en" | "es" | "e") && equals(before_end(&word, n + 4, n), "niss") {
            cut(n + 1, &mut word, &mut r1, &mut r2);
        } else if suffix == "s" {
            if char_at(&word, -2).is_some_and(|c| "bdfghklmnrt".contains(c)) {
                cut(1, &mut word, &mut r1, &mut r2);
            }
        } else {
            cut(n, &mut word, &mut r1, &mut r2);
        }
    }

    if let Some(suffix) = GERMAN_STEP2.into_iter().find(|s| ends_with(&r1, s)) {
        if suffix == "st" {
            if char_at(&word, -3).is_some_and(|c| "bdfghklmnt".contains(c)) && word.len() >= 6 {
                cut(2, &mut word, &mut r1, &mut r2);
            }
        } else {
            cut(suffix.chars().count(), &mut word, &mut r1, &mut r2);
        }
    }

    if let Some(suffix) = GERMAN_STEP3.into_iter().find(|s| ends_with(&r2, s)) {
        let n = suffix.chars().count();
        let strip = match suffix {
            "end" | "ung" => {
                if contains(before_end(&r2, n + 2, n), "ig") && !contains(before_end(&r2, n + 3, n + 2), "e") {
                    n + 2
                } else {
                    n
                }
            }
            "ig" | "ik" | "isch" => {
                if contains(before_end(&r2, n + 1, n), "e") {
                    0
                } else {
                    n
                }
            }
            "lich" | "heit" => {
                let before = before_end(&r1, n + 2, n);
                if contains(before, "er") || contains(before, "en") {
                    n + 2
                } else {
                    n
                }
            }
            _ => {
                if contains(before_end(&r2, n + 4, n), "lich") {
                    n + 4
                } else if contains(before_end(&r2, n + 2, n), "ig") {
                    n + 2
                } else {
                    n
                }
            }
        };
        drop_last(&mut word, strip);
    }

    word.into_iter()
        .map(|c| match c {
            'ä' => 'a',
            'ö' => 'o',
            'ü' | 'U' => 'u',
            'Y' => 'y',
            c => c,
        })
        .collect()
}

fn is_french_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y' | 'â' | 'à' | 'ë' | 'é' | 'ê' | 'è' | 'ï' | 'î' | 'ô' | 'û' | 'ù')
}

#[rustfmt::skip]
const FRENCH_STEP1: [&str; 43] = [
    "issements", "issement", "atrices", "atrice", "ateurs", "ations", "logies", "usions", "utions", "ements",
    "amment", "emment", "ances", "iqUes", "ismes", "ables", "istes", "ateur", "ation", "logie", "usion", "ution",
    "ences", "ement", "euses", "ments", "ance", "iqUe", "isme", "able", "iste", "ence", "ités", "ives", "eaux",
    "euse", "ment", "eux", "ité", "ive", "ifs", "aux", "if",
];
#[rustfmt::skip]
const FRENCH_STEP2A: [&str; 35] = [
    "issaIent", "issantes", "iraIent", "issante", "issants", "issions", "irions", "issais", "issait", "issant",
    "issent", "issiez", "issons", "irais", "irait", "irent", "iriez", "irons", "iront", "isses", "issez", "îmes",
    "îtes", "irai", "iras", "irez", "isse", "ies", "ira", "ît", "ie", "ir", "is", "it", "i",
];
#[rustfmt::skip]
const FRENCH_STEP2B: [&str; 38] = [
    "eraIent", "assions", "erions", "assent", "assiez", "èrent", "erais", "erait", "eriez", "erons", "eront",
    "aIent", "antes", "asses", "ions", "erai", "eras", "erez", "âmes", "âtes", "ante", "ants", "asse", "ées", "era",
    "iez", "ais", "ait", "ant", "ée", "és", "er", "ez", "ât", "ai", "as", "é", "a",
];
const FRENCH_STEP4: [&str; 7] = ["ière", "Ière", "ion", "ier", "Ier", "e", "ë"];

/// Where French step 1 leaves a word: whether it removed a suffix, and whether it instead
/// rewrote an adverb ending in RV ("amment", "emment", "ment"), which lets step 2 run.
#[derive(Default)]
struct Step1 {
    success: bool,
    rv_ending_found: bool,
}

fn french(word: &str) -> String {
    let mut word: Vec<char> = word.to_lowercase().chars().collect();
    for i in 1..word.len() {
        if word[i - 1] == 'q' && word[i] == 'u' {
            word[i] = 'U';
        }
    }
    for i in 1..word.len().saturating_sub(1) {
        let (before, after) = (is_french_vowel(word[i - 1]), is_french_vowel(word[i + 1]));
        if before && after {
            match word[i] {
                'u' => word[i] = 'U',
                'i' => word[i] = 'I',
                _ => {}
            }
        }
        if (before || after) && word[i] == 'y' {
            word[i] = 'Y';
        }
    }

    let (r1_start, r2_start) = r1r2_standard(&word, is_french_vowel);
    let r1 = word[r1_start..].to_vec();
    let r2 = word[r2_start..].to_vec();
    let mut rv = word[rv_french(&word)..].to_vec();

    let step1 = french_step1(&mut word, &r1, &r2, &mut rv);
    let step2_success = (!step1.success || step1.rv_ending_found)
        && (french_step2a(&mut word, &rv) || french_step2b(&mut word, &r2, &mut rv));

    if step1.success || step2_success {
        match word.last_mut() {
            Some(c @ 'Y') => *c = 'i',
            Some(c @ 'ç') => *c = 'c',
            _ => {}
        }
    } else {
        french_step4(&mut word, &r2, &rv);
    }

    if ["enn", "onn", "ett", "ell", "eill"].iter().any(|s| ends_with(&word, s)) {
        word.pop();
    }

    let n = word.len();
    if let Some(i) = (1..n).find(|&i| is_french_vowel(word[n - i])) {
        if i != 1 && matches!(word[n - i], 'é' | 'è') {
            word[n - i] = 'e';
        }
    }

    word.into_iter()
        .map(|c| match c {
            'I' => 'i',
            'U' => 'u',
            'Y' => 'y',
            c => c,
        })
        .collect()
}

/// NLTK's `__rv_french`: the start of RV in `word`.
fn rv_french(word: &[char]) -> usize {
    if word.len() < 2 {
        return word.len();
    }
    let prefixed = ["par", "col", "tap"].iter().any(|p| starts_with(word, p));
    if prefixed || (is_french_vowel(word[0]) && is_french_vowel(word[1])) {
        return word.len().min(3);
    }
    (1..word.len()).find(|&i| is_french_vowel(word[i])).map_or(word.len(), |i| i + 1)
}

fn french_step1(word: &mut Vec<char>, r1: &[char], r2: &[char], rv: &mut Vec<char>) -> Step1 {
    let mut step = Step1::default();
    let Some(suffix) = FRENCH_STEP1.into_iter().find(|s| ends_with(word, s)) else {
        return step;
    };
    let n = suffix.chars().count();
    let ic = |word: &mut Vec<char>| {
        if ends_with(word, "ic") {
            if contains(r2, "ic") {
                drop_last(word, 2);
            } else {
                replace_end(word, "ic", "iqU");
            }
        }
    };
    match suffix {
        "eaux" => {
            word.pop();
            step.success = true;
        }
        "euse" | "euses" => {
            if contains(r2, suffix) {
                drop_last(word, n);
                step.success = true;
            } else if contains(r1, suffix) {
                replace_end(word, suffix, "eux");
                step.success = true;
            }
        }
        "ement" | "ements" if contains(rv, suffix) => {
            drop_last(word, n);
            step.success = true;
            if ends_with(word, "iv") && contains(r2, "iv") {
                drop_last(word, 2);
                if ends_with(word, "at") && contains(r2, "at") {
                    drop_last(word, 2);
                }
            } else if ends_with(word, "eus") {
                if contains(r2, "eus") {
                    drop_last(word, 3);
                } else if contains(r1, "eus") {
                    replace_end(word, "s", "x");
                }
            } else if ends_with(word, "abl") || ends_with(word, "iqU") {
                if contains(r2, "abl") || contains(r2, "iqU") {
                    drop_last(word, 3);
                }
            } else if (ends_with(word, "ièr") || ends_with(word, "Ièr")) && (contains(rv, "ièr") || contains(rv, "Ièr"))
            {
                replace_end(word, "ièr", "i");
            }
        }
        "amment" if contains(rv, suffix) => {
            replace_end(word, "amment", "ant");
            replace_end(rv, "amment", "ant");
            step.rv_ending_found = true;
        }
        "emment" if contains(rv, suffix) => {
            replace_end(word, "emment", "ent");
            step.rv_ending_found = true;
        }
        "ment" | "ments"
            if !starts_with(rv, suffix)
                && rfind(rv, suffix).is_some_and(|i| char_at(rv, i as isize - 1).is_some_and(is_french_vowel)) =>
        {
            drop_last(word, n);
            drop_last(rv, n);
            step.rv_ending_found = true;
        }
        "aux" if contains(r1, suffix) => {
            replace_end(word, "ux", "l");
            step.success = true;
        }
        "issement" | "issements"
            if contains(r1, suffix) && char_at(word, -(n as isize) - 1).is_some_and(|c| !is_french_vowel(c)) =>
        {
            drop_last(word, n);
            step.success = true;
        }
        "ance" | "iqUe" | "isme" | "able" | "iste" | "eux" | "ances" | "iqUes" | "ismes" | "ables" | "istes"
            if contains(r2, suffix) =>
        {
            drop_last(word, n);
            step.success = true;
        }
        "atrice" | "ateur" | "ation" | "atrices" | "ateurs" | "ations" if contains(r2, suffix) => {
            drop_last(word, n);
            step.success = true;
            ic(word);
        }
        "logie" | "logies" if contains(r2, suffix) => {
            replace_end(word, suffix, "log");
            step.success = true;
        }
        "usion" | "ution" | "usions" | "utions" if contains(r2, suffix) => {
            replace_end(word, suffix, "u");
            step.success = true;
        }
        "ence" | "ences" if contains(r2, suffix) => {
            replace_end(word, suffix, "ent");
            step.success = true;
        }
        "ité" | "ités" if contains(r2, suffix) => {
            drop_last(word, n);
            step.success = true;
            if ends_with(word, "abil") {
                if contains(r2, "abil") {
                    drop_last(word, 4);
                } else {
                    replace_end(word, "il", "l");
                }
            } else if ends_with(word, "ic") {
                ic(word);
            } else if ends_with(word, "iv") && contains(r2, "iv") {
                drop_last(word, 2);
            }
        }
        "if" | "ive" | "ifs" | "ives" if contains(r2, suffix) => {
            drop_last(word, n);
            step.success = true;
            if ends_with(word, "at") && contains(r2, "at") {
                drop_last(word, 2);
                ic(word);
            }
        }
        _ => {}
    }
    step
}

/// Step 2a: verb suffixes beginning with "i"; whether it removed one.
fn french_step2a(word: &mut Vec<char>, rv: &[char]) -> bool {
    let Some(suffix) = FRENCH_STEP2A.into_iter().find(|s| ends_with(word, s)) else {
        return false;
    };
    let n = suffix.chars().count();
    let removes = rv.len() > n
        && rfind(rv, suffix).is_some_and(|i| char_at(rv, i as isize - 1).is_some_and(|c| !is_french_vowel(c)));
    if removes {
        drop_last(word, n);
    }
    removes
}

/// Step 2b: other verb suffixes, which RV must end with; whether it removed one.
fn french_step2b(word: &mut Vec<char>, r2: &[char], rv: &mut Vec<char>) -> bool {
    let Some(suffix) = FRENCH_STEP2B.into_iter().find(|s| ends_with(rv, s)) else {
        return false;
    };
    let n = suffix.chars().count();
    match suffix {
        "ions" if contains(r2, "ions") => drop_last(word, 4),
        "eraIent" | "erions" | "èrent" | "erais" | "erait" | "eriez" | "erons" | "eront" | "erai" | "eras" | "erez"
        | "ées" | "era" | "iez" | "ée" | "és" | "er" | "ez" | "é" => drop_last(word, n),
        "assions" | "assent" | "assiez" | "aIent" | "antes" | "asses" | "âmes" | "âtes" | "ante" | "ants" | "asse"
        | "ais" | "ait" | "ant" | "ât" | "ai" | "as" | "a" => {
            drop_last(word, n);
            drop_last(rv, n);
            if ends_with(rv, "e") {
                word.pop();
            }
        }
        _ => return false,
    }
    true
}

/// Step 4: residual suffixes, with RV and R2 as they were before step 1.
fn french_step4(word: &mut Vec<char>, r2: &[char], rv: &[char]) {
    if word.len() >= 2 && word[word.len() - 1] == 's' && !"aiouès".contains(word[word.len() - 2]) {
        word.pop();
    }
    for suffix in FRENCH_STEP4 {
        if !ends_with(word, suffix) || !contains(rv, suffix) {
            continue;
        }
        match suffix {
            "ion" if contains(r2, suffix) && char_at(rv, -4).is_some_and(|c| "st".contains(c)) => {
                drop_last(word, 3);
            }
            "ier" | "ière" | "Ier" | "Ière" => replace_end(word, suffix, "i"),
            "e" => drop_last(word, 1),
            "ë" if equals(before_end(word, 3, 1), "gu") => drop_last(word, 1),
            _ => {}
        }
        break;
    }
}

//! Text to sentences, the unit the models translate: the Translate box, file translation and the
//! CLI's `translate` split each line here and join the translations back on it.

/// Closing marks that may follow a sentence's last `.`, `!` or `?`.
const CLOSERS: [char; 6] = ['"', '\'', ')', '»', '”', '’'];

/// Words whose period is an abbreviation's, not a sentence's end (English, German, French titles and
/// common short forms; initialisms and single letters are recognised by their shape).
const ABBREVIATIONS: [&str; 21] = [
    "Mr", "Mrs", "Ms", "Dr", "Prof", "St", "Mt", "Jr", "Sr", "vs", "Nr", "Hr", "Fr", "ca", "bzw", "Str", "Abb", "Mme",
    "Mlle", "Jh", "evtl",
];

/// Whether a `.` ending `word` (the text since the last space, without the `.`) is not a
/// sentence's end: "Mr.", "J.P.", "z.B.", "a.". A number is not judged: "am 3. Mai" (a German
/// ordinal) and "in 1990. He" (an end) look alike without knowing the language.
fn abbreviation(word: &str) -> bool {
    let word = word.trim_start_matches(['(', '"', '\'', '«', '“', '‘', '[']);
    let letters_only = |s: &str| !s.is_empty() && s.chars().all(char::is_alphabetic);
    let initialism = word.split('.').all(|piece| letters_only(piece) && piece.chars().count() <= 2)
        && (word.contains('.') || word.chars().count() == 1);
    initialism || ABBREVIATIONS.contains(&word)
}

/// Splits text into lines of sentences: a sentence ends at `.`, `!`, `?` or `…` (possibly followed
/// by closing quotes or brackets) before whitespace, unless the next word starts in lower case
/// ("he said. and") or the period is an abbreviation's (`abbreviation`). Empty lines are kept as
/// empty lists.
pub fn split_sentences(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|line| {
            let chars: Vec<char> = line.chars().collect();
            let mut out = Vec::new();
            let mut start = 0;
            for (i, &c) in chars.iter().enumerate() {
                // A run of periods ("...") is judged at its first.
                if !matches!(c, '.' | '!' | '?' | '…') || i < start || (i > start && chars[i - 1] == c && c == '.') {
                    continue;
                }
                let mut j = i + 1;
                while j < chars.len() && (CLOSERS.contains(&chars[j]) || (chars[j] == c && c == '.')) {
                    j += 1;
                }
                if j >= chars.len() || !chars[j].is_whitespace() {
                    continue;
                }
                let next = chars[j..].iter().find(|ch| !ch.is_whitespace());
                if next.is_some_and(|ch| ch.is_lowercase()) {
                    continue;
                }
                if c == '.' && chars.get(i + 1) != Some(&'.') {
                    let word_start = chars[..i].iter().rposition(|ch| ch.is_whitespace()).map_or(0, |k| k + 1);
                    let word: String = chars[word_start.max(start)..i].iter().collect();
                    if abbreviation(&word) {
                        continue;
                    }
                }
                out.push(chars[start..j].iter().collect::<String>().trim().to_string());
                start = j;
            }
            out.push(chars[start..].iter().collect::<String>().trim().to_string());
            out.retain(|s| !s.is_empty());
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::split_sentences;

    fn one_line(text: &str) -> Vec<String> {
        split_sentences(text).pop().unwrap_or_default()
    }

    #[test]
    fn splits_lines_and_sentences() {
        assert_eq!(
            split_sentences("A dog runs. A cat sleeps!\n\nWhy? Because."),
            vec![vec!["A dog runs.", "A cat sleeps!"], vec![], vec!["Why?", "Because."]]
        );
        assert_eq!(split_sentences("3.5 m tall"), vec![vec!["3.5 m tall"]]);
        assert_eq!(one_line("He said \"Stop.\" Then he left."), ["He said \"Stop.\"", "Then he left."]);
        assert_eq!(one_line("(See above.) Next! «Oui.» Non"), ["(See above.)", "Next!", "«Oui.»", "Non"]);
        assert_eq!(split_sentences(""), Vec::<Vec<String>>::new());
        assert_eq!(one_line("Es regnet… Wir gehen. Ende"), ["Es regnet…", "Wir gehen.", "Ende"]);
        assert_eq!(one_line("Wait... Who is it? Me."), ["Wait...", "Who is it?", "Me."]);
    }

    #[test]
    fn abbreviations_and_initials_do_not_end_a_sentence() {
        for text in [
            "People attending a J.P. Morgan Corporate Challenge.",
            "A man is walking past a large sign that says E.S.E. Electronics.",
            "Mr. Smith and Dr. Jones walk down St. Mark's Place.",
            "Das ist z.B. ein Hund.",
            "A sign reads \"Open 9 a.m. to 5 p.m. daily\".",
            "The U.S. Army band plays.",
            "She said \"Help!\" and ran.",
            "A man. and a dog",
        ] {
            assert_eq!(one_line(text), [text], "{text}");
        }
        assert_eq!(one_line("I was in the U.S. It was cold."), ["I was in the U.S. It was cold."]);
        assert_eq!(one_line("Ein Hund läuft. Eine Katze schläft."), ["Ein Hund läuft.", "Eine Katze schläft."]);
        assert_eq!(one_line("Un chien court. 3 chats dorment."), ["Un chien court.", "3 chats dorment."]);
        assert_eq!(one_line("He lives at number 3. He is happy."), ["He lives at number 3.", "He is happy."]);
    }
}

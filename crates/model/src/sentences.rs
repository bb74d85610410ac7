//! Text to sentences, the unit the models translate: the Translate box, file translation and the
//! CLI's `translate` split each line here and join the translations back on it.

/// Opening marks that may come before a word.
const OPENERS: [char; 7] = ['(', '"', '\'', '«', '“', '‘', '['];

/// Closing marks that may follow a sentence's last `.`, `!` or `?`.
const CLOSERS: [char; 6] = ['"', '\'', ')', '»', '”', '’'];

/// Titles, whose period is an abbreviation's and which a name follows (English, German, French), and
/// short forms a lower-case word usually follows anyway.
const ABBREVIATIONS: [&str; 21] = [
    "Mr", "Mrs", "Ms", "Dr", "Prof", "St", "Mt", "Jr", "Sr", "vs", "Nr", "Hr", "Fr", "ca", "bzw", "Str", "Abb", "Mme",
    "Mlle", "Jh", "evtl",
];

/// Whether a `.` ending `word` (the text since the last space, without the `.`) is surely not a
/// sentence's end: a title ("Mr.") or one capital, an initial ("John F. Kennedy"). Anything less
/// sure ends the sentence unless it is an initialism that a word not starting sentences follows
/// ("U.S. Army"): these models translate one sentence at a time and drop the second of two given
/// as one ("at 5 p.m. A dog" lost "A dog …"), so a wrong cut costs less than a missed one. Numbers are not judged: "am 3. Mai" (a German ordinal) and "in 1990. He"
/// (an end) look alike without knowing the language.
fn abbreviation(word: &str) -> bool {
    let word = word.trim_start_matches(OPENERS);
    let mut chars = word.chars();
    // "I" and "A" are words before they are initials ("taller than I. A dog runs").
    let initial = matches!((chars.next(), chars.next()), (Some(c), None) if c.is_uppercase() && c != 'I' && c != 'A');
    initial || ABBREVIATIONS.contains(&word)
}

/// Words that begin sentences (articles, pronouns, small numbers, a few conjunctions and
/// prepositions) in English, German and French: after an initialism ("U.S.", "p.m.") one of these
/// (or a number) ends the sentence, any other capitalised word continues it ("U.S. Army", "J.P.
/// Morgan").
const STARTERS: [&str; 61] = [
    "A", "An", "The", "He", "She", "It", "They", "We", "I", "You", "This", "That", "These", "There", "Two", "Three",
    "In", "On", "At", "Then", "But", "And", "My", "His", "Her", "Their", "Our", "One", "Ein", "Eine", "Der", "Die",
    "Das", "Er", "Sie", "Es", "Wir", "Ich", "Zwei", "Drei", "Dann", "Aber", "Und", "Im", "Auf", "Mein", "Un", "Une",
    "Le", "La", "Les", "Il", "Elle", "Ils", "Nous", "Je", "Deux", "Trois", "Puis", "Mais", "Dans",
];

/// "U.S", "J.P", "p.m" (the word before its last period): single letters joined by periods.
fn initialism(word: &str) -> bool {
    let word = word.trim_start_matches(OPENERS);
    let pieces: Vec<&str> = word.split('.').collect();
    pieces.len() >= 2 && pieces.iter().all(|p| p.chars().count() == 1 && p.chars().all(char::is_alphabetic))
}

/// Whether `word` (with its closing punctuation) begins a sentence after an initialism.
fn starts_a_sentence(word: &str) -> bool {
    let word = word.trim_start_matches(OPENERS);
    let bare = word.trim_end_matches(|c: char| !c.is_alphanumeric());
    word.starts_with(|c: char| c.is_ascii_digit()) || STARTERS.contains(&bare)
}

/// A line's translation from its sentences' translations: one space between those with text.
pub fn joined<'a>(translations: impl IntoIterator<Item = &'a str>) -> String {
    translations.into_iter().filter(|t| !t.is_empty()).collect::<Vec<_>>().join(" ")
}

/// The line end a translation of `text` is written with: its first line's (Windows line ends when
/// it has one), as `wgslate translate` knows it with the first line of its standard input.
pub fn line_end(text: &str) -> &'static str {
    match text.split_once('\n') {
        Some((first, _)) if first.ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

/// What an input line holds when a carriage return in it ends no line (old Mac files): only "\n"
/// ends a line, as for sacreBLEU, so the lines it would end come back joined on one.
pub const LONE_CARRIAGE_RETURN: &str =
    "a carriage return that ends no line (old Mac line ends?): only \\n ends a line, so each was translated as one line";

/// "N input lines hold WHAT", or nothing when none does.
pub fn lines_hold(n: usize, what: &str) -> Option<String> {
    match n {
        0 => None,
        1 => Some(format!("1 input line holds {what}")),
        n => Some(format!("{n} input lines hold {what}")),
    }
}

/// The sentences of lines to translate (a file's on the page, `wgslate translate`'s input): each line
/// split as the Translate box splits text, so a paragraph on one line is translated sentence by
/// sentence and joined back on its line.
pub struct Segments {
    /// (line index, sentence) in file order; blank lines have none.
    pub sentences: Vec<(usize, String)>,
    /// Sentences per line.
    pub per_line: Vec<usize>,
}

impl Segments {
    pub fn of(lines: &[String]) -> Self {
        let mut sentences = Vec::new();
        let mut per_line = vec![0; lines.len()];
        for (i, line) in lines.iter().enumerate() {
            for sentence in split_sentences(line).into_iter().flatten() {
                per_line[i] += 1;
                sentences.push((i, sentence));
            }
        }
        Self { sentences, per_line }
    }

    /// Lines with text.
    pub fn lines_with_text(&self) -> usize {
        self.per_line.iter().filter(|&&n| n > 0).count()
    }
}

impl Segments {
    /// Each line's text from its sentences' translations, in `sentences` order.
    pub fn rejoined<'a>(&self, translations: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let mut translations = translations.into_iter();
        self.per_line.iter().map(|&n| joined(translations.by_ref().take(n))).collect()
    }
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
                    let next_word: String = chars[j..]
                        .iter()
                        .skip_while(|ch| ch.is_whitespace())
                        .take_while(|ch| !ch.is_whitespace())
                        .collect();
                    if abbreviation(&word) || (initialism(&word) && !starts_a_sentence(&next_word)) {
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
    fn titles_initials_and_lower_case_continuations_do_not_end_a_sentence() {
        for text in [
            "Mr. Smith and Dr. Jones walk down St. Mark's Place.",
            "John F. Kennedy spoke in Berlin.",
            "Das ist z.B. ein Hund.",
            "A sign reads \"Open 9 a.m. to 5 p.m. daily\".",
            "She said \"Help!\" and ran.",
            "A man. and a dog",
            "The U.S. Army band played in Berlin.",
            "People attending a J.P. Morgan Corporate Challenge.",
            "(U.S. Navy) ships in port.",
        ] {
            assert_eq!(one_line(text), [text], "{text}");
        }
    }

    /// A missed end loses the second sentence (the models stop after one); a wrong cut keeps it.
    #[test]
    fn initialisms_and_numbers_before_a_capital_end_a_sentence() {
        assert_eq!(
            one_line("A man arrived at 5 p.m. A dog was tired."),
            ["A man arrived at 5 p.m.", "A dog was tired."]
        );
        assert_eq!(one_line("A man is in the U.S. A dog runs."), ["A man is in the U.S.", "A dog runs."]);
        assert_eq!(one_line("Er lebt in den U.S.A. Der Hund bellt."), ["Er lebt in den U.S.A.", "Der Hund bellt."]);
        assert_eq!(one_line("It ends at 5 p.m. 3 dogs wait."), ["It ends at 5 p.m.", "3 dogs wait."]);
        assert_eq!(one_line("He lives at number 3. He is happy."), ["He lives at number 3.", "He is happy."]);
        assert_eq!(one_line("She is taller than I. A dog runs."), ["She is taller than I.", "A dog runs."]);
        assert_eq!(one_line("It is plan A. Then we go."), ["It is plan A.", "Then we go."]);
        assert_eq!(one_line("Ein Hund läuft. Eine Katze schläft."), ["Ein Hund läuft.", "Eine Katze schläft."]);
        assert_eq!(one_line("Un chien court. 3 chats dorment."), ["Un chien court.", "3 chats dorment."]);
    }
}

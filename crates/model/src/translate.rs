//! Text in, text out: tokenize, batch by length, search, detokenize. The CLI and the web page both
//! translate through here, so they give the same tokens.

use wgslate_decode::{block_on, run_search_async, AsyncStepModel, Hypothesis, Prefixed, Search, StepModel};

use crate::Model;

#[derive(Debug, Clone)]
pub struct Translation {
    /// Source subword ids (EOS last), after any cut to the model's limit.
    pub source_ids: Vec<u32>,
    /// True when the source was longer than the model takes and was cut.
    pub truncated: bool,
    /// Per hypothesis (best first): detokenized text and the search result.
    pub outputs: Vec<(String, Hypothesis)>,
}

/// Subword ids of each text, cut to the model's limit (EOS kept last).
pub fn encode_sources(model: &Model, texts: &[String]) -> Result<Vec<(Vec<u32>, bool)>, String> {
    let max = model.config.max_len();
    texts
        .iter()
        .map(|t| {
            let mut ids = model.vocab.encode(t)?;
            let cut = ids.len() > max;
            if cut {
                let eos = *ids.last().unwrap();
                ids.truncate(max - 1);
                ids.push(eos);
            }
            Ok((ids, cut))
        })
        .collect()
}

/// The subwords a translation must begin with (`--prefix`, the page's "Begin the translation
/// with…"), or why the model cannot begin with them. Blank: no prefix. A prefix ending inside a word
/// is forced as its subwords, and the search may go on with that word.
pub fn encode_prefix(model: &Model, text: &str) -> Result<Vec<u32>, String> {
    if text.trim().is_empty() {
        return Ok(vec![]);
    }
    let unseen = model.vocab.unseen_chars(text);
    if !unseen.is_empty() {
        let named: Vec<String> = unseen.iter().map(|&c| char_label(c)).collect();
        return Err(format!(
            "the prefix has characters the model's vocabulary cannot spell ({}): a translation cannot begin with them",
            named.join(", ")
        ));
    }
    let mut ids = model.vocab.encode(text)?;
    ids.pop(); // EOS
    special_tokens_refused(model, &ids, "the prefix")?;
    // The model emits at most max_len − 1 tokens, EOS included.
    let room = model.config.max_len().saturating_sub(2);
    if ids.len() > room {
        return Err(format!(
            "the prefix is {} subwords, and the model's translations are at most {room} (and EOS)",
            ids.len()
        ));
    }
    Ok(ids)
}

/// Refuses a prefix of `prefix_len` subwords that the search's length limit would cut, for a source
/// of `source_len` subwords (EOS included).
pub fn check_prefix(model: &Model, search: &Search, source_len: usize, prefix: &[u32]) -> Result<(), String> {
    let prefix_len = prefix.len();
    let longest = search.limits().max_len(source_len, model.config.max_len().saturating_sub(1));
    if prefix_len >= longest {
        return Err(format!(
            "the prefix is {prefix_len} subwords, but the translation of a sentence this long stops at {longest}: shorten the prefix, or raise the length limit"
        ));
    }
    if let Search::Beam(b) = search {
        if b.no_repeat_ngram > 0 && wgslate_decode::repeats_ngram(prefix, b.no_repeat_ngram) {
            return Err(format!(
                "the prefix repeats a {}-gram, which --no-repeat-ngram {} forbids: no output could begin with it",
                b.no_repeat_ngram, b.no_repeat_ngram
            ));
        }
    }
    Ok(())
}

/// Refuses text whose subwords hold the model's special tokens (`</s>`, `<pad>`, `<s>`, `<unk>` typed
/// as such): forced or scored, they would end or break the output without a word.
pub fn special_tokens_refused(model: &Model, ids: &[u32], what: &str) -> Result<(), String> {
    let special: Vec<String> = ids
        .iter()
        .filter(|&&i| (i as usize) < crate::config::SPECIAL_TOKENS.len() && i != crate::config::UNK_ID)
        .flat_map(|&i| model.vocab.token_strings(&[i]))
        .collect();
    match special.is_empty() {
        true => Ok(()),
        false => Err(format!("{what} holds the model's special tokens ({}): leave them out", special.join(", "))),
    }
}

/// Translates `texts` on a synchronous engine, `batch` sentences at a time (sorted by length).
pub fn translate_with<M: StepModel + ?Sized>(
    engine: &mut M,
    model: &Model,
    texts: &[String],
    search: &Search,
    batch: usize,
    want_attention: bool,
) -> Result<Vec<Translation>, String> {
    block_on(translate_with_async(engine, model, texts, search, batch, want_attention))
}

/// Translates `texts` on any engine, `batch` sentences at a time (sorted by length).
pub async fn translate_with_async<M: AsyncStepModel + ?Sized>(
    engine: &mut M,
    model: &Model,
    texts: &[String],
    search: &Search,
    batch: usize,
    want_attention: bool,
) -> Result<Vec<Translation>, String> {
    translate_from_async(engine, model, texts, &[], search, batch, want_attention).await
}

/// Translates `texts`, each output beginning with its prefix (`prefixes[i]` for `texts[i]`, from
/// [`encode_prefix`]; none at all: no prefixes).
pub async fn translate_from_async<M: AsyncStepModel + ?Sized>(
    engine: &mut M,
    model: &Model,
    texts: &[String],
    prefixes: &[Vec<u32>],
    search: &Search,
    batch: usize,
    want_attention: bool,
) -> Result<Vec<Translation>, String> {
    if !prefixes.is_empty() && prefixes.len() != texts.len() {
        return Err(format!("{} texts but {} prefixes", texts.len(), prefixes.len()));
    }
    let encoded = encode_sources(model, texts)?;
    for (i, p) in prefixes.iter().enumerate() {
        check_prefix(model, search, encoded[i].0.len(), p)?;
    }
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| (encoded[i].0.len(), i));
    let mut out: Vec<Option<Translation>> = vec![None; texts.len()];
    for chunk in order.chunks(batch.max(1)) {
        let sources: Vec<Vec<u32>> = chunk.iter().map(|&i| encoded[i].0.clone()).collect();
        let results = if prefixes.iter().all(Vec::is_empty) {
            run_search_async(engine, &sources, search, want_attention).await?
        } else {
            let mut forced = Prefixed::new(engine, chunk.iter().map(|&i| prefixes[i].clone()).collect());
            run_search_async(&mut forced, &sources, search, want_attention).await?
        };
        for (&i, hyps) in chunk.iter().zip(results) {
            let outputs = hyps.into_iter().map(|h| (model.vocab.decode(&h.tokens), h)).collect();
            out[i] = Some(Translation { source_ids: encoded[i].0.clone(), truncated: encoded[i].1, outputs });
        }
    }
    Ok(out.into_iter().map(|t| t.expect("every sentence translated")).collect())
}

/// What the user should be told about a translation job: sources cut to the model's limit,
/// outputs stopped by the maximum length, characters the model has never seen. The sentences are
/// kept by index in the job's texts, so that the page's CPU workers, each with a share of them,
/// add theirs up, and a message can say which lines they are (`messages_at`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Notices {
    /// The sentences whose source was cut, ascending.
    pub cut: Vec<usize>,
    /// The sentences whose translation stopped at the maximum length, ascending.
    pub stopped: Vec<usize>,
    /// The model's limit in subwords (named in the message).
    pub limit: usize,
    /// In the order first met.
    pub unseen: Vec<char>,
}

impl Notices {
    pub fn of(model: &Model, texts: &[String], out: &[Translation]) -> Self {
        let mut unseen: Vec<char> = Vec::new();
        for c in texts.iter().flat_map(|t| model.vocab.unseen_chars(t)) {
            if !unseen.contains(&c) {
                unseen.push(c);
            }
        }
        let which =
            |f: &dyn Fn(&Translation) -> bool| out.iter().enumerate().filter(|(_, t)| f(t)).map(|(i, _)| i).collect();
        Notices {
            cut: which(&|t| t.truncated),
            stopped: which(&|t| t.outputs.first().is_some_and(|o| !o.1.reached_eos())),
            limit: model.config.max_len(),
            unseen,
        }
    }

    /// The same notices with each sentence's index mapped by `to` (a share's index to the whole
    /// job's, a sentence to its line).
    pub fn renumbered(mut self, to: impl Fn(usize) -> usize) -> Self {
        for list in [&mut self.cut, &mut self.stopped] {
            list.iter_mut().for_each(|i| *i = to(*i));
            list.sort_unstable();
        }
        self
    }

    /// Adds another share of the same job's sentences (numbered in the whole job).
    pub fn merge(&mut self, other: Notices) {
        for (mine, theirs) in [(&mut self.cut, other.cut), (&mut self.stopped, other.stopped)] {
            mine.extend(theirs);
            mine.sort_unstable();
        }
        self.limit = self.limit.max(other.limit);
        for c in other.unseen {
            if !self.unseen.contains(&c) {
                self.unseen.push(c);
            }
        }
    }

    /// The messages, counting the sentences.
    pub fn messages(&self) -> Vec<String> {
        self.messages_as(Subject::Counted)
    }

    /// The messages, naming where the sentences are: `unit` ("line", "sentence") and the index + 1.
    pub fn messages_at(&self, unit: &str) -> Vec<String> {
        self.messages_as(Subject::At(unit))
    }

    /// The messages about a job of one sentence ("the translation stopped…"): a count of one reads as
    /// one of several, and Compare's beam, whose every hypothesis may have stopped, as one of them.
    pub fn messages_of_one(&self) -> Vec<String> {
        self.messages_as(Subject::One)
    }

    fn messages_as(&self, subject: Subject) -> Vec<String> {
        let mut notes = Vec::new();
        let limit = self.limit;
        if !self.cut.is_empty() {
            notes.push(match subject {
                Subject::One => format!("the sentence was cut to the model's limit of {limit} subwords"),
                _ => {
                    let (n, were) =
                        (counted(self.cut.len(), "sentence"), if self.cut.len() == 1 { "was" } else { "were" });
                    format!("{n}{} {were} cut to the model's limit of {limit} subwords", subject.place(&self.cut))
                }
            });
        }
        if !self.stopped.is_empty() {
            const STOPPED: &str =
                "stopped at the maximum output length (a·|source| + b, or the model's limit) before the end";
            notes.push(match subject {
                Subject::One => format!("the translation {STOPPED}"),
                _ => {
                    let n = counted(self.stopped.len(), "translation");
                    format!("{n}{} {STOPPED}", subject.place(&self.stopped))
                }
            });
        }
        if !self.unseen.is_empty() {
            let shown: Vec<String> = self.unseen.iter().take(12).map(|&c| char_label(c)).collect();
            let more = match self.unseen.len() {
                n if n > 12 => format!(" and {} more", n - 12),
                _ => String::new(),
            };
            notes.push(format!(
                "characters the model has never seen (translated as unknown): {}{more}",
                shown.join(" ")
            ));
        }
        notes
    }
}

/// "1 sentence", "3 sentences" (`wgslate_metrics::plural`, which this crate does not depend on).
fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// Who a message speaks of: sentences counted, counted and placed, or the job's one sentence.
#[derive(Clone, Copy)]
enum Subject<'a> {
    Counted,
    At(&'a str),
    One,
}

impl Subject<'_> {
    fn place(self, indices: &[usize]) -> String {
        match self {
            Subject::At(unit) => place(unit, indices),
            _ => String::new(),
        }
    }
}

/// " (line 4)", " (lines 4, 9 and 12)", " (lines 4, 9, 12, 20, 31 and 6 more)": where the sentences
/// of `indices` (ascending, from 0) are, each place once.
fn place(unit: &str, indices: &[usize]) -> String {
    const NAMED: usize = 5;
    let mut numbers: Vec<usize> = indices.iter().map(|i| i + 1).collect();
    numbers.dedup();
    let named: Vec<String> = numbers.iter().take(NAMED).map(usize::to_string).collect();
    match numbers.len() {
        0 => String::new(),
        1 => format!(" ({unit} {})", named[0]),
        n if n <= NAMED => format!(" ({unit}s {} and {})", named[..n - 1].join(", "), named[n - 1]),
        n => format!(" ({unit}s {} and {} more)", named.join(", "), n - NAMED),
    }
}

/// Translates on the candle CPU reference.
pub fn translate(
    model: &Model,
    texts: &[String],
    search: &Search,
    batch: usize,
    want_attention: bool,
) -> Result<Vec<Translation>, String> {
    let mut engine = crate::step::CpuStepper::new(&model.net, &model.config);
    translate_with(&mut engine, model, texts, search, batch, want_attention)
}

/// How a character is named in a message. Ones that draw nothing (controls such as NUL, zero-width
/// and direction marks, lone combining marks) are named by code point. A right-to-left letter keeps
/// its code point beside it: a run of bare Hebrew or Arabic letters in a left-to-right sentence is
/// shown reversed by the bidirectional algorithm, and the code point breaks the run. So does "�"
/// (U+FFFD), which alone reads as the page's own failure to show a character.
fn char_label(c: char) -> String {
    let code = format!("U+{:04X}", c as u32);
    let u = c as u32;
    let draws_nothing = c.is_control()
        || c.is_whitespace()
        || matches!(u, 0xAD | 0x34F | 0x61C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180F | 0x200B..=0x200F)
        || matches!(u, 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFF8)
        || matches!(u, 0xE0000..=0xE0FFF)
        || matches!(u, 0x300..=0x36F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F);
    let right_to_left =
        matches!(u, 0x590..=0x8FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFE | 0x10800..=0x10FFF | 0x1E800..=0x1EFFF);
    if draws_nothing {
        code
    } else if right_to_left || c == char::REPLACEMENT_CHARACTER {
        format!("{c} ({code})")
    } else {
        c.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::Notices;

    #[test]
    fn notices_of_shares_add_up_to_the_whole_job() {
        let mut first = Notices { cut: vec![0], stopped: vec![], limit: 256, unseen: vec!['€', 'ß'] };
        // The second share starts at the job's sentence 8.
        first.merge(
            Notices { cut: vec![1], stopped: vec![0, 2], limit: 256, unseen: vec!['ß', '¤'] }.renumbered(|i| i + 8),
        );
        assert_eq!(first, Notices { cut: vec![0, 9], stopped: vec![8, 10], limit: 256, unseen: vec!['€', 'ß', '¤'] });
        assert_eq!(
            first.messages(),
            [
                "2 sentences were cut to the model's limit of 256 subwords",
                "2 translations stopped at the maximum output length (a·|source| + b, or the model's limit) before the end",
                "characters the model has never seen (translated as unknown): € ß ¤",
            ]
        );
        assert_eq!(
            first.messages_at("line")[..2],
            [
                "2 sentences (lines 1 and 10) were cut to the model's limit of 256 subwords",
                "2 translations (lines 9 and 11) stopped at the maximum output length (a·|source| + b, or the model's limit) before the end",
            ]
        );
    }

    #[test]
    fn messages_name_each_line_once_and_the_first_five() {
        let one = Notices { cut: vec![3], limit: 256, ..Notices::default() };
        assert_eq!(
            one.messages_at("sentence"),
            ["1 sentence (sentence 4) was cut to the model's limit of 256 subwords"]
        );
        // Two sentences of line 3 (sentence indices renumbered to their lines).
        let lines = Notices { cut: vec![0, 1, 5, 6, 7, 8, 9, 12], limit: 9, ..Notices::default() }
            .renumbered(|i| [2, 2, 0, 0, 0, 4, 5, 6, 7, 8, 9, 0, 20][i]);
        assert_eq!(
            lines.messages_at("line"),
            ["8 sentences (lines 3, 5, 6, 7, 8 and 2 more) were cut to the model's limit of 9 subwords"]
        );
    }

    #[test]
    fn odd_characters_are_named_by_code_point() {
        let odd =
            Notices { unseen: vec!['\0', '\u{200d}', '\u{301}', 'ש', 'ל', '你', '\u{fffd}'], ..Notices::default() };
        assert_eq!(
            odd.messages(),
            ["characters the model has never seen (translated as unknown): U+0000 U+200D U+0301 ש (U+05E9) ל (U+05DC) 你 � (U+FFFD)"]
        );
        let mut none = Notices::default();
        none.merge(Notices::default());
        assert!(none.messages().is_empty());
    }

    #[test]
    fn a_job_of_one_sentence_speaks_of_the_sentence() {
        let one = Notices { cut: vec![0], stopped: vec![0], limit: 256, unseen: vec![] };
        assert_eq!(
            one.messages_of_one(),
            [
                "the sentence was cut to the model's limit of 256 subwords",
                "the translation stopped at the maximum output length (a·|source| + b, or the model's limit) before the end",
            ]
        );
    }
}

//! `translate`'s output, written a group of lines at a time as they are translated (so that a long
//! file streams and a line typed at a terminal is answered at once): each line's sentences joined
//! back on it, or each line's list (n-best or samples).

use std::io::Write;

use wgslate_model::sentences::{split_sentences, Segments};
use wgslate_model::translate::Notices;
use wgslate_model::Model;

use crate::output::Output;
use crate::translator::Translator;

pub struct LineWriter<'a> {
    pub translator: Translator<'a>,
    pub output: Output,
    /// The model whose notices are gathered (the first of an ensemble).
    pub model: &'a Model,
    /// Outputs per line: 1 (its translation) or more (a list).
    pub shown: usize,
    pub line_end: &'static str,
    /// What the translations so far should tell the user (cut sources, stopped outputs…), by line.
    pub notices: Notices,
    pub prefixes: Prefixes,
}

/// What the translations begin with (`--prefix`, `--prefixes`), as subwords.
pub enum Prefixes {
    None,
    /// Every line's.
    All(Vec<u32>),
    /// Line i's (empty: none).
    PerLine(Vec<Vec<u32>>),
}

impl Prefixes {
    /// The prefix of the input's line `line` (empty: none).
    fn of_line(&self, line: usize) -> Vec<u32> {
        match self {
            Prefixes::None => vec![],
            Prefixes::All(p) => p.clone(),
            Prefixes::PerLine(p) => p.get(line).cloned().unwrap_or_default(),
        }
    }

    fn any(&self) -> bool {
        !matches!(self, Prefixes::None)
    }
}

impl LineWriter<'_> {
    /// How much a line weighs in a chunk: its sentences (translated one by one), or 1 for a line
    /// with text when it gets a list (of the whole line).
    pub fn weight(&self, line: &str) -> usize {
        match self.shown {
            1 => split_sentences(line).iter().map(Vec::len).sum(),
            _ => usize::from(!line.trim().is_empty()),
        }
    }

    /// Translates `lines`, the input's lines from index `first` on, and writes them out.
    pub fn write(&mut self, lines: &[String], first: usize) -> Result<(), String> {
        // Each translated text's line, in the whole input.
        let (texts, out, line_of) = if self.shown == 1 {
            // As the page does: each line's sentences translated one by one and joined back on their line.
            let segments = Segments::of(lines);
            let texts: Vec<String> = segments.sentences.iter().map(|(_, s)| s.clone()).collect();
            // A line's prefix begins its first sentence's translation.
            let prefixes: Vec<Vec<u32>> = match self.prefixes.any() {
                false => vec![],
                true => segments
                    .sentences
                    .iter()
                    .enumerate()
                    .map(|(k, (line, _))| match k == 0 || segments.sentences[k - 1].0 != *line {
                        true => self.prefixes.of_line(first + line),
                        false => vec![],
                    })
                    .collect(),
            };
            let out = self.translator.translate_from(&texts, &prefixes)?;
            let translations = out.iter().map(|t| t.outputs.first().map(|o| o.0.as_str()).unwrap_or(""));
            let line_end = self.line_end;
            for text in segments.rejoined(translations) {
                self.put(format_args!("{text}{line_end}"));
            }
            (texts, out, segments.sentences.iter().map(|(line, _)| first + line).collect::<Vec<_>>())
        } else {
            // A blank line is not translated (the models would make words of nothing) and gets one empty entry.
            let with_text: Vec<usize> = (0..lines.len()).filter(|&k| !lines[k].trim().is_empty()).collect();
            let texts: Vec<String> = with_text.iter().map(|&k| lines[k].clone()).collect();
            let prefixes: Vec<Vec<u32>> = match self.prefixes.any() {
                false => vec![],
                true => with_text.iter().map(|&k| self.prefixes.of_line(first + k)).collect(),
            };
            let out = self.translator.translate_from(&texts, &prefixes)?;
            let mut lists = out.iter();
            for (i, line) in lines.iter().enumerate().map(|(k, l)| (first + k, l)) {
                if line.trim().is_empty() {
                    self.put(format_args!("{i} |||  ||| F0= 0.0000 ||| 0.0000\n"));
                    continue;
                }
                // An n-best list as Moses and Marian write one: sentence index (from 0) ||| translation
                // ||| features (F0, the log-probability) ||| score (what the search ranked by).
                for (text, h) in lists.next().expect("one list per line with text").outputs.iter().take(self.shown) {
                    self.put(format_args!("{i} ||| {text} ||| F0= {:.4} ||| {:.4}\n", h.log_prob, h.score));
                }
            }
            (texts, out, with_text.iter().map(|k| first + k).collect())
        };
        self.output.flush().unwrap_or_else(|e| crate::output_failed(e));
        self.notices.merge(Notices::of(self.model, &texts, &out).renumbered(|i| line_of[i]));
        Ok(())
    }

    /// Flushes standard output, or puts the finished file in place; returns the notices.
    pub fn finish(self) -> Notices {
        self.output.finish().unwrap_or_else(|e| crate::output_failed(e));
        self.notices
    }

    fn put(&mut self, text: std::fmt::Arguments) {
        self.output.write_fmt(text).unwrap_or_else(|e| crate::output_failed(e));
    }
}

/// The input's lines in chunks to translate and write one after another (`weights`: what each line
/// counts, `LineWriter::weight`): the first of about `first`, so that the first lines come out soon,
/// each next one twice as big up to `most`, long enough for sorting by length to fill batches.
pub fn line_chunks(weights: &[usize], first: usize, most: usize) -> Vec<std::ops::Range<usize>> {
    let (mut chunks, mut start, mut weight, mut goal) = (Vec::new(), 0, 0, first.max(1));
    for (i, n) in weights.iter().enumerate() {
        weight += n;
        if weight >= goal {
            chunks.push(start..i + 1);
            (start, weight, goal) = (i + 1, 0, next_goal(goal, most));
        }
    }
    if start < weights.len() {
        chunks.push(start..weights.len());
    }
    chunks
}

/// The next chunk's size: twice the last, up to `most`.
pub fn next_goal(goal: usize, most: usize) -> usize {
    goal.saturating_mul(2).min(most.max(1))
}

#[cfg(test)]
mod tests {
    use super::line_chunks;

    #[test]
    fn chunks_start_small_double_up_to_the_most_and_cover_every_line() {
        // Sentences per line; blank lines (0) go with the chunk they fall in.
        let per_line = [1, 0, 2, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1];
        let chunks = line_chunks(&per_line, 2, 4);
        assert_eq!(chunks, [0..3, 3..7, 7..12, 12..16]);
        assert!(line_chunks(&[], 2, 4).is_empty());
        assert_eq!(line_chunks(&[0, 0], 2, 4), vec![0..2]);
        assert_eq!(line_chunks(&[5], 0, 0), vec![0..1]);
        // A --batch near usize::MAX: no overflow, one chunk.
        assert_eq!(line_chunks(&[1, 1, 1], usize::MAX, usize::MAX), vec![0..3]);
    }
}

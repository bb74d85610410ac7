//! What the end-of-run notes say about the input, gathered as its lines pass: standard input is not
//! kept (`tail -f | wgslate translate` may never end).

use wgslate_model::language::LineCounts;
use wgslate_model::sentences::{lines_hold, split_sentences, LONE_CARRIAGE_RETURN};

#[derive(Default)]
pub struct InputNotes {
    /// The languages the lines read as (`language_note`).
    pub language: LineCounts,
    /// Whether lines of several sentences are counted (they get a note with --nbest/--samples only).
    count_sentences: bool,
    several_sentences: usize,
    lone_carriage_returns: usize,
}

impl InputNotes {
    pub fn new(count_sentences: bool) -> Self {
        InputNotes { count_sentences, ..Default::default() }
    }

    pub fn add(&mut self, line: &str) {
        self.language.add(line);
        self.several_sentences +=
            usize::from(self.count_sentences && split_sentences(line).first().is_some_and(|s| s.len() > 1));
        self.lone_carriage_returns += usize::from(line.contains('\r'));
    }

    /// A note when lines of several sentences got n-best lists or samples (which are of whole lines).
    pub fn several_sentences(&self) -> Option<String> {
        lines_hold(
            self.several_sentences,
            "several sentences: n-best lists and samples are of whole lines, and these models translate one sentence well; \
             without --nbest/--samples each sentence is translated on its own",
        )
    }

    /// A note when lines hold a carriage return that ends no line (old Mac files).
    pub fn lone_carriage_returns(&self) -> Option<String> {
        lines_hold(self.lone_carriage_returns, LONE_CARRIAGE_RETURN)
    }
}

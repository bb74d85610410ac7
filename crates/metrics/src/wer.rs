//! Word error rate as PyPI jiwer 4.0.0 computes `jiwer.wer` with its default transforms: words are
//! what remains after runs of two or more whitespace characters become one space, the line is
//! stripped and split on " " (so a single tab or no-break space joins two words into one); the
//! corpus figure is all edits (the word-level Levenshtein distance, unit costs) over all reference
//! words. jiwer takes one reference per line: with several, the first reference stream is scored.

use crate::pystr;

/// jiwer's `wer_default` transform: `RemoveMultipleSpaces`, `Strip`, `ReduceToListOfListOfWords`.
pub fn jiwer_words(line: &str) -> Vec<String> {
    let mut collapsed = String::with_capacity(line.len());
    let mut run = String::new();
    for c in line.chars().chain(std::iter::once('x')) {
        if pystr::is_space(c) {
            run.push(c);
            continue;
        }
        // `re.sub(r"\s\s+", " ", s)`: a run of one whitespace character stays as it is.
        match run.chars().count() {
            0 => {}
            1 => collapsed.push_str(&run),
            _ => collapsed.push(' '),
        }
        run.clear();
        collapsed.push(c);
    }
    collapsed.pop();
    pystr::strip(&collapsed).split(' ').filter(|w| !w.is_empty()).map(String::from).collect()
}

/// The word-level Levenshtein distance (substitution, insertion and deletion each cost 1).
pub fn edit_distance<T: PartialEq>(hyp: &[T], reference: &[T]) -> usize {
    let mut row: Vec<usize> = (0..=reference.len()).collect();
    for h in hyp {
        let mut diagonal = row[0];
        row[0] += 1;
        for (j, r) in reference.iter().enumerate() {
            let substitute = diagonal + usize::from(h != r);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[reference.len()]
}

/// One line's counts: edits, reference words, hypothesis words.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WerStats {
    pub edits: usize,
    pub ref_len: usize,
    pub hyp_len: usize,
}

impl WerStats {
    pub fn add(&mut self, other: &WerStats) {
        self.edits += other.edits;
        self.ref_len += other.ref_len;
        self.hyp_len += other.hyp_len;
    }

    pub fn to_vec(self) -> Vec<f64> {
        vec![self.edits as f64, self.ref_len as f64, self.hyp_len as f64]
    }
}

pub fn sentence_stats(hyp: &str, reference: &str) -> WerStats {
    let (h, r) = (jiwer_words(hyp), jiwer_words(reference));
    WerStats { edits: edit_distance(&h, &r), ref_len: r.len(), hyp_len: h.len() }
}

/// Per line, against the first reference stream.
pub fn corpus_stats(hyps: &[&str], refs: &[Vec<&str>]) -> Vec<WerStats> {
    hyps.iter().enumerate().map(|(i, h)| sentence_stats(h, refs.first().map_or("", |r| r[i]))).collect()
}

/// jiwer's figure ×100 (a percentage, as sacreBLEU reports TER). With no reference words at all
/// jiwer returns the number of inserted words itself, not a rate: 3 hypothesis words give 300.
pub fn score(edits: f64, ref_len: f64, hyp_len: f64) -> f64 {
    if ref_len == 0.0 {
        100.0 * hyp_len
    } else {
        100.0 * (edits / ref_len)
    }
}

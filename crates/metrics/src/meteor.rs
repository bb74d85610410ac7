//! METEOR as PyPI nltk 3.10.4 computes `nltk.translate.meteor_score.meteor_score` (α 0.9, β 3,
//! γ 0.5; the best over references): words are sacreBLEU's 13a tokens, lower-cased by Python's
//! `str.lower`, aligned in three stages (exact, stem, WordNet synonym). The corpus figure is the
//! mean of the sentence scores, ×100.
//!
//! NLTK's quirks kept on purpose: each stage pairs words from the last hypothesis word backwards,
//! taking the last free reference position; the synonym stage looks up the *stemmed* words the
//! stem stage left; a line with no match, or an empty side, scores 0.

use std::collections::HashMap;
use std::sync::Arc;

use crate::snowball::{snowball_stem, SnowballLanguage};
use crate::tokenizers::tokenize_13a;
use crate::wordnet::WordNet;
use crate::{porter, pystr};

pub const ALPHA: f64 = 0.9;
pub const BETA: f64 = 3.0;
pub const GAMMA: f64 = 0.5;

/// The stem stage's stemmer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stemmer {
    /// NLTK's `PorterStemmer`, with WordNet synonyms: English.
    Porter,
    /// NLTK's `SnowballStemmer` of the language, without synonyms.
    Snowball(SnowballLanguage),
    /// Exact matches only: languages NLTK has neither stemmer nor WordNet for.
    None,
}

impl Stemmer {
    /// The stemmer for output in `language` (an ISO 639-1 code): Porter for English, Snowball
    /// for German and French, none for the rest.
    pub fn for_language(language: &str) -> Stemmer {
        match language {
            "de" => Stemmer::Snowball(SnowballLanguage::German),
            "fr" => Stemmer::Snowball(SnowballLanguage::French),
            "en" | "" => Stemmer::Porter,
            _ => Stemmer::None,
        }
    }

    pub fn uses_wordnet(self) -> bool {
        self == Stemmer::Porter
    }

    pub fn stem(self, word: &str) -> String {
        match self {
            Stemmer::Porter => porter::porter_stem(word),
            Stemmer::Snowball(l) => snowball_stem(l, word),
            Stemmer::None => word.to_string(),
        }
    }

    /// How the signature and the docs name it.
    pub fn name(self) -> &'static str {
        match self {
            Stemmer::Porter => "porter+wordnet",
            Stemmer::Snowball(SnowballLanguage::German) => "snowball-de",
            Stemmer::Snowball(SnowballLanguage::French) => "snowball-fr",
            Stemmer::None => "exact",
        }
    }
}

#[derive(Clone)]
pub struct Meteor {
    pub stemmer: Stemmer,
    wordnet: Arc<WordNet>,
}

/// Words still to align: (position in the line, word as this stage sees it).
type Enumerated = Vec<(usize, String)>;

/// (hypothesis position, reference position) pairs.
type Matches = Vec<(usize, usize)>;

impl Meteor {
    /// `wordnet` is used only with the Porter stemmer (English), as NLTK's synonyms are English.
    pub fn new(stemmer: Stemmer, wordnet: Arc<WordNet>) -> Meteor {
        let wordnet = if stemmer.uses_wordnet() { wordnet } else { Arc::new(WordNet::empty()) };
        Meteor { stemmer, wordnet }
    }

    /// NLTK's tokens for a line: 13a tokens, lower-cased.
    pub fn words(line: &str) -> Vec<String> {
        pystr::split(&tokenize_13a(line)).map(pystr::lower).collect()
    }

    /// The sentence score (0–1) of one hypothesis against its references: the best over them.
    pub fn sentence_score(&self, hyp: &str, refs: &[&str]) -> f64 {
        let h = Self::words(hyp);
        refs.iter().map(|r| self.single_score(&h, &Self::words(r))).fold(f64::NEG_INFINITY, f64::max).max(0.0)
    }

    /// Per line, the sentence score (0–1), against every reference stream.
    pub fn corpus_stats(&self, hyps: &[&str], refs: &[Vec<&str>]) -> Vec<f64> {
        hyps.iter()
            .enumerate()
            .map(|(i, h)| {
                let line_refs: Vec<&str> = refs.iter().map(|r| r[i]).collect();
                self.sentence_score(h, &line_refs)
            })
            .collect()
    }

    /// NLTK's `single_meteor_score` on words already lower-cased.
    pub fn single_score(&self, hyp: &[String], reference: &[String]) -> f64 {
        let enumerate = |w: &[String]| -> Enumerated { w.iter().cloned().enumerate().collect() };
        let matches = self.align(enumerate(hyp), enumerate(reference));
        if hyp.is_empty() || reference.is_empty() || matches.is_empty() {
            return 0.0;
        }
        let m = matches.len() as f64;
        let precision = m / hyp.len() as f64;
        let recall = m / reference.len() as f64;
        let fmean = (precision * recall) / (ALPHA * precision + (1.0 - ALPHA) * recall);
        let fragmentation = chunks(&matches) as f64 / m;
        let penalty = GAMMA * fragmentation.powf(BETA);
        (1.0 - penalty) * fmean
    }

    /// The three stages; the matches sorted by hypothesis position.
    fn align(&self, hyp: Enumerated, reference: Enumerated) -> Matches {
        let (mut matches, hyp, reference) = match_exact(hyp, reference);
        let (hyp, reference) = if self.stemmer == Stemmer::None {
            (hyp, reference)
        } else {
            let stem = |list: Enumerated| -> Enumerated {
                list.into_iter().map(|(i, w)| (i, self.stemmer.stem(&w))).collect()
            };
            let (stemmed, hyp, reference) = match_exact(stem(hyp), stem(reference));
            matches.extend(stemmed);
            (hyp, reference)
        };
        if self.stemmer.uses_wordnet() {
            matches.extend(self.match_synonyms(&hyp, &reference));
        }
        matches.sort_by_key(|&(h, _)| h);
        matches
    }

    /// A hypothesis word matches the reference word at the last free position that equals it or
    /// one of its WordNet synonyms.
    fn match_synonyms(&self, hyp: &Enumerated, reference: &Enumerated) -> Matches {
        let mut positions = reference_positions(reference);
        let mut matches = Vec::new();
        for (h, word) in hyp.iter().rev() {
            let mut best: Option<(usize, String)> = None;
            for syn in self.wordnet.synonyms(word).into_iter().chain(std::iter::once(word.clone())) {
                if let Some(&j) = positions.get(syn.as_str()).and_then(|p| p.last()) {
                    if best.as_ref().is_none_or(|(b, _)| j > *b) {
                        best = Some((j, syn));
                    }
                }
            }
            if let Some((j, syn)) = best {
                positions.get_mut(syn.as_str()).map(Vec::pop);
                matches.push((*h, reference[j].0));
            }
        }
        matches
    }
}

/// Where each word stands in the list still to align.
fn reference_positions(reference: &Enumerated) -> HashMap<&str, Vec<usize>> {
    let mut positions: HashMap<&str, Vec<usize>> = HashMap::new();
    for (j, (_, w)) in reference.iter().enumerate() {
        positions.entry(w.as_str()).or_default().push(j);
    }
    positions
}

/// NLTK's `_match_enums`: equal words, from the last hypothesis word backwards, each taking the
/// last free reference position; returns the matches and what is left of both lists.
fn match_exact(hyp: Enumerated, reference: Enumerated) -> (Matches, Enumerated, Enumerated) {
    let mut matched_ref = vec![false; reference.len()];
    let mut matched_hyp = vec![false; hyp.len()];
    let mut matches = Vec::new();
    {
        let mut positions = reference_positions(&reference);
        for (i, (h, word)) in hyp.iter().enumerate().rev() {
            if let Some(j) = positions.get_mut(word.as_str()).and_then(Vec::pop) {
                matched_hyp[i] = true;
                matched_ref[j] = true;
                matches.push((*h, reference[j].0));
            }
        }
    }
    let keep = |list: Enumerated, matched: &[bool]| -> Enumerated {
        list.into_iter().zip(matched).filter(|(_, &m)| !m).map(|(p, _)| p).collect()
    };
    (matches, keep(hyp, &matched_hyp), keep(reference, &matched_ref))
}

/// NLTK's `_count_chunks`: runs of matches adjacent in both the hypothesis and the reference.
fn chunks(matches: &[(usize, usize)]) -> usize {
    1 + matches.windows(2).filter(|w| !(w[1].0 == w[0].0 + 1 && w[1].1 == w[0].1 + 1)).count()
}

/// The corpus figure: the mean of the sentence scores, ×100 (0 for no lines).
pub fn corpus_score(sentence_scores: &[f64]) -> f64 {
    if sentence_scores.is_empty() {
        return 0.0;
    }
    100.0 * (sentence_scores.iter().sum::<f64>() / sentence_scores.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact_only() -> Meteor {
        Meteor::new(Stemmer::None, Arc::new(WordNet::empty()))
    }

    #[test]
    fn identical_lines_score_near_one() {
        let m = exact_only();
        let s = m.sentence_score("the cat sat on the mat", &["the cat sat on the mat"]);
        // One chunk of six: penalty 0.5 × (1/6)³.
        assert!((s - (1.0 - 0.5 / 216.0)).abs() < 1e-12, "{s}");
    }

    #[test]
    fn no_match_or_empty_side_scores_zero() {
        let m = exact_only();
        assert_eq!(m.sentence_score("a b", &["c d"]), 0.0);
        assert_eq!(m.sentence_score("", &["c d"]), 0.0);
        assert_eq!(m.sentence_score("a", &[""]), 0.0);
    }

    #[test]
    fn chunks_count_runs_adjacent_on_both_sides() {
        assert_eq!(chunks(&[(0, 0), (1, 1), (2, 5), (3, 6)]), 2);
        assert_eq!(chunks(&[(0, 1), (1, 0)]), 2);
        assert_eq!(chunks(&[(0, 0)]), 1);
    }

    #[test]
    fn repeated_words_pair_from_the_end() {
        let (m, h, r) = match_exact(
            vec![(0, "a".into()), (1, "b".into()), (2, "a".into())],
            vec![(0, "a".into()), (1, "a".into())],
        );
        assert_eq!(m, vec![(2, 1), (0, 0)]);
        assert_eq!(h, vec![(1, "b".to_string())]);
        assert!(r.is_empty());
    }
}

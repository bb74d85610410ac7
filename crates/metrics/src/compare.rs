//! Where two systems differ: the analyses compare-mt 0.2.10 runs by default on a reference and two
//! systems (`compare-mt REF SYS1 SYS2`), with its numbers, plus a histogram of sentence-BLEU
//! differences and the lines that differ most.
//!
//! Words are compare-mt's: a line stripped of surrounding whitespace and split at every space
//! (`line.strip().split(' ')`), case as given. On text tokenized with single spaces these are the
//! tokens; compare-mt's quirks are kept, so an empty line is one empty word and two spaces make an
//! empty word between them.
//!
//! As compare-mt computes them (its report in brackets):
//! - `bleu` [`--compare_scores score_type=bleu`] and `length_buckets` [`--compare_sentence_buckets
//!   bucket_type=length,statistic_type=score,score_measure=bleu`]: compare-mt's corpus BLEU over all
//!   lines and over the lines whose reference length falls in each bucket. Not sacreBLEU's: a line's
//!   n-gram count for each order is at least 1 (a 2-word line counts one 3-gram and one 4-gram, none
//!   matched), an order without a match counts as precision 1 instead of zeroing the score, and no
//!   unigram match at all scores 0.
//! - `frequency_buckets` [`--compare_word_accuracies bucket_type=freq`]: per bucket of a word's
//!   frequency (in the given counts, else in the reference), the words of the reference, of each
//!   system and matched (per line, a word matches as often as it occurs in both), and recall,
//!   precision and F-measure (all 0 when nothing matched).
//! - `ngrams` [`--compare_ngrams compare_type=match`]: 1- to 4-grams ranked by
//!   `(m1 + 1) / (m1 + m2 + 2)`, m the system's clipped matches of that n-gram summed over lines;
//!   compare-mt breaks ties by hash order, we by more matches of the system ahead, then the words.
//!
//! Ours: `sentence_bleu`, `histogram` and `top_lines` score lines with sacreBLEU's sentence BLEU
//! (13a, exp smoothing, effective order) on the lines as given; compare-mt's sentence examples use
//! NLTK's smoothed sentence BLEU instead.

use std::collections::{HashMap, HashSet};

use crate::{Bleu, BleuOptions};

/// compare-mt's `LengthSentenceBucketer` cutoffs (reference words).
pub const LENGTH_CUTOFFS: [usize; 6] = [10, 20, 30, 40, 50, 60];
/// compare-mt's `FreqWordBucketer` cutoffs (occurrences).
pub const FREQUENCY_CUTOFFS: [usize; 8] = [1, 2, 3, 4, 5, 10, 100, 1000];
/// The n-gram report's longest n-gram and smoothing, compare-mt's defaults.
pub const MAX_NGRAM: usize = 4;
pub const ALPHA: f64 = 1.0;
/// Width of a histogram bin, in BLEU points.
pub const BIN_WIDTH: f64 = 10.0;

#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// Word counts for the frequency buckets (the model's training data, see `word_counts`); `None`:
    /// counted in the reference, as compare-mt does without `freq_corpus_file`.
    pub freq_counts: Option<HashMap<String, usize>>,
    /// N-grams listed for each system (compare-mt's `report_length`, 50 by default there).
    pub ngram_top: usize,
    /// Lines listed by largest sentence-BLEU difference.
    pub top_lines: usize,
}

impl Default for CompareOptions {
    fn default() -> Self {
        Self { freq_counts: None, ngram_top: 20, top_lines: 10 }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub lines: usize,
    /// compare-mt's corpus BLEU of each system.
    pub bleu: [f64; 2],
    pub length_buckets: Vec<LengthBucket>,
    /// Whether word frequencies came from `CompareOptions::freq_counts` (else from the reference).
    pub freq_from_corpus: bool,
    pub frequency_buckets: Vec<FrequencyBucket>,
    /// `[0]`: the n-grams system 1 matches more, first the most telling; `[1]`: system 2's.
    pub ngrams: [Vec<NgramDiff>; 2],
    /// Each line's sacreBLEU sentence BLEU for both systems.
    pub sentence_bleu: Vec<[f64; 2]>,
    /// Lines by system 1's minus system 2's sentence BLEU.
    pub histogram: Vec<HistogramBin>,
    /// The lines with the largest |difference|, largest first (a repeat of the same reference and
    /// outputs listed once, lines that score alike left out).
    pub top_lines: Vec<LineDiff>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LengthBucket {
    /// compare-mt's label: "<10", "[10,20)", …, ">=60".
    pub label: String,
    /// Lines whose reference has that many words.
    pub lines: usize,
    pub bleu: [f64; 2],
}

#[derive(Debug, Clone, PartialEq)]
pub struct FrequencyBucket {
    /// compare-mt's label: "<1", "1", "2", "3", "4", "[5,10)", …, ">=1000".
    pub label: String,
    pub ref_words: usize,
    pub systems: [WordAccuracy; 2],
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WordAccuracy {
    pub matches: usize,
    pub words: usize,
    pub recall: f64,
    pub precision: f64,
    pub f_measure: f64,
}

/// Whether an n-gram report's `score` is on `side`'s side (0: system 1's, above 1/2; 1: system
/// 2's, below): compare-mt lists its top n-grams each way whatever their score, so on short inputs
/// its lists hold ties and n-grams the other system matches more, which the reports leave out.
pub fn ngram_on_side(score: f64, side: usize) -> bool {
    if side == 0 {
        score > 0.5
    } else {
        score < 0.5
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct NgramDiff {
    /// The words, joined by spaces.
    pub ngram: String,
    /// `(m1 + ALPHA) / (m1 + m2 + 2 ALPHA)`: above 1/2 where system 1 matches it more.
    pub score: f64,
    pub matches: [usize; 2],
}

#[derive(Debug, Clone, PartialEq)]
pub struct HistogramBin {
    /// "[-100,-90)", …, "[-10,0)", "0", "(0,10]", …, "(90,100]".
    pub label: String,
    pub lo: f64,
    pub hi: f64,
    pub lines: usize,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineDiff {
    /// 0-based.
    pub line: usize,
    pub bleu: [f64; 2],
}

impl LineDiff {
    pub fn difference(&self) -> f64 {
        self.bleu[0] - self.bleu[1]
    }
}

impl Comparison {
    /// The whole comparison as `wgslate compare --json` prints it and the BLEU view reads it: lines
    /// numbered from 1, `systems` the two outputs' names, `frequency_from` where word counts came from.
    pub fn to_json(&self, systems: [&str; 2], frequency_from: &str) -> serde_json::Value {
        use serde_json::json;
        let accuracy = |a: &WordAccuracy| json!({"matches": a.matches, "words": a.words, "recall": a.recall, "precision": a.precision, "f_measure": a.f_measure});
        let ngrams = |s: usize| -> Vec<serde_json::Value> {
            self.ngrams[s].iter().map(|d| json!({"ngram": d.ngram, "score": d.score, "matches": d.matches})).collect()
        };
        json!({
            "systems": systems,
            "lines": self.lines,
            "bleu": self.bleu,
            "length_buckets": self.length_buckets.iter().map(|b| json!({"label": b.label, "lines": b.lines, "bleu": b.bleu})).collect::<Vec<_>>(),
            "frequency_from": frequency_from,
            "frequency_buckets": self.frequency_buckets.iter().map(|b| json!({
                "label": b.label, "ref_words": b.ref_words, "systems": b.systems.each_ref().map(accuracy),
            })).collect::<Vec<_>>(),
            "ngrams": [ngrams(0), ngrams(1)],
            "histogram": self.histogram.iter().map(|b| json!({"label": b.label, "lo": b.lo, "hi": b.hi, "lines": b.lines})).collect::<Vec<_>>(),
            "top_lines": self.top_lines.iter().map(|d| json!({"line": d.line + 1, "bleu": d.bleu, "difference": d.difference()})).collect::<Vec<_>>(),
        })
    }
}

/// compare-mt's words of a line: `line.strip().split(' ')`.
pub fn words(line: &str) -> Vec<&str> {
    crate::pystr::strip(line).split(' ').collect()
}

/// Word counts of a corpus (compare-mt's `freq_corpus_file`), for `CompareOptions::freq_counts`.
pub fn word_counts<'a>(lines: impl IntoIterator<Item = &'a str>) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for line in lines {
        for w in words(line) {
            *counts.entry(w.to_string()).or_insert(0) += 1;
        }
    }
    counts
}

/// Compares two systems' outputs, each parallel to the reference `refs`.
pub fn compare(refs: &[&str], sys1: &[&str], sys2: &[&str], options: &CompareOptions) -> Result<Comparison, String> {
    if refs.is_empty() {
        return Err("the reference has no lines".into());
    }
    for (i, sys) in [sys1, sys2].iter().enumerate() {
        if sys.len() != refs.len() {
            return Err(format!(
                "system {} has {} but the reference has {}",
                i + 1,
                crate::plural(sys.len(), "line"),
                refs.len()
            ));
        }
    }
    let ref_words: Vec<Vec<&str>> = refs.iter().map(|l| words(l)).collect();
    let sys_words = [sys1, sys2].map(|s| s.iter().map(|l| words(l)).collect::<Vec<_>>());
    let Matches { lines, ngrams } = count_matches(&ref_words, &sys_words);
    let sentence_bleu = sentence_bleu(refs, sys1, sys2);
    Ok(Comparison {
        lines: refs.len(),
        bleu: lines.each_ref().map(|s| corpus_bleu(s.iter())),
        length_buckets: length_buckets(&ref_words, &lines),
        freq_from_corpus: options.freq_counts.is_some(),
        frequency_buckets: frequency_buckets(&ref_words, &sys_words, &ngrams, options.freq_counts.as_ref()),
        ngrams: ngram_diffs(ngrams, options.ngram_top),
        histogram: histogram(&sentence_bleu),
        top_lines: top_lines(refs, sys1, sys2, &sentence_bleu, options.top_lines),
        sentence_bleu,
    })
}

/// compare-mt's `Bucketer.set_bucket_cutoffs` labels for integer cutoffs.
fn bucket_labels(cutoffs: &[usize]) -> Vec<String> {
    let mut labels: Vec<String> = cutoffs
        .iter()
        .enumerate()
        .map(|(i, &x)| match i {
            0 => format!("<{x}"),
            _ if x - 1 == cutoffs[i - 1] => format!("{}", x - 1),
            _ => format!("[{},{x})", cutoffs[i - 1]),
        })
        .collect();
    labels.push(format!(">={}", cutoffs[cutoffs.len() - 1]));
    labels
}

fn bucket(value: usize, cutoffs: &[usize]) -> usize {
    cutoffs.iter().position(|&c| value < c).unwrap_or(cutoffs.len())
}

fn ngram_counts<'a>(words: &'a [&'a str], n: usize) -> HashMap<&'a [&'a str], usize> {
    let mut counts = HashMap::new();
    for g in words.windows(n) {
        *counts.entry(g).or_insert(0) += 1;
    }
    counts
}

/// One line's statistics for compare-mt's BLEU (`BleuScorer.cache_stats`).
#[derive(Debug, Clone, Copy)]
struct BleuStats {
    ref_len: usize,
    out_len: usize,
    matches: [usize; MAX_NGRAM],
    /// Output n-grams, at least 1 (`denom = max(1, denom)`).
    totals: [usize; MAX_NGRAM],
}

type NgramMatches<'a> = HashMap<&'a [&'a str], [usize; 2]>;

/// What one pass over the lines gathers: each line's BLEU statistics per system, and each n-gram's
/// clipped matches per system summed over lines (compare-mt's `compare_ngrams` `match`).
struct Matches<'a> {
    lines: [Vec<BleuStats>; 2],
    ngrams: NgramMatches<'a>,
}

fn count_matches<'a>(ref_words: &'a [Vec<&'a str>], sys_words: &'a [Vec<Vec<&'a str>>; 2]) -> Matches<'a> {
    let mut m = Matches { lines: [Vec::new(), Vec::new()], ngrams: HashMap::new() };
    for (i, r) in ref_words.iter().enumerate() {
        let ref_counts: Vec<_> = (1..=MAX_NGRAM).map(|n| ngram_counts(r, n)).collect();
        for (s, sys) in sys_words.iter().enumerate() {
            let o = &sys[i];
            let mut stats =
                BleuStats { ref_len: r.len(), out_len: o.len(), matches: [0; MAX_NGRAM], totals: [1; MAX_NGRAM] };
            for n in 1..=MAX_NGRAM {
                stats.totals[n - 1] = o.len().saturating_sub(n - 1).max(1);
                for (g, c) in ngram_counts(o, n) {
                    let matched = c.min(ref_counts[n - 1].get(g).copied().unwrap_or(0));
                    if matched > 0 {
                        stats.matches[n - 1] += matched;
                        m.ngrams.entry(g).or_default()[s] += matched;
                    }
                }
            }
            m.lines[s].push(stats);
        }
    }
    m
}

/// compare-mt's `BleuScorer.score_cached_corpus`, operation for operation.
fn corpus_bleu<'a>(lines: impl Iterator<Item = &'a BleuStats>) -> f64 {
    let (mut ref_len, mut out_len, mut matches, mut totals, mut any) = (0, 0, [0; MAX_NGRAM], [0; MAX_NGRAM], false);
    for s in lines {
        any = true;
        ref_len += s.ref_len;
        out_len += s.out_len;
        for n in 0..MAX_NGRAM {
            matches[n] += s.matches[n];
            totals[n] += s.totals[n];
        }
    }
    if !any || matches[0] == 0 {
        return 0.0;
    }
    let mut log_precision = 0.0;
    for n in 0..MAX_NGRAM {
        let p = if totals[n] != 0 { matches[n] as f64 / totals[n] as f64 } else { 0.0 };
        let log_p = if p > 0.0 { p.ln() } else { 0.0 };
        log_precision += log_p * 0.25;
    }
    let bp = if out_len != 0 { (1.0 - ref_len as f64 / out_len as f64).exp().min(1.0) } else { 0.0 };
    100.0 * bp * log_precision.exp()
}

fn length_buckets(ref_words: &[Vec<&str>], line_stats: &[Vec<BleuStats>; 2]) -> Vec<LengthBucket> {
    let buckets: Vec<usize> = ref_words.iter().map(|r| bucket(r.len(), &LENGTH_CUTOFFS)).collect();
    bucket_labels(&LENGTH_CUTOFFS)
        .into_iter()
        .enumerate()
        .map(|(b, label)| {
            let in_bucket =
                |s: &'_ Vec<BleuStats>| corpus_bleu(s.iter().zip(&buckets).filter(|(_, &k)| k == b).map(|(s, _)| s));
            LengthBucket {
                label,
                lines: buckets.iter().filter(|&&k| k == b).count(),
                bleu: line_stats.each_ref().map(in_bucket),
            }
        })
        .collect()
}

fn token_counts<'a>(lines: &[Vec<&'a str>]) -> HashMap<&'a str, usize> {
    let mut counts = HashMap::new();
    lines.iter().flatten().for_each(|&w| *counts.entry(w).or_insert(0) += 1);
    counts
}

/// A word matches, in compare-mt's `_calc_trg_matches`, as its unigram does.
fn frequency_buckets(
    ref_words: &[Vec<&str>],
    sys_words: &[Vec<Vec<&str>>; 2],
    ngram_matches: &NgramMatches,
    freq_counts: Option<&HashMap<String, usize>>,
) -> Vec<FrequencyBucket> {
    let ref_counts = token_counts(ref_words);
    let freq = |w: &str| match freq_counts {
        Some(counts) => counts.get(w).copied(),
        None => ref_counts.get(w).copied(),
    };
    let word_bucket = |w: &str| bucket(freq(w).unwrap_or(0), &FREQUENCY_CUTOFFS);
    let labels = bucket_labels(&FREQUENCY_CUTOFFS);
    let mut ref_total = vec![0; labels.len()];
    ref_counts.iter().for_each(|(w, c)| ref_total[word_bucket(w)] += c);
    let mut totals = [vec![0; labels.len()], vec![0; labels.len()]];
    let mut matches = totals.clone();
    for (s, sys) in sys_words.iter().enumerate() {
        for (w, c) in token_counts(sys) {
            let b = word_bucket(w);
            totals[s][b] += c;
            matches[s][b] += ngram_matches.get(std::slice::from_ref(&w)).map_or(0, |m| m[s]);
        }
    }
    labels
        .into_iter()
        .enumerate()
        .map(|(b, label)| FrequencyBucket {
            label,
            ref_words: ref_total[b],
            systems: [0, 1].map(|s| word_accuracy(matches[s][b], ref_total[b], totals[s][b])),
        })
        .collect()
}

/// compare-mt's `WordBucketer.calc_statistics` figures of one bucket.
fn word_accuracy(matches: usize, ref_words: usize, words: usize) -> WordAccuracy {
    let (recall, precision, f_measure) = if matches == 0 {
        (0.0, 0.0, 0.0)
    } else {
        let (rec, prec) = (matches as f64 / ref_words as f64, matches as f64 / words as f64);
        (rec, prec, 2.0 * prec * rec / (prec + rec))
    };
    WordAccuracy { matches, words, recall, precision, f_measure }
}

/// compare-mt's `extract_salient_features` scores of the matches, best `top` each way.
fn ngram_diffs(matches: NgramMatches, top: usize) -> [Vec<NgramDiff>; 2] {
    type Scored<'a> = (f64, [usize; 2], &'a [&'a str]);
    let smoothed = |[m1, m2]: [usize; 2]| (m1 as f64 + ALPHA) / ((m1 + m2) as f64 + 2.0 * ALPHA);
    let mut scored: Vec<Scored> = matches.into_iter().map(|(g, m)| (smoothed(m), m, g)).collect();
    [0, 1].map(|s| {
        let rank = |a: &Scored, b: &Scored| {
            let by_score = if s == 0 { b.0.total_cmp(&a.0) } else { a.0.total_cmp(&b.0) };
            by_score.then(b.1[s].cmp(&a.1[s])).then_with(|| a.2.cmp(b.2))
        };
        if top < scored.len() {
            scored.select_nth_unstable_by(top, rank);
        }
        let mut best = scored[..top.min(scored.len())].to_vec();
        best.sort_by(rank);
        best.into_iter().map(|(score, matches, g)| NgramDiff { ngram: g.join(" "), score, matches }).collect()
    })
}

fn sentence_bleu(refs: &[&str], sys1: &[&str], sys2: &[&str]) -> Vec<[f64; 2]> {
    let bleu = Bleu::new(BleuOptions { effective_order: true, ..Default::default() });
    let score = |hyp: &str, r: &str| bleu.compute(&bleu.segment_stats(hyp, &[r])).score;
    refs.iter().zip(sys1.iter().zip(sys2)).map(|(r, (a, b))| [score(a, r), score(b, r)]).collect()
}

/// Ten bins of `BIN_WIDTH` points below 0 (closed on the left), one for ties, ten above (closed on
/// the right), so that -100 and 100 fall in the outer bins.
fn histogram(sentence_bleu: &[[f64; 2]]) -> Vec<HistogramBin> {
    let side = (100.0 / BIN_WIDTH) as usize;
    let mut bins: Vec<HistogramBin> = (0..side)
        .map(|i| -100.0 + i as f64 * BIN_WIDTH)
        .map(|lo| (lo, lo + BIN_WIDTH, format!("[{lo},{})", lo + BIN_WIDTH)))
        .chain([(0.0, 0.0, "0".to_string())])
        .chain(
            (0..side)
                .map(|i| i as f64 * BIN_WIDTH)
                .map(|lo| (lo, lo + BIN_WIDTH, format!("({lo},{}]", lo + BIN_WIDTH))),
        )
        .map(|(lo, hi, label)| HistogramBin { label, lo, hi, lines: 0 })
        .collect();
    for [a, b] in sentence_bleu {
        let d = a - b;
        let i = if d < 0.0 {
            (((d + 100.0) / BIN_WIDTH).floor().max(0.0) as usize).min(side - 1)
        } else if d > 0.0 {
            side + ((d / BIN_WIDTH).ceil() as usize).clamp(1, side)
        } else {
            side
        };
        bins[i].lines += 1;
    }
    bins
}

fn top_lines(refs: &[&str], sys1: &[&str], sys2: &[&str], sentence_bleu: &[[f64; 2]], top: usize) -> Vec<LineDiff> {
    let mut seen = HashSet::new();
    let mut lines: Vec<LineDiff> = sentence_bleu
        .iter()
        .enumerate()
        .map(|(line, &bleu)| LineDiff { line, bleu })
        .filter(|d| d.difference() != 0.0 && seen.insert((refs[d.line], sys1[d.line], sys2[d.line])))
        .collect();
    lines.sort_by(|a, b| b.difference().abs().total_cmp(&a.difference().abs()).then(a.line.cmp(&b.line)));
    lines.truncate(top);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(refs: &[&str], sys1: &[&str], sys2: &[&str]) -> Comparison {
        compare(refs, sys1, sys2, &CompareOptions::default()).unwrap()
    }

    #[test]
    fn words_are_compare_mts() {
        assert_eq!(words(""), [""]);
        assert_eq!(words(" a  b\t"), ["a", "", "b"]);
        assert_eq!(words("a\tb c"), ["a\tb", "c"]);
    }

    #[test]
    fn bucket_labels_are_compare_mts() {
        assert_eq!(
            bucket_labels(&LENGTH_CUTOFFS),
            ["<10", "[10,20)", "[20,30)", "[30,40)", "[40,50)", "[50,60)", ">=60"]
        );
        assert_eq!(
            bucket_labels(&FREQUENCY_CUTOFFS),
            ["<1", "1", "2", "3", "4", "[5,10)", "[10,100)", "[100,1000)", ">=1000"]
        );
        assert_eq!(
            (bucket(0, &FREQUENCY_CUTOFFS), bucket(5, &FREQUENCY_CUTOFFS), bucket(1000, &FREQUENCY_CUTOFFS)),
            (0, 5, 8)
        );
    }

    /// compare-mt 0.2.10's own figures for these files (`BleuScorer`, `FreqWordBucketer`), as Python
    /// prints the floats.
    #[test]
    fn bleu_and_word_accuracy_equal_compare_mt() {
        let refs = ["a b c d e", "the cat sat on the mat", ""];
        let c = run(&refs, &["a b c d", "the cat sat on a mat", "x"], &["a b c d e", "the dog sat", ""]);
        assert_eq!(c.bleu, [54.258003648721974, 44.76801554310543]);
        assert_eq!(c.length_buckets[0].bleu, c.bleu);
        assert_eq!(c.length_buckets[0].lines, 3);
        assert_eq!(c.length_buckets[1].bleu, [0.0, 0.0]);
        let one = &c.frequency_buckets[1];
        assert_eq!((one.label.as_str(), one.ref_words), ("1", 10));
        assert_eq!(one.systems[0].f_measure, 0.8421052631578948);
        assert_eq!(one.systems[1].f_measure, 0.8235294117647058);
    }

    #[test]
    fn bleu_skips_unmatched_orders_and_counts_short_lines() {
        // One line of two words: 3- and 4-grams count 1 each, unmatched, so left out: BLEU 100 · (2/2 · 1/1)^¼.
        let (r, o) = (vec![vec!["a", "b"], vec!["a"]], [vec![vec!["a", "b"], vec!["b"]], vec![vec![], vec![]]]);
        let lines = count_matches(&r, &o).lines;
        let s = lines[0][0];
        assert_eq!((s.matches, s.totals), ([2, 1, 0, 0], [2, 1, 1, 1]));
        assert_eq!(corpus_bleu(lines[0][..1].iter()), 100.0);
        assert_eq!(corpus_bleu(lines[0][1..].iter()), 0.0);
        assert_eq!(corpus_bleu(lines[1].iter()), 0.0, "no output words");
    }

    #[test]
    fn ngrams_rank_by_smoothed_ratio_then_matches_then_words() {
        let refs = ["x y", "x y", "x y", "a", "w"];
        let sys1 = ["x y", "x y", "x", "a", "q"];
        let sys2 = ["x", "q", "q", "q", "w"];
        let c = run(&refs, &sys1, &sys2);
        let listed = |s: usize| c.ngrams[s].iter().map(|d| (d.ngram.as_str(), d.matches)).collect::<Vec<_>>();
        // Scores: "x y" (2,0) 3/4, "y" (2,0) 3/4, "a" (1,0) 2/3, "x" (3,1) 4/6 = 2/3, "w" (0,1) 1/3.
        assert_eq!(listed(0), [("x y", [2, 0]), ("y", [2, 0]), ("x", [3, 1]), ("a", [1, 0]), ("w", [0, 1])]);
        assert_eq!(listed(1), [("w", [0, 1]), ("x", [3, 1]), ("a", [1, 0]), ("x y", [2, 0]), ("y", [2, 0])]);
        assert_eq!(c.ngrams[0][0].score, 0.75);
        let top2 = compare(&refs, &sys1, &sys2, &CompareOptions { ngram_top: 2, ..Default::default() }).unwrap();
        assert_eq!(top2.ngrams[0].len(), 2);
    }

    #[test]
    fn histogram_bins_and_top_lines() {
        let bins = histogram(&[[100.0, 0.0], [0.0, 100.0], [5.0, 5.0], [10.0, 0.0], [0.0, 10.0], [0.5, 0.0]]);
        assert_eq!(bins.len(), 21);
        assert_eq!((bins[0].label.as_str(), bins[9].label.as_str()), ("[-100,-90)", "[-10,0)"));
        assert_eq!(
            (bins[10].label.as_str(), bins[11].label.as_str(), bins[20].label.as_str()),
            ("0", "(0,10]", "(90,100]")
        );
        let counts: Vec<usize> = bins.iter().map(|b| b.lines).collect();
        assert_eq!(counts, [1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1]);

        let refs = ["a b c d", "a b c d", "a b c d", "e f"];
        let sys1 = ["a b c d", "a b c d", "a b c x", "e f"];
        let sys2 = ["x y z w", "x y z w", "a b c d", "e f"];
        let top = run(&refs, &sys1, &sys2).top_lines;
        assert_eq!(top.iter().map(|d| d.line).collect::<Vec<_>>(), [0, 2], "a repeat and a tie are left out");
        assert_eq!(top[0].difference().round(), 100.0);
    }

    #[test]
    fn frequency_from_a_corpus() {
        let counts = word_counts(["a a a a a", "b"]);
        let options = CompareOptions { freq_counts: Some(counts), ..Default::default() };
        let c = compare(&["a b c"], &["a b c"], &["a"], &options).unwrap();
        assert!(c.freq_from_corpus);
        let refs: Vec<usize> = c.frequency_buckets.iter().map(|b| b.ref_words).collect();
        assert_eq!(refs, [1, 1, 0, 0, 0, 1, 0, 0, 0]);
        assert_eq!(c.frequency_buckets[5].systems[1].f_measure, 1.0);
    }

    #[test]
    fn bad_input_is_an_error() {
        let o = CompareOptions::default();
        assert_eq!(compare(&[], &[], &[], &o).unwrap_err(), "the reference has no lines");
        assert_eq!(
            compare(&["a", "b"], &["a", "b"], &["a"], &o).unwrap_err(),
            "system 2 has 1 line but the reference has 2"
        );
        let long = vec!["w"; 10_000].join(" ");
        let c = compare(&[&long, ""], &[&long, ""], &["", &long], &o).unwrap();
        // The empty line is one empty word: 2- to 4-grams count 1 each there, unmatched.
        assert_eq!(format!("{:.4}", c.bleu[0]), "99.9925");
    }
}

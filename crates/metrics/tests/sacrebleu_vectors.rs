//! The expectations of sacreBLEU's own test suite, run against this crate.
//!
//! Source: repository mjpost/sacrebleu, folder test/, commit f615c7286d4d813370efb824d94fc2bfcd3a6b94:
//! test_bleu.py, test_chrf.py, test_sentence_bleu.py, test_ter.py, test_tokenizer_ter.py,
//! test_significance.py (its wmt17_en_de_systems.pkl.bz2 unpacked into tests/data/sacrebleu_vectors/),
//! test_api.py and test_dataset.py (nothing applicable; see the list at the end).
//! Inputs, expected values and tolerances are theirs; the code is ours.

use wgslate_metrics::significance::{self, Scorer};
use wgslate_metrics::*;

fn assert_close(what: &str, got: f64, want: f64, eps: f64) {
    assert!((got - want).abs() < eps, "{what}: got {got}, expected {want} (tolerance {eps})");
}

fn streams<'a>(refs: &[&[&'a str]]) -> Vec<Vec<&'a str>> {
    refs.iter().map(|r| r.to_vec()).collect()
}

// ---------------------------------------------------------------- test_bleu.py

const BLEU_EPS: f64 = 1e-8;

const README_HYPS: [&str; 3] = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."];
const README_REFS: [&[&str]; 2] = [
    &["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
    &["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."],
];

const OFFSET_HYP: &str = "am I am a character sequence";
const OFFSET_REF: &str = "I am a symbol string sequence a a";

/// `sacrebleu.raw_corpus_bleu`: no tokenization, floor smoothing, effective order.
fn raw_corpus_bleu(hyps: &[&str], refs: &[&[&str]], smoothing: Smoothing) -> BleuScore {
    let options = BleuOptions { tokenize: Tokenize::None, smoothing, effective_order: true, ..Default::default() };
    Bleu::new(options).corpus_score(hyps, &streams(refs))
}

fn compute_bleu(correct: [u64; 4], total: [u64; 4], sys_len: u64, ref_len: u64, smoothing: Smoothing) -> f64 {
    let stats = BleuStats { sys_len, ref_len, correct: correct.to_vec(), total: total.to_vec() };
    let options = BleuOptions { smoothing, ..Default::default() };
    Bleu::new(options).compute(&stats).score
}

/// (hypotheses, reference sets, expected score).
type Case<'a> = (&'a [&'a str], &'a [&'a [&'a str]], f64);

#[test]
fn bleu_raw_bleu() {
    let cases: [Case; 3] = [
        (&["this is a test", "another test"], &[&["ref1", "ref2"]], 0.0),
        (&["this is a test"], &[&["this is a test"]], 1.0),
        (&["this is a fest"], &[&["this is a test"]], 0.223606797749979),
    ];
    for (hyps, refs, want) in cases {
        let got = raw_corpus_bleu(hyps, refs, Smoothing::Floor(0.01)).score / 100.0;
        assert_close(&format!("raw BLEU of {hyps:?}"), got, want, BLEU_EPS);
    }
}

#[test]
fn bleu_corpus_bleu() {
    let tok = |tokenize| BleuOptions { tokenize, ..Default::default() };
    let cases = [
        (README_HYPS, BleuOptions::default(), 48.530827),
        (["", "", ""], BleuOptions::default(), 0.0),
        (README_HYPS, tok(Tokenize::None), 49.1919566),
        (README_HYPS, tok(Tokenize::Thirteen), 48.530827),
        (README_HYPS, tok(Tokenize::Intl), 43.91623493),
        (README_HYPS, BleuOptions { smoothing: Smoothing::None, ..Default::default() }, 48.530827),
    ];
    for (hyps, options, want) in cases {
        let what = format!("corpus BLEU of {hyps:?} with {options:?}");
        assert_close(&what, Bleu::new(options).corpus_score(&hyps, &streams(&README_REFS)).score, want, BLEU_EPS);
    }
}

#[test]
fn bleu_effective_order() {
    let cases = [("test", 0.3678794411714425), ("a test", 1.0), ("a little test", 0.03218297948685433)];
    for (hyp, want) in cases {
        let got = raw_corpus_bleu(&[hyp], &[&["a test"]], Smoothing::Floor(0.01)).score / 100.0;
        assert_close(&format!("raw BLEU of {hyp:?}"), got, want, BLEU_EPS);
    }
}

#[test]
fn bleu_statistics() {
    let s = raw_corpus_bleu(&[OFFSET_HYP], &[&[OFFSET_REF]], Smoothing::Floor(0.01));
    assert_eq!(s.counts, [4.0, 2.0, 1.0, 0.0]);
    assert_eq!(s.totals, [6.0, 5.0, 4.0, 3.0]);
}

#[test]
fn bleu_scoring() {
    let got = compute_bleu([9, 7, 5, 3], [10, 8, 6, 4], 11, 11, Smoothing::None) / 100.0;
    assert_close("BLEU from statistics", got, 0.8375922397, BLEU_EPS);
}

#[test]
fn bleu_offset() {
    let score = |smoothing| raw_corpus_bleu(&[OFFSET_HYP], &[&[OFFSET_REF]], smoothing).score / 100.0;
    assert_close("floor 0.0", score(Smoothing::Floor(0.0)), 0.0, BLEU_EPS);
    assert_close("floor, no value", score(Smoothing::parse("floor", None).unwrap()), 0.1555722182, BLEU_EPS);
    assert_close("floor 0.1 (raw_corpus_bleu's default)", score(Smoothing::Floor(0.1)), 0.1555722182, BLEU_EPS);
}

#[test]
fn bleu_degenerate_statistics() {
    let cases = [
        ([0, 0, 0, 0], [4, 4, 2, 1], 0, 1, 0.0),
        ([0, 0, 0, 0], [10, 11, 12, 0], 14, 10, 0.0),
        ([0, 0, 0, 0], [0, 0, 0, 0], 0, 0, 0.0),
        ([6, 5, 4, 0], [6, 5, 4, 3], 6, 6, 0.0),
        ([0, 0, 0, 0], [0, 0, 0, 0], 0, 0, 0.1),
        ([0, 0, 0, 0], [0, 0, 0, 0], 1, 5, 0.01),
    ];
    for (correct, total, sys_len, ref_len, floor) in cases {
        let got = compute_bleu(correct, total, sys_len, ref_len, Smoothing::Floor(floor)) / 100.0;
        assert_eq!(got, 0.0, "{correct:?} {total:?} {sys_len} {ref_len} floor {floor}");
    }
}

#[test]
fn bleu_max_ngram_order() {
    let cases = [(1, "77.65"), (2, "60.50"), (3, "53.93"), (4, "48.53"), (5, "46.14"), (6, "43.28")];
    for (max_ngram_order, want) in cases {
        let bleu = Bleu::new(BleuOptions { max_ngram_order, ..Default::default() });
        let got = bleu.corpus_score(&README_HYPS, &streams(&README_REFS)).score;
        assert_eq!(format!("{got:.2}"), want, "max_ngram_order {max_ngram_order}");
    }
}

// ---------------------------------------------------------------- test_chrf.py

const CHRF_EPS: f64 = 1e-4;

fn corpus_chrf(hyps: &[&str], refs: &[&str], options: ChrfOptions) -> f64 {
    Chrf::new(options).corpus_score(hyps, &[refs.to_vec()])
}

fn beta3(eps_smoothing: bool, whitespace: bool) -> ChrfOptions {
    ChrfOptions { char_order: 6, word_order: 0, beta: 3, eps_smoothing, whitespace, ..Default::default() }
}

fn check_chrf_cases(cases: &[(&[&str], &[&str], f64)], options: ChrfOptions) {
    for &(hyps, refs, want) in cases {
        let got = corpus_chrf(hyps, refs, options.clone());
        assert_close(&format!("chrF of {hyps:?} vs {refs:?}"), got, want, CHRF_EPS);
    }
}

#[test]
fn chrf_eps_smoothing() {
    let cases: [(&[&str], &[&str], f64); 13] = [
        (&["abcdefg"], &["hijklmnop"], 0.0),
        (&["a"], &["b"], 0.0),
        (&[""], &["b"], 0.0),
        (&[""], &["ref"], 0.0),
        (&[""], &["reference"], 0.0),
        (&["aa"], &["ab"], 8.3333),
        (&["a", "b"], &["a", "c"], 8.3333),
        (&["a"], &["a"], 16.6667),
        (&["a b c"], &["a b c"], 50.0),
        (&["a b c"], &["abc"], 50.0),
        (
            &[" risk assessment must be made of those who are qualified and expertise in the sector - these are the \
               scientists ."],
            &["risk assessment has to be undertaken by those who are qualified and expert in that area - that is the \
               scientists ."],
            63.361730,
        ),
        (
            &[" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "],
            &["Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."],
            64.1302698,
        ),
        (
            &["Niemand hat die Absicht, eine Mauer zu errichten"],
            &["Niemand hat die Absicht, eine Mauer zu errichten"],
            100.0,
        ),
    ];
    check_chrf_cases(&cases, beta3(true, false));
}

#[test]
fn chrf_eff_order() {
    let cases: [(&[&str], &[&str], f64); 7] = [
        (&["a"], &["a"], 100.0),
        (&[""], &["reference"], 0.0),
        (&["a b c"], &["a b c"], 100.0),
        (&["a b c"], &["abc"], 100.0),
        (&[""], &["c"], 0.0),
        (&["a", "b"], &["a", "c"], 50.0),
        (&["aa"], &["ab"], 25.0),
    ];
    check_chrf_cases(&cases, beta3(false, false));
}

#[test]
fn chrf_keep_whitespace() {
    let cases: [(&[&str], &[&str], f64); 2] = [
        (
            &["Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich."],
            &["Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."],
            67.3481606,
        ),
        (
            &["risk assessment must be made of those who are qualified and expertise in the sector - these are the \
               scientists ."],
            &["risk assessment has to be undertaken by those who are qualified and expert in that area - that is the \
               scientists ."],
            65.2414427,
        ),
    ];
    check_chrf_cases(&cases, beta3(false, true));
}

#[test]
fn chrf_sentence_level() {
    let cases = [
        (
            "Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře.",
            "Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře.",
            39.14078509,
        ),
        (
            "Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři.",
            "A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři.",
            31.22557079,
        ),
        (
            "Lapali po dechu, jejich životy skončily dřív, než skutečně začaly.",
            "Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít, připomněli.",
            57.15704367,
        ),
    ];
    let chrf = Chrf::new(ChrfOptions { eps_smoothing: true, ..Default::default() });
    for (hyp, reference, want) in cases {
        let got = chrf.corpus_score(&[hyp], &[vec![reference]]);
        assert_close(&format!("sentence chrF of {hyp:?}"), got, want, CHRF_EPS);
    }
}

// ---------------------------------------------------------------- test_sentence_bleu.py

const SENTENCE_BLEU_EPS: f64 = 1e-3;

fn sentence_bleu(hyp: &str, reference: &str, method: &str, value: Option<f64>, lowercase: bool, tok: &str) -> f64 {
    let options = BleuOptions {
        tokenize: Tokenize::parse(tok).unwrap(),
        lowercase,
        smoothing: Smoothing::parse(method, value).unwrap(),
        effective_order: true,
        ..Default::default()
    };
    Bleu::new(options).corpus_score(&[hyp], &[vec![reference]]).score
}

#[test]
fn sentence_bleu_api() {
    let hyp = "Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;";
    let reference = "producţia de zahăr brut se exprimă în zahăr alb;";
    let cases = [
        ("exp", None, false, "13a", 8.493),
        ("none", None, false, "13a", 0.0),
        ("floor", None, false, "13a", 4.51688),
        ("floor", Some(0.1), false, "13a", 4.51688),
        ("floor", Some(0.5), false, "13a", 10.10),
        ("add-k", None, false, "13a", 14.882),
        ("add-k", Some(1.0), false, "13a", 14.882),
        ("add-k", Some(2.0), false, "13a", 21.389),
        ("exp", None, false, "none", 7.347),
        ("exp", None, false, "intl", 8.493),
        ("exp", None, false, "char", 40.8759),
        ("exp", None, true, "char", 42.0267),
    ];
    for (method, value, lowercase, tok, want) in cases {
        let got = sentence_bleu(hyp, reference, method, value, lowercase, tok);
        assert_close(&format!("{method} {value:?} lc={lowercase} tok={tok}"), got, want, SENTENCE_BLEU_EPS);
    }
}

#[test]
fn sentence_bleu_api_zero() {
    let cases =
        [("exp", None), ("none", None), ("floor", None), ("floor", Some(0.1)), ("add-k", None), ("add-k", Some(1.0))];
    for (method, value) in cases {
        let got = sentence_bleu("this is a cat", "okay thanks", method, value, false, "13a");
        assert_close(&format!("{method} {value:?}"), got, 0.0, SENTENCE_BLEU_EPS);
    }
}

// ---------------------------------------------------------------- test_ter.py

#[test]
fn ter_corpus_score() {
    let cases: [(&[&str], &[&str], f64); 7] = [
        (&["aaaa bbbb cccc dddd"], &["aaaa bbbb cccc dddd"], 0.0),
        (&["dddd eeee ffff"], &["aaaa bbbb cccc"], 1.0),
        (&[""], &["a"], 1.0),
        (&["a"], &[""], 1.0),
        (&[""], &[""], 0.0),
        (&["d e f g h a b c"], &["a b c d e f g h"], 1.0 / 8.0),
        (&WMT19_DEV_HYPS, &WMT19_DEV_REFS, 0.136),
    ];
    let ter = Ter::new(TerOptions::default());
    for (hyps, refs, want) in cases {
        let (got, _, _) = ter.corpus_score(hyps, &[refs.to_vec()]);
        assert_close(&format!("TER of {hyps:?}"), got, 100.0 * want, 1e-3);
    }
}

const WMT19_DEV_HYPS: [&str; 5] = [
    "wählen Sie \" Bild neu berechnen , \" um beim Ändern der Bildgröße Pixel hinzuzufügen oder zu entfernen , damit \
     das Bild ungefähr dieselbe Größe aufweist wie die andere Größe .",
    "wenn Sie alle Aufgaben im aktuellen Dokument aktualisieren möchten , wählen Sie im Menü des \
     Aufgabenbedienfelds die Option \" Alle Aufgaben aktualisieren . \"",
    "klicken Sie auf der Registerkarte \" Optionen \" auf die Schaltfläche \" Benutzerdefiniert \" und geben Sie \
     Werte für \" Fehlerkorrektur-Level \" und \" Y / X-Verhältnis \" ein .",
    "Sie können beispielsweise ein Dokument erstellen , das ein Auto über die Bühne enthält .",
    "wählen Sie im Dialogfeld \" Neu aus Vorlage \" eine Vorlage aus und klicken Sie auf \" Neu . \"",
];

const WMT19_DEV_REFS: [&str; 5] = [
    "wählen Sie \" Bild neu berechnen , \" um beim Ändern der Bildgröße Pixel hinzuzufügen oder zu entfernen , damit \
     die Darstellung des Bildes in einer anderen Größe beibehalten wird .",
    "wenn Sie alle Aufgaben im aktuellen Dokument aktualisieren möchten , wählen Sie im Menü des \
     Aufgabenbedienfelds die Option \" Alle Aufgaben aktualisieren . \"",
    "klicken Sie auf der Registerkarte \" Optionen \" auf die Schaltfläche \" Benutzerdefiniert \" und geben Sie für \
     \" Fehlerkorrektur-Level \" und \" Y / X-Verhältnis \" niedrigere Werte ein .",
    "Sie können beispielsweise ein Dokument erstellen , das ein Auto enthalt , das sich über die Bühne bewegt .",
    "wählen Sie im Dialogfeld \" Neu aus Vorlage \" eine Vorlage aus und klicken Sie auf \" Neu . \"",
];

// ---------------------------------------------------------------- test_tokenizer_ter.py

// The Tercom tokenizer is not public; `Ter::preprocess` is that tokenizer after an rstrip, which changes
// none of these inputs.
fn check_ter_tokenizer(options: TerOptions, cases: &[(&str, &str)]) {
    let ter = Ter::new(options);
    for &(input, want) in cases {
        assert_eq!(ter.preprocess(input), want, "{options:?} on {input:?}");
    }
}

#[test]
fn ter_tokenizer_default() {
    let cases = [("a b c d", "a b c d"), ("", ""), ("a b c d.", "a b c d."), ("A B C D.", "a b c d.")];
    check_ter_tokenizer(TerOptions::default(), &cases);
}

#[test]
fn ter_tokenizer_no_punct() {
    let cases = [("a b c d.", "a b c d"), ("A ; B ) C : D.", "a b c d")];
    check_ter_tokenizer(TerOptions { no_punct: true, ..Default::default() }, &cases);
}

#[test]
fn ter_tokenizer_normalized() {
    let cases = [("a b (c) d.", "a b ( c ) d ."), ("Jim's car.", "jim 's car ."), ("4.2", "4.2")];
    check_ter_tokenizer(TerOptions { normalized: true, ..Default::default() }, &cases);
}

#[test]
fn ter_tokenizer_asian() {
    let cases = [("美众院公布对特", "美 众 院 公 布 对 特"), ("りの拳銃を持", "りの 拳 銃 を 持")];
    check_ter_tokenizer(TerOptions { normalized: true, asian_support: true, ..Default::default() }, &cases);
}

// ---------------------------------------------------------------- test_significance.py

const WMT17_BASELINE: &str = "newstest2017.LIUM-NMT.4900.en-de";

/// p-values of Moses' bootstrap significance script (2000 samples, mean of 3 runs), against the baseline.
const MOSES_P_VALUES: [(&str, f64); 15] = [
    ("newstest2017.C-3MA.4959.en-de", 0.00000),
    ("newstest2017.FBK.4870.en-de", 0.01267),
    ("newstest2017.KIT.4950.en-de", 0.02233),
    ("newstest2017.LMU-nmt-reranked.4934.en-de", 0.04383),
    ("newstest2017.LMU-nmt-single.4893.en-de", 0.20783),
    ("newstest2017.online-A.0.en-de", 0.00000),
    ("newstest2017.online-B.0.en-de", 0.38100),
    ("newstest2017.online-F.0.en-de", 0.00000),
    ("newstest2017.online-G.0.en-de", 0.00000),
    ("newstest2017.PROMT-Rule-based.4735.en-de", 0.00000),
    ("newstest2017.RWTH-nmt-ensemble.4921.en-de", 0.01167),
    ("newstest2017.SYSTRAN.4847.en-de", 0.20983),
    ("newstest2017.TALP-UPC.4834.en-de", 0.00000),
    ("newstest2017.uedin-nmt.4722.en-de", 0.00000),
    ("newstest2017.xmu.4910.en-de", 0.25483),
];

fn wmt17_lines(name: &str) -> Vec<String> {
    let path = format!("{}/tests/data/sacrebleu_vectors/wmt17-en-de/{name}", env!("CARGO_MANIFEST_DIR"));
    pystr::lines(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")))
}

/// Per segment [sys_len, ref_len, correct..., total...], and the corpus score.
fn bleu_stats(bleu: &Bleu, hyps: &[String], refs: &[Vec<&str>]) -> (Vec<Vec<f64>>, f64) {
    let hyps: Vec<&str> = hyps.iter().map(String::as_str).collect();
    let rows = bleu
        .corpus_stats(&hyps, refs)
        .iter()
        .map(|s| [s.sys_len, s.ref_len].iter().chain(&s.correct).chain(&s.total).map(|&v| v as f64).collect())
        .collect();
    (rows, bleu.corpus_score(&hyps, refs).score)
}

#[test]
fn significance_paired_bootstrap() {
    let reference = wmt17_lines("reference");
    let refs = vec![reference.iter().map(String::as_str).collect::<Vec<_>>()];
    let bleu = Bleu::new(BleuOptions { tokenize: Tokenize::None, ..Default::default() });
    let scorer = Scorer::Bleu(&bleu.options);
    let (base_stats, base_score) = bleu_stats(&bleu, &wmt17_lines(WMT17_BASELINE), &refs);
    for (name, want) in MOSES_P_VALUES {
        let (stats, score) = bleu_stats(&bleu, &wmt17_lines(name), &refs);
        let result =
            significance::paired_bootstrap(&base_stats, &stats, base_score, score, &scorer, 2000, &[12345]).unwrap();
        assert_close(&format!("p-value of {name}"), result.p_value, want, 1e-2);
    }
}

// ---------------------------------------------------------------- not ported
//
// test_api.py, all tests: they read WMT/MTNT test sets through sacreBLEU's dataset registry and
//   downloads; this crate has no datasets and no network access.
// test_dataset.py, all tests: dataset downloads and the registry's Python objects.
// test_sentence_bleu.py test_compat_sentence_bleu: the `sacrebleu.compat` wrapper over the same call with
//   the same vectors as test_api_sentence_bleu, ported once above.
// test_significance.py test_paired_approximate_randomization: this crate has no approximate
//   randomization test (only bootstrap confidence and the paired bootstrap).
// test_significance.py isinstance checks on `Result` and `str`: Python types.
// test.sh (repository root, outside test/): needs WMT17 downloads and sacreBLEU's CLI.

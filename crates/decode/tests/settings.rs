//! The one validation of the page's settings: what a shared link may hold.

use wgslate_decode::settings::{checked_number, percent_decoded};
use wgslate_decode::{Search, Settings};

fn parse(query: &str) -> (Settings, String, Vec<String>) {
    let pairs: Vec<(&str, &str)> = query.split('&').filter_map(|kv| kv.split_once('=')).collect();
    Settings::from_pairs(pairs)
}

#[test]
fn the_last_unknown_name_is_followed_by_the_names_a_link_takes() {
    let (s, _, problems) = parse("temp=0.7&topk=5&beam=3");
    assert_eq!(s.beam, 3);
    assert_eq!(
        problems,
        [
            "unknown setting 'temp'",
            "unknown setting 'topk' (a link's settings are model, beam, lpk, lp, cov, end, a, b, sample, t, k, p, seed, rerank, backend, prefix and text)"
        ]
    );
    // Each name it lists is one (the list is made from the settings themselves).
    let every: Vec<String> = Settings::default().all_pairs().into_iter().map(|(k, v)| format!("{k}={v}")).collect();
    assert_eq!(parse(&every.join("&")).2, Vec::<String>::new());
}

#[test]
fn out_of_range_url_values_are_refused_with_a_message_each() {
    // The link from the report: every value outside the form's limits.
    let (s, text, problems) = parse("cov=-1e30&lp=1e30&a=1e30&b=4294967295&p=-1&k=4294967295&text=Hallo");
    assert_eq!(s, Settings::default());
    assert_eq!(text, "Hallo");
    assert_eq!(problems.len(), 6, "{problems:?}");
    assert!(problems[0].contains("coverage β must be between 0 and 5"), "{}", problems[0]);
    for bad in [
        "cov=NaN",
        "t=inf",
        "t=-inf",
        "beam=0",
        "beam=17",
        "beam=2.5",
        "seed=-3",
        "lpk=x",
        "sample=yes",
        "rerank=1",
        "model=../../etc",
        "model=xx",
        "backend=webgl",
        "backend=",
    ] {
        let (s, _, problems) = parse(bad);
        assert_eq!((s, problems.len()), (Settings::default(), 1), "{bad}");
    }
}

#[test]
fn values_inside_the_ranges_are_kept_and_round_trip() {
    let (s, _, problems) = parse("beam=16&lp=0.6&lpk=avg&cov=0.2&end=-1&a=1.5&b=200&sample=true&t=0.7&k=40&p=0.9&seed=7&model=en-de/gru&rerank=true&backend=cpu");
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!((s.beam, s.lenpen, s.coverage, s.max_len_b, s.top_k, s.seed), (16, 0.6, 0.2, 200, 40, 7));
    assert_eq!((s.backend.as_str(), s.rerank), ("cpu", true));
    assert!(matches!(s.search(), Search::Sample(_)));
    let pairs = s.to_pairs();
    let (again, _, problems) = Settings::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())));
    assert!(problems.is_empty());
    assert_eq!(again, s);
}

#[test]
fn a_maximum_length_of_zero_for_every_source_is_refused() {
    // A link that sets both: the search gave one word anyway.
    let (s, _, problems) = parse("a=0&b=0");
    assert_eq!(problems, ["max length a and b are both 0, which leaves no room for a word: make one of them more"]);
    assert_eq!((s.max_len_a, s.max_len_b), (0.0, 10));
    let (s, _, problems) = parse("b=0&a=0");
    assert_eq!(problems.len(), 1);
    assert_eq!((s.max_len_a, s.max_len_b), (2.0, 0));
    assert!(parse("a=0&b=1").2.is_empty() && parse("a=0.5&b=0").2.is_empty());
    // Judged on the link's last values, not pair by pair.
    let (s, _, problems) = parse("a=0&b=0&a=1");
    assert_eq!(problems, ["a's other value (given twice; \"1\" is used)"]);
    assert_eq!((s.max_len_a, s.max_len_b), (1.0, 0));
    let (s, _, problems) = parse("b=5&a=0&b=0&b=0");
    assert_eq!(
        problems,
        [
            "max length a and b are both 0, which leaves no room for a word: make one of them more",
            "b's other values (given 3 times; \"5\" is used)"
        ]
    );
    assert_eq!((s.max_len_a, s.max_len_b), (0.0, 5));
    let (s, _, problems) = parse("a=0&b=0&b=x&a=2");
    assert_eq!(problems.len(), 3, "{problems:?}"); // b=x, and a and b given twice
    assert_eq!((s.max_len_a, s.max_len_b), (2.0, 0));
}

#[test]
fn a_refused_value_leaves_the_setting_as_it_was() {
    let mut s = Settings::default();
    s.set("beam", "4").unwrap();
    assert!(s.set("beam", "-5").is_err());
    assert_eq!(s.beam, 4);
    assert_eq!(checked_number("n", "-5").unwrap_err(), "number of sentences must be between 1 and 1000, not -5");
}

#[test]
fn a_value_too_small_for_a_float_is_refused_not_read_as_zero() {
    assert_eq!(
        checked_number("a", "1e-400").unwrap_err(),
        "max length a 1e-400 is too small to hold (it would read as 0); write 0"
    );
    assert!(checked_number("cov", "-2E-999").is_err());
    // The settings are f32: 1e-50 is 0 there, though an f64 holds it.
    for tiny in ["1e-50", "-1e-46", "1e-300"] {
        assert!(checked_number("lp", tiny).is_err(), "{tiny}");
    }
    // Zero written as zero (as 0, not -0), and small values an f32 holds, are kept.
    for zero in ["0", "0.000", "-0", "0e-400", "00", "-0.0"] {
        assert_eq!(checked_number("a", zero).map(f64::to_bits), Ok(0.0f64.to_bits()), "{zero}");
    }
    assert_eq!(checked_number("lp", "1e-30"), Ok(1e-30));
    let (s, _, _) = parse("end=-0");
    assert_eq!(s.to_pairs().iter().find(|(k, _)| *k == "end").map(|(_, v)| v.as_str()), None, "-0 is the default 0");
    let (s, _, problems) = parse("a=1e-400&lp=0.5");
    assert_eq!((s.max_len_a, s.lenpen, problems.len()), (Settings::default().max_len_a, 0.5, 1), "{problems:?}");
}

#[test]
fn the_best_quality_preset_is_a_beam_search_and_greedy_undoes_it() {
    let start = parse("model=en-de/gru&sample=true&end=0.5&a=1.5&text=x").0;
    let best = start.with_best_quality();
    // The preset goes through the one validator: a link holding it gives the same settings.
    let query: Vec<String> = wgslate_decode::settings::BEST_QUALITY.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let linked = parse(&format!("model=en-de/gru&a=1.5&{}", query.join("&"))).0;
    assert_eq!(best, linked);
    let Search::Beam(beam) = best.search() else { panic!("{:?}", best.search()) };
    assert_eq!(beam.beam, 4);
    assert!(best.reranks() && best.search_label() == "beam 4, reranked", "{best:?}");
    assert_eq!((best.coverage, best.lenpen, best.end_penalty, best.sample), (0.0, 0.0, 0.0, false), "{best:?}");
    // Model and length limits stay; going back to greedy restores the default search.
    assert_eq!((best.model.as_str(), best.max_len_a), ("en-de/gru", 1.5));
    let greedy = best.with_greedy();
    assert!(matches!(greedy.search(), Search::Greedy(_)));
    assert_eq!(greedy, Settings { model: "en-de/gru".into(), max_len_a: 1.5, ..Settings::default() });
}

#[test]
fn rerank_applies_to_a_beam_of_two_or_more_only() {
    let reranks = |q: &str| parse(q).0.reranks();
    assert!(reranks("beam=4&rerank=true"));
    assert!(reranks("beam=2&rerank=true"));
    assert!(!reranks("beam=4"));
    assert!(!reranks("rerank=true"), "greedy has nothing to reorder");
    assert!(!reranks("beam=1&cov=0.2&rerank=true"), "a beam of one: one hypothesis");
    assert!(!reranks("beam=4&sample=true&rerank=true"), "sampling");
    let labels = ["", "beam=4", "beam=4&rerank=true", "rerank=true", "sample=true&beam=4&rerank=true"]
        .map(|q| parse(q).0.search_label());
    assert_eq!(labels, ["greedy", "beam 4", "beam 4, reranked", "greedy", "sampling"]);
    assert!(parse("beam=4&rerank=true").0.with_best_quality().rerank, "the Best quality preset ticks it");
    assert!(!parse("beam=4&rerank=true").0.with_greedy().rerank, "Fastest unticks it");
}

#[test]
fn a_rerank_box_that_cannot_apply_leaves_the_effective_settings_alone() {
    let effective = |q: &str| parse(q).0.effective();
    assert_eq!(effective("rerank=true"), effective(""), "greedy: nothing to re-translate");
    assert_eq!(effective("sample=true&beam=4&rerank=true"), effective("sample=true&beam=4"));
    assert_ne!(effective("beam=4&rerank=true"), effective("beam=4"), "a beam: ticking it re-translates");
    assert!(effective("beam=4&rerank=true").reranks());
}

#[test]
fn a_setting_given_twice_is_named_and_the_last_one_counts() {
    let (s, text, problems) = parse("beam=4&beam=8&text=a&text=b");
    assert_eq!((s.beam, text.as_str()), (8, "b"));
    assert_eq!(
        problems,
        ["beam's other value (given twice; \"8\" is used)", "text's other value (given twice; the last is used)"]
    );
    // 302 copies make one message, and the same refusal is said once; the value used is the last accepted.
    let query: Vec<&str> = std::iter::repeat_n("beam=2", 299).chain(["beam=abc"; 3]).collect();
    let (s, _, problems) = parse(&query.join("&"));
    assert_eq!(s.beam, 2);
    assert_eq!(
        problems,
        ["beam width must be a number, not 'abc'", "beam's other values (given 302 times; \"2\" is used)"]
    );
    let (_, _, problems) = parse("beam=x&beam=y");
    assert_eq!(problems, ["beam width must be a number, not 'x'", "beam width must be a number, not 'y'"]);
}

#[test]
fn percent_escapes_decode_to_their_bytes_and_a_stray_percent_stays() {
    // "é" is C3 A9 in UTF-8; a cut "€" (E2 82 AC) leaves bytes that are not UTF-8.
    assert_eq!(percent_decoded("caf%C3%a9%20x"), "café x".as_bytes());
    assert_eq!(percent_decoded("5%E2%82"), [b'5', 0xE2, 0x82]);
    for kept in ["100%", "%", "%z1", "%1", "%+F", "ü%"] {
        assert_eq!(percent_decoded(kept), kept.as_bytes(), "{kept}");
    }
}

//! Every case of the sacreBLEU 2.6.0 golden file: scores to 1e-9, counts exactly, signatures exactly.

use serde_json::Value;
use wgslate_metrics::signature::{self, Resampling};
use wgslate_metrics::*;

fn cases() -> Vec<Value> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sacrebleu-golden.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["cases"].as_array().unwrap().clone()
}

fn strs(v: &Value) -> Vec<&str> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect()
}

fn close(what: &str, id: &str, got: f64, want: f64) {
    assert!((got - want).abs() <= 1e-9, "{id}: {what} = {got}, sacreBLEU says {want}");
}

pub fn bleu_options(o: &Value) -> BleuOptions {
    let smoothing = Smoothing::parse(o["smooth_method"].as_str().unwrap_or("exp"), o["smooth_value"].as_f64()).unwrap();
    BleuOptions {
        tokenize: Tokenize::parse(o["tokenize"].as_str().unwrap_or("13a")).unwrap(),
        lowercase: o["lowercase"].as_bool().unwrap_or(false),
        smoothing,
        max_ngram_order: o["max_ngram_order"].as_u64().unwrap_or(4) as usize,
        effective_order: o["effective_order"].as_bool().unwrap_or(false),
    }
}

#[test]
fn golden_cases_match_sacrebleu() {
    let cases = cases();
    assert!(cases.len() >= 100);
    for c in &cases {
        let id = c["id"].as_str().unwrap();
        let hyps = strs(&c["hyps"]);
        let refs: Vec<Vec<&str>> = c["refs"].as_array().unwrap().iter().map(strs).collect();
        let o = &c["options"];
        let e = &c["expected"];
        let nrefs = Some(refs.len());
        match c["metric"].as_str().unwrap() {
            "bleu" => {
                let opts = bleu_options(o);
                let sig = signature::bleu(&opts, nrefs, &Resampling::default()).to_string();
                let s = Bleu::new(opts).corpus_score(&hyps, &refs);
                close("score", id, s.score, e["score"].as_f64().unwrap());
                close("bp", id, s.bp, e["bp"].as_f64().unwrap());
                assert_eq!(s.sys_len, e["sys_len"].as_u64().unwrap(), "{id}: sys_len");
                assert_eq!(s.ref_len, e["ref_len"].as_u64().unwrap(), "{id}: ref_len");
                for (k, got) in [("counts", &s.counts), ("totals", &s.totals), ("precisions", &s.precisions)] {
                    let want: Vec<f64> = e[k].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
                    assert_eq!(got.len(), want.len(), "{id}: {k}");
                    for (g, w) in got.iter().zip(&want) {
                        close(k, id, *g, *w);
                    }
                }
                assert_eq!(sig, c["signature"].as_str().unwrap(), "{id}: signature");
            }
            "chrf" => {
                let opts = ChrfOptions {
                    char_order: o["char_order"].as_u64().unwrap_or(6) as usize,
                    word_order: o["word_order"].as_u64().unwrap_or(0) as usize,
                    beta: o["beta"].as_i64().unwrap_or(2),
                    lowercase: o["lowercase"].as_bool().unwrap_or(false),
                    whitespace: o["whitespace"].as_bool().unwrap_or(false),
                    eps_smoothing: o["eps_smoothing"].as_bool().unwrap_or(false),
                };
                let sig = signature::chrf(&opts, nrefs, &Resampling::default()).to_string();
                close("score", id, Chrf::new(opts).corpus_score(&hyps, &refs), e["score"].as_f64().unwrap());
                assert_eq!(sig, c["signature"].as_str().unwrap(), "{id}: signature");
            }
            "ter" => {
                let opts = TerOptions {
                    normalized: o["normalized"].as_bool().unwrap_or(false),
                    no_punct: o["no_punct"].as_bool().unwrap_or(false),
                    asian_support: o["asian_support"].as_bool().unwrap_or(false),
                    case_sensitive: o["case_sensitive"].as_bool().unwrap_or(false),
                };
                let sig = signature::ter(&opts, nrefs, &Resampling::default()).to_string();
                let (score, edits, ref_len) = Ter::new(opts).corpus_score(&hyps, &refs);
                close("score", id, score, e["score"].as_f64().unwrap());
                close("num_edits", id, edits, e["num_edits"].as_f64().unwrap());
                close("ref_length", id, ref_len, e["ref_length"].as_f64().unwrap());
                assert_eq!(sig, c["signature"].as_str().unwrap(), "{id}: signature");
            }
            m => panic!("unknown metric {m}"),
        }
    }
}

//! `wgslate bench --model DIR`: GPU engine vs candle CPU reference, printed as JSON.

use std::time::Instant;

use wgslate_decode::{BeamConfig, Search};
use wgslate_model::Model;

use crate::pyfmt::{self, Json};
use crate::translate_cmd::translate_on;

fn time(f: impl FnOnce() -> Result<String, String>) -> Result<(f64, String), String> {
    let t0 = Instant::now();
    let backend = f()?;
    Ok((t0.elapsed().as_secs_f64(), backend))
}

pub fn run(args: &[String]) -> Result<(), String> {
    let get = |k: &str| args.iter().position(|a| a == k).and_then(|i| args.get(i + 1)).cloned();
    let dir = get("--model").ok_or("usage: wgslate bench --model DIR [--src FILE] [--sentences N]")?;
    let src = get("--src").unwrap_or_else(|| "www/data/test_2016_flickr.en".into());
    let n: usize = get("--sentences").map(|v| v.parse().map_err(|_| "--sentences must be a number")).transpose()?.unwrap_or(50);
    let text = std::fs::read_to_string(&src).map_err(|e| format!("cannot read {src}: {e}"))?;
    let all: Vec<String> = text.lines().map(str::to_string).collect();
    let few: Vec<String> = all.iter().take(n).cloned().collect();
    let model = Model::from_dir(std::path::Path::new(&dir))?;
    let greedy = Search::default();
    let beam = Search::Beam(BeamConfig { beam: 4, ..Default::default() });
    let mut fields = vec![("model".to_string(), Json::Str(dir.clone())), ("sentences_batch1".into(), Json::Raw(n.to_string())), ("sentences_batched".into(), Json::Raw(all.len().to_string()))];
    let mut per_backend = Vec::new();
    for backend in ["gpu", "cpu"] {
        let run = |s: &Search, lines: &[String], batch: usize| translate_on(backend, &dir, &model, lines, s, batch).map(|(_, b)| b);
        let (g, name) = time(|| run(&greedy, &few, 1))?;
        let (b, _) = time(|| run(&beam, &few, 1))?;
        let (all_s, _) = time(|| run(&greedy, &all, 64))?;
        let entry = vec![
            ("backend".to_string(), Json::Str(name)),
            ("greedy_ms_per_sentence_batch1".into(), Json::Raw(pyfmt::repr((1000.0 * g / n as f64 * 100.0).round() / 100.0))),
            ("beam4_ms_per_sentence_batch1".into(), Json::Raw(pyfmt::repr((1000.0 * b / n as f64 * 100.0).round() / 100.0))),
            ("greedy_sentences_per_second_batched".into(), Json::Raw(pyfmt::repr((all.len() as f64 / all_s * 100.0).round() / 100.0))),
        ];
        per_backend.push((backend, g, entry));
    }
    let ratio = per_backend[1].1 / per_backend[0].1;
    for (name, _, entry) in per_backend {
        fields.push((name.to_string(), Json::Obj(entry)));
    }
    fields.push(("greedy_batch1_speedup_gpu_over_cpu".into(), Json::Raw(pyfmt::repr((ratio * 100.0).round() / 100.0))));
    println!("{}", Json::Obj(fields).dumps(2));
    Ok(())
}

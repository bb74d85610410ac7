//! `wgslate score`: how likely the model finds translations it is given (teacher forcing), token by
//! token — a reference, your own, another system's — as the page's "Score a translation" shows it.

use serde_json::json;
use wgslate_decode::Search;
use wgslate_model::translate::{encode_sources, special_tokens_refused};

use crate::translate_cmd::{load_models, model_dirs, read_lines, without_bom};
use crate::translator::Translator;

pub const USAGE: &str =
    "usage: wgslate score --model DIR [--model DIR …] --src FILE --hyp FILE [--json] [--backend auto|gpu|cpu]

The log-probability the model gives each line of --hyp as the translation of the same line of --src,
EOS included (natural log; several --model: the ensemble's mean distribution). Per line, tab-separated:
the total, the subword count (EOS included) and each subword's log-probability; --json writes one
array of {line, log_prob, tokens, subwords, token_log_probs, ranks} (rank 1: the model's first choice
at that position). A translation longer than the model emits is scored on its first subwords and EOS.";

pub fn run(args: &[String]) -> Result<(), String> {
    let (mut models, mut src, mut hyp, mut backend, mut as_json) = (vec![], None, None, "auto".to_string(), false);
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let mut value = || args.next().cloned().ok_or(format!("{flag} needs a value\n{USAGE}"));
        match flag.as_str() {
            "--model" => models.extend(model_dirs(&value()?)?),
            "--src" => src = Some(value()?),
            "--hyp" => hyp = Some(value()?),
            "--backend" => backend = value()?,
            "--json" => as_json = true,
            other => return Err(format!("unknown argument '{other}'\n{USAGE}")),
        }
    }
    if models.is_empty() {
        return Err(format!("--model is required\n{USAGE}"));
    }
    if !["cpu", "gpu", "auto"].contains(&backend.as_str()) {
        return Err(format!("--backend must be cpu, gpu or auto, not '{backend}'"));
    }
    let (src, hyp) = (src.ok_or("--src is required")?, hyp.ok_or("--hyp is required")?);
    let sources = without_bom(read_lines(&src)?);
    let hyps = without_bom(read_lines(&hyp)?);
    if sources.len() != hyps.len() {
        let plural = wgslate_metrics::plural;
        return Err(format!(
            "{src} has {} but {hyp} has {}",
            plural(sources.len(), "line"),
            plural(hyps.len(), "line")
        ));
    }
    let loaded = load_models(&models)?;
    let model = &loaded[0];
    let source_ids: Vec<Vec<u32>> = encode_sources(model, &sources)?.into_iter().map(|(ids, _)| ids).collect();
    let targets = hyps
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let mut ids = model.vocab.encode(h)?;
            ids.pop(); // EOS: scoring adds it
            special_tokens_refused(model, &ids, &format!("{hyp}, line {},", i + 1))?;
            Ok(ids)
        })
        .collect::<Result<Vec<_>, String>>()?;
    let mut translator = Translator::new(&backend, &models, &loaded, &Search::default(), 32, None)?;
    let scores = translator.score(&source_ids, &targets)?;
    let eos = wgslate_model::config::EOS_ID;
    if as_json {
        let rows: Vec<_> = scores
            .iter()
            .zip(&targets)
            .enumerate()
            .map(|(i, (s, t))| {
                let ids: Vec<u32> = t.iter().copied().take(s.token_log_probs.len() - 1).chain([eos]).collect();
                json!({"line": i + 1, "log_prob": s.total(), "tokens": s.token_log_probs.len(),
                       "subwords": model.vocab.token_strings(&ids), "token_log_probs": s.token_log_probs, "ranks": s.ranks})
            })
            .collect();
        println!("{}", serde_json::Value::from(rows));
    } else {
        for s in &scores {
            let each: Vec<String> = s.token_log_probs.iter().map(|l| format!("{l:.4}")).collect();
            println!("{:.4}\t{}\t{}", s.total(), s.token_log_probs.len(), each.join(" "));
        }
    }
    Ok(())
}

//! `wgslate quantize`: rewrites a model's weights in another format (int8 by default).

use std::path::Path;

use wgslate_model::candle_core::{Device, Tensor};
use wgslate_model::quant::{block_for, WeightFormat};
use wgslate_model::weights::{to_safetensors, CheckedWeights};
use wgslate_model::Model;

pub const USAGE: &str = "usage: wgslate quantize --model DIR --out DIR [--format int8|int8-N|f16]
  int8: one f16 scale per row of each matrix (the default); int8-N: one per N values of a row";

pub fn run(args: &[String]) -> Result<(), String> {
    let (mut model, mut out, mut format) = (None, None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or(format!("{a} needs a value\n{USAGE}"));
        let slot = match a.as_str() {
            "--model" => &mut model,
            "--out" => &mut out,
            "--format" => &mut format,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        };
        // A second value would drop the first without a word (another model, another output).
        if slot.replace(value()?).is_some() {
            return Err(format!("{a} is given twice: give it once"));
        }
    }
    let (model, out) =
        (model.ok_or(format!("--model is required\n{USAGE}"))?, out.ok_or(format!("--out is required\n{USAGE}"))?);
    let format = WeightFormat::parse(format.as_deref().unwrap_or("int8"))?;
    let (src, dst) = (Path::new(&model), Path::new(&out));
    if model.is_empty() {
        return Err("--model names no directory".into());
    }
    if !src.join("config.json").is_file() {
        return Err(crate::translate_cmd::not_a_model_dir(&model));
    }
    if out.is_empty() {
        return Err("--out names no directory".into());
    }
    if dst.exists() && !dst.is_dir() {
        return Err(format!("--out {out} is a file, not a directory"));
    }
    if dst.exists() && src.canonicalize().ok() == dst.canonicalize().ok() {
        return Err("--out must be another directory than --model".into());
    }
    // Loading the whole model first checks the files belong together.
    Model::from_dir(src)?;
    let read = |name: &str| {
        std::fs::read(src.join(name)).map_err(|e| format!("cannot read {}: {e}", src.join(name).display()))
    };
    let weights = read("model.safetensors")?;
    let checked = CheckedWeights::parse(&weights)?;
    let mut tensors = Vec::new();
    for name in checked.names() {
        let (shape, values) = checked.tensor(&name).expect("listed");
        tensors.push((name, Tensor::from_slice(values, shape, &Device::Cpu).map_err(|e| e.to_string())?));
    }
    // A matrix whose rows keep their blocks is written as it was read; one whose blocks change is rounded again.
    let reblocked = |from: usize, to: usize| {
        tensors.iter().any(|(_, t)| matches!(t.dims(), &[_, k] if k > 0 && block_for(k, from) != block_for(k, to)))
    };
    let rounded_twice = match (checked.format(), format) {
        (WeightFormat::Int8 { block: from }, WeightFormat::Int8 { block: to }) => reblocked(from, to),
        _ => false,
    };
    if rounded_twice {
        eprintln!(
            "wgslate quantize: {model}'s weights are int8 already ({}): as {format} they are rounded twice (quantize the f16 model where there is one)",
            checked.format()
        );
    }
    let bytes = to_safetensors(&tensors, format)?;
    std::fs::create_dir_all(dst).map_err(|e| format!("cannot create {out}: {e}"))?;
    let write = |name: &str, data: &[u8]| {
        std::fs::write(dst.join(name), data).map_err(|e| format!("cannot write {}: {e}", dst.join(name).display()))
    };
    write("model.safetensors", &bytes)?;
    write("config.json", &read("config.json")?)?;
    write("tokenizer.json", &read("tokenizer.json")?)?;
    eprintln!("{model} ({}, {} bytes) -> {out} ({format}, {} bytes)", checked.format(), weights.len(), bytes.len());
    Ok(())
}

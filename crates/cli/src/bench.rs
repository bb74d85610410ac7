//! `wgslate bench --model DIR`: GPU engine vs candle CPU reference, printed as JSON. Each engine is
//! built once (its setup time reported apart) and warmed up on one sentence before it is timed.

use std::time::Instant;

use wgslate_decode::{block_on, trace_search, BeamConfig, Blocking, Search, StepModel};
use wgslate_engine::layer_probe::chosen_engine;
use wgslate_engine::{Gpu, GpuEngine, KernelParams};
use wgslate_model::step::CpuStepper;
use wgslate_model::translate::{encode_sources, translate_with};
use wgslate_model::weights::CheckedWeights;
use wgslate_model::Model;

use crate::pyfmt::{self, Json};

pub const USAGE: &str =
    "usage: wgslate bench --model DIR [--src FILE] [--sentences N] [--batched N] [--dump FILE] [--layers fused|per-op|per-op-attention]
  times the WGSL engine (on the GPU) and the candle CPU reference on the same lines; prints JSON
  --src FILE      the lines (default www/data/test_2016_flickr.en: run from the repository root, or give --src)
  --sentences N   the first N lines translated one at a time, greedy and beam 4 (default 50)
  --batched N     the first N lines translated greedy in batches of 64 (default every line of --src)
  --dump FILE     writes the first N lines' source ids and the CPU's greedy output ids (scripts/torch_peer.py)
  --layers L      decoder steps on the GPU: fused (a Transformer's layer, a GRU's step, one kernel) or
                  per-op (default: as translate chooses: on a hardware GPU the faster in a probe, whose
                  times step_probe_ms gives; on a CPU adapter a Transformer's fused, a GRU's per-op);
                  per-op-attention: per-op with each attention in its output product (a Transformer)";

const FLAGS: [&str; 6] = ["--model", "--src", "--sentences", "--batched", "--dump", "--layers"];

/// `--layers`: the decoder step's kernels, when not left to `translate`'s choice.
#[derive(Clone, Copy)]
struct Layers {
    fused: bool,
    fused_attention: bool,
}

struct Workload<'a> {
    model: &'a Model,
    few: &'a [String],
    all: &'a [String],
}

fn seconds(f: impl FnOnce() -> Result<(), String>) -> Result<f64, String> {
    let t0 = Instant::now();
    f()?;
    Ok(t0.elapsed().as_secs_f64())
}

fn round2(v: f64) -> Json {
    Json::Raw(pyfmt::repr((v * 100.0).round() / 100.0))
}

/// Times greedy and beam 4 one sentence at a time, then greedy over `all` in batches of 64.
fn time_engine<M: StepModel + ?Sized>(
    engine: &mut M,
    w: &Workload,
    name: String,
    setup_s: f64,
) -> Result<(f64, Vec<(String, Json)>), String> {
    let greedy = Search::default();
    let beam = Search::Beam(BeamConfig { beam: 4, ..Default::default() });
    let n = w.few.len() as f64;
    translate_with(engine, w.model, &w.few[..1], &greedy, 1, false)?;
    let g = seconds(|| translate_with(engine, w.model, w.few, &greedy, 1, false).map(drop))?;
    let b = seconds(|| translate_with(engine, w.model, w.few, &beam, 1, false).map(drop))?;
    // The Search view's traced beam 4 on the same sentences: what recording every candidate costs.
    let sources = encode_sources(w.model, w.few)?;
    let traced = seconds(|| sources.iter().try_for_each(|(s, _)| trace_search(engine, s, &beam).map(drop)))?;
    let all = seconds(|| translate_with(engine, w.model, w.all, &greedy, 64, false).map(drop))?;
    let fields = vec![
        ("backend".to_string(), Json::Str(name)),
        ("setup_ms".into(), round2(1000.0 * setup_s)),
        ("greedy_ms_per_sentence_batch1".into(), round2(1000.0 * g / n)),
        ("beam4_ms_per_sentence_batch1".into(), round2(1000.0 * b / n)),
        ("beam4_traced_ms_per_sentence_batch1".into(), round2(1000.0 * traced / n)),
        ("greedy_sentences_per_second_batched".into(), round2(w.all.len() as f64 / all)),
    ];
    Ok((g, fields))
}

/// Times the WGSL engine on `gpu`, whose setup began at `t0`.
fn time_gpu(
    gpu: &Gpu,
    t0: Instant,
    dir: &str,
    w: &Workload,
    layers: Option<Layers>,
) -> Result<(f64, Vec<(String, Json)>), String> {
    let weights =
        CheckedWeights::parse(&std::fs::read(format!("{dir}/model.safetensors")).map_err(|e| e.to_string())?)?;
    let device_weights = match weights.format() {
        wgslate_model::quant::WeightFormat::Int8 { .. } => "int8",
        _ if gpu.has_f16() => "f16",
        _ => "f32",
    };
    // As `translate` builds it unless --layers says (on a hardware GPU set-up includes the probe).
    let (engine, probe) = match layers {
        Some(Layers { fused, fused_attention }) => {
            let params = KernelParams { fused_attention, ..KernelParams::for_gpu(gpu).with_fused_steps(fused) };
            (GpuEngine::with_params(gpu, &w.model.config, &weights, params)?, None)
        }
        None => {
            let now = || t0.elapsed().as_secs_f64() * 1e3;
            block_on(chosen_engine(gpu, w.model, &weights, &now, [0.0; 2]))?
        }
    };
    let steps = match () {
        _ if engine.fused() => "fused steps",
        _ if engine.fused_attention() => "per-op steps, attention in the output product",
        _ => "per-op steps",
    };
    let name =
        format!("gpu ({}, {}, {device_weights} weights on the device, {steps})", gpu.report.name, gpu.report.backend);
    let mut e = Blocking(engine);
    let (greedy_s, mut fields) = time_engine(&mut e, w, name, t0.elapsed().as_secs_f64())?;
    if let Some(p) = probe {
        let ms = vec![("fused".to_string(), round2(p.fused_ms)), ("per_op".into(), round2(p.per_op_ms))];
        fields.push(("step_probe_ms".into(), Json::Obj(ms)));
    }
    let beam = Search::Beam(BeamConfig { beam: 4, ..Default::default() });
    for (label, search) in [("greedy", Search::default()), ("beam4", beam)] {
        fields.push((format!("{label}_cost_per_token_batch1"), cost_per_token(gpu, &mut e, w, &search)?));
    }
    Ok((greedy_s, fields))
}

/// What the device is asked per output token (EOS included, encoder and readbacks included)
/// when translating `w.few` one sentence at a time.
fn cost_per_token(gpu: &Gpu, e: &mut Blocking<GpuEngine>, w: &Workload, search: &Search) -> Result<Json, String> {
    let (before, blocked_before, t0) = (gpu.cost(), gpu.blocked(), Instant::now());
    let out = translate_with(e, w.model, w.few, search, 1, false)?;
    let host_s = t0.elapsed().as_secs_f64() - (gpu.blocked() - blocked_before).as_secs_f64();
    let c = gpu.cost() - before;
    let tokens: usize = out.iter().map(|t| t.outputs.first().map_or(0, |o| o.1.tokens.len()) + 1).sum();
    let per = |v: u64| round2(v as f64 / tokens as f64);
    Ok(Json::Obj(vec![
        // The run's time outside submissions and readback waits: recording dispatches, the search.
        ("host_ms".into(), round2(1e3 * host_s / tokens as f64)),
        ("host_us_per_dispatch".into(), round2(1e6 * host_s / c.dispatches.max(1) as f64)),
        ("dispatches".into(), per(c.dispatches)),
        ("submissions".into(), per(c.submissions)),
        ("bytes_written".into(), per(c.bytes_written)),
        ("readbacks".into(), per(c.readbacks)),
        ("bytes_read".into(), per(c.bytes_read)),
        ("weight_bytes_read_by_kernels".into(), per(c.weight_bytes)),
        ("decoder_steps".into(), per(c.decoder_steps)),
    ]))
}

/// Writes the timed sentences' source ids and the CPU reference's greedy output ids as JSON, so a
/// peer implementation (scripts/torch_peer.py) decodes the same inputs and can check its tokens.
fn dump(model: &Model, few: &[String], path: &str) -> Result<(), String> {
    let out = wgslate_model::translate::translate(model, few, &Search::default(), 16, false)?;
    let ids = |v: &[u32]| serde_json::Value::from(v.to_vec());
    let json = serde_json::json!({
        "bos": wgslate_model::config::BOS_ID,
        "eos": wgslate_model::config::EOS_ID,
        "sources": out.iter().map(|t| ids(&t.source_ids)).collect::<Vec<_>>(),
        "greedy": out.iter().map(|t| ids(&t.outputs[0].1.tokens)).collect::<Vec<_>>(),
    });
    std::fs::write(path, json.to_string()).map_err(|e| format!("cannot write {path}: {e}"))
}

pub fn run(args: &[String]) -> Result<(), String> {
    for (i, pair) in args.chunks(2).enumerate() {
        let flag = pair[0].as_str();
        if !FLAGS.contains(&flag) {
            return Err(format!("unknown argument '{flag}'\n{USAGE}"));
        }
        if pair.len() < 2 {
            return Err(format!("{flag} needs a value\n{USAGE}"));
        }
        if args.chunks(2).take(i).any(|p| p[0] == flag) {
            return Err(format!("{flag} is given twice: give it once"));
        }
    }
    let get = |k: &str| args.chunks(2).find(|p| p[0] == k).map(|p| p[1].clone());
    let number = |k: &str, default: usize| {
        get(k)
            .map(|v| {
                v.parse::<usize>().map_err(|_| format!("{k} must be a whole number of 1 or more, not '{v}'\n{USAGE}"))
            })
            .transpose()
            .map(|v| v.unwrap_or(default))
    };
    let dir = get("--model").ok_or(USAGE)?;
    let src = get("--src").unwrap_or_else(|| "www/data/test_2016_flickr.en".into());
    let (n, batched) = (number("--sentences", 50)?, number("--batched", usize::MAX)?);
    let layers = match get("--layers").as_deref() {
        None => None,
        Some("fused") => Some(Layers { fused: true, fused_attention: false }),
        Some("per-op") => Some(Layers { fused: false, fused_attention: false }),
        Some("per-op-attention") => Some(Layers { fused: false, fused_attention: true }),
        Some(other) => return Err(format!("--layers is fused, per-op or per-op-attention, not '{other}'\n{USAGE}")),
    };
    if n == 0 || batched == 0 {
        return Err(format!("--sentences and --batched must be at least 1\n{USAGE}"));
    }
    let text = std::fs::read_to_string(&src).map_err(|e| match get("--src") {
        Some(_) => format!("cannot read {src}: {e}"),
        // The default is the repository's test set: run from elsewhere, say how to time other text.
        None => format!("cannot read {src} (the default --src, from the repository's root): {e}; give --src FILE"),
    })?;
    let all: Vec<String> = text.lines().take(batched).map(str::to_string).collect();
    let few: Vec<String> = text.lines().take(n).map(str::to_string).collect();
    if few.is_empty() {
        return Err(format!("{src} has no sentences to time"));
    }
    let model = Model::from_dir(std::path::Path::new(&dir))?;
    let transformer = matches!(model.config, wgslate_model::ModelConfig::Transformer(_));
    if layers.is_some_and(|l| l.fused_attention) && !transformer {
        return Err(format!("--layers per-op-attention is a Transformer's step; {dir} is not a Transformer"));
    }
    if let Some(path) = get("--dump") {
        dump(&model, &few, &path)?;
    }
    let w = Workload { model: &model, few: &few, all: &all };
    // Without a GPU adapter the CPU is still timed, and the reason is printed; any other GPU error
    // is the command's.
    let t0 = Instant::now();
    let gpu = match Gpu::new_blocking() {
        Ok(gpu) => Ok(time_gpu(&gpu, t0, &dir, &w, layers)?),
        Err(no_adapter) => Err(no_adapter),
    };
    let t0 = Instant::now();
    let mut cpu_engine = CpuStepper::new(&model.net, &model.config);
    let (cpu_greedy, cpu) = time_engine(&mut cpu_engine, &w, "cpu (candle)".into(), t0.elapsed().as_secs_f64())?;
    let mut fields = vec![
        ("model".to_string(), Json::Str(dir.clone())),
        ("sentences_one_at_a_time".into(), Json::Raw(few.len().to_string())),
        ("sentences_in_batches_of_64".into(), Json::Raw(all.len().to_string())),
    ];
    match gpu {
        Ok((gpu_greedy, gpu)) => {
            fields.push(("gpu".into(), Json::Obj(gpu)));
            fields.push(("cpu".into(), Json::Obj(cpu)));
            fields.push(("greedy_batch1_speedup_gpu_over_cpu".into(), round2(cpu_greedy / gpu_greedy)));
        }
        Err(why) => {
            fields.push(("gpu".into(), Json::Obj(vec![("unavailable".into(), Json::Str(why))])));
            fields.push(("cpu".into(), Json::Obj(cpu)));
        }
    }
    println!("{}", Json::Obj(fields).dumps(2));
    Ok(())
}

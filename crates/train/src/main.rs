use std::path::PathBuf;

use mimalloc::MiMalloc;
use wgslate_model::config::Direction;
use wgslate_model::{AttentionScore, GruConfig, ModelConfig, TransformerConfig};
use wgslate_train::run::{train, Schedule, TrainArgs};

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

const USAGE: &str = "usage: wgslate-train --arch transformer|gru [--data DIR --src en --tgt de] [--train-src F --train-tgt F --val-src F --val-tgt F]
       [--run DIR] [--out DIR] [--resume] [--init MODEL_DIR] [--epochs N] [--minutes M] [--max-tokens N]
       [--lr X] [--warmup N] [--clip X] [--seed N] [--vocab N] [--d-model N] [--heads N] [--d-ff N] [--layers N]
       [--dropout X] [--score additive|dot|general] [--schedule standard|linear] [--val-bleu-sentences N]
       [--split N]   (N worker threads per batch, each on a share of its rows; with RAYON_NUM_THREADS=1)
       [--bpe-dropout P]   (skip each BPE merge with probability P, segmenting the training pairs anew each epoch)
       [--rdrop A]   (R-Drop: each batch twice through dropout, the loss adds A/4 times the two predictions' symmetric KL)
       wgslate-train --average K --run DIR --out DIR   (mean of the run's last K epoch exports)";

fn main() {
    keep_freed_memory();
    wgslate_model::threads::settle_cpu_threads();
    if let Err(e) = run() {
        eprintln!("wgslate-train: {e:#}");
        std::process::exit(2);
    }
}

/// By default mimalloc returns freed pages to the OS after 10 ms, and every step's fresh tensors then
/// fault in pages the kernel must zero again: perf put 21 % of a training step in `clear_page_erms`,
/// and with purging off the first 20 steps ran at 545–605 target tok/s on one core instead of 419
/// (minor page faults in 50 s: 1 463 instead of 1.66 M). MIMALLOC_PURGE_DELAY, if set, still wins.
fn keep_freed_memory() {
    // Not exported by libmimalloc-sys 0.1.49; its place in `mi_option_e`, the same in mimalloc v2 and v3.
    const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: called once at start-up, before any other thread exists.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    }
}

fn run() -> anyhow::Result<()> {
    let mut kv = std::collections::HashMap::new();
    let mut flags = std::collections::HashSet::new();
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--resume" => {
                flags.insert("resume");
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            k if k.starts_with("--") => {
                let v = it.next().ok_or_else(|| anyhow::anyhow!("{k} needs a value\n{USAGE}"))?;
                kv.insert(k[2..].to_string(), v);
            }
            other => anyhow::bail!("unexpected argument '{other}'\n{USAGE}"),
        }
    }
    let get = |k: &str, d: &str| kv.get(k).cloned().unwrap_or_else(|| d.to_string());
    let num = |k: &str, d: &str| -> anyhow::Result<f64> {
        get(k, d).parse::<f64>().map_err(|_| anyhow::anyhow!("--{k} must be a number"))
    };
    if let Some(k) = kv.get("average") {
        let k: usize = k.parse().map_err(|_| anyhow::anyhow!("--average must be a number of epochs"))?;
        let run_dir =
            PathBuf::from(kv.get("run").ok_or_else(|| anyhow::anyhow!("--average needs --run DIR\n{USAGE}"))?);
        let out = PathBuf::from(kv.get("out").ok_or_else(|| anyhow::anyhow!("--average needs --out DIR\n{USAGE}"))?);
        let epochs = wgslate_train::average::average_last(&run_dir, k, &out)?;
        eprintln!("averaged epochs {epochs:?} into {}", out.display());
        return Ok(());
    }
    let arch = kv.get("arch").ok_or_else(|| anyhow::anyhow!("--arch is required\n{USAGE}"))?.clone();
    let (data, src, tgt) = (get("data", "../shared/data/multi30k"), get("src", "en"), get("tgt", "de"));
    let vocab = num("vocab", "8000")? as usize;
    let dropout = num("dropout", "0.25")? as f32;
    let config = match arch.as_str() {
        "transformer" => ModelConfig::Transformer(TransformerConfig {
            vocab_size: vocab,
            d_model: num("d-model", "256")? as usize,
            n_heads: num("heads", "4")? as usize,
            d_ff: num("d-ff", "1024")? as usize,
            encoder_layers: num("layers", "3")? as usize,
            decoder_layers: num("layers", "3")? as usize,
            max_len: 256,
            dropout,
        }),
        "gru" => ModelConfig::Gru(GruConfig {
            vocab_size: vocab,
            emb_dim: num("d-model", "256")? as usize,
            encoder_hidden: num("d-model", "256")? as usize,
            decoder_hidden: 2 * num("d-model", "256")? as usize,
            attention_dim: num("d-model", "256")? as usize,
            score: match get("score", "additive").as_str() {
                "additive" => AttentionScore::Additive,
                "dot" => AttentionScore::Dot,
                "general" => AttentionScore::General,
                s => anyhow::bail!("unknown --score {s}"),
            },
            max_len: 256,
            dropout,
        }),
        other => anyhow::bail!("unknown --arch {other} (transformer or gru)"),
    };
    // Recorded in the exports' config.json; without --src/--tgt a fine-tune or a resumed run keeps its own.
    let direction = Direction::new(&src, &tgt).map_err(|e| anyhow::anyhow!("--src/--tgt: {e}"))?;
    let direction_given = kv.contains_key("src") || kv.contains_key("tgt");
    train(TrainArgs {
        config,
        direction,
        direction_given,
        train_src: get("train-src", &format!("{data}/train.{src}")),
        train_tgt: get("train-tgt", &format!("{data}/train.{tgt}")),
        val_src: get("val-src", &format!("{data}/val.{src}")),
        val_tgt: get("val-tgt", &format!("{data}/val.{tgt}")),
        run_dir: PathBuf::from(get("run", &format!("runs/{arch}"))),
        out_dir: PathBuf::from(get("out", &format!("www/models/{src}-{tgt}/{arch}"))),
        resume: flags.contains("resume"),
        init: kv.get("init").map(PathBuf::from),
        epochs: num("epochs", "30")? as usize,
        minutes: num("minutes", "1e9")?,
        max_tokens: num("max-tokens", "2500")? as usize,
        lr: num("lr", "1e-3")?,
        warmup: num("warmup", "400")? as usize,
        clip: num("clip", "1.0")?,
        seed: num("seed", "1")? as u64,
        checkpoint_minutes: num("checkpoint-minutes", "10")?,
        schedule: match get("schedule", "standard").as_str() {
            "standard" => Schedule::Standard,
            "linear" => Schedule::Linear,
            s => anyhow::bail!("unknown --schedule {s} (standard or linear)"),
        },
        val_bleu_sentences: num("val-bleu-sentences", "0")? as usize,
        split: (num("split", "1")? as usize).max(1),
        bpe_dropout: num("bpe-dropout", "0")? as f32,
        rdrop: num("rdrop", "0")? as f32,
    })
}

//! The training loop: epochs of shuffled length-bucketed batches, checkpoints, validation, export.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, Context};
use candle_core::{DType, Device};
use candle_nn::{VarBuilder, VarMap};
use wgslate_model::config::Direction;
use wgslate_model::{ModelConfig, Net, Vocab};

use crate::adam::Adam;
use crate::checkpoint::{self, EpochRecord, Progress};
use crate::data::{self, Pair};
use crate::evaluate;

pub struct TrainArgs {
    pub config: ModelConfig,
    /// The languages, written into the exports' config.json: `--src`/`--tgt` (the defaults for the
    /// one not given) ...
    pub direction: Direction,
    /// ... when either was given; else a fine-tune's or a resumed run's recorded direction stands.
    pub direction_given: bool,
    pub train_src: String,
    pub train_tgt: String,
    pub val_src: String,
    pub val_tgt: String,
    pub run_dir: PathBuf,
    pub out_dir: PathBuf,
    pub resume: bool,
    pub init: Option<PathBuf>,
    pub epochs: usize,
    pub minutes: f64,
    pub max_tokens: usize,
    pub lr: f64,
    pub warmup: usize,
    pub clip: f64,
    pub seed: u64,
    pub checkpoint_minutes: f64,
    pub schedule: Schedule,
    /// Validation sentences decoded for BLEU each epoch (all when 0).
    pub val_bleu_sentences: usize,
    /// Worker threads per batch (`parallel::loss_and_grads`); 1 computes the batch as one graph.
    pub split: usize,
    /// BPE-dropout rate for the training pairs, segmented anew each epoch (0: one fixed segmentation).
    pub bpe_dropout: f32,
    /// R-Drop weight α (`Objective::rdrop`; 0: off). Each step then costs two forward and backward passes.
    pub rdrop: f32,
}

/// How the learning rate moves after warm-up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Schedule {
    /// Transformer: inverse square root decay; GRU: constant (halved on a validation plateau).
    Standard,
    /// Straight down to zero at the last step of `--epochs`: with a fixed time budget the run ends
    /// at a low rate instead of wherever the inverse square root has got to.
    Linear,
}

fn learning_rate(args: &TrainArgs, step: usize, total_steps: usize, scale: f64) -> f64 {
    let s = step.max(1) as f64;
    let w = args.warmup.max(1) as f64;
    let shape = match (args.schedule, &args.config) {
        (Schedule::Linear, _) => {
            let total = (total_steps as f64).max(w + 1.0);
            (s / w).min(((total - s) / (total - w)).max(0.0))
        }
        (Schedule::Standard, ModelConfig::Transformer(_)) => (s / w).min((w / s).sqrt()),
        (Schedule::Standard, ModelConfig::Gru(_)) => (s / w).min(1.0),
    };
    args.lr * shape * scale
}

pub fn export(
    dir: &Path,
    adam: &Adam,
    config: &ModelConfig,
    direction: &Direction,
    vocab: &Vocab,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)?;
    let tensors: Vec<(String, candle_core::Tensor)> =
        adam.params.iter().map(|(n, v)| (n.clone(), v.as_tensor().clone())).collect();
    std::fs::write(
        dir.join("model.safetensors"),
        wgslate_model::weights::to_f16_safetensors(&tensors).map_err(|e| anyhow!(e))?,
    )?;
    std::fs::write(dir.join("config.json"), direction.config_json(config))?;
    vocab.save(&dir.join("tokenizer.json")).map_err(|e| anyhow!(e))?;
    Ok(())
}

fn fmt_duration(s: f64) -> String {
    let s = s.max(0.0) as u64;
    format!("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60)
}

pub fn train(mut args: TrainArgs) -> anyhow::Result<()> {
    if !(args.rdrop.is_finite() && args.rdrop >= 0.0) {
        anyhow::bail!("the R-Drop weight must be a number ≥ 0 (0 turns it off), got {}", args.rdrop);
    }
    std::fs::create_dir_all(&args.run_dir)?;
    let tok_path = args.run_dir.join("tokenizer.json");
    let vocab = if tok_path.exists() {
        Vocab::from_file(&tok_path).map_err(|e| anyhow!(e))?
    } else if let Some(init) = &args.init {
        Vocab::from_file(&init.join("tokenizer.json")).map_err(|e| anyhow!(e))?
    } else {
        eprintln!("training the joint BPE vocabulary ({} tokens)", args.config.vocab_size());
        Vocab::train(&[args.train_src.clone(), args.train_tgt.clone()], args.config.vocab_size())
            .map_err(|e| anyhow!(e))?
    };
    vocab.save(&tok_path).map_err(|e| anyhow!(e))?;
    let cfg_path = args.run_dir.join("config.json");
    // A resumed run keeps its config; a fine-tune takes its start's, and either's direction unless
    // --src/--tgt are given (a resumed run's must agree with them).
    let inherited = match &args.init {
        _ if args.resume && cfg_path.exists() => Some(std::fs::read_to_string(&cfg_path)?),
        Some(init) => Some(std::fs::read_to_string(init.join("config.json"))?),
        None => None,
    };
    if let Some(json) = inherited {
        args.config = serde_json::from_str(&json)?;
        match Direction::of_config(json.as_bytes()).map_err(|e| anyhow!(e))? {
            Some(recorded) if args.resume && args.direction_given && recorded != args.direction => anyhow::bail!(
                "--src/--tgt say {}, but the run being resumed translates {}: drop them or start a new run",
                args.direction.pair(),
                recorded.pair()
            ),
            Some(recorded) if !args.direction_given => args.direction = recorded,
            _ => {}
        }
    }
    match &mut args.config {
        ModelConfig::Transformer(c) => c.vocab_size = vocab.vocab_size(),
        ModelConfig::Gru(c) => c.vocab_size = vocab.vocab_size(),
    }
    args.config.validate().map_err(|e| anyhow!(e))?;
    if args.rdrop > 0.0 && args.config.dropout() == 0.0 {
        anyhow::bail!("R-Drop compares two passes with different dropout, and this model's dropout is 0");
    }
    std::fs::write(&cfg_path, args.direction.config_json(&args.config))?;

    let varmap = VarMap::new();
    let net = Net::new(&args.config, VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu))?;
    let mut adam = Adam::for_varmap(&varmap)?;
    let n_params: usize = adam.params.iter().map(|(_, v)| v.elem_count()).sum();
    let mut progress = Progress::fresh();
    if args.resume && args.run_dir.join("state.safetensors").exists() {
        progress = checkpoint::load(&args.run_dir, &mut adam).context("loading the checkpoint")?;
        eprintln!("resuming at epoch {} batch {} (step {})", progress.epoch, progress.batch, adam.step);
    } else if let Some(init) = &args.init {
        let shipped = wgslate_model::Model::from_dir(init).map_err(|e| anyhow!(e))?;
        drop(shipped);
        let weights = std::sync::Arc::new(
            wgslate_model::weights::CheckedWeights::parse(&std::fs::read(init.join("model.safetensors"))?)
                .map_err(|e| anyhow!(e))?,
        );
        let vb = wgslate_model::weights::var_builder(&weights);
        for (name, var) in &adam.params {
            var.set(&vb.get(var.shape(), name)?)?;
        }
        eprintln!("initialised from {}", init.display());
    }

    let max_len = args.config.max_len();
    let train_src = data::read_lines(&args.train_src).map_err(|e| anyhow!(e))?;
    let train_tgt = data::read_lines(&args.train_tgt).map_err(|e| anyhow!(e))?;
    let noisy_vocab = if args.bpe_dropout == 0.0 {
        None
    } else {
        Some(vocab.with_bpe_dropout(args.bpe_dropout).map_err(|e| anyhow!(e))?)
    };
    let train_vocab = noisy_vocab.as_ref().unwrap_or(&vocab);
    let mut train_pairs = data::encode_pairs(train_vocab, &train_src, &train_tgt, max_len).map_err(|e| anyhow!(e))?;
    let val_src = data::read_lines(&args.val_src).map_err(|e| anyhow!(e))?;
    let val_ref = data::read_lines(&args.val_tgt).map_err(|e| anyhow!(e))?;
    let val_pairs: Vec<Pair> = data::encode_pairs(&vocab, &val_src, &val_ref, max_len).map_err(|e| anyhow!(e))?;
    let mut batches = data::make_batches(&train_pairs, args.max_tokens);
    // With BPE-dropout each epoch has a few more or fewer batches; the schedule keeps this start's count.
    let total_steps = args.epochs * batches.len();
    let mut segmented_for_epoch = progress.epoch;
    eprintln!(
        "{} parameters, {} training pairs in {} batches, {} validation pairs",
        n_params,
        train_pairs.len(),
        batches.len(),
        val_pairs.len()
    );

    let started = Instant::now();
    let mut last_checkpoint = Instant::now();
    let budget_s = args.minutes * 60.0;
    while progress.epoch < args.epochs {
        if let Some(noisy) = noisy_vocab.as_ref().filter(|_| segmented_for_epoch != progress.epoch) {
            train_pairs = data::encode_pairs(noisy, &train_src, &train_tgt, max_len).map_err(|e| anyhow!(e))?;
            batches = data::make_batches(&train_pairs, args.max_tokens);
            segmented_for_epoch = progress.epoch;
        }
        let order = data::epoch_order(batches.len(), args.seed, progress.epoch);
        let epoch_start = Instant::now();
        let (mut loss_sum, mut tok_sum, mut window_tok, mut window_start) = (0f64, 0usize, 0usize, Instant::now());
        while progress.batch < batches.len() {
            let idx = &batches[order[progress.batch]];
            let (l, tokens, grads) = crate::parallel::loss_and_grads(
                &net,
                &train_pairs,
                idx,
                args.split,
                &adam.params,
                true,
                crate::Objective { smoothing: crate::LABEL_SMOOTHING, rdrop: args.rdrop },
            )?;
            let lr = learning_rate(&args, adam.step + 1, total_steps, progress.lr_scale);
            adam.update(&grads, lr, args.clip, args.split)?;
            loss_sum += l * tokens as f64;
            tok_sum += tokens;
            window_tok += tokens;
            progress.batch += 1;
            if progress.batch.is_multiple_of(20) || progress.batch == batches.len() {
                let tps = window_tok as f64 / window_start.elapsed().as_secs_f64();
                let eta = (batches.len() - progress.batch) as f64 * epoch_start.elapsed().as_secs_f64()
                    / progress.batch.max(1) as f64;
                eprintln!(
                    "epoch {} [{:>4}/{}] step {} loss {:.3} lr {:.2e} {:.0} tok/s  epoch ETA {}",
                    progress.epoch + 1,
                    progress.batch,
                    batches.len(),
                    adam.step,
                    loss_sum / tok_sum as f64,
                    lr,
                    tps,
                    fmt_duration(eta)
                );
                window_tok = 0;
                window_start = Instant::now();
            }
            let out_of_time = progress.train_seconds + started.elapsed().as_secs_f64() > budget_s;
            if last_checkpoint.elapsed().as_secs_f64() > args.checkpoint_minutes * 60.0 || out_of_time {
                let mut p = progress.clone();
                p.train_seconds += started.elapsed().as_secs_f64();
                checkpoint::save(&args.run_dir, &adam, &p)?;
                last_checkpoint = Instant::now();
                if out_of_time {
                    eprintln!("time budget reached; checkpoint saved, continue with --resume");
                    return Ok(());
                }
            }
        }
        let seconds = epoch_start.elapsed().as_secs_f64();
        let val_loss = evaluate::validation_loss(&net, &val_pairs)?;
        let n = if args.val_bleu_sentences == 0 { val_src.len() } else { args.val_bleu_sentences.min(val_src.len()) };
        let hyps = evaluate::translate(&net, &args.config, &vocab, &val_src[..n]).map_err(|e| anyhow!(e))?;
        let val_bleu = evaluate::bleu(&hyps, &val_ref[..n]);
        let record = EpochRecord {
            epoch: progress.epoch + 1,
            train_loss: loss_sum / tok_sum.max(1) as f64,
            val_loss,
            val_bleu,
            tokens_per_second: tok_sum as f64 / seconds,
            seconds,
        };
        eprintln!("== {}", serde_json::to_string(&record)?);
        progress.history.push(record);
        let snapshot = crate::average::epoch_dir(&args.run_dir, progress.epoch + 1);
        export(&snapshot, &adam, &args.config, &args.direction, &vocab)?;
        if progress.epoch + 1 > crate::average::KEPT_EPOCH_EXPORTS {
            let old = crate::average::epoch_dir(&args.run_dir, progress.epoch + 1 - crate::average::KEPT_EPOCH_EXPORTS);
            if old.exists() {
                std::fs::remove_dir_all(&old)?;
            }
        }
        if val_bleu > progress.best_bleu {
            progress.best_bleu = val_bleu;
            export(&args.out_dir, &adam, &args.config, &args.direction, &vocab)?;
            eprintln!("new best validation BLEU {val_bleu:.2}; exported to {}", args.out_dir.display());
        }
        // A NaN loss is never an improvement (nor the best so far).
        if !val_loss.is_nan() && progress.best_val_loss.is_none_or(|best| val_loss < best) {
            progress.best_val_loss = Some(val_loss);
            progress.bad_epochs = 0;
        } else {
            progress.bad_epochs += 1;
            if matches!(args.config, ModelConfig::Gru(_)) && args.schedule == Schedule::Standard {
                progress.lr_scale *= 0.5;
                eprintln!("validation loss did not improve; learning rate scale now {}", progress.lr_scale);
            }
        }
        progress.epoch += 1;
        progress.batch = 0;
        let mut p = progress.clone();
        p.train_seconds += started.elapsed().as_secs_f64();
        checkpoint::save(&args.run_dir, &adam, &p)?;
        last_checkpoint = Instant::now();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use wgslate_model::TransformerConfig;

    fn args(schedule: Schedule) -> TrainArgs {
        let config = TransformerConfig {
            vocab_size: 40,
            d_model: 16,
            n_heads: 2,
            d_ff: 32,
            encoder_layers: 1,
            decoder_layers: 1,
            max_len: 32,
            dropout: 0.0,
        };
        TrainArgs {
            config: ModelConfig::Transformer(config),
            direction: Direction { source: "en".into(), target: "de".into() },
            direction_given: false,
            train_src: String::new(),
            train_tgt: String::new(),
            val_src: String::new(),
            val_tgt: String::new(),
            run_dir: PathBuf::new(),
            out_dir: PathBuf::new(),
            resume: false,
            init: None,
            epochs: 10,
            minutes: 1.0,
            max_tokens: 100,
            lr: 2e-3,
            warmup: 100,
            clip: 1.0,
            seed: 1,
            checkpoint_minutes: 1.0,
            schedule,
            val_bleu_sentences: 0,
            split: 1,
            bpe_dropout: 0.0,
            rdrop: 0.0,
        }
    }

    #[test]
    fn linear_schedule_warms_up_then_falls_to_zero_at_the_last_step() {
        let a = args(Schedule::Linear);
        let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
        assert!(close(learning_rate(&a, 50, 1100, 1.0), 1e-3));
        assert!(close(learning_rate(&a, 100, 1100, 1.0), 2e-3));
        assert!(close(learning_rate(&a, 600, 1100, 1.0), 1e-3));
        assert!(close(learning_rate(&a, 1100, 1100, 1.0), 0.0));
        assert!(close(learning_rate(&a, 1200, 1100, 1.0), 0.0), "never negative after the horizon");
        assert!(close(learning_rate(&a, 600, 1100, 0.5), 5e-4), "plateau scale still applies");
    }

    #[test]
    fn standard_transformer_schedule_is_inverse_square_root_after_warm_up() {
        let a = args(Schedule::Standard);
        assert!((learning_rate(&a, 100, 1100, 1.0) - 2e-3).abs() < 1e-12);
        assert!((learning_rate(&a, 400, 1100, 1.0) - 1e-3).abs() < 1e-12);
    }
}

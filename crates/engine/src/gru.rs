//! The GRU encoder-decoder with attention on the GPU: bidirectional encoder run once per batch
//! (one cell dispatch per position and direction, padding masked), then one decoder step per token.
//! Implements [`StepModel`] like the Transformer engine.

use std::collections::HashMap;

use wgslate_decode::{AsyncStepModel, StepOutput, TopKOutput};
use wgslate_model::config::{BOS_ID, EOS_ID, PAD_ID};
use wgslate_model::weights::CheckedWeights;
use wgslate_model::{AttentionScore, GruConfig, ModelConfig};

use crate::kernels::{Act, KernelParams, Kernels};
use crate::Gpu;

const F: u64 = 4;

struct Rows {
    cap: usize,
    hidden: wgpu::Buffer,
    hidden2: wgpu::Buffer,
    tokens: wgpu::Buffer,
    emb: wgpu::Buffer,
    q: wgpu::Buffer,
    ctx: wgpu::Buffer,
    input: wgpu::Buffer,
    xp: wgpu::Buffer,
    hp: wgpu::Buffer,
    features: wgpu::Buffer,
    o: wgpu::Buffer,
    raw: wgpu::Buffer,
    logits: wgpu::Buffer,
    best: wgpu::Buffer,
    probs: wgpu::Buffer,
    index: wgpu::Buffer,
    row_source_buf: wgpu::Buffer,
}

struct Batch {
    s_max: usize,
    source_lens: Vec<usize>,
    lens: wgpu::Buffer,
    memory: wgpu::Buffer,
    keys: wgpu::Buffer,
    rows: usize,
    row_source: Vec<u32>,
    buf: Rows,
}

pub struct GpuGru {
    gpu: Gpu,
    k: Kernels,
    cfg: GruConfig,
    w: HashMap<String, wgpu::Buffer>,
    zeros: wgpu::Buffer,
    zero_vocab: wgpu::Buffer,
    dummy: wgpu::Buffer,
    dummy_rw: wgpu::Buffer,
    batch: Option<Batch>,
}

impl GpuGru {
    pub fn new(gpu: &Gpu, config: &ModelConfig, weights: &CheckedWeights) -> Result<Self, String> {
        let ModelConfig::Gru(cfg) = config else { return Err("GpuGru needs a GRU config".into()) };
        let mut names: Vec<String> = vec!["embed.weight".into(), "init.weight".into(), "init.bias".into(), "output.weight".into(), "output.bias".into()];
        for p in ["encoder.forward", "encoder.backward", "decoder"] {
            for n in ["w_ih", "w_hh", "b_ih", "b_hh"] {
                names.push(format!("{p}.{n}"));
            }
        }
        match cfg.score {
            AttentionScore::Additive => names.extend(["attention.query.weight", "attention.key.weight", "attention.key.bias", "attention.v"].map(String::from)),
            AttentionScore::General => names.push("attention.key.weight".into()),
            AttentionScore::Dot => {}
        }
        let mut w = HashMap::new();
        for n in names {
            let (_, data) = weights.tensor(&n).ok_or_else(|| format!("model.safetensors has no tensor {n}"))?;
            w.insert(n.clone(), gpu.storage(&n, data));
        }
        let widest = cfg.emb_dim.max(cfg.attention_dim).max(cfg.decoder_hidden);
        Ok(Self {
            gpu: gpu.clone(),
            k: Kernels::new(gpu, KernelParams::default())?,
            zeros: gpu.storage("zeros", &vec![0.0; widest]),
            zero_vocab: gpu.storage("zero bias", &vec![0.0; cfg.vocab_size]),
            dummy: gpu.output("dummy", 16),
            dummy_rw: gpu.output("dummy rw", 16),
            cfg: cfg.clone(),
            w,
            batch: None,
        })
    }

    fn wt(&self, n: &str) -> &wgpu::Buffer {
        &self.w[n]
    }

    fn key_dim(&self) -> usize {
        match self.cfg.score {
            AttentionScore::Additive => self.cfg.attention_dim,
            AttentionScore::Dot => 2 * self.cfg.encoder_hidden,
            AttentionScore::General => self.cfg.decoder_hidden,
        }
    }

    fn rows(&self, cap: usize, s_max: usize) -> Rows {
        let c = &self.cfg;
        let (e, he, hd, v) = (c.emb_dim as u64, c.encoder_hidden as u64, c.decoder_hidden as u64, c.vocab_size as u64);
        let r = cap as u64;
        let out = |label: &str, n: u64| self.gpu.output(label, n * F);
        Rows {
            cap,
            hidden: out("hidden", r * hd),
            hidden2: out("hidden 2", r * hd),
            tokens: self.gpu.storage_u32("tokens", &vec![0; cap]),
            emb: out("emb", r * e),
            q: out("q", r * self.key_dim() as u64),
            ctx: out("context", r * 2 * he),
            input: out("input", r * (e + 2 * he)),
            xp: out("xp", r * 3 * hd),
            hp: out("hp", r * 3 * hd),
            features: out("features", r * (hd + 2 * he + e)),
            o: out("o", r * e),
            raw: out("raw logits", r * v),
            logits: out("log-probs", r * v),
            best: self.gpu.output("best", r * 8),
            probs: out("probs", r * s_max as u64),
            index: self.gpu.storage_u32("index", &vec![0; cap]),
            row_source_buf: self.gpu.storage_u32("row source", &(0..cap as u32).collect::<Vec<_>>()),
        }
    }

    fn decode_step(&mut self, tokens: &[u32], capture: bool) -> Result<(), String> {
        let b = self.batch.as_ref().ok_or("step before start")?;
        if tokens.len() != b.rows {
            return Err(format!("{} tokens for {} rows", tokens.len(), b.rows));
        }
        let c = &self.cfg;
        let (e, he, hd, r) = (c.emb_dim as u32, c.encoder_hidden as u32, c.decoder_hidden as u32, b.rows as u32);
        let k = &self.k;
        let g = &self.gpu;
        let x = &b.buf;
        g.queue.write_buffer(&x.tokens, 0, bytemuck::cast_slice(tokens));
        let mut enc = g.device.create_command_encoder(&Default::default());
        k.embed(g, &mut enc, &x.tokens, self.wt("embed.weight"), &self.zeros, &x.emb, r, e, 0, 0, 1.0);
        let (q, mode, v) = match c.score {
            AttentionScore::Additive => {
                k.matmul(g, &mut enc, &x.hidden, self.wt("attention.query.weight"), &self.zeros, &x.q, r, c.attention_dim as u32, hd, Act::None);
                (&x.q, 0, self.wt("attention.v"))
            }
            _ => (&x.hidden, 1, &self.dummy),
        };
        k.gru_attention(g, &mut enc, q, &b.keys, v, &b.memory, &x.row_source_buf, &b.lens, &x.ctx, &x.probs, [r, b.s_max as u32, self.key_dim() as u32, 2 * he, mode, capture as u32]);
        let iw = e + 2 * he;
        k.copy_cols(g, &mut enc, &x.emb, &x.input, [r, e, e, 0, iw, 0]);
        k.copy_cols(g, &mut enc, &x.ctx, &x.input, [r, 2 * he, 2 * he, 0, iw, e]);
        k.matmul(g, &mut enc, &x.input, self.wt("decoder.w_ih"), self.wt("decoder.b_ih"), &x.xp, r, 3 * hd, iw, Act::None);
        k.matmul(g, &mut enc, &x.hidden, self.wt("decoder.w_hh"), self.wt("decoder.b_hh"), &x.hp, r, 3 * hd, hd, Act::None);
        k.gru_cell(g, &mut enc, &x.xp, &x.hp, &x.hidden, &self.dummy, &x.hidden2, &self.dummy_rw, [r, hd, 1, 0, 0, 0, 0, 1]);
        let fw = hd + 2 * he + e;
        k.copy_cols(g, &mut enc, &x.hidden2, &x.features, [r, hd, hd, 0, fw, 0]);
        k.copy_cols(g, &mut enc, &x.ctx, &x.features, [r, 2 * he, 2 * he, 0, fw, hd]);
        k.copy_cols(g, &mut enc, &x.emb, &x.features, [r, e, e, 0, fw, hd + 2 * he]);
        k.matmul(g, &mut enc, &x.features, self.wt("output.weight"), self.wt("output.bias"), &x.o, r, e, fw, Act::Tanh);
        k.matmul(g, &mut enc, &x.o, self.wt("embed.weight"), &self.zero_vocab, &x.raw, r, c.vocab_size as u32, e, Act::None);
        k.softmax(g, &mut enc, &x.raw, &x.logits, r, c.vocab_size as u32, true);
        g.queue.submit([enc.finish()]);
        let b = self.batch.as_mut().unwrap();
        std::mem::swap(&mut b.buf.hidden, &mut b.buf.hidden2);
        Ok(())
    }

    async fn attention_rows(&self, want: bool) -> Result<Option<Vec<Vec<f32>>>, String> {
        if !want {
            return Ok(None);
        }
        let b = self.batch.as_ref().unwrap();
        let p = self.gpu.read_f32(&b.buf.probs).await?;
        Ok(Some((0..b.rows).map(|r| p[r * b.s_max..r * b.s_max + b.source_lens[b.row_source[r] as usize]].to_vec()).collect()))
    }
}

impl AsyncStepModel for GpuGru {
    fn vocab_size(&self) -> usize {
        self.cfg.vocab_size
    }
    fn bos(&self) -> u32 {
        BOS_ID
    }
    fn eos(&self) -> u32 {
        EOS_ID
    }
    fn max_output_len(&self) -> usize {
        self.cfg.max_len - 1
    }

    async fn start(&mut self, sources: &[Vec<u32>]) -> Result<(), String> {
        if let Some(s) = sources.iter().find(|s| s.len() > self.cfg.max_len || s.is_empty()) {
            return Err(format!("source has {} tokens; the model takes 1 to {}", s.len(), self.cfg.max_len));
        }
        if sources.is_empty() {
            return Err("no sources".into());
        }
        let c = self.cfg.clone();
        let (e, he, hd) = (c.emb_dim as u32, c.encoder_hidden as u32, c.decoder_hidden as u32);
        let bsz = sources.len();
        let s_max = sources.iter().map(Vec::len).max().unwrap();
        let n = (bsz * s_max) as u32;
        let mut ids = vec![PAD_ID; bsz * s_max];
        for (b, s) in sources.iter().enumerate() {
            ids[b * s_max..b * s_max + s.len()].copy_from_slice(s);
        }
        let lens: Vec<u32> = sources.iter().map(|s| s.len() as u32).collect();
        let g = &self.gpu;
        let k = &self.k;
        let lens_buf = g.storage_u32("lengths", &lens);
        let tokens = g.storage_u32("source tokens", &ids);
        let emb = g.output("source emb", n as u64 * e as u64 * F);
        let memory = g.output("memory", n as u64 * 2 * he as u64 * F);
        let xp = g.output("encoder xp", n as u64 * 3 * he as u64 * F);
        let hp = g.output("encoder hp", (bsz as u64) * 3 * he as u64 * F);
        let mut h = g.output("encoder h", (bsz as u64) * he as u64 * F);
        let mut h2 = g.output("encoder h 2", (bsz as u64) * he as u64 * F);
        let mut enc = g.device.create_command_encoder(&Default::default());
        k.embed(g, &mut enc, &tokens, self.wt("embed.weight"), &self.zeros, &emb, n, e, 0, 0, 1.0);
        for (dir, name) in ["encoder.forward", "encoder.backward"].iter().enumerate() {
            k.matmul(g, &mut enc, &emb, self.wt(&format!("{name}.w_ih")), self.wt(&format!("{name}.b_ih")), &xp, n, 3 * he, e, Act::None);
            enc.clear_buffer(&h, 0, None);
            for step in 0..s_max {
                let t = if dir == 0 { step } else { s_max - 1 - step };
                k.matmul(g, &mut enc, &h, self.wt(&format!("{name}.w_hh")), self.wt(&format!("{name}.b_hh")), &hp, bsz as u32, 3 * he, he, Act::None);
                k.gru_cell(g, &mut enc, &xp, &hp, &h, &lens_buf, &h2, &memory, [bsz as u32, he, s_max as u32, t as u32, 1, 2 * he, dir as u32 * he, s_max as u32]);
                std::mem::swap(&mut h, &mut h2);
            }
        }
        let mean = g.output("mean", (bsz as u64) * 2 * he as u64 * F);
        k.masked_mean(g, &mut enc, &memory, &lens_buf, &mean, bsz as u32, s_max as u32, 2 * he);
        let rows = self.rows(bsz, s_max);
        k.matmul(g, &mut enc, &mean, self.wt("init.weight"), self.wt("init.bias"), &rows.hidden, bsz as u32, hd, 2 * he, Act::Tanh);
        let keys = match c.score {
            AttentionScore::Additive => {
                let keys = g.output("keys", n as u64 * c.attention_dim as u64 * F);
                k.matmul(g, &mut enc, &memory, self.wt("attention.key.weight"), self.wt("attention.key.bias"), &keys, n, c.attention_dim as u32, 2 * he, Act::None);
                keys
            }
            AttentionScore::General => {
                let keys = g.output("keys", n as u64 * hd as u64 * F);
                k.matmul(g, &mut enc, &memory, self.wt("attention.key.weight"), &self.zeros_for(hd as usize), &keys, n, hd, 2 * he, Act::None);
                keys
            }
            AttentionScore::Dot => {
                let keys = g.output("keys", n as u64 * 2 * he as u64 * F);
                enc.copy_buffer_to_buffer(&memory, 0, &keys, 0, n as u64 * 2 * he as u64 * F);
                keys
            }
        };
        g.queue.submit([enc.finish()]);
        self.batch = Some(Batch { s_max, source_lens: sources.iter().map(Vec::len).collect(), lens: lens_buf, memory, keys, rows: bsz, row_source: (0..bsz as u32).collect(), buf: rows });
        Ok(())
    }

    async fn step(&mut self, tokens: &[u32], want_attention: bool) -> Result<StepOutput, String> {
        self.decode_step(tokens, want_attention)?;
        let b = self.batch.as_ref().unwrap();
        let mut log_probs = self.gpu.read_f32(&b.buf.logits).await?;
        log_probs.truncate(b.rows * self.cfg.vocab_size);
        Ok(StepOutput { log_probs, attention: self.attention_rows(want_attention).await? })
    }

    async fn step_top_k(&mut self, tokens: &[u32], k: usize, want_attention: bool) -> Result<TopKOutput, String> {
        if k != 1 {
            let out = self.step(tokens, want_attention).await?;
            return Ok(TopKOutput { candidates: out.log_probs.chunks(self.cfg.vocab_size).map(|row| wgslate_decode::top_k(row, k)).collect(), attention: out.attention });
        }
        self.decode_step(tokens, want_attention)?;
        let b = self.batch.as_ref().unwrap();
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        self.k.argmax(&self.gpu, &mut enc, &b.buf.logits, &b.buf.best, b.rows as u32, self.cfg.vocab_size as u32);
        self.gpu.queue.submit([enc.finish()]);
        let bytes = self.gpu.read(&b.buf.best).await?;
        let words: &[u32] = bytemuck::cast_slice(&bytes);
        let candidates = (0..b.rows).map(|r| vec![(words[2 * r], f32::from_bits(words[2 * r + 1]))]).collect();
        Ok(TopKOutput { candidates, attention: self.attention_rows(want_attention).await? })
    }

    async fn select_rows(&mut self, rows: &[usize]) -> Result<(), String> {
        let hd = self.cfg.decoder_hidden as u32;
        let (cap, s_max) = {
            let b = self.batch.as_ref().ok_or("select_rows before start")?;
            if let Some(&bad) = rows.iter().find(|&&r| r >= b.rows) {
                return Err(format!("row {bad} does not exist ({} rows)", b.rows));
            }
            (b.buf.cap, b.s_max)
        };
        // Beam expansion: per-row buffers are reallocated once for the larger number of rows.
        let fresh = (rows.len() > cap).then(|| self.rows(rows.len(), s_max));
        let idx: Vec<u32> = rows.iter().map(|&r| r as u32).collect();
        let b = self.batch.as_mut().unwrap();
        let old = fresh.map(|new_rows| std::mem::replace(&mut b.buf, new_rows));
        self.gpu.queue.write_buffer(&b.buf.index, 0, bytemuck::cast_slice(&idx));
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        let src = old.as_ref().map_or(&b.buf.hidden, |o| &o.hidden);
        self.k.gather_rows(&self.gpu, &mut enc, src, &b.buf.index, &b.buf.hidden2, rows.len() as u32, hd, hd);
        self.gpu.queue.submit([enc.finish()]);
        std::mem::swap(&mut b.buf.hidden, &mut b.buf.hidden2);
        b.row_source = rows.iter().map(|&r| b.row_source[r]).collect();
        b.rows = rows.len();
        self.gpu.queue.write_buffer(&b.buf.row_source_buf, 0, bytemuck::cast_slice(&b.row_source));
        Ok(())
    }
}

impl GpuGru {
    fn zeros_for(&self, n: usize) -> wgpu::Buffer {
        self.gpu.storage("zeros", &vec![0.0; n])
    }
}

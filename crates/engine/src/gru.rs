//! The GRU encoder-decoder with attention on the GPU: bidirectional encoder run once per batch
//! (one cell dispatch per position and direction, padding masked), then one decoder step per token.
//! Implements [`StepModel`] like the Transformer engine.

use std::collections::HashMap;

use wgslate_decode::{AsyncStepModel, ChainedPicks, StepOutput, TopKOutput};
use wgslate_model::config::{BOS_ID, EOS_ID, PAD_ID};
use wgslate_model::weights::CheckedWeights;
use wgslate_model::{AttentionScore, GruConfig, ModelConfig};

use crate::kernels::{Act, KernelParams, Kernels, TokenSource, MAX_TOP_K};
use crate::record::{Pool, Recorder, Sites};
use crate::{Gpu, GREEDY_STEPS_PER_SUBMIT};

const F: u64 = 4;

/// Per-row decoder buffers of the current batch (handles into the pool).
struct Rows {
    cap: usize,
    /// The decoder state: a step reads hidden[set] and writes hidden[1 - set], then the set flips.
    hidden: [wgpu::Buffer; 2],
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
    cands: wgpu::Buffer,
    probs: wgpu::Buffer,
    index: wgpu::Buffer,
    row_source: wgpu::Buffer,
}

struct Batch {
    s_max: usize,
    source_lens: Vec<usize>,
    lens: wgpu::Buffer,
    memory: wgpu::Buffer,
    keys: wgpu::Buffer,
    rows: usize,
    row_source: Vec<u32>,
    set: usize,
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
    pub pool: Pool,
    /// Dispatch sites of decoder steps (the hot path), of the encoder, and of row selection.
    pub step_sites: Sites,
    encoder_sites: Sites,
    select_sites: Sites,
    staging: Option<wgpu::Buffer>,
    batch: Option<Batch>,
}

impl GpuGru {
    /// The engine with the device's preferred kernels (f16 weights when shader-f16 exists).
    pub fn new(gpu: &Gpu, config: &ModelConfig, weights: &CheckedWeights) -> Result<Self, String> {
        Self::with_params(gpu, config, weights, KernelParams::for_gpu(gpu))
    }

    pub fn with_params(
        gpu: &Gpu,
        config: &ModelConfig,
        weights: &CheckedWeights,
        params: KernelParams,
    ) -> Result<Self, String> {
        let ModelConfig::Gru(cfg) = config else { return Err("GpuGru needs a GRU config".into()) };
        crate::kernels::sequence_length_ok(config.max_len())?;
        // Every product's inner width is one of these or a sum of them.
        crate::kernels::vector_width_ok(&[
            ("emb_dim", cfg.emb_dim),
            ("encoder_hidden", cfg.encoder_hidden),
            ("decoder_hidden", cfg.decoder_hidden),
        ])?;
        let mut names: Vec<String> = vec![
            "embed.weight".into(),
            "init.weight".into(),
            "init.bias".into(),
            "output.weight".into(),
            "output.bias".into(),
        ];
        for p in ["encoder.forward", "encoder.backward", "decoder"] {
            for n in ["w_ih", "w_hh", "b_ih", "b_hh"] {
                names.push(format!("{p}.{n}"));
            }
        }
        match cfg.score {
            AttentionScore::Additive => names.extend(
                ["attention.query.weight", "attention.key.weight", "attention.key.bias", "attention.v"]
                    .map(String::from),
            ),
            AttentionScore::General => names.push("attention.key.weight".into()),
            AttentionScore::Dot => {}
        }
        let w = crate::weights::upload(gpu, weights, &names, params.f16_weights)?;
        let widest = cfg.emb_dim.max(cfg.attention_dim).max(cfg.decoder_hidden);
        Ok(Self {
            gpu: gpu.clone(),
            k: Kernels::new(gpu, params)?,
            zeros: gpu.storage("zeros", &vec![0.0; widest]),
            zero_vocab: gpu.storage("zero bias", &vec![0.0; cfg.vocab_size]),
            dummy: gpu.output("dummy", 16),
            dummy_rw: gpu.output("dummy rw", 16),
            cfg: cfg.clone(),
            w,
            pool: Pool::default(),
            step_sites: Sites::default(),
            encoder_sites: Sites::default(),
            select_sites: Sites::default(),
            staging: None,
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

    fn rows(&mut self, cap: usize, s_max: usize) -> Rows {
        let c = &self.cfg;
        let (e, he, hd, v) = (c.emb_dim as u64, c.encoder_hidden as u64, c.decoder_hidden as u64, c.vocab_size as u64);
        let r = cap as u64;
        let key_dim = self.key_dim() as u64;
        let (g, p) = (&self.gpu, &mut self.pool);
        let mut out = |label: &str, n: u64| p.get(g, label, n * F);
        let per_submit = GREEDY_STEPS_PER_SUBMIT.max(MAX_TOP_K) as u64;
        Rows {
            cap,
            hidden: [out("hidden 0", r * hd), out("hidden 1", r * hd)],
            tokens: out("tokens", r),
            emb: out("emb", r * e),
            q: out("q", r * key_dim),
            ctx: out("context", r * 2 * he),
            input: out("input", r * (e + 2 * he)),
            xp: out("xp", r * 3 * hd),
            hp: out("hp", r * 3 * hd),
            features: out("features", r * (hd + 2 * he + e)),
            o: out("o", r * e),
            raw: out("raw logits", r * v),
            logits: out("log-probs", r * v),
            cands: out("candidates", r * per_submit * 2),
            probs: out("probs", r * s_max as u64),
            index: out("index", r),
            row_source: out("row source", r),
        }
    }

    /// Records one decoder step reading hidden[set] and writing hidden[1 - set].
    fn record_step(&self, rec: &mut Recorder, b: &Batch, tokens: TokenSource, set: usize, capture: bool) {
        let c = &self.cfg;
        let (e, he, hd, r) = (c.emb_dim as u32, c.encoder_hidden as u32, c.decoder_hidden as u32, b.rows as u32);
        let k = &self.k;
        let x = &b.buf;
        let (h_in, h_out) = (&x.hidden[set], &x.hidden[1 - set]);
        k.embed(rec, tokens, self.wt("embed.weight"), &self.zeros, &x.emb, r, e, 0, 0, 1.0);
        let (q, mode, v) = match c.score {
            AttentionScore::Additive => {
                k.matmul(
                    rec,
                    h_in,
                    self.wt("attention.query.weight"),
                    &self.zeros,
                    &x.q,
                    r,
                    c.attention_dim as u32,
                    hd,
                    Act::None,
                );
                (&x.q, 0, self.wt("attention.v"))
            }
            _ => (h_in, 1, &self.dummy),
        };
        k.gru_attention(
            rec,
            q,
            &b.keys,
            v,
            &b.memory,
            &x.row_source,
            &b.lens,
            &x.ctx,
            &x.probs,
            [r, b.s_max as u32, self.key_dim() as u32, 2 * he, mode, capture as u32],
        );
        let iw = e + 2 * he;
        k.copy_cols(rec, &x.emb, &x.input, [r, e, e, 0, iw, 0]);
        k.copy_cols(rec, &x.ctx, &x.input, [r, 2 * he, 2 * he, 0, iw, e]);
        k.matmul(rec, &x.input, self.wt("decoder.w_ih"), self.wt("decoder.b_ih"), &x.xp, r, 3 * hd, iw, Act::None);
        k.matmul(rec, h_in, self.wt("decoder.w_hh"), self.wt("decoder.b_hh"), &x.hp, r, 3 * hd, hd, Act::None);
        k.gru_cell(rec, &x.xp, &x.hp, h_in, &self.dummy, h_out, &self.dummy_rw, [r, hd, 1, 0, 0, 0, 0, 1]);
        let fw = hd + 2 * he + e;
        k.copy_cols(rec, h_out, &x.features, [r, hd, hd, 0, fw, 0]);
        k.copy_cols(rec, &x.ctx, &x.features, [r, 2 * he, 2 * he, 0, fw, hd]);
        k.copy_cols(rec, &x.emb, &x.features, [r, e, e, 0, fw, hd + 2 * he]);
        k.matmul(rec, &x.features, self.wt("output.weight"), self.wt("output.bias"), &x.o, r, e, fw, Act::Tanh);
        k.matmul(rec, &x.o, self.wt("embed.weight"), &self.zero_vocab, &x.raw, r, c.vocab_size as u32, e, Act::None);
        k.softmax(rec, &x.raw, &x.logits, r, c.vocab_size as u32, true);
    }

    /// Runs `steps` decoder steps in one submission (see the Transformer engine's `run_steps`).
    fn run_steps(&mut self, tokens: &[u32], steps: usize, k: usize, capture: bool) -> Result<(), String> {
        let b = self.batch.as_ref().ok_or("step before start")?;
        if tokens.len() != b.rows {
            return Err(format!("{} tokens for {} rows", tokens.len(), b.rows));
        }
        let (rows, v) = (b.rows as u32, self.cfg.vocab_size as u32);
        self.gpu.queue.write_buffer(&b.buf.tokens, 0, bytemuck::cast_slice(tokens));
        let mut sites = std::mem::take(&mut self.step_sites);
        let mut rec = Recorder::new(&self.gpu, &mut sites);
        for s in 0..steps {
            let input = if s == 0 {
                TokenSource::ids(&b.buf.tokens)
            } else {
                TokenSource {
                    buffer: &b.buf.cands,
                    stride: 2 * k as u32,
                    offset: 2 * ((s - 1) as u32 * rows * k as u32),
                }
            };
            self.record_step(&mut rec, b, input, (b.set + s) % 2, capture);
            if k > 0 {
                self.k.top_k(&mut rec, &b.buf.logits, &b.buf.cands, rows, v, k as u32, s as u32 * rows * k as u32);
            }
        }
        rec.submit();
        self.step_sites = sites;
        let b = self.batch.as_mut().unwrap();
        b.set = (b.set + steps) % 2;
        Ok(())
    }

    /// Reads back `steps × rows × k` candidates written by `run_steps`.
    async fn read_candidates(&mut self, steps: usize, k: usize) -> Result<Vec<(u32, f32)>, String> {
        let b = self.batch.as_ref().unwrap();
        self.gpu.read_candidates(&mut self.staging, &b.buf.cands, steps * b.rows * k).await
    }

    async fn attention_rows(&mut self, want: bool) -> Result<Option<Vec<Vec<f32>>>, String> {
        if !want {
            return Ok(None);
        }
        let b = self.batch.as_ref().unwrap();
        let p = self.gpu.read_f32_prefix(&mut self.staging, &b.buf.probs, b.rows * b.s_max).await?;
        Ok(Some(
            (0..b.rows)
                .map(|r| p[r * b.s_max..r * b.s_max + b.source_lens[b.row_source[r] as usize]].to_vec())
                .collect(),
        ))
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
        let buf = self.rows(bsz, s_max);
        let (g, p) = (&self.gpu, &mut self.pool);
        let lens_buf = p.u32s(g, "lengths", &lens);
        let tokens = p.u32s(g, "source tokens", &ids);
        let (nf, bf) = (n as u64, bsz as u64);
        let emb = p.get(g, "source emb", nf * e as u64 * F);
        let memory = p.get(g, "memory", nf * 2 * he as u64 * F);
        let xp = p.get(g, "encoder xp", nf * 3 * he as u64 * F);
        let hp = p.get(g, "encoder hp", bf * 3 * he as u64 * F);
        let mut h = p.get(g, "encoder h", bf * he as u64 * F);
        let mut h2 = p.get(g, "encoder h 2", bf * he as u64 * F);
        let mean = p.get(g, "mean", bf * 2 * he as u64 * F);
        let keys = match c.score {
            AttentionScore::Additive => p.get(g, "keys", nf * c.attention_dim as u64 * F),
            AttentionScore::General => p.get(g, "keys", nf * hd as u64 * F),
            AttentionScore::Dot => memory.clone(),
        };
        let mut sites = std::mem::take(&mut self.encoder_sites);
        let mut rec = Recorder::new(&self.gpu, &mut sites);
        let k = &self.k;
        k.embed(&mut rec, TokenSource::ids(&tokens), self.wt("embed.weight"), &self.zeros, &emb, n, e, 0, 0, 1.0);
        for (dir, name) in ["encoder.forward", "encoder.backward"].iter().enumerate() {
            k.matmul(
                &mut rec,
                &emb,
                self.wt(&format!("{name}.w_ih")),
                self.wt(&format!("{name}.b_ih")),
                &xp,
                n,
                3 * he,
                e,
                Act::None,
            );
            rec.encoder().clear_buffer(&h, 0, None);
            for step in 0..s_max {
                let t = if dir == 0 { step } else { s_max - 1 - step };
                k.matmul(
                    &mut rec,
                    &h,
                    self.wt(&format!("{name}.w_hh")),
                    self.wt(&format!("{name}.b_hh")),
                    &hp,
                    bsz as u32,
                    3 * he,
                    he,
                    Act::None,
                );
                k.gru_cell(
                    &mut rec,
                    &xp,
                    &hp,
                    &h,
                    &lens_buf,
                    &h2,
                    &memory,
                    [bsz as u32, he, s_max as u32, t as u32, 1, 2 * he, dir as u32 * he, s_max as u32],
                );
                std::mem::swap(&mut h, &mut h2);
            }
        }
        k.masked_mean(&mut rec, &memory, &lens_buf, &mean, bsz as u32, s_max as u32, 2 * he);
        k.matmul(
            &mut rec,
            &mean,
            self.wt("init.weight"),
            self.wt("init.bias"),
            &buf.hidden[0],
            bsz as u32,
            hd,
            2 * he,
            Act::Tanh,
        );
        match c.score {
            AttentionScore::Additive => k.matmul(
                &mut rec,
                &memory,
                self.wt("attention.key.weight"),
                self.wt("attention.key.bias"),
                &keys,
                n,
                c.attention_dim as u32,
                2 * he,
                Act::None,
            ),
            AttentionScore::General => k.matmul(
                &mut rec,
                &memory,
                self.wt("attention.key.weight"),
                &self.zeros,
                &keys,
                n,
                hd,
                2 * he,
                Act::None,
            ),
            AttentionScore::Dot => {}
        }
        rec.submit();
        self.encoder_sites = sites;
        let row_source: Vec<u32> = (0..bsz as u32).collect();
        self.gpu.queue.write_buffer(&buf.row_source, 0, bytemuck::cast_slice(&row_source));
        self.batch = Some(Batch {
            s_max,
            source_lens: sources.iter().map(Vec::len).collect(),
            lens: lens_buf,
            memory,
            keys,
            rows: bsz,
            row_source,
            set: 0,
            buf,
        });
        Ok(())
    }

    async fn step(&mut self, tokens: &[u32], want_attention: bool) -> Result<StepOutput, String> {
        self.run_steps(tokens, 1, 0, want_attention)?;
        let b = self.batch.as_ref().unwrap();
        let log_probs =
            self.gpu.read_f32_prefix(&mut self.staging, &b.buf.logits, b.rows * self.cfg.vocab_size).await?;
        Ok(StepOutput { log_probs, attention: self.attention_rows(want_attention).await? })
    }

    /// Selects the k best on the device and reads back only those (k ≤ MAX_TOP_K).
    async fn step_top_k(&mut self, tokens: &[u32], k: usize, want_attention: bool) -> Result<TopKOutput, String> {
        if k == 0 || k > MAX_TOP_K {
            let out = self.step(tokens, want_attention).await?;
            return Ok(TopKOutput {
                candidates: out
                    .log_probs
                    .chunks(self.cfg.vocab_size)
                    .map(|row| wgslate_decode::top_k(row, k))
                    .collect(),
                attention: out.attention,
            });
        }
        self.run_steps(tokens, 1, k, want_attention)?;
        let cands = self.read_candidates(1, k).await?;
        Ok(TopKOutput {
            candidates: cands.chunks(k).map(<[_]>::to_vec).collect(),
            attention: self.attention_rows(want_attention).await?,
        })
    }

    async fn greedy_steps(&mut self, tokens: &[u32], max_steps: usize) -> Result<Option<ChainedPicks>, String> {
        let steps = max_steps.clamp(1, GREEDY_STEPS_PER_SUBMIT);
        self.run_steps(tokens, steps, 1, false)?;
        let cands = self.read_candidates(steps, 1).await?;
        Ok(Some(crate::per_row(&cands, tokens.len(), steps)))
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
        // The state to gather from, kept before a beam expansion grows the per-row buffers.
        let current = {
            let b = self.batch.as_ref().unwrap();
            b.buf.hidden[b.set].clone()
        };
        if rows.len() > cap {
            let buf = self.rows(rows.len(), s_max);
            self.batch.as_mut().unwrap().buf = buf;
        }
        let b = self.batch.as_mut().unwrap();
        let idx: Vec<u32> = rows.iter().map(|&r| r as u32).collect();
        self.gpu.queue.write_buffer(&b.buf.index, 0, bytemuck::cast_slice(&idx));
        let mut sites = std::mem::take(&mut self.select_sites);
        let mut rec = Recorder::new(&self.gpu, &mut sites);
        self.k.gather_rows(&mut rec, &current, &b.buf.index, &b.buf.hidden[1 - b.set], rows.len() as u32, hd, hd);
        rec.submit();
        self.select_sites = sites;
        b.set = 1 - b.set;
        b.row_source = rows.iter().map(|&r| b.row_source[r]).collect();
        b.rows = rows.len();
        self.gpu.queue.write_buffer(&b.buf.row_source, 0, bytemuck::cast_slice(&b.row_source));
        Ok(())
    }
}

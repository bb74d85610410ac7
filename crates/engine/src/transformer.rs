//! The Transformer on the GPU: weights uploaded once, the encoder run once per batch, then one
//! decoder step per token with a self-attention K/V cache and cross K/V computed once.
//! Buffers come from a [`Pool`] and dispatches from [`Sites`], so decoding creates no GPU objects
//! per token. Implements [`AsyncStepModel`], so every search in wgslate_decode runs on it unchanged.

use std::collections::HashMap;

use wgslate_decode::{AsyncStepModel, ChainedPicks, StepOutput, TopKOutput};
use wgslate_model::config::{BOS_ID, EOS_ID, PAD_ID};
use wgslate_model::weights::CheckedWeights;
use wgslate_model::{ModelConfig, TransformerConfig};

use crate::kernels::{Act, AttentionLayout, KernelParams, Kernels, TokenSource, MAX_TOP_K};
use crate::record::{Pool, Recorder, Sites};
use crate::{Gpu, GREEDY_STEPS_PER_SUBMIT};

const F: u64 = 4;

/// The per-row decoder buffers of the current batch (handles into the pool).
struct Rows {
    cap: usize,
    tokens: wgpu::Buffer,
    x: wgpu::Buffer,
    h: wgpu::Buffer,
    q: wgpu::Buffer,
    kv: wgpu::Buffer,
    att: wgpu::Buffer,
    a: wgpu::Buffer,
    ff: wgpu::Buffer,
    raw: wgpu::Buffer,
    logits: wgpu::Buffer,
    /// Top-k candidates (index, value) of every step of one submission.
    cands: wgpu::Buffer,
    probs: Vec<wgpu::Buffer>,
    index: wgpu::Buffer,
    row_source: wgpu::Buffer,
}

struct Batch {
    s_max: usize,
    source_lens: Vec<usize>,
    lens: wgpu::Buffer,
    cross_kv: Vec<wgpu::Buffer>,
    rows: usize,
    row_source: Vec<u32>,
    /// Self-attention caches; beam reordering gathers into the other set of the pair and flips.
    k_cache: Vec<wgpu::Buffer>,
    v_cache: Vec<wgpu::Buffer>,
    cache_set: usize,
    buf: Rows,
    position: usize,
}

pub struct GpuTransformer {
    gpu: Gpu,
    k: Kernels,
    cfg: TransformerConfig,
    w: HashMap<String, wgpu::Buffer>,
    positions: wgpu::Buffer,
    zero_vocab: wgpu::Buffer,
    dummy: wgpu::Buffer,
    dummy_probs: wgpu::Buffer,
    pub pool: Pool,
    /// Dispatch sites of decoder steps (the hot path), of the encoder, and of row selection.
    pub step_sites: Sites,
    encoder_sites: Sites,
    select_sites: Sites,
    staging: Option<wgpu::Buffer>,
    batch: Option<Batch>,
}

impl GpuTransformer {
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
        let ModelConfig::Transformer(cfg) = config else {
            return Err("GpuTransformer needs a Transformer config".into());
        };
        crate::kernels::sequence_length_ok(config.max_len())?;
        crate::kernels::vector_width_ok(&[("d_model", cfg.d_model), ("d_ff", cfg.d_ff)])?;
        let mut names = vec![
            "embed.weight".to_string(),
            "encoder_norm.weight".into(),
            "encoder_norm.bias".into(),
            "decoder_norm.weight".into(),
            "decoder_norm.bias".into(),
        ];
        let lin = |p: &str| vec![format!("{p}.weight"), format!("{p}.bias")];
        for i in 0..cfg.encoder_layers {
            for p in ["norm1", "norm2", "self_attn.q", "self_attn.kv", "self_attn.o", "ffn.up", "ffn.down"] {
                names.extend(lin(&format!("encoder.{i}.{p}")));
            }
        }
        for i in 0..cfg.decoder_layers {
            for p in [
                "norm1",
                "norm2",
                "norm3",
                "self_attn.q",
                "self_attn.kv",
                "self_attn.o",
                "cross_attn.q",
                "cross_attn.kv",
                "cross_attn.o",
                "ffn.up",
                "ffn.down",
            ] {
                names.extend(lin(&format!("decoder.{i}.{p}")));
            }
        }
        let w = crate::weights::upload(gpu, weights, &names, params.f16_weights)?;
        let pos = wgslate_model::layers::sinusoids(cfg.max_len, cfg.d_model, &wgslate_model::candle_core::Device::Cpu)
            .and_then(|t| t.flatten_all())
            .and_then(|t| t.to_vec1::<f32>())
            .map_err(|e| e.to_string())?;
        Ok(Self {
            gpu: gpu.clone(),
            k: Kernels::new(gpu, params)?,
            cfg: cfg.clone(),
            positions: gpu.storage("positions", &pos),
            zero_vocab: gpu.storage("zero bias", &vec![0.0; cfg.vocab_size]),
            dummy: gpu.output("dummy", 16),
            dummy_probs: gpu.output("unused probabilities", 16),
            w,
            pool: Pool::default(),
            step_sites: Sites::default(),
            encoder_sites: Sites::default(),
            select_sites: Sites::default(),
            staging: None,
            batch: None,
        })
    }

    fn wt(&self, name: &str) -> &wgpu::Buffer {
        &self.w[name]
    }

    #[allow(clippy::too_many_arguments)]
    fn linear(
        &self,
        rec: &mut Recorder,
        prefix: &str,
        x: &wgpu::Buffer,
        y: &wgpu::Buffer,
        rows: usize,
        n_in: usize,
        n_out: usize,
        relu: bool,
    ) {
        let act = if relu { Act::Relu } else { Act::None };
        self.k.matmul(
            rec,
            x,
            self.wt(&format!("{prefix}.weight")),
            self.wt(&format!("{prefix}.bias")),
            y,
            rows as u32,
            n_out as u32,
            n_in as u32,
            act,
        );
    }

    fn norm(&self, rec: &mut Recorder, prefix: &str, x: &wgpu::Buffer, y: &wgpu::Buffer, rows: usize) {
        self.k.layer_norm(
            rec,
            x,
            self.wt(&format!("{prefix}.weight")),
            self.wt(&format!("{prefix}.bias")),
            y,
            rows as u32,
            self.cfg.d_model as u32,
        );
    }

    /// The FFN sub-layer with its residual: x += down(relu(up(norm(x)))).
    #[allow(clippy::too_many_arguments)]
    fn ffn(
        &self,
        rec: &mut Recorder,
        prefix: &str,
        norm: &str,
        x: &wgpu::Buffer,
        h: &wgpu::Buffer,
        ff: &wgpu::Buffer,
        a: &wgpu::Buffer,
        rows: usize,
    ) {
        let (d, dff) = (self.cfg.d_model, self.cfg.d_ff);
        self.norm(rec, norm, x, h, rows);
        self.linear(rec, &format!("{prefix}.ffn.up"), h, ff, rows, d, dff, true);
        self.linear(rec, &format!("{prefix}.ffn.down"), ff, a, rows, dff, d, false);
        self.k.add(rec, x, a, (rows * d) as u32);
    }

    fn cache_bytes(&self, cap: usize) -> u64 {
        (cap * self.cfg.max_len * self.cfg.d_model) as u64 * F
    }

    fn caches(&mut self, set: usize, cap: usize) -> (Vec<wgpu::Buffer>, Vec<wgpu::Buffer>) {
        let bytes = self.cache_bytes(cap);
        let k = (0..self.cfg.decoder_layers)
            .map(|l| self.pool.get(&self.gpu, &format!("k cache {l}.{set}"), bytes))
            .collect();
        let v = (0..self.cfg.decoder_layers)
            .map(|l| self.pool.get(&self.gpu, &format!("v cache {l}.{set}"), bytes))
            .collect();
        (k, v)
    }

    fn rows(&mut self, cap: usize, s_max: usize) -> Rows {
        let (d, dff, v) = (self.cfg.d_model as u64, self.cfg.d_ff as u64, self.cfg.vocab_size as u64);
        let c = cap as u64;
        let g = &self.gpu;
        let p = &mut self.pool;
        let per_submit = GREEDY_STEPS_PER_SUBMIT.max(MAX_TOP_K) as u64;
        Rows {
            cap,
            tokens: p.get(g, "tokens", c * 4),
            x: p.get(g, "x", c * d * F),
            h: p.get(g, "h", c * d * F),
            q: p.get(g, "q", c * d * F),
            kv: p.get(g, "kv", c * 2 * d * F),
            att: p.get(g, "att", c * d * F),
            a: p.get(g, "a", c * d * F),
            ff: p.get(g, "ff", c * dff * F),
            raw: p.get(g, "raw logits", c * v * F),
            logits: p.get(g, "log-probs", c * v * F),
            cands: p.get(g, "candidates", c * per_submit * 8),
            probs: (0..self.cfg.decoder_layers)
                .map(|l| p.get(g, &format!("probs {l}"), (c * self.cfg.n_heads as u64 * s_max as u64) * F))
                .collect(),
            index: p.get(g, "row index", c * 4),
            row_source: p.get(g, "row source", c * 4),
        }
    }

    /// Records one decoder step at position t; the log-probs end in `buf.logits`.
    fn record_step(&self, rec: &mut Recorder, b: &Batch, tokens: TokenSource, t: usize, capture: bool) {
        let (d, r, heads) = (self.cfg.d_model, b.rows, self.cfg.n_heads);
        let x = &b.buf;
        self.k.embed(
            rec,
            tokens,
            self.wt("embed.weight"),
            &self.positions,
            &x.x,
            r as u32,
            d as u32,
            0,
            t as u32,
            (d as f32).sqrt(),
        );
        for l in 0..self.cfg.decoder_layers {
            let p = format!("decoder.{l}");
            self.norm(rec, &format!("{p}.norm1"), &x.x, &x.h, r);
            self.linear(rec, &format!("{p}.self_attn.q"), &x.h, &x.q, r, d, d, false);
            self.linear(rec, &format!("{p}.self_attn.kv"), &x.h, &x.kv, r, d, 2 * d, false);
            self.k.kv_append(
                rec,
                &x.kv,
                &b.k_cache[l],
                &b.v_cache[l],
                r as u32,
                d as u32,
                self.cfg.max_len as u32,
                t as u32,
            );
            let own = AttentionLayout {
                rows: r as u32,
                heads: heads as u32,
                dk: (d / heads) as u32,
                kv_len: self.cfg.max_len as u32,
                kv_stride: d as u32,
                k_off: 0,
                v_off: 0,
                fixed_len: t as u32 + 1,
                q_stride: d as u32,
            };
            self.k.attention(
                rec,
                &x.q,
                &b.k_cache[l],
                &b.v_cache[l],
                &x.index,
                &self.dummy,
                &x.att,
                &self.dummy_probs,
                own,
                false,
            );
            self.linear(rec, &format!("{p}.self_attn.o"), &x.att, &x.a, r, d, d, false);
            self.k.add(rec, &x.x, &x.a, (r * d) as u32);
            self.norm(rec, &format!("{p}.norm2"), &x.x, &x.h, r);
            self.linear(rec, &format!("{p}.cross_attn.q"), &x.h, &x.q, r, d, d, false);
            let cross = AttentionLayout {
                rows: r as u32,
                heads: heads as u32,
                dk: (d / heads) as u32,
                kv_len: b.s_max as u32,
                kv_stride: 2 * d as u32,
                k_off: 0,
                v_off: d as u32,
                fixed_len: 0,
                q_stride: d as u32,
            };
            self.k.attention(
                rec,
                &x.q,
                &b.cross_kv[l],
                &b.cross_kv[l],
                &x.row_source,
                &b.lens,
                &x.att,
                &x.probs[l],
                cross,
                capture,
            );
            self.linear(rec, &format!("{p}.cross_attn.o"), &x.att, &x.a, r, d, d, false);
            self.k.add(rec, &x.x, &x.a, (r * d) as u32);
            self.ffn(rec, &p, &format!("{p}.norm3"), &x.x, &x.h, &x.ff, &x.a, r);
        }
        self.norm(rec, "decoder_norm", &x.x, &x.h, r);
        let v = self.cfg.vocab_size;
        self.k.matmul(
            rec,
            &x.h,
            self.wt("embed.weight"),
            &self.zero_vocab,
            &x.raw,
            r as u32,
            v as u32,
            d as u32,
            Act::None,
        );
        self.k.softmax(rec, &x.raw, &x.logits, r as u32, v as u32, true);
    }

    /// Runs `steps` decoder steps in one submission, feeding `tokens` first and then each row's
    /// best candidate of the step before; with k > 0 each step's top-k go to `buf.cands`
    /// (step s, row r, rank j at pair (s·rows + r)·k + j).
    fn run_steps(&mut self, tokens: &[u32], steps: usize, k: usize, capture: bool) -> Result<(), String> {
        let b = self.batch.as_ref().ok_or("step before start")?;
        if tokens.len() != b.rows {
            return Err(format!("{} tokens for {} rows", tokens.len(), b.rows));
        }
        if b.position + steps > self.cfg.max_len {
            return Err(format!("output longer than the model's max_len {}", self.cfg.max_len));
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
            self.record_step(&mut rec, b, input, b.position + s, capture);
            if k > 0 {
                self.k.top_k(&mut rec, &b.buf.logits, &b.buf.cands, rows, v, k as u32, s as u32 * rows * k as u32);
            }
        }
        rec.submit();
        self.step_sites = sites;
        self.batch.as_mut().unwrap().position += steps;
        Ok(())
    }

    /// Reads back `steps × rows × k` candidates written by `run_steps`.
    async fn read_candidates(&mut self, steps: usize, k: usize) -> Result<Vec<(u32, f32)>, String> {
        let b = self.batch.as_ref().unwrap();
        self.gpu.read_candidates(&mut self.staging, &b.buf.cands, steps * b.rows * k).await
    }

    /// Per row, the cross-attention over its source averaged over layers and heads (as the CPU
    /// reference's step reports it).
    async fn attention_rows(&mut self, want: bool) -> Result<Option<Vec<Vec<f32>>>, String> {
        if !want {
            return Ok(None);
        }
        let b = self.batch.as_ref().unwrap();
        let (heads, layers, s) = (self.cfg.n_heads, self.cfg.decoder_layers, b.s_max);
        let mut mean: Vec<Vec<f32>> =
            (0..b.rows).map(|r| vec![0f32; b.source_lens[b.row_source[r] as usize]]).collect();
        for l in 0..layers {
            let probs = self.gpu.read_f32_prefix(&mut self.staging, &b.buf.probs[l], b.rows * heads * s).await?;
            for (r, m) in mean.iter_mut().enumerate() {
                for h in 0..heads {
                    let row = &probs[(r * heads + h) * s..];
                    m.iter_mut().zip(row).for_each(|(a, x)| *a += x / (layers * heads) as f32);
                }
            }
        }
        Ok(Some(mean))
    }
}

impl AsyncStepModel for GpuTransformer {
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
        if sources.is_empty() {
            return Err("no sources".into());
        }
        let max = self.cfg.max_len;
        if let Some(s) = sources.iter().find(|s| s.len() > max || s.is_empty()) {
            return Err(format!("source has {} tokens; the model takes 1 to {max}", s.len()));
        }
        let (d, heads, dff) = (self.cfg.d_model, self.cfg.n_heads, self.cfg.d_ff);
        let bsz = sources.len();
        let s_max = sources.iter().map(Vec::len).max().unwrap();
        let n = bsz * s_max;
        let mut ids = vec![PAD_ID; n];
        for (b, s) in sources.iter().enumerate() {
            ids[b * s_max..b * s_max + s.len()].copy_from_slice(s);
        }
        let lens: Vec<u32> = sources.iter().map(|s| s.len() as u32).collect();
        let enc_map: Vec<u32> = (0..n).map(|r| (r / s_max) as u32).collect();
        let (g, p) = (&self.gpu, &mut self.pool);
        let lens_buf = p.u32s(g, "source lengths", &lens);
        let enc_map = p.u32s(g, "encoder map", &enc_map);
        let tokens = p.u32s(g, "source tokens", &ids);
        let rowsf = n as u64;
        let [x, h, q, kv, att, a] =
            [("enc x", d), ("enc h", d), ("enc q", d), ("enc kv", 2 * d), ("enc att", d), ("enc a", d)]
                .map(|(name, w)| p.get(g, name, rowsf * w as u64 * F));
        let ff = p.get(g, "enc ff", rowsf * dff as u64 * F);
        let cross_kv: Vec<wgpu::Buffer> = (0..self.cfg.decoder_layers)
            .map(|l| p.get(g, &format!("cross kv {l}"), rowsf * 2 * d as u64 * F))
            .collect();
        let mut sites = std::mem::take(&mut self.encoder_sites);
        let mut rec = Recorder::new(&self.gpu, &mut sites);
        self.k.embed(
            &mut rec,
            TokenSource::ids(&tokens),
            self.wt("embed.weight"),
            &self.positions,
            &x,
            n as u32,
            d as u32,
            s_max as u32,
            0,
            (d as f32).sqrt(),
        );
        let layout = AttentionLayout {
            rows: n as u32,
            heads: heads as u32,
            dk: (d / heads) as u32,
            kv_len: s_max as u32,
            kv_stride: 2 * d as u32,
            k_off: 0,
            v_off: d as u32,
            fixed_len: 0,
            q_stride: d as u32,
        };
        for l in 0..self.cfg.encoder_layers {
            let p = format!("encoder.{l}");
            self.norm(&mut rec, &format!("{p}.norm1"), &x, &h, n);
            self.linear(&mut rec, &format!("{p}.self_attn.q"), &h, &q, n, d, d, false);
            self.linear(&mut rec, &format!("{p}.self_attn.kv"), &h, &kv, n, d, 2 * d, false);
            self.k.attention(&mut rec, &q, &kv, &kv, &enc_map, &lens_buf, &att, &self.dummy_probs, layout, false);
            self.linear(&mut rec, &format!("{p}.self_attn.o"), &att, &a, n, d, d, false);
            self.k.add(&mut rec, &x, &a, (n * d) as u32);
            self.ffn(&mut rec, &p, &format!("{p}.norm2"), &x, &h, &ff, &a, n);
        }
        self.norm(&mut rec, "encoder_norm", &x, &h, n);
        for (l, buf) in cross_kv.iter().enumerate() {
            self.linear(&mut rec, &format!("decoder.{l}.cross_attn.kv"), &h, buf, n, d, 2 * d, false);
        }
        rec.submit();
        self.encoder_sites = sites;
        let (k_cache, v_cache) = self.caches(0, bsz);
        let buf = self.rows(bsz, s_max);
        let row_source: Vec<u32> = (0..bsz as u32).collect();
        self.gpu.queue.write_buffer(&buf.row_source, 0, bytemuck::cast_slice(&row_source));
        self.gpu.queue.write_buffer(&buf.index, 0, bytemuck::cast_slice(&row_source));
        self.batch = Some(Batch {
            s_max,
            source_lens: sources.iter().map(Vec::len).collect(),
            lens: lens_buf,
            cross_kv,
            rows: bsz,
            row_source,
            k_cache,
            v_cache,
            cache_set: 0,
            buf,
            position: 0,
        });
        Ok(())
    }

    async fn step(&mut self, tokens: &[u32], want_attention: bool) -> Result<StepOutput, String> {
        self.run_steps(tokens, 1, 0, want_attention)?;
        let b = self.batch.as_ref().unwrap();
        let log_probs =
            self.gpu.read_f32_prefix(&mut self.staging, &b.buf.logits, b.rows * self.cfg.vocab_size).await?;
        let attention = self.attention_rows(want_attention).await?;
        Ok(StepOutput { log_probs, attention })
    }

    /// Selects the k best on the device and reads back only those (k ≤ MAX_TOP_K).
    async fn step_top_k(&mut self, tokens: &[u32], k: usize, want_attention: bool) -> Result<TopKOutput, String> {
        if k == 0 || k > MAX_TOP_K {
            let out = self.step(tokens, want_attention).await?;
            let v = self.cfg.vocab_size;
            return Ok(TopKOutput {
                candidates: out.log_probs.chunks(v).map(|row| wgslate_decode::top_k(row, k)).collect(),
                attention: out.attention,
            });
        }
        self.run_steps(tokens, 1, k, want_attention)?;
        let cands = self.read_candidates(1, k).await?;
        let attention = self.attention_rows(want_attention).await?;
        Ok(TopKOutput { candidates: cands.chunks(k).map(<[_]>::to_vec).collect(), attention })
    }

    async fn greedy_steps(&mut self, tokens: &[u32], max_steps: usize) -> Result<Option<ChainedPicks>, String> {
        let position = self.batch.as_ref().ok_or("step before start")?.position;
        let steps = max_steps.min(GREEDY_STEPS_PER_SUBMIT).min(self.cfg.max_len.saturating_sub(position)).max(1);
        self.run_steps(tokens, steps, 1, false)?;
        let cands = self.read_candidates(steps, 1).await?;
        Ok(Some(crate::per_row(&cands, tokens.len(), steps)))
    }

    async fn select_rows(&mut self, rows: &[usize]) -> Result<(), String> {
        let (d, max_len) = (self.cfg.d_model, self.cfg.max_len);
        let (cap, s_max, set, position) = {
            let b = self.batch.as_ref().ok_or("select_rows before start")?;
            if let Some(&bad) = rows.iter().find(|&&r| r >= b.rows) {
                return Err(format!("row {bad} does not exist ({} rows)", b.rows));
            }
            (b.buf.cap, b.s_max, b.cache_set, b.position)
        };
        if rows.len() > cap {
            // Beam expansion: the per-row buffers grow (in the pool) to the larger number of rows.
            let buf = self.rows(rows.len(), s_max);
            self.batch.as_mut().unwrap().buf = buf;
        }
        let cap = cap.max(rows.len());
        let (k_new, v_new) = self.caches(1 - set, cap);
        let b = self.batch.as_mut().unwrap();
        let idx: Vec<u32> = rows.iter().map(|&r| r as u32).collect();
        self.gpu.queue.write_buffer(&b.buf.index, 0, bytemuck::cast_slice(&idx));
        let mut sites = std::mem::take(&mut self.select_sites);
        let mut rec = Recorder::new(&self.gpu, &mut sites);
        if position > 0 {
            for l in 0..self.cfg.decoder_layers {
                let (width, len) = ((max_len * d) as u32, (position * d) as u32);
                self.k.gather_rows(&mut rec, &b.k_cache[l], &b.buf.index, &k_new[l], rows.len() as u32, width, len);
                self.k.gather_rows(&mut rec, &b.v_cache[l], &b.buf.index, &v_new[l], rows.len() as u32, width, len);
            }
        }
        rec.submit();
        self.select_sites = sites;
        (b.k_cache, b.v_cache, b.cache_set) = (k_new, v_new, 1 - set);
        b.row_source = rows.iter().map(|&r| b.row_source[r]).collect();
        b.rows = rows.len();
        self.gpu.queue.write_buffer(&b.buf.row_source, 0, bytemuck::cast_slice(&b.row_source));
        // The self-attention map is the identity again after the gather.
        let identity: Vec<u32> = (0..b.rows as u32).collect();
        self.gpu.queue.write_buffer(&b.buf.index, 0, bytemuck::cast_slice(&identity));
        Ok(())
    }
}

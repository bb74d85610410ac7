//! The Transformer on the GPU: weights uploaded once (f16 → f32), the encoder run once per batch,
//! then one decoder step per token with a self-attention K/V cache and cross K/V computed once.
//! Implements [`StepModel`], so every search in wgslate_decode runs on it unchanged.

use std::collections::HashMap;

use wgslate_decode::{AsyncStepModel, StepOutput, TopKOutput};
use wgslate_model::config::{BOS_ID, EOS_ID, PAD_ID};
use wgslate_model::weights::CheckedWeights;
use wgslate_model::{ModelConfig, TransformerConfig};

use crate::kernels::{Act, AttentionLayout, KernelParams, Kernels};
use crate::Gpu;

struct Batch {
    s_max: usize,
    source_lens: Vec<usize>,
    lens: wgpu::Buffer,
    cross_kv: Vec<wgpu::Buffer>,
    cap: usize,
    rows: usize,
    row_source: Vec<u32>,
    row_source_buf: wgpu::Buffer,
    index: wgpu::Buffer,
    k_cache: Vec<wgpu::Buffer>,
    v_cache: Vec<wgpu::Buffer>,
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
    best: wgpu::Buffer,
    probs: Vec<wgpu::Buffer>,
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
    batch: Option<Batch>,
    /// Full cross-attention of the last step when asked: per row, per layer, per head, over S.
    pub last_attention_full: Option<Vec<Vec<Vec<Vec<f32>>>>>,
}

const F: u64 = 4;

impl GpuTransformer {
    pub fn new(gpu: &Gpu, config: &ModelConfig, weights: &CheckedWeights) -> Result<Self, String> {
        let ModelConfig::Transformer(cfg) = config else { return Err("GpuTransformer needs a Transformer config".into()) };
        let mut w = HashMap::new();
        let mut names = vec!["embed.weight".to_string(), "encoder_norm.weight".into(), "encoder_norm.bias".into(), "decoder_norm.weight".into(), "decoder_norm.bias".into()];
        let lin = |p: &str| vec![format!("{p}.weight"), format!("{p}.bias")];
        for i in 0..cfg.encoder_layers {
            for p in ["norm1", "norm2", "self_attn.q", "self_attn.kv", "self_attn.o", "ffn.up", "ffn.down"] {
                names.extend(lin(&format!("encoder.{i}.{p}")));
            }
        }
        for i in 0..cfg.decoder_layers {
            for p in ["norm1", "norm2", "norm3", "self_attn.q", "self_attn.kv", "self_attn.o", "cross_attn.q", "cross_attn.kv", "cross_attn.o", "ffn.up", "ffn.down"] {
                names.extend(lin(&format!("decoder.{i}.{p}")));
            }
        }
        for n in names {
            let (_, data) = weights.tensor(&n).ok_or_else(|| format!("model.safetensors has no tensor {n}"))?;
            w.insert(n.clone(), gpu.storage(&n, data));
        }
        let pos = wgslate_model::layers::sinusoids(cfg.max_len, cfg.d_model, &wgslate_model::candle_core::Device::Cpu).and_then(|t| t.flatten_all()).and_then(|t| t.to_vec1::<f32>()).map_err(|e| e.to_string())?;
        Ok(Self {
            gpu: gpu.clone(),
            k: Kernels::new(gpu, KernelParams::default())?,
            cfg: cfg.clone(),
            positions: gpu.storage("positions", &pos),
            zero_vocab: gpu.storage("zero bias", &vec![0.0; cfg.vocab_size]),
            dummy: gpu.output("dummy", 16),
            dummy_probs: gpu.output("unused probabilities", 16),
            w,
            batch: None,
            last_attention_full: None,
        })
    }

    fn wt(&self, name: &str) -> &wgpu::Buffer {
        &self.w[name]
    }

    fn linear(&self, enc: &mut wgpu::CommandEncoder, prefix: &str, x: &wgpu::Buffer, y: &wgpu::Buffer, rows: usize, n_in: usize, n_out: usize, relu: bool) {
        let act = if relu { Act::Relu } else { Act::None };
        self.k.matmul(&self.gpu, enc, x, self.wt(&format!("{prefix}.weight")), self.wt(&format!("{prefix}.bias")), y, rows as u32, n_out as u32, n_in as u32, act);
    }

    fn norm(&self, enc: &mut wgpu::CommandEncoder, prefix: &str, x: &wgpu::Buffer, y: &wgpu::Buffer, rows: usize) {
        self.k.layer_norm(&self.gpu, enc, x, self.wt(&format!("{prefix}.weight")), self.wt(&format!("{prefix}.bias")), y, rows as u32, self.cfg.d_model as u32);
    }

    /// The FFN sub-layer with its residual: x += down(relu(up(norm(x)))).
    #[allow(clippy::too_many_arguments)]
    fn ffn(&self, enc: &mut wgpu::CommandEncoder, prefix: &str, norm: &str, x: &wgpu::Buffer, h: &wgpu::Buffer, ff: &wgpu::Buffer, a: &wgpu::Buffer, rows: usize) {
        let (d, dff) = (self.cfg.d_model, self.cfg.d_ff);
        self.norm(enc, norm, x, h, rows);
        self.linear(enc, &format!("{prefix}.ffn.up"), h, ff, rows, d, dff, true);
        self.linear(enc, &format!("{prefix}.ffn.down"), ff, a, rows, dff, d, false);
        self.k.add(&self.gpu, enc, x, a, (rows * d) as u32);
    }

    fn alloc_rows(&self, cap: usize, s_max: usize) -> (Vec<wgpu::Buffer>, Vec<wgpu::Buffer>, Vec<wgpu::Buffer>) {
        let (d, l) = (self.cfg.d_model as u64, self.cfg.decoder_layers);
        let cache = (cap as u64) * self.cfg.max_len as u64 * d * F;
        let kc = (0..l).map(|_| self.gpu.output("k cache", cache)).collect();
        let vc = (0..l).map(|_| self.gpu.output("v cache", cache)).collect();
        let probs = (0..l).map(|_| self.gpu.output("probs", (cap * self.cfg.n_heads * s_max) as u64 * F)).collect();
        (kc, vc, probs)
    }

    fn scratch(&self, cap: usize) -> [wgpu::Buffer; 9] {
        let (d, dff, v) = (self.cfg.d_model as u64, self.cfg.d_ff as u64, self.cfg.vocab_size as u64);
        let c = cap as u64;
        [
            self.gpu.output("x", c * d * F),
            self.gpu.output("h", c * d * F),
            self.gpu.output("q", c * d * F),
            self.gpu.output("kv", c * 2 * d * F),
            self.gpu.output("att", c * d * F),
            self.gpu.output("a", c * d * F),
            self.gpu.output("ff", c * dff * F),
            self.gpu.output("raw logits", c * v * F),
            self.gpu.output("log-probs", c * v * F),
        ]
    }

    fn submit(&self, enc: wgpu::CommandEncoder) {
        self.gpu.queue.submit([enc.finish()]);
    }

    async fn read_f32(&self, buf: &wgpu::Buffer, n: usize) -> Result<Vec<f32>, String> {
        let mut v = self.gpu.read_f32(buf).await?;
        v.truncate(n);
        Ok(v)
    }

    /// Runs the decoder for the current rows; logits end in `batch.logits` as log-probs.
    fn decode_step(&mut self, tokens: &[u32], capture: bool) -> Result<(), String> {
        let b = self.batch.as_ref().ok_or("step before start")?;
        if tokens.len() != b.rows {
            return Err(format!("{} tokens for {} rows", tokens.len(), b.rows));
        }
        if b.position >= self.cfg.max_len {
            return Err(format!("output longer than the model's max_len {}", self.cfg.max_len));
        }
        let (d, r, t) = (self.cfg.d_model, b.rows, b.position);
        let heads = self.cfg.n_heads;
        self.gpu.queue.write_buffer(&b.tokens, 0, bytemuck::cast_slice(tokens));
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        self.k.embed(&self.gpu, &mut enc, &b.tokens, self.wt("embed.weight"), &self.positions, &b.x, r as u32, d as u32, 0, t as u32, (d as f32).sqrt());
        for l in 0..self.cfg.decoder_layers {
            let p = format!("decoder.{l}");
            self.norm(&mut enc, &format!("{p}.norm1"), &b.x, &b.h, r);
            self.linear(&mut enc, &format!("{p}.self_attn.q"), &b.h, &b.q, r, d, d, false);
            self.linear(&mut enc, &format!("{p}.self_attn.kv"), &b.h, &b.kv, r, d, 2 * d, false);
            self.k.kv_append(&self.gpu, &mut enc, &b.kv, &b.k_cache[l], &b.v_cache[l], r as u32, d as u32, self.cfg.max_len as u32, t as u32);
            let own = AttentionLayout { rows: r as u32, heads: heads as u32, dk: (d / heads) as u32, kv_len: self.cfg.max_len as u32, kv_stride: d as u32, k_off: 0, v_off: 0, fixed_len: t as u32 + 1, q_stride: d as u32 };
            self.k.attention(&self.gpu, &mut enc, &b.q, &b.k_cache[l], &b.v_cache[l], &b.index, &self.dummy, &b.att, &self.dummy_probs, own, false);
            self.linear(&mut enc, &format!("{p}.self_attn.o"), &b.att, &b.a, r, d, d, false);
            self.k.add(&self.gpu, &mut enc, &b.x, &b.a, (r * d) as u32);
            self.norm(&mut enc, &format!("{p}.norm2"), &b.x, &b.h, r);
            self.linear(&mut enc, &format!("{p}.cross_attn.q"), &b.h, &b.q, r, d, d, false);
            let cross = AttentionLayout { rows: r as u32, heads: heads as u32, dk: (d / heads) as u32, kv_len: b.s_max as u32, kv_stride: 2 * d as u32, k_off: 0, v_off: d as u32, fixed_len: 0, q_stride: d as u32 };
            self.k.attention(&self.gpu, &mut enc, &b.q, &b.cross_kv[l], &b.cross_kv[l], &b.row_source_buf, &b.lens, &b.att, &b.probs[l], cross, capture);
            self.linear(&mut enc, &format!("{p}.cross_attn.o"), &b.att, &b.a, r, d, d, false);
            self.k.add(&self.gpu, &mut enc, &b.x, &b.a, (r * d) as u32);
            self.ffn(&mut enc, &p, &format!("{p}.norm3"), &b.x, &b.h, &b.ff, &b.a, r);
        }
        self.norm(&mut enc, "decoder_norm", &b.x, &b.h, r);
        let v = self.cfg.vocab_size;
        self.k.matmul(&self.gpu, &mut enc, &b.h, self.wt("embed.weight"), &self.zero_vocab, &b.raw, r as u32, v as u32, d as u32, Act::None);
        self.k.softmax(&self.gpu, &mut enc, &b.raw, &b.logits, r as u32, v as u32, true);
        self.submit(enc);
        self.batch.as_mut().unwrap().position += 1;
        Ok(())
    }

    async fn attention_rows(&mut self, want: bool) -> Result<Option<Vec<Vec<f32>>>, String> {
        if !want {
            self.last_attention_full = None;
            return Ok(None);
        }
        let b = self.batch.as_ref().unwrap();
        let (heads, layers, s) = (self.cfg.n_heads, self.cfg.decoder_layers, b.s_max);
        let mut per_layer: Vec<Vec<f32>> = Vec::with_capacity(layers);
        for l in 0..layers {
            per_layer.push(self.read_f32(&b.probs[l], b.rows * heads * s).await?);
        }
        let mut full = Vec::with_capacity(b.rows);
        let mut mean = Vec::with_capacity(b.rows);
        for r in 0..b.rows {
            let len = b.source_lens[b.row_source[r] as usize];
            let rows_lh: Vec<Vec<Vec<f32>>> = (0..layers).map(|l| (0..heads).map(|h| per_layer[l][(r * heads + h) * s..(r * heads + h) * s + len].to_vec()).collect()).collect();
            let mut m = vec![0f32; len];
            for lh in rows_lh.iter().flatten() {
                m.iter_mut().zip(lh).for_each(|(a, x)| *a += x / (layers * heads) as f32);
            }
            mean.push(m);
            full.push(rows_lh);
        }
        self.last_attention_full = Some(full);
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
        let (d, heads) = (self.cfg.d_model, self.cfg.n_heads);
        let bsz = sources.len();
        let s_max = sources.iter().map(Vec::len).max().unwrap();
        let rows = bsz * s_max;
        let mut ids = vec![PAD_ID; rows];
        for (b, s) in sources.iter().enumerate() {
            ids[b * s_max..b * s_max + s.len()].copy_from_slice(s);
        }
        let lens: Vec<u32> = sources.iter().map(|s| s.len() as u32).collect();
        let lens_buf = self.gpu.storage_u32("source lengths", &lens);
        let enc_map: Vec<u32> = (0..rows).map(|r| (r / s_max) as u32).collect();
        let enc_map = self.gpu.storage_u32("encoder map", &enc_map);
        let tokens = self.gpu.storage_u32("source tokens", &ids);
        let [x, h, q, kv, att, a, ff, _, _] = self.scratch(rows);
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        self.k.embed(&self.gpu, &mut enc, &tokens, self.wt("embed.weight"), &self.positions, &x, rows as u32, d as u32, s_max as u32, 0, (d as f32).sqrt());
        let layout = AttentionLayout { rows: rows as u32, heads: heads as u32, dk: (d / heads) as u32, kv_len: s_max as u32, kv_stride: 2 * d as u32, k_off: 0, v_off: d as u32, fixed_len: 0, q_stride: d as u32 };
        for l in 0..self.cfg.encoder_layers {
            let p = format!("encoder.{l}");
            self.norm(&mut enc, &format!("{p}.norm1"), &x, &h, rows);
            self.linear(&mut enc, &format!("{p}.self_attn.q"), &h, &q, rows, d, d, false);
            self.linear(&mut enc, &format!("{p}.self_attn.kv"), &h, &kv, rows, d, 2 * d, false);
            self.k.attention(&self.gpu, &mut enc, &q, &kv, &kv, &enc_map, &lens_buf, &att, &self.dummy_probs, layout, false);
            self.linear(&mut enc, &format!("{p}.self_attn.o"), &att, &a, rows, d, d, false);
            self.k.add(&self.gpu, &mut enc, &x, &a, (rows * d) as u32);
            self.ffn(&mut enc, &p, &format!("{p}.norm2"), &x, &h, &ff, &a, rows);
        }
        self.norm(&mut enc, "encoder_norm", &x, &h, rows);
        let cross_kv: Vec<wgpu::Buffer> = (0..self.cfg.decoder_layers)
            .map(|l| {
                let buf = self.gpu.output("cross kv", (rows * 2 * d) as u64 * F);
                self.linear(&mut enc, &format!("decoder.{l}.cross_attn.kv"), &h, &buf, rows, d, 2 * d, false);
                buf
            })
            .collect();
        self.submit(enc);
        let cap = bsz;
        let (k_cache, v_cache, probs) = self.alloc_rows(cap, s_max);
        let [x, h, q, kv, att, a, ff, raw, logits] = self.scratch(cap);
        let row_source: Vec<u32> = (0..bsz as u32).collect();
        self.batch = Some(Batch {
            s_max,
            source_lens: sources.iter().map(Vec::len).collect(),
            lens: lens_buf,
            cross_kv,
            cap,
            rows: bsz,
            row_source_buf: self.gpu.storage_u32("row source", &row_source),
            index: self.gpu.storage_u32("row index", &row_source),
            row_source,
            k_cache,
            v_cache,
            tokens: self.gpu.storage_u32("tokens", &vec![0; cap]),
            x,
            h,
            q,
            kv,
            att,
            a,
            ff,
            raw,
            logits,
            best: self.gpu.output("best", (cap * 8) as u64),
            probs,
            position: 0,
        });
        Ok(())
    }

    async fn step(&mut self, tokens: &[u32], want_attention: bool) -> Result<StepOutput, String> {
        self.decode_step(tokens, want_attention)?;
        let b = self.batch.as_ref().unwrap();
        let log_probs = self.read_f32(&b.logits, b.rows * self.cfg.vocab_size).await?;
        let attention = self.attention_rows(want_attention).await?;
        Ok(StepOutput { log_probs, attention })
    }

    /// Greedy reads back one (token, log-prob) per row from the argmax kernel.
    async fn step_top_k(&mut self, tokens: &[u32], k: usize, want_attention: bool) -> Result<TopKOutput, String> {
        if k != 1 {
            let out = self.step(tokens, want_attention).await?;
            let v = self.cfg.vocab_size;
            return Ok(TopKOutput { candidates: out.log_probs.chunks(v).map(|row| wgslate_decode::top_k(row, k)).collect(), attention: out.attention });
        }
        self.decode_step(tokens, want_attention)?;
        let b = self.batch.as_ref().unwrap();
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        self.k.argmax(&self.gpu, &mut enc, &b.logits, &b.best, b.rows as u32, self.cfg.vocab_size as u32);
        self.submit(enc);
        let bytes = self.gpu.read(&b.best).await?;
        let words: &[u32] = bytemuck::cast_slice(&bytes);
        let candidates = (0..b.rows).map(|r| vec![(words[2 * r], f32::from_bits(words[2 * r + 1]))]).collect();
        let attention = self.attention_rows(want_attention).await?;
        Ok(TopKOutput { candidates, attention })
    }

    async fn select_rows(&mut self, rows: &[usize]) -> Result<(), String> {
        let (d, max_len) = (self.cfg.d_model, self.cfg.max_len);
        let grow = {
            let b = self.batch.as_ref().ok_or("select_rows before start")?;
            if let Some(&bad) = rows.iter().find(|&&r| r >= b.rows) {
                return Err(format!("row {bad} does not exist ({} rows)", b.rows));
            }
            rows.len() > b.cap
        };
        if grow {
            // Beam expansion: reallocate the per-row buffers once for the larger number of rows.
            let s_max = self.batch.as_ref().unwrap().s_max;
            let cap = rows.len();
            let (k_cache, v_cache, probs) = self.alloc_rows(cap, s_max);
            let [x, h, q, kv, att, a, ff, raw, logits] = self.scratch(cap);
            let tokens = self.gpu.storage_u32("tokens", &vec![0; cap]);
            let best = self.gpu.output("best", (cap * 8) as u64);
            let index = self.gpu.storage_u32("row index", &vec![0; cap]);
            let row_source_buf = self.gpu.storage_u32("row source", &vec![0; cap]);
            let b = self.batch.as_mut().unwrap();
            let old_k = std::mem::replace(&mut b.k_cache, k_cache);
            let old_v = std::mem::replace(&mut b.v_cache, v_cache);
            b.probs = probs;
            (b.x, b.h, b.q, b.kv, b.att, b.a, b.ff, b.raw, b.logits) = (x, h, q, kv, att, a, ff, raw, logits);
            (b.tokens, b.best, b.index, b.row_source_buf, b.cap) = (tokens, best, index, row_source_buf, cap);
            let b = self.batch.as_ref().unwrap();
            let idx: Vec<u32> = rows.iter().map(|&r| r as u32).collect();
            self.gpu.queue.write_buffer(&b.index, 0, bytemuck::cast_slice(&idx));
            let mut enc = self.gpu.device.create_command_encoder(&Default::default());
            for l in 0..self.cfg.decoder_layers {
                let len = (b.position * d) as u32;
                self.k.gather_rows(&self.gpu, &mut enc, &old_k[l], &b.index, &b.k_cache[l], rows.len() as u32, (max_len * d) as u32, len);
                self.k.gather_rows(&self.gpu, &mut enc, &old_v[l], &b.index, &b.v_cache[l], rows.len() as u32, (max_len * d) as u32, len);
            }
            self.submit(enc);
        } else {
            let b = self.batch.as_ref().unwrap();
            let idx: Vec<u32> = rows.iter().map(|&r| r as u32).collect();
            self.gpu.queue.write_buffer(&b.index, 0, bytemuck::cast_slice(&idx));
            if b.position > 0 {
                let tmp = self.gpu.output("gather tmp", (rows.len() * max_len * d) as u64 * F);
                let mut enc = self.gpu.device.create_command_encoder(&Default::default());
                for l in 0..self.cfg.decoder_layers {
                    for cache in [&b.k_cache[l], &b.v_cache[l]] {
                        self.k.gather_rows(&self.gpu, &mut enc, cache, &b.index, &tmp, rows.len() as u32, (max_len * d) as u32, (b.position * d) as u32);
                        enc.copy_buffer_to_buffer(&tmp, 0, cache, 0, (rows.len() * max_len * d) as u64 * F);
                    }
                }
                self.submit(enc);
            }
        }
        let b = self.batch.as_mut().unwrap();
        b.row_source = rows.iter().map(|&r| b.row_source[r]).collect();
        b.rows = rows.len();
        self.gpu.queue.write_buffer(&b.row_source_buf, 0, bytemuck::cast_slice(&b.row_source));
        // The self-attention map is the identity again after the gather.
        let identity: Vec<u32> = (0..b.rows as u32).collect();
        self.gpu.queue.write_buffer(&b.index, 0, bytemuck::cast_slice(&identity));
        Ok(())
    }
}

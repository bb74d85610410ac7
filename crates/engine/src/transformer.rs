//! The Transformer on the GPU: weights uploaded once, the encoder run once per batch, then one
//! decoder step per token with a self-attention K/V cache and cross K/V computed once. The step
//! loop, the output projection and the rows' bookkeeping are the [`GpuEngine`](crate::GpuEngine)'s.

use std::collections::HashMap;

use wgslate_model::quant::SCALE_SUFFIX;
use wgslate_model::weights::CheckedWeights;
use wgslate_model::TransformerConfig;

use crate::engine::{Architecture, Sources, StepIo, F};
use crate::kernels::{Act, AttentionLayout, CacheAppend, Kernels, Matrix, TokenSource};
use crate::layer::{DecoderLayer, LayerShape, LayerStep, LayerTensors, MATRICES};
use crate::record::{Pool, Recorder};
use crate::weights::{dense, stacked};
use crate::Gpu;

/// The per-row decoder buffers of the current batch (handles into the pool).
struct Rows {
    cap: usize,
    x: wgpu::Buffer,
    h: wgpu::Buffer,
    /// Self-attention's fused Q|K|V (rows × 3d), and cross-attention's query.
    qkv: wgpu::Buffer,
    q: wgpu::Buffer,
    att: wgpu::Buffer,
    ff: wgpu::Buffer,
    probs: Vec<wgpu::Buffer>,
}

/// What the encoder leaves for the decoder, and the decoder's state.
struct Batch {
    s_max: usize,
    cross_kv: Vec<wgpu::Buffer>,
    /// Self-attention caches, per layer K then V at each position; beam reordering gathers into the
    /// other set of the pair and flips.
    cache: Vec<wgpu::Buffer>,
    cache_set: usize,
    buf: Rows,
}

pub struct Transformer {
    gpu: Gpu,
    k: Kernels,
    cfg: TransformerConfig,
    w: HashMap<String, wgpu::Buffer>,
    /// Each decoder layer as one kernel, when the model's shape fits it (else the per-op kernels
    /// read the decoder's weights from `w`).
    layers: Vec<DecoderLayer>,
    positions: wgpu::Buffer,
    dummy: wgpu::Buffer,
    dummy_probs: wgpu::Buffer,
    batch: Option<Batch>,
}

impl Transformer {
    pub fn new(gpu: &Gpu, cfg: &TransformerConfig, weights: &CheckedWeights, k: &Kernels) -> Result<Self, String> {
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
            for p in ["norm1", "norm2", "self_attn.o", "ffn.up", "ffn.down"] {
                names.extend(lin(&format!("encoder.{i}.{p}")));
            }
        }
        let shape = LayerShape { d: cfg.d_model, d_ff: cfg.d_ff, heads: cfg.n_heads };
        let fused = k.params.fused_layers && shape.fits();
        for i in 0..cfg.decoder_layers {
            // The encoder's output goes through cross_attn.kv; the rest only a decoder step reads.
            names.extend(lin(&format!("decoder.{i}.cross_attn.kv")));
            if fused {
                continue;
            }
            for p in ["norm1", "norm2", "norm3", "self_attn.o", "cross_attn.q", "cross_attn.o", "ffn.up", "ffn.down"] {
                names.extend(lin(&format!("decoder.{i}.{p}")));
            }
        }
        let mut w = crate::weights::upload(gpu, weights, &names, &k.params)?;
        let layers = match fused {
            true => (0..cfg.decoder_layers)
                .map(|i| {
                    let last = i + 1 == cfg.decoder_layers;
                    let tensors = layer_tensors(weights, i, last, k.params.int8_block.is_some())?;
                    DecoderLayer::upload(gpu, &k.params, shape, &tensors)
                })
                .collect::<Result<Vec<_>, String>>()?,
            false => Vec::new(),
        };
        // Self-attention's Q and K|V products fused into one Q|K|V product over the same input.
        let stacks = (0..cfg.encoder_layers).map(|i| format!("encoder.{i}.self_attn"));
        let decoder_stacks = (0..cfg.decoder_layers).filter(|_| !fused).map(|i| format!("decoder.{i}.self_attn"));
        for p in stacks.chain(decoder_stacks) {
            for part in ["weight", "bias"] {
                let parts = [format!("{p}.q.{part}"), format!("{p}.kv.{part}")];
                w.extend(crate::weights::upload_stacked(gpu, weights, &format!("{p}.qkv.{part}"), &parts, &k.params)?);
            }
        }
        let pos = wgslate_model::layers::sinusoids(cfg.max_len, cfg.d_model, &wgslate_model::candle_core::Device::Cpu)
            .and_then(|t| t.flatten_all())
            .and_then(|t| t.to_vec1::<f32>())
            .map_err(|e| e.to_string())?;
        Ok(Self {
            gpu: gpu.clone(),
            k: k.clone(),
            cfg: cfg.clone(),
            positions: gpu.storage("positions", &pos),
            dummy: gpu.output("dummy", 16),
            dummy_probs: gpu.output("unused probabilities", 16),
            w,
            layers,
            batch: None,
        })
    }

    /// A weight matrix or embedding table, with its scales when the weights are int8.
    fn mat(&self, name: &str) -> Matrix<'_> {
        Matrix { values: &self.w[name], scales: self.w.get(&format!("{name}{SCALE_SUFFIX}")) }
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
        act: Act,
    ) {
        self.k.matmul(
            rec,
            x,
            self.mat(&format!("{prefix}.weight")),
            self.wt(&format!("{prefix}.bias")),
            y,
            rows as u32,
            n_out as u32,
            n_in as u32,
            act,
        );
    }

    /// `y += linear(attention(q))`, a decoder step's attention sub-layer after its query: one dispatch
    /// for a step's few rows (the attention in the product's prologue); with `probs` (captured
    /// weights) or more rows, the attention into `att`, then the product.
    #[allow(clippy::too_many_arguments)]
    fn attend_linear(
        &self,
        rec: &mut Recorder,
        linear: &str,
        q: &wgpu::Buffer,
        (kv, map, lengths): (&wgpu::Buffer, &wgpu::Buffer, &wgpu::Buffer),
        layout: AttentionLayout,
        (att, probs): (&wgpu::Buffer, Option<&wgpu::Buffer>),
        y: &wgpu::Buffer,
    ) {
        let (w, b) = (self.mat(&format!("{linear}.weight")), self.wt(&format!("{linear}.bias")));
        let n = (layout.heads * layout.dk) as usize;
        match probs {
            None => self.k.attention_matmul(
                rec,
                q,
                kv,
                (map, lengths),
                layout,
                [att, &self.dummy_probs],
                (w, b),
                y,
                n as u32,
                Act::Residual,
            ),
            Some(probs) => {
                self.k.attention(rec, q, kv, kv, map, lengths, att, probs, layout, true);
                self.linear(rec, linear, att, y, layout.rows as usize, n, n, Act::Residual);
            }
        }
    }

    /// `y = act(linear(norm(x)))`: one dispatch for a decoder step's few rows (the norm in the
    /// product's prologue); the norm into `h`, then the product, for more.
    #[allow(clippy::too_many_arguments)]
    fn norm_linear(
        &self,
        rec: &mut Recorder,
        (norm, linear): (&str, &str),
        x: &wgpu::Buffer,
        h: &wgpu::Buffer,
        y: &wgpu::Buffer,
        rows: usize,
        (n_in, n_out): (usize, usize),
        act: Act,
        cache: Option<CacheAppend>,
    ) {
        self.k.norm_matmul(
            rec,
            x,
            (self.wt(&format!("{norm}.weight")), self.wt(&format!("{norm}.bias"))),
            h,
            self.mat(&format!("{linear}.weight")),
            self.wt(&format!("{linear}.bias")),
            y,
            [rows as u32, n_out as u32, n_in as u32],
            act,
            cache,
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
        rows: usize,
    ) {
        let (d, dff) = (self.cfg.d_model, self.cfg.d_ff);
        self.norm_linear(rec, (norm, &format!("{prefix}.ffn.up")), x, h, ff, rows, (d, dff), Act::Relu, None);
        self.linear(rec, &format!("{prefix}.ffn.down"), ff, x, rows, dff, d, Act::Residual);
    }

    fn caches(&self, pool: &mut Pool, set: usize, cap: usize) -> Vec<wgpu::Buffer> {
        let bytes = (cap * self.cfg.max_len * 2 * self.cfg.d_model) as u64 * F;
        (0..self.cfg.decoder_layers).map(|l| pool.get(&self.gpu, &format!("kv cache {l}.{set}"), bytes)).collect()
    }

    fn rows(&self, pool: &mut Pool, cap: usize, s_max: usize) -> Rows {
        let (d, dff) = (self.cfg.d_model as u64, self.cfg.d_ff as u64);
        let c = cap as u64;
        let g = &self.gpu;
        let mut get = |name: &str, floats: u64| pool.get(g, name, floats * F);
        Rows {
            cap,
            x: get("x", c * d),
            h: get("h", c * d),
            qkv: get("qkv", c * 3 * d),
            q: get("q", c * d),
            att: get("att", c * d),
            ff: get("ff", c * dff),
            probs: (0..self.cfg.decoder_layers)
                .map(|l| get(&format!("probs {l}"), c * self.cfg.n_heads as u64 * s_max as u64))
                .collect(),
        }
    }
}

impl Architecture for Transformer {
    fn output_weight(&self) -> Matrix<'_> {
        self.mat("embed.weight")
    }
    fn output_width(&self) -> usize {
        self.cfg.d_model
    }

    fn record_step(
        &self,
        rec: &mut Recorder,
        io: &StepIo,
        tokens: TokenSource,
        t: usize,
        capture: bool,
    ) -> &wgpu::Buffer {
        let b = self.batch.as_ref().expect("the engine encodes before it steps");
        let (d, r, heads) = (self.cfg.d_model, io.rows, self.cfg.n_heads);
        let x = &b.buf;
        self.k.embed(
            rec,
            tokens,
            self.mat("embed.weight"),
            &self.positions,
            &x.x,
            r as u32,
            d as u32,
            0,
            t as u32,
            (d as f32).sqrt(),
        );
        if !self.layers.is_empty() {
            let step = LayerStep {
                rows: r as u32,
                t: t as u32,
                max_len: self.cfg.max_len as u32,
                s_max: io.s_max as u32,
                capture,
            };
            for (l, layer) in self.layers.iter().enumerate() {
                let (cache, cross, probs) = (&b.cache[l], &b.cross_kv[l], &x.probs[l]);
                self.k.decoder_layer(rec, layer, &x.x, cache, cross, io.row_source, io.lens, probs, step);
            }
            // The last layer leaves the final norm's output in x.
            return &x.x;
        }
        for l in 0..self.cfg.decoder_layers {
            let p = format!("decoder.{l}");
            let (norm1, qkv) = (format!("{p}.norm1"), format!("{p}.self_attn.qkv"));
            // The product's K and V columns also go to position t of the layer's caches.
            let cache = CacheAppend {
                cache: &b.cache[l],
                len: self.cfg.max_len as u32,
                t: t as u32,
                d: d as u32,
                off: d as u32,
            };
            self.norm_linear(rec, (&norm1, &qkv), &x.x, &x.h, &x.qkv, r, (d, 3 * d), Act::None, Some(cache));
            let own = AttentionLayout {
                rows: r as u32,
                heads: heads as u32,
                dk: (d / heads) as u32,
                kv_len: self.cfg.max_len as u32,
                kv_stride: 2 * d as u32,
                k_off: 0,
                v_off: d as u32,
                fixed_len: t as u32 + 1,
                q_stride: 3 * d as u32,
            };
            let own_kv = (&b.cache[l], io.identity, &self.dummy);
            self.attend_linear(rec, &format!("{p}.self_attn.o"), &x.qkv, own_kv, own, (&x.att, None), &x.x);
            let (norm2, cross_q) = (format!("{p}.norm2"), format!("{p}.cross_attn.q"));
            self.norm_linear(rec, (&norm2, &cross_q), &x.x, &x.h, &x.q, r, (d, d), Act::None, None);
            let cross = AttentionLayout {
                rows: r as u32,
                heads: heads as u32,
                dk: (d / heads) as u32,
                kv_len: io.s_max as u32,
                kv_stride: 2 * d as u32,
                k_off: 0,
                v_off: d as u32,
                fixed_len: 0,
                q_stride: d as u32,
            };
            let cross_kv = (&b.cross_kv[l], io.row_source, io.lens);
            let probs = capture.then_some(&x.probs[l]);
            self.attend_linear(rec, &format!("{p}.cross_attn.o"), &x.q, cross_kv, cross, (&x.att, probs), &x.x);
            self.ffn(rec, &p, &format!("{p}.norm3"), &x.x, &x.h, &x.ff, r);
        }
        self.norm(rec, "decoder_norm", &x.x, &x.h, r);
        &x.h
    }

    fn encode(&mut self, pool: &mut Pool, rec: &mut Recorder, src: &Sources) {
        let (d, heads, dff) = (self.cfg.d_model, self.cfg.n_heads, self.cfg.d_ff);
        let (bsz, s_max) = (src.rows, src.s_max);
        let n = bsz * s_max;
        let enc_map: Vec<u32> = (0..n).map(|r| (r / s_max) as u32).collect();
        let g = &self.gpu;
        let enc_map = pool.u32s(g, "encoder map", &enc_map);
        let rowsf = n as u64;
        let [x, h, qkv, att] = [("enc x", d), ("enc h", d), ("enc qkv", 3 * d), ("enc att", d)]
            .map(|(name, w)| pool.get(g, name, rowsf * w as u64 * F));
        let ff = pool.get(g, "enc ff", rowsf * dff as u64 * F);
        let cross_kv: Vec<wgpu::Buffer> = (0..self.cfg.decoder_layers)
            .map(|l| pool.get(g, &format!("cross kv {l}"), rowsf * 2 * d as u64 * F))
            .collect();
        self.k.embed(
            rec,
            TokenSource::ids(src.tokens),
            self.mat("embed.weight"),
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
            kv_stride: 3 * d as u32,
            k_off: d as u32,
            v_off: 2 * d as u32,
            fixed_len: 0,
            q_stride: 3 * d as u32,
        };
        for l in 0..self.cfg.encoder_layers {
            let p = format!("encoder.{l}");
            let (norm1, qkv_name) = (format!("{p}.norm1"), format!("{p}.self_attn.qkv"));
            self.norm_linear(rec, (&norm1, &qkv_name), &x, &h, &qkv, n, (d, 3 * d), Act::None, None);
            self.k.attention(rec, &qkv, &qkv, &qkv, &enc_map, src.lens, &att, &self.dummy_probs, layout, false);
            self.linear(rec, &format!("{p}.self_attn.o"), &att, &x, n, d, d, Act::Residual);
            self.ffn(rec, &p, &format!("{p}.norm2"), &x, &h, &ff, n);
        }
        self.norm(rec, "encoder_norm", &x, &h, n);
        for (l, buf) in cross_kv.iter().enumerate() {
            self.linear(rec, &format!("decoder.{l}.cross_attn.kv"), &h, buf, n, d, 2 * d, Act::None);
        }
        let cache = self.caches(pool, 0, bsz);
        let buf = self.rows(pool, bsz, s_max);
        self.batch = Some(Batch { s_max, cross_kv, cache, cache_set: 0, buf });
    }

    fn reorder(&mut self, pool: &mut Pool, rec: &mut Recorder, index: &wgpu::Buffer, rows: usize, position: usize) {
        let (d, max_len) = (self.cfg.d_model, self.cfg.max_len);
        let b = self.batch.as_ref().expect("the engine encodes before it reorders");
        let (cap, s_max, set) = (b.buf.cap, b.s_max, b.cache_set);
        // Beam expansion: the per-row buffers grow (in the pool) to the larger number of rows.
        let grown = (rows > cap).then(|| self.rows(pool, rows, s_max));
        let new = self.caches(pool, 1 - set, cap.max(rows));
        let b = self.batch.as_mut().unwrap();
        if position > 0 {
            let (width, len) = ((max_len * 2 * d) as u32, (position * 2 * d) as u32);
            for (old, new) in b.cache.iter().zip(&new) {
                self.k.gather_rows(rec, old, index, new, rows as u32, width, len);
            }
        }
        (b.cache, b.cache_set) = (new, 1 - set);
        if let Some(buf) = grown {
            b.buf = buf;
        }
    }

    fn fused(&self) -> bool {
        !self.layers.is_empty()
    }

    fn attention_maps(&self) -> (Vec<&wgpu::Buffer>, usize) {
        let b = self.batch.as_ref().expect("the engine encodes before it reads attention");
        (b.buf.probs.iter().collect(), self.cfg.n_heads)
    }
}

/// Decoder layer `i`'s tensors as [`DecoderLayer::upload`] takes them (int8 matrices where the
/// file holds them so and the kernels run int8; self-attention's Q and K|V stacked into Q|K|V),
/// the last layer with the final norm.
fn layer_tensors(weights: &CheckedWeights, i: usize, last: bool, int8: bool) -> Result<LayerTensors, String> {
    let p = format!("decoder.{i}");
    let parts = |m: &str, part: &str| -> Vec<String> {
        match m {
            "self_attn.qkv" => vec![format!("{p}.self_attn.q.{part}"), format!("{p}.self_attn.kv.{part}")],
            _ => vec![format!("{p}.{m}.{part}")],
        }
    };
    let dense = |names: &[String]| dense(weights, names);
    let mut matrices = Vec::new();
    let mut biases = Vec::new();
    for m in MATRICES {
        matrices.push(stacked(weights, &parts(m, "weight"), int8)?.0);
        biases.push(dense(&parts(m, "bias"))?);
    }
    let mut norm_names: Vec<String> = (1..=3).map(|j| format!("{p}.norm{j}")).collect();
    if last {
        norm_names.push("decoder_norm".into());
    }
    let norms = norm_names
        .iter()
        .map(|n| Ok((dense(&[format!("{n}.weight")])?, dense(&[format!("{n}.bias")])?)))
        .collect::<Result<Vec<_>, String>>()?;
    Ok(LayerTensors { matrices, biases, norms })
}

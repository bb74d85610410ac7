//! The GRU encoder-decoder with attention on the GPU: bidirectional encoder run once per batch
//! (padding masked), then one decoder step per token. Fused, the encoder's recurrence is one dispatch
//! (gru_encoder.wgsl) and a step one (gru_step.wgsl); per-op, the encoder runs a product and a cell
//! dispatch per position and direction and a step ten or eleven kernels.
//! The step loop and the rows' bookkeeping are the [`GpuEngine`](crate::GpuEngine)'s.

use std::collections::HashMap;

use wgslate_model::quant::SCALE_SUFFIX;
use wgslate_model::weights::CheckedWeights;
use wgslate_model::{AttentionScore, GruConfig};

use crate::engine::{Architecture, Sources, StepIo, F};
use crate::gru_step::{GruEncoder, GruStep, GruStepShape, GruStepTensors, MATRICES};
use crate::kernels::{Act, Kernels, Matrix, TokenSource};
use crate::record::{Pool, Recorder};
use crate::Gpu;

/// Per-row decoder buffers of the current batch (handles into the pool).
struct Rows {
    cap: usize,
    /// The decoder state: a per-op step reads one of the pair and writes the other, a fused step
    /// updates one in place (see [`Gru::hidden`]).
    hidden: [wgpu::Buffer; 2],
    /// The step's token embedding; the fused step leaves its output features here.
    emb: wgpu::Buffer,
    probs: wgpu::Buffer,
    /// Only the per-op step's (none with the fused step).
    per_op: Option<PerOpRows>,
}

/// The per-op step's intermediate rows: the attention query and context, the GRU's input and its two
/// products, and the output features before and after their product.
struct PerOpRows {
    q: wgpu::Buffer,
    ctx: wgpu::Buffer,
    input: wgpu::Buffer,
    xp: wgpu::Buffer,
    hp: wgpu::Buffer,
    features: wgpu::Buffer,
    o: wgpu::Buffer,
}

struct Batch {
    s_max: usize,
    memory: wgpu::Buffer,
    keys: wgpu::Buffer,
    /// Reorders so far: each gathers into the other hidden buffer, so the pair's roles flip.
    flips: usize,
    buf: Rows,
}

pub struct Gru {
    gpu: Gpu,
    k: Kernels,
    cfg: GruConfig,
    w: HashMap<String, wgpu::Buffer>,
    zeros: wgpu::Buffer,
    dummy: wgpu::Buffer,
    dummy_rw: wgpu::Buffer,
    /// The one-dispatch decoder step and encoder recurrence, where they run.
    fused: Option<Fused>,
    batch: Option<Batch>,
}

/// A GRU's fused kernels: its decoder step and its encoder's recurrence, one dispatch each.
struct Fused {
    step: GruStep,
    encoder: GruEncoder,
}

/// The one-dispatch step's shape for a model.
pub fn step_shape(cfg: &GruConfig) -> GruStepShape {
    GruStepShape {
        emb: cfg.emb_dim,
        mem: 2 * cfg.encoder_hidden,
        hidden: cfg.decoder_hidden,
        key_dim: key_dim(cfg),
        additive: cfg.score == AttentionScore::Additive,
    }
}

fn key_dim(cfg: &GruConfig) -> usize {
    match cfg.score {
        AttentionScore::Additive => cfg.attention_dim,
        AttentionScore::Dot => 2 * cfg.encoder_hidden,
        AttentionScore::General => cfg.decoder_hidden,
    }
}

/// The encoder's two directions, as the model file names them.
const DIRECTIONS: [&str; 2] = ["encoder.forward", "encoder.backward"];

/// The step's matrices and vectors as the model file holds them (int8 where the kernels run int8).
fn step_tensors(weights: &CheckedWeights, shape: GruStepShape, int8: bool) -> Result<GruStepTensors, String> {
    let dense = |name: &str| crate::weights::dense(weights, &[name.to_string()]);
    let count = if shape.additive { 4 } else { 3 };
    let matrices = MATRICES[..count]
        .iter()
        .map(|m| crate::weights::stacked(weights, &[m.to_string()], int8).map(|(data, _)| data))
        .collect::<Result<Vec<_>, String>>()?;
    Ok(GruStepTensors {
        matrices,
        b_ih: dense("decoder.b_ih")?,
        b_hh: dense("decoder.b_hh")?,
        b_out: dense("output.bias")?,
        v: if shape.additive { dense("attention.v")? } else { Vec::new() },
    })
}

impl Gru {
    pub fn new(gpu: &Gpu, cfg: &GruConfig, weights: &CheckedWeights, k: &Kernels) -> Result<Self, String> {
        // Every product's inner width is one of these or a sum of them.
        crate::kernels::vector_width_ok(&[
            ("emb_dim", cfg.emb_dim),
            ("encoder_hidden", cfg.encoder_hidden),
            ("decoder_hidden", cfg.decoder_hidden),
        ])?;
        let shape = step_shape(cfg);
        // A step that fits has an encoder that fits (memory = 2 × encoder hidden ≤ 512).
        let fused = k.has_fused_gru() && shape.fits();
        let mut names: Vec<String> = vec!["embed.weight".into(), "init.weight".into(), "init.bias".into()];
        if !fused {
            for p in DIRECTIONS {
                names.extend(["w_ih", "w_hh", "b_ih", "b_hh"].map(|n| format!("{p}.{n}")));
            }
        }
        match cfg.score {
            AttentionScore::Additive => names.extend(["attention.key.weight", "attention.key.bias"].map(String::from)),
            AttentionScore::General => names.push("attention.key.weight".into()),
            AttentionScore::Dot => {}
        }
        // What only a per-op decoder step reads.
        if !fused {
            names.extend(["output.weight", "output.bias"].map(String::from));
            names.extend(["w_ih", "w_hh", "b_ih", "b_hh"].map(|n| format!("decoder.{n}")));
            if cfg.score == AttentionScore::Additive {
                names.extend(["attention.query.weight", "attention.v"].map(String::from));
            }
        }
        let mut w = crate::weights::upload(gpu, weights, &names, &k.params)?;
        let fused = match fused {
            true => {
                // Both directions' input products as one product: [forward 3H | backward 3H] a position.
                for part in ["w_ih", "b_ih"] {
                    let parts = DIRECTIONS.map(|p| format!("{p}.{part}"));
                    let name = format!("encoder.{part}");
                    w.extend(crate::weights::upload_stacked(gpu, weights, &name, &parts, &k.params)?);
                }
                let int8 = k.params.int8_block.is_some();
                let w_hh = DIRECTIONS
                    .map(|p| crate::weights::stacked(weights, &[format!("{p}.w_hh")], int8).map(|(data, _)| data));
                let [w_f, w_b] = w_hh;
                let b_hh = DIRECTIONS.map(|p| crate::weights::dense(weights, &[format!("{p}.b_hh")]));
                let [b_f, b_b] = b_hh;
                let encoder = GruEncoder::upload(gpu, &k.params, cfg.encoder_hidden, [&w_f?, &w_b?], [&b_f?, &b_b?])?;
                let step = GruStep::upload(gpu, &k.params, shape, &step_tensors(weights, shape, int8)?)?;
                Some(Fused { step, encoder })
            }
            false => None,
        };
        let widest = cfg.emb_dim.max(cfg.attention_dim).max(cfg.decoder_hidden);
        Ok(Self {
            gpu: gpu.clone(),
            k: k.clone(),
            zeros: gpu.storage("zeros", &vec![0.0; widest]),
            dummy: gpu.output("dummy", 16),
            dummy_rw: gpu.output("dummy rw", 16),
            cfg: cfg.clone(),
            w,
            fused,
            batch: None,
        })
    }

    /// A weight matrix or embedding table, with its scales when the weights are int8.
    fn mat(&self, name: &str) -> Matrix<'_> {
        Matrix { values: &self.w[name], scales: self.w.get(&format!("{name}{SCALE_SUFFIX}")) }
    }

    fn wt(&self, n: &str) -> &wgpu::Buffer {
        &self.w[n]
    }

    fn key_dim(&self) -> usize {
        key_dim(&self.cfg)
    }

    fn rows(&self, pool: &mut Pool, cap: usize, s_max: usize) -> Rows {
        let c = &self.cfg;
        let (e, he, hd) = (c.emb_dim as u64, c.encoder_hidden as u64, c.decoder_hidden as u64);
        let r = cap as u64;
        let key_dim = self.key_dim() as u64;
        let g = &self.gpu;
        let mut out = |label: &str, n: u64| pool.get(g, label, n * F);
        let per_op = self.fused.is_none().then(|| PerOpRows {
            q: out("q", r * key_dim),
            ctx: out("context", r * 2 * he),
            input: out("input", r * (e + 2 * he)),
            xp: out("xp", r * 3 * hd),
            hp: out("hp", r * 3 * hd),
            features: out("features", r * (hd + 2 * he + e)),
            o: out("o", r * e),
        });
        Rows {
            cap,
            hidden: [out("hidden 0", r * hd), out("hidden 1", r * hd)],
            emb: out("emb", r * e),
            probs: out("probs", r * s_max as u64),
            per_op,
        }
    }

    /// The encoder's recurrence per op: a W_ih product per direction, then a W_hh product and a cell
    /// dispatch per position and direction.
    fn encode_per_op(
        &self,
        p: &mut Pool,
        rec: &mut Recorder,
        emb: &wgpu::Buffer,
        lens_buf: &wgpu::Buffer,
        memory: &wgpu::Buffer,
        (bsz, s_max): (usize, usize),
    ) {
        let (g, k) = (&self.gpu, &self.k);
        let (e, he) = (self.cfg.emb_dim as u32, self.cfg.encoder_hidden as u32);
        let n = (bsz * s_max) as u32;
        let (nf, bf) = (n as u64, bsz as u64);
        let xp = p.get(g, "encoder xp", nf * 3 * he as u64 * F);
        let hp = p.get(g, "encoder hp", bf * 3 * he as u64 * F);
        let mut h = p.get(g, "encoder h", bf * he as u64 * F);
        let mut h2 = p.get(g, "encoder h 2", bf * he as u64 * F);
        for (dir, name) in DIRECTIONS.iter().enumerate() {
            k.matmul(
                rec,
                emb,
                self.mat(&format!("{name}.w_ih")),
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
                    rec,
                    &h,
                    self.mat(&format!("{name}.w_hh")),
                    self.wt(&format!("{name}.b_hh")),
                    &hp,
                    bsz as u32,
                    3 * he,
                    he,
                    Act::None,
                );
                k.gru_cell(
                    rec,
                    &xp,
                    &hp,
                    &h,
                    lens_buf,
                    &h2,
                    memory,
                    [bsz as u32, he, s_max as u32, t as u32, 1, 2 * he, dir as u32 * he, s_max as u32],
                );
                std::mem::swap(&mut h, &mut h2);
            }
        }
    }

    /// Which of the hidden pair holds the state a step at `position` reads: a per-op step writes the
    /// other, a fused one the same; a reorder gathers into the other.
    fn hidden(&self, b: &Batch, position: usize) -> usize {
        match self.fused {
            Some(_) => b.flips % 2,
            None => (position + b.flips) % 2,
        }
    }
}

impl Architecture for Gru {
    fn output_weight(&self) -> Matrix<'_> {
        self.mat("embed.weight")
    }
    fn output_width(&self) -> usize {
        self.cfg.emb_dim
    }

    fn record_step(
        &self,
        rec: &mut Recorder,
        io: &StepIo,
        tokens: TokenSource,
        position: usize,
        capture: bool,
    ) -> &wgpu::Buffer {
        let b = self.batch.as_ref().expect("the engine encodes before it steps");
        let c = &self.cfg;
        let (e, he, hd, r) = (c.emb_dim as u32, c.encoder_hidden as u32, c.decoder_hidden as u32, io.rows as u32);
        let k = &self.k;
        let x = &b.buf;
        let set = self.hidden(b, position);
        let (h_in, h_out) = (&x.hidden[set], &x.hidden[1 - set]);
        k.embed(rec, tokens, self.mat("embed.weight"), &self.zeros, &x.emb, r, e, 0, 0, 1.0);
        if let Some(Fused { step, .. }) = &self.fused {
            let launch = (r, b.s_max as u32, capture);
            k.gru_step(rec, step, &x.emb, h_in, &b.keys, &b.memory, io.row_source, io.lens, &x.probs, launch);
            return &x.emb;
        }
        let (emb, probs) = (&x.emb, &x.probs);
        let x = x.per_op.as_ref().expect("a per-op GRU keeps the per-op step's rows");
        let (q, mode, v) = match c.score {
            AttentionScore::Additive => {
                k.matmul(
                    rec,
                    h_in,
                    self.mat("attention.query.weight"),
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
            io.row_source,
            io.lens,
            &x.ctx,
            probs,
            [r, b.s_max as u32, self.key_dim() as u32, 2 * he, mode, capture as u32],
        );
        let iw = e + 2 * he;
        k.copy_cols(rec, emb, &x.input, [r, e, e, 0, iw, 0]);
        k.copy_cols(rec, &x.ctx, &x.input, [r, 2 * he, 2 * he, 0, iw, e]);
        k.matmul(rec, &x.input, self.mat("decoder.w_ih"), self.wt("decoder.b_ih"), &x.xp, r, 3 * hd, iw, Act::None);
        k.matmul(rec, h_in, self.mat("decoder.w_hh"), self.wt("decoder.b_hh"), &x.hp, r, 3 * hd, hd, Act::None);
        k.gru_cell(rec, &x.xp, &x.hp, h_in, &self.dummy, h_out, &self.dummy_rw, [r, hd, 1, 0, 0, 0, 0, 1]);
        let fw = hd + 2 * he + e;
        k.copy_cols(rec, h_out, &x.features, [r, hd, hd, 0, fw, 0]);
        k.copy_cols(rec, &x.ctx, &x.features, [r, 2 * he, 2 * he, 0, fw, hd]);
        k.copy_cols(rec, emb, &x.features, [r, e, e, 0, fw, hd + 2 * he]);
        k.matmul(rec, &x.features, self.mat("output.weight"), self.wt("output.bias"), &x.o, r, e, fw, Act::Tanh);
        &x.o
    }

    fn encode(&mut self, pool: &mut Pool, rec: &mut Recorder, src: &Sources) {
        let c = self.cfg.clone();
        let (e, he, hd) = (c.emb_dim as u32, c.encoder_hidden as u32, c.decoder_hidden as u32);
        let (bsz, s_max) = (src.rows, src.s_max);
        let n = (bsz * s_max) as u32;
        let buf = self.rows(pool, bsz, s_max);
        let (g, p) = (&self.gpu, pool);
        let (lens_buf, tokens) = (src.lens, src.tokens);
        let (nf, bf) = (n as u64, bsz as u64);
        let emb = p.get(g, "source emb", nf * e as u64 * F);
        let memory = p.get(g, "memory", nf * 2 * he as u64 * F);
        let mean = p.get(g, "mean", bf * 2 * he as u64 * F);
        let keys = match c.score {
            AttentionScore::Additive => p.get(g, "keys", nf * c.attention_dim as u64 * F),
            AttentionScore::General => p.get(g, "keys", nf * hd as u64 * F),
            AttentionScore::Dot => memory.clone(),
        };
        let k = &self.k;
        k.embed(rec, TokenSource::ids(tokens), self.mat("embed.weight"), &self.zeros, &emb, n, e, 0, 0, 1.0);
        if let Some(Fused { encoder, .. }) = &self.fused {
            let xp = p.get(g, "encoder xp both", nf * 6 * he as u64 * F);
            let (w_ih, b_ih) = (self.mat("encoder.w_ih"), self.wt("encoder.b_ih"));
            k.matmul(rec, &emb, w_ih, b_ih, &xp, n, 6 * he, e, Act::None);
            k.gru_encoder(rec, encoder, &xp, lens_buf, &memory, (bsz as u32, s_max as u32));
        } else {
            self.encode_per_op(p, rec, &emb, lens_buf, &memory, (bsz, s_max));
        }
        k.masked_mean(rec, &memory, lens_buf, &mean, bsz as u32, s_max as u32, 2 * he);
        k.matmul(
            rec,
            &mean,
            self.mat("init.weight"),
            self.wt("init.bias"),
            &buf.hidden[0],
            bsz as u32,
            hd,
            2 * he,
            Act::Tanh,
        );
        match c.score {
            AttentionScore::Additive => k.matmul(
                rec,
                &memory,
                self.mat("attention.key.weight"),
                self.wt("attention.key.bias"),
                &keys,
                n,
                c.attention_dim as u32,
                2 * he,
                Act::None,
            ),
            AttentionScore::General => {
                k.matmul(rec, &memory, self.mat("attention.key.weight"), &self.zeros, &keys, n, hd, 2 * he, Act::None)
            }
            AttentionScore::Dot => {}
        }
        self.batch = Some(Batch { s_max, memory, keys, flips: 0, buf });
    }

    fn reorder(&mut self, pool: &mut Pool, rec: &mut Recorder, index: &wgpu::Buffer, rows: usize, position: usize) {
        let hd = self.cfg.decoder_hidden as u32;
        let b = self.batch.as_ref().expect("the engine encodes before it reorders");
        let set = self.hidden(b, position);
        // The state to gather from, kept before a beam expansion grows the per-row buffers.
        let current = b.buf.hidden[set].clone();
        let grown = (rows > b.buf.cap).then(|| self.rows(pool, rows, b.s_max));
        let b = self.batch.as_mut().unwrap();
        if let Some(buf) = grown {
            b.buf = buf;
        }
        self.k.gather_rows(rec, &current, index, &b.buf.hidden[1 - set], rows as u32, hd, hd);
        b.flips += 1;
    }

    fn fused(&self) -> bool {
        self.fused.is_some()
    }

    fn attention_maps(&self) -> (Vec<&wgpu::Buffer>, usize) {
        let b = self.batch.as_ref().expect("the engine encodes before it reads attention");
        (vec![&b.buf.probs], 1)
    }
}

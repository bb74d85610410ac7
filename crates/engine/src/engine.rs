//! The one GPU engine. It owns what every architecture shares: the step loop, the tied output
//! projection and log-softmax, the top-k readback, chained greedy submissions, beam reordering of
//! the rows, and the reuse of buffers ([`Pool`]) and dispatches ([`Sites`]). An [`Architecture`]
//! says only what differs: how to encode a batch, record one decoder step, and reorder its state.

use wgslate_decode::{AsyncStepModel, BeamChain, ChainedPicks, RankedSteps, StepOutput, TopKOutput};
use wgslate_model::config::{BOS_ID, EOS_ID, PAD_ID};
use wgslate_model::quant::{WeightFormat, PER_ROW};
use wgslate_model::weights::CheckedWeights;
use wgslate_model::ModelConfig;

use crate::kernels::{Act, KernelParams, Kernels, Matrix, TokenSource, MAX_DEVICE_BEAM, MAX_TOP_K};
use crate::record::{Pool, Recorder, Sites};
use crate::{Gpu, BEAM_STEPS_PER_SUBMIT, GREEDY_STEPS_PER_SUBMIT};

/// Bytes per f32.
pub(crate) const F: u64 = 4;

/// A padded batch of sources on the device.
pub struct Sources<'a> {
    pub rows: usize,
    pub s_max: usize,
    /// Token ids, rows × s_max, PAD after each source's end.
    pub tokens: &'a wgpu::Buffer,
    /// Each source's length (u32).
    pub lens: &'a wgpu::Buffer,
}

/// What a decoder step may read besides its own state.
pub struct StepIo<'a> {
    pub rows: usize,
    pub s_max: usize,
    /// The identity map 0..rows (u32).
    pub identity: &'a wgpu::Buffer,
    /// Each row's source (u32): rows of one source multiply under beam search.
    pub row_source: &'a wgpu::Buffer,
    pub lens: &'a wgpu::Buffer,
}

/// What differs between architectures; the [`GpuEngine`] does the rest.
pub trait Architecture {
    /// The tied output projection (vocab × width) applied to a step's features.
    fn output_weight(&self) -> Matrix<'_>;
    fn output_width(&self) -> usize;
    /// Records the encoder over `src` and prepares the decoder state of its rows.
    fn encode(&mut self, pool: &mut Pool, rec: &mut Recorder, src: &Sources);
    /// Records one decoder step at `position` reading `tokens`; returns the features (rows × width)
    /// the output projection reads. With `capture` the cross-attention weights are kept.
    fn record_step(
        &self,
        rec: &mut Recorder,
        io: &StepIo,
        tokens: TokenSource,
        position: usize,
        capture: bool,
    ) -> &wgpu::Buffer;
    /// Records keeping rows `index[0..rows]` of the decoder state (rows may exceed the current
    /// number: beam expansion), `position` steps into the output.
    fn reorder(&mut self, pool: &mut Pool, rec: &mut Recorder, index: &wgpu::Buffer, rows: usize, position: usize);
    /// The captured cross-attention weights: per layer a buffer of rows × heads × s_max, and heads.
    fn attention_maps(&self) -> (Vec<&wgpu::Buffer>, usize);
    /// Whether a decoder step runs fused kernels (one workgroup a row) rather than the per-op ones.
    fn fused(&self) -> bool {
        false
    }
}

/// The engine's own per-row buffers (handles: a clone is the same buffers).
#[derive(Clone)]
struct RowIo {
    cap: usize,
    tokens: wgpu::Buffer,
    raw: wgpu::Buffer,
    log_probs: wgpu::Buffer,
    /// Top-k candidates (index, value) of every step of one submission.
    cands: wgpu::Buffer,
    index: wgpu::Buffer,
    identity: wgpu::Buffer,
    row_source: wgpu::Buffer,
}

struct Batch {
    s_max: usize,
    source_lens: Vec<usize>,
    lens: wgpu::Buffer,
    rows: usize,
    row_source: Vec<u32>,
    position: usize,
    io: RowIo,
}

pub struct GpuEngine {
    gpu: Gpu,
    k: Kernels,
    pool: Pool,
    arch: Box<dyn Architecture>,
    vocab_size: usize,
    /// Positions the model takes (sources, and outputs with BOS).
    max_len: usize,
    zero_vocab: wgpu::Buffer,
    /// Dispatch sites of decoder steps (the hot path), of the encoder, and of row selection.
    pub step_sites: Sites,
    encoder_sites: Sites,
    select_sites: Sites,
    /// Dispatch sites of beam steps chosen on the device (each step the same sequence).
    beam_sites: Sites,
    staging: Option<wgpu::Buffer>,
    batch: Option<Batch>,
}

impl GpuEngine {
    /// The engine for a model, with the device's preferred kernels (f16 weights when shader-f16
    /// exists): the one place that maps a model to its architecture.
    pub fn new(gpu: &Gpu, config: &ModelConfig, weights: &CheckedWeights) -> Result<Self, String> {
        Self::with_params(gpu, config, weights, KernelParams::for_gpu(gpu))
    }

    pub fn with_params(
        gpu: &Gpu,
        config: &ModelConfig,
        weights: &CheckedWeights,
        params: KernelParams,
    ) -> Result<Self, String> {
        crate::kernels::sequence_length_ok(config.max_len())?;
        // An int8 file runs the int8 kernels: they widen each weight exactly as the CPU reference
        // dequantises it.
        let int8_block = match weights.format() {
            WeightFormat::F16 => None,
            WeightFormat::Int8 { block: PER_ROW } => Some(0),
            WeightFormat::Int8 { block } => Some(block as u32),
        };
        let k = Kernels::new(gpu, KernelParams { int8_block, ..params })?;
        let arch: Box<dyn Architecture> = match config {
            ModelConfig::Transformer(c) => Box::new(crate::transformer::Transformer::new(gpu, c, weights, &k)?),
            ModelConfig::Gru(c) => Box::new(crate::gru::Gru::new(gpu, c, weights, &k)?),
        };
        Ok(Self {
            gpu: gpu.clone(),
            zero_vocab: gpu.storage("zero bias", &vec![0.0; config.vocab_size()]),
            vocab_size: config.vocab_size(),
            max_len: config.max_len(),
            k,
            pool: Pool::default(),
            arch,
            step_sites: Sites::default(),
            encoder_sites: Sites::default(),
            select_sites: Sites::default(),
            beam_sites: Sites::default(),
            staging: None,
            batch: None,
        })
    }

    /// Scratch buffers, and uniforms plus bind groups of every recorded sequence (encoder, steps,
    /// reorders, device beam steps), created so far (tests check they stop growing).
    pub fn objects_created(&self) -> (usize, usize) {
        let sites = [&self.step_sites, &self.encoder_sites, &self.select_sites, &self.beam_sites];
        (self.pool.created, sites.iter().map(|s| s.objects_created).sum())
    }

    /// Whether its decoder steps run fused kernels, one workgroup a row ([`KernelParams::fused_layers`]
    /// and `fused_gru_step`, where the model's shape fits them).
    pub fn fused(&self) -> bool {
        self.arch.fused()
    }

    /// Whether its per-op attention runs in the output product ([`KernelParams::fused_attention`],
    /// where the device has the kernel's workgroup memory).
    pub fn fused_attention(&self) -> bool {
        !self.fused() && self.k.has_fused_attention()
    }

    /// The device the engine runs on (its counts: [`Gpu::cost`]).
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Bytes of the scratch buffers the engine holds (its pool and the readback buffer), besides
    /// the weights: what could grow from one translation to the next.
    pub fn scratch_bytes(&self) -> u64 {
        self.pool.bytes() + self.staging.as_ref().map_or(0, wgpu::Buffer::size)
    }

    fn row_io(&mut self, cap: usize) -> RowIo {
        let (g, p) = (&self.gpu, &mut self.pool);
        let (c, v) = (cap as u64, self.vocab_size as u64);
        let per_submit = GREEDY_STEPS_PER_SUBMIT.max(MAX_TOP_K) as u64;
        let identity: Vec<u32> = (0..cap as u32).collect();
        RowIo {
            cap,
            tokens: p.get(g, "tokens", c * 4),
            raw: p.get(g, "raw logits", c * v * F),
            log_probs: p.get(g, "log-probs", c * v * F),
            cands: p.get(g, "candidates", c * per_submit * 8),
            index: p.get(g, "row index", c * 4),
            identity: p.u32s(g, "identity", &identity),
            row_source: p.get(g, "row source", c * 4),
        }
    }

    /// The host's side of keeping rows `rows` (a row may repeat: beam expansion): the per-row
    /// buffers grown where needed, the rows written to `io.index` for the reorder to gather by, and
    /// each row's source. The caller records the reorder.
    fn keep_rows(&mut self, rows: &[usize]) -> Result<(), String> {
        let cap = {
            let b = self.batch.as_ref().ok_or("rows kept before start")?;
            if let Some(&bad) = rows.iter().find(|&&r| r >= b.rows) {
                return Err(format!("row {bad} does not exist ({} rows)", b.rows));
            }
            b.io.cap
        };
        if rows.len() > cap {
            // Beam expansion: the per-row buffers grow (in the pool) to the larger number of rows.
            let io = self.row_io(rows.len());
            self.batch.as_mut().unwrap().io = io;
        }
        let b = self.batch.as_mut().unwrap();
        let idx: Vec<u32> = rows.iter().map(|&r| r as u32).collect();
        self.gpu.write(&b.io.index, &idx);
        b.row_source = rows.iter().map(|&r| b.row_source[r]).collect();
        b.rows = rows.len();
        self.gpu.write(&b.io.row_source, &b.row_source);
        Ok(())
    }

    /// Runs `steps` decoder steps in one submission, feeding `tokens` first and then each row's
    /// best candidate of the step before; with k > 0 each step's top-k go to `io.cands`
    /// (step s, row r, rank j at pair (s·rows + r)·k + j).
    fn run_steps(&mut self, tokens: &[u32], steps: usize, k: usize, capture: bool) -> Result<(), String> {
        let b = self.batch.as_ref().ok_or("step before start")?;
        if tokens.len() != b.rows {
            return Err(format!("{} tokens for {} rows", tokens.len(), b.rows));
        }
        if b.position + steps > self.max_len {
            return Err(format!("output longer than the model's max_len {}", self.max_len));
        }
        let (rows, v) = (b.rows as u32, self.vocab_size as u32);
        self.gpu.write(&b.io.tokens, tokens);
        let io = StepIo {
            rows: b.rows,
            s_max: b.s_max,
            identity: &b.io.identity,
            row_source: &b.io.row_source,
            lens: &b.lens,
        };
        let mut rec = Recorder::new(&self.gpu, &mut self.step_sites);
        for s in 0..steps {
            let input = if s == 0 {
                TokenSource::ids(&b.io.tokens)
            } else {
                TokenSource {
                    buffer: &b.io.cands,
                    stride: 2 * k as u32,
                    offset: 2 * ((s - 1) as u32 * rows * k as u32),
                }
            };
            let features = self.arch.record_step(&mut rec, &io, input, b.position + s, capture);
            record_log_probs(&self.k, &*self.arch, &self.zero_vocab, &mut rec, features, &b.io, rows, v);
            if k > 0 {
                let kern = &self.k;
                kern.top_k(&mut rec, &b.io.log_probs, &b.io.cands, rows, v, k as u32, s as u32 * rows * k as u32);
            }
        }
        rec.submit();
        self.gpu.count(|c| c.decoder_steps += steps as u64);
        self.batch.as_mut().unwrap().position += steps;
        Ok(())
    }

    /// Reads back `steps × rows × k` candidates written by `run_steps`.
    async fn read_candidates(&mut self, steps: usize, k: usize) -> Result<Vec<(u32, f32)>, String> {
        let b = self.batch.as_ref().unwrap();
        self.gpu.read_candidates(&mut self.staging, &b.io.cands, steps * b.rows * k).await
    }

    /// Per row, the cross-attention over its source averaged over layers and heads (as the CPU
    /// reference's step reports it).
    async fn attention_rows(&mut self, want: bool) -> Result<Option<Vec<Vec<f32>>>, String> {
        if !want {
            return Ok(None);
        }
        let b = self.batch.as_ref().unwrap();
        let (maps, heads) = self.arch.attention_maps();
        let (layers, s) = (maps.len(), b.s_max);
        let mut mean: Vec<Vec<f32>> =
            (0..b.rows).map(|r| vec![0f32; b.source_lens[b.row_source[r] as usize]]).collect();
        for map in maps {
            let probs = self.gpu.read_f32_prefix(&mut self.staging, map, b.rows * heads * s).await?;
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

impl GpuEngine {
    /// [`AsyncStepModel::beam_steps`]: keeps the rows `c.parents`, then runs up to
    /// BEAM_STEPS_PER_SUBMIT steps in one submission, each choosing its beam on the device
    /// (beam_select.wgsl) and reordering the decoder state by it before the next; reads back only
    /// the ranked candidates, in the same submission.
    async fn run_beam_chain(&mut self, c: &BeamChain<'_>) -> Result<Option<RankedSteps>, String> {
        let rows = c.parents.len();
        let fits = (1..=MAX_DEVICE_BEAM).contains(&c.beam)
            && (1..=MAX_TOP_K).contains(&c.k)
            && c.k <= self.vocab_size
            && rows > 0
            && rows.is_multiple_of(c.beam)
            && c.tokens.len() == rows
            && c.log_probs.len() == rows;
        if !fits {
            return Ok(None);
        }
        let position = self.batch.as_ref().ok_or("beam steps before start")?.position;
        let room = self.max_len.saturating_sub(position);
        if room == 0 {
            return Err(format!("output longer than the model's max_len {}", self.max_len));
        }
        let steps = c.max_steps.min(BEAM_STEPS_PER_SUBMIT).min(room).max(1);
        // Rows stay with their sentence through the chain: the map to sources changes only here.
        self.keep_rows(c.parents)?;
        let (slots, k, v) = (rows / c.beam, c.k, self.vocab_size as u32);
        let rows_at = steps * slots * 2 * c.beam * 4;
        let (g, p) = (&self.gpu, &mut self.pool);
        let log = p.get(g, "beam log", ((rows_at + (steps + 1) * rows * 4) * 4) as u64);
        let cands = p.get(g, "beam candidates", (steps * rows * k * 8) as u64);
        let first: Vec<u32> = c.tokens.iter().zip(c.log_probs).flat_map(|(&t, &l)| [0, t, 0, l.to_bits()]).collect();
        g.write_at(&log, rows_at as u64, &first);
        let b = self.batch.as_ref().unwrap();
        let (io_bufs, lens, s_max) = (b.io.clone(), b.lens.clone(), b.s_max);
        let step_io = StepIo { rows, s_max, identity: &io_bufs.identity, row_source: &io_bufs.row_source, lens: &lens };
        let mut rec = Recorder::new(&self.gpu, &mut self.beam_sites);
        for s in 0..steps {
            self.arch.reorder(&mut self.pool, &mut rec, &io_bufs.index, rows, position + s);
            let input = TokenSource { buffer: &log, stride: 4, offset: (rows_at + s * rows * 4 + 1) as u32 };
            let features = self.arch.record_step(&mut rec, &step_io, input, position + s, false);
            let (r, kk) = (rows as u32, k as u32);
            record_log_probs(&self.k, &*self.arch, &self.zero_vocab, &mut rec, features, &io_bufs, r, v);
            self.k.top_k(&mut rec, &io_bufs.log_probs, &cands, r, v, kk, s as u32 * r * kk);
            let dims = [r, c.beam as u32, kk, EOS_ID, s as u32, slots as u32, s as u32 * r * kk, rows_at as u32];
            self.k.beam_select(&mut rec, &cands, &log, &io_bufs.index, dims);
        }
        let size = self.gpu.stage(&mut self.staging, rec.encoder(), &log, (rows_at * 4) as u64);
        rec.submit();
        self.gpu.count(|c| c.decoder_steps += steps as u64);
        self.batch.as_mut().unwrap().position += steps;
        let bytes = self.gpu.read_staged(&self.staging, size).await?;
        let words: &[u32] = bytemuck::cast_slice(&bytes);
        let entries = |s: usize, slot: usize| {
            let at = (s * slots + slot) * 2 * c.beam * 4;
            words[at..at + 2 * c.beam * 4]
                .chunks(4)
                .filter(|e| e[1] != u32::MAX)
                .map(|e| (f32::from_bits(e[3]), e[0] as usize, e[1], f32::from_bits(e[2])))
                .collect()
        };
        Ok(Some((0..steps).map(|s| (0..slots).map(|slot| entries(s, slot)).collect()).collect()))
    }
}

/// The tied output projection of a step's features and its log-softmax, into `io.log_probs`.
#[allow(clippy::too_many_arguments)]
fn record_log_probs(
    kernels: &Kernels,
    arch: &dyn Architecture,
    zero_bias: &wgpu::Buffer,
    rec: &mut Recorder,
    features: &wgpu::Buffer,
    io: &RowIo,
    rows: u32,
    vocab: u32,
) {
    let width = arch.output_width() as u32;
    kernels.matmul(rec, features, arch.output_weight(), zero_bias, &io.raw, rows, vocab, width, Act::None);
    kernels.softmax(rec, &io.raw, &io.log_probs, rows, vocab, true);
}

impl AsyncStepModel for GpuEngine {
    fn vocab_size(&self) -> usize {
        self.vocab_size
    }
    fn bos(&self) -> u32 {
        BOS_ID
    }
    fn eos(&self) -> u32 {
        EOS_ID
    }
    fn max_output_len(&self) -> usize {
        self.max_len - 1
    }

    async fn start(&mut self, sources: &[Vec<u32>]) -> Result<(), String> {
        if sources.is_empty() {
            return Err("no sources".into());
        }
        let max = self.max_len;
        if let Some(s) = sources.iter().find(|s| s.len() > max || s.is_empty()) {
            return Err(format!("source has {} tokens; the model takes 1 to {max}", s.len()));
        }
        let rows = sources.len();
        let s_max = sources.iter().map(Vec::len).max().unwrap();
        let mut ids = vec![PAD_ID; rows * s_max];
        for (b, s) in sources.iter().enumerate() {
            ids[b * s_max..b * s_max + s.len()].copy_from_slice(s);
        }
        let lens: Vec<u32> = sources.iter().map(|s| s.len() as u32).collect();
        let (g, p) = (&self.gpu, &mut self.pool);
        let lens_buf = p.u32s(g, "source lengths", &lens);
        let tokens = p.u32s(g, "source tokens", &ids);
        let io = self.row_io(rows);
        let mut rec = Recorder::new(&self.gpu, &mut self.encoder_sites);
        let src = Sources { rows, s_max, tokens: &tokens, lens: &lens_buf };
        self.arch.encode(&mut self.pool, &mut rec, &src);
        rec.submit();
        let row_source: Vec<u32> = (0..rows as u32).collect();
        self.gpu.write(&io.row_source, &row_source);
        self.batch = Some(Batch {
            s_max,
            source_lens: sources.iter().map(Vec::len).collect(),
            lens: lens_buf,
            rows,
            row_source,
            position: 0,
            io,
        });
        Ok(())
    }

    async fn step(&mut self, tokens: &[u32], want_attention: bool) -> Result<StepOutput, String> {
        self.run_steps(tokens, 1, 0, want_attention)?;
        let b = self.batch.as_ref().unwrap();
        let n = b.rows * self.vocab_size;
        let log_probs = self.gpu.read_f32_prefix(&mut self.staging, &b.io.log_probs, n).await?;
        let attention = self.attention_rows(want_attention).await?;
        Ok(StepOutput { log_probs, attention })
    }

    /// Selects the k best on the device and reads back only those (k ≤ MAX_TOP_K).
    async fn step_top_k(&mut self, tokens: &[u32], k: usize, want_attention: bool) -> Result<TopKOutput, String> {
        if k == 0 || k > MAX_TOP_K {
            let out = self.step(tokens, want_attention).await?;
            let v = self.vocab_size;
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
        let room = self.max_len.saturating_sub(position);
        let steps = max_steps.min(GREEDY_STEPS_PER_SUBMIT).min(room).max(1);
        self.run_steps(tokens, steps, 1, false)?;
        let cands = self.read_candidates(steps, 1).await?;
        Ok(Some(crate::per_row(&cands, tokens.len(), steps)))
    }

    async fn beam_steps(&mut self, chain: &BeamChain<'_>) -> Result<Option<RankedSteps>, String> {
        self.run_beam_chain(chain).await
    }

    async fn select_rows(&mut self, rows: &[usize]) -> Result<(), String> {
        self.keep_rows(rows)?;
        let b = self.batch.as_ref().unwrap();
        let mut rec = Recorder::new(&self.gpu, &mut self.select_sites);
        self.arch.reorder(&mut self.pool, &mut rec, &b.io.index, rows.len(), b.position);
        rec.submit();
        Ok(())
    }
}

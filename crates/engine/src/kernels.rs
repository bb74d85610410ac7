//! The compute pipelines of `shaders/` and their launch parameters (one place for both: the shaders
//! read them as override constants).

use crate::gpu::Gpu;
use crate::record::Recorder;

/// What matmul.wgsl does with each output after adding the bias.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    None = 0,
    Relu = 1,
    Tanh = 2,
    /// Adds it to what y holds: a sub-layer's residual add fused into its last product.
    Residual = 3,
}

/// Rows per matvec.wgsl workgroup: its per-thread accumulator is one vec4.
const MATVEC_ROWS: u32 = 4;

/// The largest k topk.wgsl selects per row; beam search asks for 2 × beam width.
pub const MAX_TOP_K: usize = 32;

/// The widest beam beam_select.wgsl chooses (its candidates, beam × k, fit 512 bits).
pub const MAX_DEVICE_BEAM: usize = 16;

/// The longest key sequence the attention kernels attend over (scores.wgsl's and matvec_attend.wgsl's
/// `MAX_KEYS`; a test keeps them equal).
pub const MAX_KEYS: usize = 256;

/// Refuses, when the engine is built, a model whose sources or outputs could be longer than the
/// attention kernels take (they would otherwise clamp the keys without a word).
pub fn sequence_length_ok(max_len: usize) -> Result<(), String> {
    if max_len > MAX_KEYS {
        return Err(format!("the GPU engine attends over at most {MAX_KEYS} positions but this model's max_len is {max_len}; use the CPU backend for this model"));
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KernelParams {
    /// Side of the square output tile of matmul.wgsl (workgroup TILE×TILE; at most 16).
    pub matmul_tile: u32,
    /// Products with at most this many rows (decoder steps) run matvec.wgsl instead of matmul.wgsl.
    pub matvec_max_rows: u32,
    /// matvec.wgsl: threads sharing one output column's dot products, and columns per workgroup
    /// (LANES·COLS ≤ 256).
    pub matvec_lanes: u32,
    pub matvec_cols: u32,
    /// Workgroup size of the row kernels (softmax, layernorm, topk); a power of two ≤ 256.
    pub row_workgroup: u32,
    /// A Transformer decoder layer runs as one kernel (decoder_layer.wgsl) where the model's shape
    /// fits it; off, a step runs the per-op kernels (tests compare the two). The layer kernel gives
    /// a row one workgroup: on a CPU adapter that costs nothing, but at batch 1 a hardware GPU then
    /// runs the layer on one of its cores (docs/engine.md, "The floor").
    pub fused_layers: bool,
    /// A GRU decoder step runs as one kernel (gru_step.wgsl) where the model's shape fits it and the
    /// device binds its buffers; off (the default), the per-op kernels.
    pub fused_gru_step: bool,
    /// In a per-op Transformer step, each attention runs in its output product's prologue
    /// (matvec_attend.wgsl): 6 dispatches a layer instead of 8, every workgroup of the product
    /// computing the attention again. Off by default: on lavapipe it is slower (docs/engine.md,
    /// "Which step runs"), and a hardware GPU has not run it yet (`wgslate bench --layers per-op-attention`).
    pub fused_attention: bool,
    /// LayerNorm epsilon; the same value as the candle reference (wgslate_model::ops::LAYER_NORM_EPS).
    pub layer_norm_eps: f32,
    /// Weight matrices and embedding tables stay f16 on the device (needs the shader-f16 feature);
    /// the shaders widen each weight to f32 before multiplying, so results equal the f32 path.
    pub f16_weights: bool,
    /// int8 weight matrices and tables (packed four to a u32) with f32 scales, one per this many
    /// values of a row (Some(0): one per row); None for f32 / f16 weights. The engine sets it
    /// from the model file.
    pub int8_block: Option<u32>,
}

impl Default for KernelParams {
    fn default() -> Self {
        Self {
            matmul_tile: 16,
            matvec_max_rows: 8,
            matvec_lanes: 8,
            matvec_cols: 32,
            row_workgroup: 64,
            fused_layers: true,
            fused_gru_step: false,
            fused_attention: false,
            layer_norm_eps: 1e-5,
            f16_weights: false,
            int8_block: None,
        }
    }
}

impl KernelParams {
    /// The defaults, with f16 weights when the device has shader-f16. On a CPU adapter (lavapipe,
    /// SwiftShader) every product runs matvec.wgsl: there the tiled kernel's workgroup-memory
    /// staging is slower at every size measured (`kernel_bench`, lavapipe: 40×256·8000, 900 ms vs 415 ms);
    /// and only there a Transformer's decoder layers run fused, which a hardware GPU ran slower
    /// than its CPU at batch 1 (docs/benchmarks.md, "On a real GPU"). A GRU's fused step is slower
    /// than its per-op kernels on lavapipe (docs/engine.md) and not measured on a hardware GPU, so
    /// it is off; on a hardware adapter the page and the CLI time both paths (`layer_probe`).
    pub fn for_gpu(gpu: &Gpu) -> Self {
        let cpu_adapter = gpu.report.device_type == wgpu::DeviceType::Cpu;
        let matvec_max_rows = if cpu_adapter { u32::MAX } else { Self::default().matvec_max_rows };
        Self {
            f16_weights: gpu.has_f16(),
            matvec_max_rows,
            fused_layers: cpu_adapter,
            fused_gru_step: false,
            ..Self::default()
        }
    }

    /// With every architecture's decoder step fused (one workgroup a row) or per-op.
    pub fn with_fused_steps(self, fused: bool) -> Self {
        Self { fused_layers: fused, fused_gru_step: fused, ..self }
    }
}

#[derive(Clone)]
pub struct Kernels {
    pub params: KernelParams,
    matmul: wgpu::ComputePipeline,
    matvec: wgpu::ComputePipeline,
    matvec_norm: wgpu::ComputePipeline,
    matvec_norm_kv: wgpu::ComputePipeline,
    /// Compiled only with `fused_attention`.
    matvec_attend: Option<wgpu::ComputePipeline>,
    softmax: wgpu::ComputePipeline,
    layernorm: wgpu::ComputePipeline,
    topk: wgpu::ComputePipeline,
    embed: wgpu::ComputePipeline,
    attention: wgpu::ComputePipeline,
    kv_append: wgpu::ComputePipeline,
    gather: wgpu::ComputePipeline,
    gru_cell: wgpu::ComputePipeline,
    gru_attention: wgpu::ComputePipeline,
    masked_mean: wgpu::ComputePipeline,
    copy_cols: wgpu::ComputePipeline,
    /// Compiled only for the fused steps: with `fused_layers`, and with `fused_gru_step` where the
    /// device binds gru_step.wgsl's 9 storage buffers (the GRU's step, then its encoder).
    decoder_layer: Option<wgpu::ComputePipeline>,
    gru_fused: Option<[wgpu::ComputePipeline; 2]>,
    beam_select: wgpu::ComputePipeline,
}

/// Where attention finds its keys and values, and how many (see attention.wgsl).
#[derive(Debug, Clone, Copy)]
pub struct AttentionLayout {
    pub rows: u32,
    pub heads: u32,
    pub dk: u32,
    /// Positions per memory row in the K/V buffers.
    pub kv_len: u32,
    /// Floats per position in the K/V buffers.
    pub kv_stride: u32,
    pub k_off: u32,
    pub v_off: u32,
    /// Keys attended by every row (0: per-row lengths[map[r]]).
    pub fixed_len: u32,
    /// Floats per query row.
    pub q_stride: u32,
}

/// A weight matrix or embedding table on the device: its values, and with int8 weights the
/// buffer of their scales.
#[derive(Clone, Copy)]
pub struct Matrix<'a> {
    pub values: &'a wgpu::Buffer,
    pub scales: Option<&'a wgpu::Buffer>,
}

impl<'a> From<&'a wgpu::Buffer> for Matrix<'a> {
    fn from(values: &'a wgpu::Buffer) -> Self {
        Self { values, scales: None }
    }
}

/// The element type of dense weights: f16 where they stay f16 on the device, else f32.
fn dense_weight_type(params: &KernelParams) -> &'static str {
    if params.f16_weights {
        "enable f16;\nalias W = f16;\n"
    } else {
        "alias W = f32;\n"
    }
}

/// int8 weights, four values per u32 (`pack_int8`), value j in bits 8j..8j+8: one of them, and a
/// word's four, as f32.
const INT8_UNPACK: &str = "fn int8_at(word: u32, j: u32) -> f32 { return f32(bitcast<i32>(word << (24u - 8u * j)) >> 24u); }
fn int8x4(word: u32) -> vec4<f32> { return vec4<f32>(int8_at(word, 0u), int8_at(word, 1u), int8_at(word, 2u), int8_at(word, 3u)); }
";

/// The declarations of the weights (binding 1, and with int8 the scales at binding 4) and of the
/// launch parameters (the binding after the last buffer) that matmul.wgsl and matvec.wgsl
/// (`weights4`) and embed.wgsl (`table_value`) read through.
fn weight_prelude(params: &KernelParams, embed: bool) -> String {
    let Some(block) = params.int8_block else {
        let ty = dense_weight_type(params);
        let access = if embed {
            "@group(0) @binding(1) var<storage, read> table: array<W>;
fn table_value(token: u32, i: u32) -> f32 { return f32(table[token * dims.d + i]); }"
        } else {
            "@group(0) @binding(1) var<storage, read> w: array<vec4<W>>;
fn weights4(row: u32, kv: u32, k4: u32) -> vec4<f32> { return vec4<f32>(w[row * k4 + kv]); }"
        };
        return format!("{ty}{access}\n@group(0) @binding(4) var<uniform> dims: Dims;\n");
    };
    let access = if embed {
        "@group(0) @binding(1) var<storage, read> table: array<u32>;
fn table_value(token: u32, i: u32) -> f32 {
    let idx = token * dims.d + i;
    return int8_at(table[idx / 4u], idx % 4u) * scale_at(token, dims.d, i);
}"
    } else {
        "@group(0) @binding(1) var<storage, read> w: array<u32>;
fn weights4(row: u32, kv: u32, k4: u32) -> vec4<f32> {
    return int8x4(w[row * k4 + kv]) * scale_at(row, k4 * 4u, kv * 4u);
}"
    };
    // The scale of value i of a row of k values.
    let scale = match block {
        0 => "scales[row]".to_string(),
        b => format!("scales[row * (k / {b}u) + i / {b}u]"),
    };
    format!(
        "// int8 weights times their row's (or block's) scale.
@group(0) @binding(4) var<storage, read> scales: array<f32>;
@group(0) @binding(5) var<uniform> dims: Dims;
{INT8_UNPACK}fn scale_at(row: u32, k: u32, i: u32) -> f32 {{ return {scale}; }}
{access}
"
    )
}

/// decoder_layer.wgsl's `wrow(base, s, row, kv, k4)`: vec4 number kv of row `row` of the matrix at
/// vec4 `base` of the layer's weights (binding 1), widened to f32; int8 values times their scales,
/// which start at `prm[s]`.
fn layer_weight_prelude(params: &KernelParams) -> String {
    let Some(block) = params.int8_block else {
        let ty = dense_weight_type(params);
        return format!(
            "{ty}@group(0) @binding(1) var<storage, read> w: array<vec4<W>>;
fn wrow(base: u32, s: u32, row: u32, kv: u32, k4: u32) -> vec4<f32> {{ return vec4<f32>(w[base + row * k4 + kv]); }}
"
        );
    };
    let scale = match block {
        0 => "row".to_string(),
        b => format!("row * (k4 * 4u / {b}u) + kv * 4u / {b}u"),
    };
    format!(
        "@group(0) @binding(1) var<storage, read> w: array<u32>;
{INT8_UNPACK}fn wrow(base: u32, s: u32, row: u32, kv: u32, k4: u32) -> vec4<f32> {{
    return int8x4(w[base + row * k4 + kv]) * prm[s + {scale}];
}}
"
    )
}

/// matvec_norm.wgsl's `gamma` and `beta`: the two bindings after the launch parameters, which the
/// weight prelude puts at 4 (dense weights) or 5 (int8, after the scales).
fn norm_bindings(params: &KernelParams) -> String {
    let after = if params.int8_block.is_some() { 6 } else { 5 };
    format!(
        "@group(0) @binding({after}) var<storage, read> gamma: array<vec4<f32>>;\n@group(0) @binding({}) var<storage, read> beta: array<vec4<f32>>;\n",
        after + 1
    )
}

/// A Q|K|V product's K and V columns (from `off`, `d` each) also written at position `t` of the
/// self-attention cache (`len` positions of K then V per row): kv_cache.wgsl's append, in the
/// product's epilogue.
pub struct CacheAppend<'a> {
    pub cache: &'a wgpu::Buffer,
    pub len: u32,
    pub t: u32,
    pub d: u32,
    pub off: u32,
}

/// matvec_attend.wgsl's keys and values, source map and lengths: the bindings after the launch
/// parameters (as `norm_bindings`).
fn attend_bindings(params: &KernelParams) -> String {
    let after = if params.int8_block.is_some() { 6 } else { 5 };
    format!(
        "@group(0) @binding({after}) var<storage, read> kv: array<f32>;
@group(0) @binding({}) var<storage, read> map: array<u32>;
@group(0) @binding({}) var<storage, read> lengths: array<u32>;
",
        after + 1,
        after + 2
    )
}

/// product.wgsl's launch parameters: m, n, k, act, then the cache append's four and attention's eight
/// (zero where the kernel does not read them).
fn product_dims(m: u32, n: u32, k: u32, act: Act) -> [u32; 16] {
    let mut d = [0; 16];
    d[..4].copy_from_slice(&[m, n, k, act as u32]);
    d
}

/// The widest context matvec_attend.wgsl holds (heads · dk), and the most heads (a test keeps its
/// workgroup arrays to them).
pub const MAX_ATTEND_CONTEXT: u32 = 512;
pub const MAX_ATTEND_HEADS: u32 = 8;

/// Bytes of workgroup memory matvec_attend.wgsl declares: its scores, reductions and context, and
/// matvec_lanes.wgsl's partial sums. More than WebGPU's default 16 KiB, so it is compiled only where
/// the device offers them.
pub const ATTEND_WORKGROUP_BYTES: u32 =
    4 * (MAX_ATTEND_HEADS * MAX_KEYS as u32 + 256 + 4 * MAX_ATTEND_CONTEXT) + 16 * 256;

/// The matvec kernels' `store_extra` when they write nothing more.
const NO_EXTRA: &str = "fn store_extra(row: u32, col: u32) {}\n";

/// matvec_norm.wgsl's cache variant: the cache after `gamma` and `beta`, and the append.
fn cache_extra(params: &KernelParams) -> String {
    let at = if params.int8_block.is_some() { 8 } else { 7 };
    format!(
        "@group(0) @binding({at}) var<storage, read_write> cache: array<f32>;
fn store_extra(row: u32, col: u32) {{
    let width = 2u * dims.cache_d;
    if (col < dims.cache_off || col - dims.cache_off >= width) {{ return; }}
    cache[(row * dims.cache_len + dims.t) * width + col - dims.cache_off] = y[row * dims.n + col];
}}
"
    )
}

/// Where embed.wgsl reads each row's token id: `buffer[offset + r · stride]` (in u32 words).
#[derive(Clone, Copy)]
pub struct TokenSource<'a> {
    pub buffer: &'a wgpu::Buffer,
    pub stride: u32,
    pub offset: u32,
}

impl<'a> TokenSource<'a> {
    pub fn ids(buffer: &'a wgpu::Buffer) -> Self {
        Self { buffer, stride: 1, offset: 0 }
    }
}

/// The matmul kernels read vec4 along the inner dimension, so every width a model multiplies over
/// must be a multiple of 4; `widths` names them for the message.
pub fn vector_width_ok(widths: &[(&str, usize)]) -> Result<(), String> {
    match widths.iter().find(|(_, w)| w % 4 != 0) {
        Some((name, w)) => Err(format!(
            "the GPU engine needs {name} to be a multiple of 4 (it is {w}); use the CPU backend for this model"
        )),
        None => Ok(()),
    }
}

/// Whether the device binds gru_step.wgsl's 9 storage buffers in a stage (WebGPU's default is 8).
pub fn binds_gru_step(gpu: &Gpu) -> bool {
    gpu.device.limits().max_storage_buffers_per_shader_stage >= 9
}

fn pipeline(gpu: &Gpu, name: &str, source: &str, entry: &str, constants: &[(&str, f64)]) -> wgpu::ComputePipeline {
    let module = gpu.device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(name),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    gpu.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(name),
        layout: None,
        module: &module,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions { constants, zero_initialize_workgroup_memory: false },
        cache: None,
    })
}

macro_rules! shader {
    ($name:literal) => {
        include_str!(concat!("../../../shaders/", $name, ".wgsl"))
    };
}

impl Kernels {
    pub fn new(gpu: &Gpu, params: KernelParams) -> Result<Self, String> {
        if params.matmul_tile == 0 || params.matmul_tile > 16 {
            return Err(format!("matmul_tile {} must be in 1..=16", params.matmul_tile));
        }
        let matvec_threads = params.matvec_lanes * params.matvec_cols;
        // At least matvec_norm.wgsl's 64 threads that gather the rows' statistics.
        if !(64..=256).contains(&matvec_threads) {
            return Err(format!("matvec lanes × columns = {matvec_threads} must be in 64..=256"));
        }
        if !params.row_workgroup.is_power_of_two() || params.row_workgroup > 256 {
            return Err(format!("row_workgroup {} must be a power of two ≤ 256", params.row_workgroup));
        }
        if params.f16_weights && !gpu.has_f16() {
            return Err(format!("f16 weights need shader-f16, which {} does not offer", gpu.report.name));
        }
        let (product_weights, embed_weights) = (weight_prelude(&params, false), weight_prelude(&params, true));
        let (reduce, scores, product) = (shader!("reduce"), shader!("scores"), shader!("product"));
        let wg = [("WG", params.row_workgroup as f64)];
        let p = |name: &str, parts: &[&str]| pipeline(gpu, name, &parts.concat(), "main", &wg);
        // matvec_norm.wgsl with its `store_extra`: nothing, or the cache append.
        let matvec_norm = |extra: &str| {
            let source = [
                &product_weights,
                product,
                &norm_bindings(&params),
                extra,
                shader!("matvec_lanes"),
                shader!("matvec_norm"),
            ];
            let constants = [
                ("LANES", params.matvec_lanes as f64),
                ("COLS", params.matvec_cols as f64),
                ("EPS", params.layer_norm_eps as f64),
            ];
            pipeline(gpu, "matvec with layernorm", &source.concat(), "main", &constants)
        };
        Ok(Self {
            params,
            matmul: pipeline(
                gpu,
                "matmul",
                &[&product_weights, product, shader!("matmul")].concat(),
                "main",
                &[("TILE", params.matmul_tile as f64)],
            ),
            matvec: pipeline(
                gpu,
                "matvec",
                &[&product_weights, product, NO_EXTRA, shader!("matvec_lanes"), shader!("matvec")].concat(),
                "main",
                &[("LANES", params.matvec_lanes as f64), ("COLS", params.matvec_cols as f64)],
            ),
            matvec_norm_kv: matvec_norm(&cache_extra(&params)),
            matvec_norm: matvec_norm(NO_EXTRA),
            matvec_attend: (params.fused_attention
                && gpu.device.limits().max_compute_workgroup_storage_size >= ATTEND_WORKGROUP_BYTES)
                .then(|| {
                    pipeline(
                        gpu,
                        "matvec with attention",
                        &[
                            &product_weights,
                            product,
                            &attend_bindings(&params),
                            NO_EXTRA,
                            shader!("matvec_lanes"),
                            shader!("matvec_attend"),
                        ]
                        .concat(),
                        "main",
                        &[
                            ("LANES", params.matvec_lanes as f64),
                            ("COLS", params.matvec_cols as f64),
                            // Threads per head: 8 groups (the most heads it takes) of a power of two.
                            ("GROUP", (1u32 << (matvec_threads / 8).ilog2()) as f64),
                        ],
                    )
                }),
            softmax: p("softmax", &[reduce, shader!("softmax")]),
            layernorm: pipeline(
                gpu,
                "layernorm",
                &[reduce, shader!("layernorm")].concat(),
                "main",
                &[wg[0], ("EPS", params.layer_norm_eps as f64)],
            ),
            topk: p("topk", &[shader!("topk")]),
            embed: p("embed", &[&embed_weights, shader!("embed")]),
            attention: p("attention", &[reduce, scores, shader!("attention")]),
            kv_append: pipeline(gpu, "kv append", shader!("kv_cache"), "append", &wg),
            gather: p("gather rows", &[shader!("gather_rows")]),
            gru_cell: p("gru cell", &[shader!("gru_cell")]),
            gru_attention: p("gru attention", &[reduce, scores, shader!("gru_attention")]),
            masked_mean: p("masked mean", &[shader!("masked_mean")]),
            copy_cols: p("copy columns", &[shader!("copy_cols")]),
            decoder_layer: params.fused_layers.then(|| {
                let source = [&layer_weight_prelude(&params), reduce, scores, shader!("decoder_layer")].concat();
                pipeline(gpu, "decoder layer", &source, "main", &[("WG", 256.0), ("EPS", params.layer_norm_eps as f64)])
            }),
            gru_fused: (params.fused_gru_step && binds_gru_step(gpu)).then(|| {
                let step = [&layer_weight_prelude(&params), reduce, scores, shader!("gru_step")].concat();
                let encoder = [&layer_weight_prelude(&params), shader!("gru_encoder")].concat();
                [
                    pipeline(gpu, "gru step", &step, "main", &[("WG", 256.0)]),
                    pipeline(gpu, "gru encoder", &encoder, "main", &[("WG", 256.0)]),
                ]
            }),
            beam_select: pipeline(gpu, "beam select", shader!("beam_select"), "main", &[]),
        })
    }

    /// Whether a GRU decoder step and its encoder run as one dispatch each (asked for, and the device
    /// binds them).
    pub fn has_fused_gru(&self) -> bool {
        self.gru_fused.is_some()
    }

    /// Whether a per-op step's attention can run in its output product (asked for, and the device
    /// has matvec_attend.wgsl's workgroup memory).
    pub fn has_fused_attention(&self) -> bool {
        self.matvec_attend.is_some()
    }

    /// Bytes per element of a weight matrix or embedding table on the device.
    fn weight_size(&self) -> u64 {
        match (self.params.int8_block, self.params.f16_weights) {
            (Some(_), _) => 1,
            (None, true) => 2,
            (None, false) => 4,
        }
    }

    /// The weight's buffers: values, and scales with int8 (bound after the kernel's own buffers).
    fn weight_bindings<'w>(&self, w: Matrix<'w>) -> (&'w wgpu::Buffer, Option<&'w wgpu::Buffer>) {
        assert_eq!(
            w.scales.is_some(),
            self.params.int8_block.is_some(),
            "int8 kernels take int8 matrices with scales, the others dense ones"
        );
        (w.values, w.scales)
    }

    fn groups(&self, n: u32) -> u32 {
        n.div_ceil(self.params.row_workgroup)
    }

    /// y (m×n) = act(x (m×k) · wᵀ + b) with w stored (n×k); k must be a multiple of 4 (the kernels
    /// load vec4; models are checked with [`vector_width_ok`] when they are built).
    #[allow(clippy::too_many_arguments)]
    pub fn matmul<'w>(
        &self,
        rec: &mut Recorder,
        x: &wgpu::Buffer,
        w: impl Into<Matrix<'w>>,
        b: &wgpu::Buffer,
        y: &wgpu::Buffer,
        m: u32,
        n: u32,
        k: u32,
        act: Act,
    ) {
        assert!(k.is_multiple_of(4), "matmul reads vec4 along k; k = {k}");
        rec.weights_read(n as u64 * (k as u64 * self.weight_size() + 4));
        let dims = product_dims(m, n, k, act);
        let (w, scales) = self.weight_bindings(w.into());
        let mut buffers = vec![x, w, b, y];
        buffers.extend(scales);
        if m <= self.params.matvec_max_rows {
            let groups = [n.div_ceil(self.params.matvec_cols), m.div_ceil(MATVEC_ROWS)];
            rec.dispatch(&self.matvec, &buffers, &dims, groups);
        } else {
            let t = self.params.matmul_tile;
            rec.dispatch(&self.matmul, &buffers, &dims, [n.div_ceil(t), m.div_ceil(t)]);
        }
    }

    /// y (m×n) = act(LayerNorm(x) · wᵀ + b), the norm with `gamma` and `beta` over k: in one
    /// dispatch (matvec_norm.wgsl) where the rows are few enough for matvec.wgsl, a decoder step;
    /// otherwise the norm into `scratch` (m×k) and the product.
    #[allow(clippy::too_many_arguments)]
    pub fn norm_matmul<'w>(
        &self,
        rec: &mut Recorder,
        x: &wgpu::Buffer,
        (gamma, beta): (&wgpu::Buffer, &wgpu::Buffer),
        scratch: &wgpu::Buffer,
        w: impl Into<Matrix<'w>>,
        b: &wgpu::Buffer,
        y: &wgpu::Buffer,
        [m, n, k]: [u32; 3],
        act: Act,
        cache: Option<CacheAppend>,
    ) {
        if m > self.params.matvec_max_rows {
            self.layer_norm(rec, x, gamma, beta, scratch, m, k);
            self.matmul(rec, scratch, w, b, y, m, n, k, act);
            if let Some(c) = cache {
                self.kv_append(rec, y, c.cache, m, c.d, c.len, c.t, n, c.off);
            }
            return;
        }
        assert!(k.is_multiple_of(4), "matmul reads vec4 along k; k = {k}");
        rec.weights_read(n as u64 * (k as u64 * self.weight_size() + 4));
        let (w, scales) = self.weight_bindings(w.into());
        let mut buffers = vec![x, w, b, y];
        buffers.extend(scales);
        let uniform_at = buffers.len() as u32;
        buffers.extend([gamma, beta]);
        let groups = [n.div_ceil(self.params.matvec_cols), m.div_ceil(MATVEC_ROWS)];
        let (pipeline, dims) = match &cache {
            None => (&self.matvec_norm, product_dims(m, n, k, act)),
            Some(c) => {
                buffers.push(c.cache);
                let mut dims = product_dims(m, n, k, act);
                dims[4..8].copy_from_slice(&[c.len, c.t, c.d, c.off]);
                (&self.matvec_norm_kv, dims)
            }
        };
        rec.dispatch_uniform_at(pipeline, &buffers, uniform_at, &dims, groups);
    }

    /// y (rows×n) = act(attention(q, kv) · wᵀ + b), the attention (not captured) of `l` over keys and
    /// values in one buffer `kv` (K at `l.k_off`, V at `l.v_off`): in one dispatch (matvec_attend.wgsl)
    /// with `fused_attention`, on a device with its workgroup memory, where the rows are few enough for
    /// matvec.wgsl and the heads and context fit its workgroup (a decoder step's output projection);
    /// otherwise attention.wgsl into `scratch[0]` (rows × heads·dk; its
    /// weights, uncaptured, bound to `scratch[1]`) and the product.
    #[allow(clippy::too_many_arguments)]
    pub fn attention_matmul<'w>(
        &self,
        rec: &mut Recorder,
        q: &wgpu::Buffer,
        kv: &wgpu::Buffer,
        (map, lengths): (&wgpu::Buffer, &wgpu::Buffer),
        l: AttentionLayout,
        scratch: [&wgpu::Buffer; 2],
        (w, b): (impl Into<Matrix<'w>>, &wgpu::Buffer),
        y: &wgpu::Buffer,
        n: u32,
        act: Act,
    ) {
        let k = l.heads * l.dk;
        let fused = self.params.fused_attention
            && l.rows <= self.params.matvec_max_rows
            && k <= MAX_ATTEND_CONTEXT
            && l.heads <= MAX_ATTEND_HEADS
            && k.is_multiple_of(4)
            && l.q_stride.is_multiple_of(4);
        let (true, Some(pipeline)) = (fused, &self.matvec_attend) else {
            self.attention(rec, q, kv, kv, map, lengths, scratch[0], scratch[1], l, false);
            self.matmul(rec, scratch[0], w, b, y, l.rows, n, k, act);
            return;
        };
        rec.weights_read(n as u64 * (k as u64 * self.weight_size() + 4));
        let (w, scales) = self.weight_bindings(w.into());
        let mut buffers = vec![q, w, b, y];
        buffers.extend(scales);
        let uniform_at = buffers.len() as u32;
        buffers.extend([kv, map, lengths]);
        let mut dims = product_dims(l.rows, n, k, act);
        let scale = 1.0 / (l.dk as f32).sqrt();
        dims[8..].copy_from_slice(&[
            l.heads,
            l.kv_len,
            l.kv_stride,
            l.k_off,
            l.v_off,
            l.fixed_len,
            l.q_stride,
            scale.to_bits(),
        ]);
        let groups = [n.div_ceil(self.params.matvec_cols), l.rows.div_ceil(MATVEC_ROWS)];
        rec.dispatch_uniform_at(pipeline, &buffers, uniform_at, &dims, groups);
    }

    /// Softmax (or log-softmax) of each row of x (rows×cols) into y.
    #[allow(clippy::too_many_arguments)]
    pub fn softmax(&self, rec: &mut Recorder, x: &wgpu::Buffer, y: &wgpu::Buffer, rows: u32, cols: u32, log: bool) {
        rec.dispatch(&self.softmax, &[x, y], &[rows, cols, log as u32, 0], [rows, 1]);
    }

    #[allow(clippy::too_many_arguments)]
    pub fn layer_norm(
        &self,
        rec: &mut Recorder,
        x: &wgpu::Buffer,
        gamma: &wgpu::Buffer,
        beta: &wgpu::Buffer,
        y: &wgpu::Buffer,
        rows: u32,
        cols: u32,
    ) {
        rec.dispatch(&self.layernorm, &[x, gamma, beta, y], &[rows, cols, 0, 0], [rows, 1]);
    }

    /// Per row the k best (index, value) pairs, best first, into `out` (8 bytes each) from pair
    /// `out_offset` on: row r's j-th candidate is pair out_offset + r·k + j.
    #[allow(clippy::too_many_arguments)]
    pub fn top_k(
        &self,
        rec: &mut Recorder,
        x: &wgpu::Buffer,
        out: &wgpu::Buffer,
        rows: u32,
        cols: u32,
        k: u32,
        out_offset: u32,
    ) {
        assert!(k >= 1 && k as usize <= MAX_TOP_K, "top-k takes 1 ≤ k ≤ {MAX_TOP_K}");
        rec.dispatch(&self.topk, &[x, out], &[rows, cols, k, out_offset], [rows, 1]);
    }

    /// x (rows×d) = table[token]·scale + positions[pos]; pos = r % period, or `position` when period is 0.
    #[allow(clippy::too_many_arguments)]
    pub fn embed<'w>(
        &self,
        rec: &mut Recorder,
        tokens: TokenSource,
        table: impl Into<Matrix<'w>>,
        positions: &wgpu::Buffer,
        x: &wgpu::Buffer,
        rows: u32,
        d: u32,
        period: u32,
        position: u32,
        scale: f32,
    ) {
        rec.weights_read(rows as u64 * d as u64 * self.weight_size());
        let dims = [rows, d, period, position, scale.to_bits(), tokens.stride, tokens.offset, 0];
        let (table, scales) = self.weight_bindings(table.into());
        let mut buffers = vec![tokens.buffer, table, positions, x];
        buffers.extend(scales);
        rec.dispatch(&self.embed, &buffers, &dims, [self.groups(rows * d), 1]);
    }

    /// Fused scaled dot-product attention; `probs` receives the weights when `capture`.
    #[allow(clippy::too_many_arguments)]
    pub fn attention(
        &self,
        rec: &mut Recorder,
        q: &wgpu::Buffer,
        k: &wgpu::Buffer,
        v: &wgpu::Buffer,
        map: &wgpu::Buffer,
        lengths: &wgpu::Buffer,
        out: &wgpu::Buffer,
        probs: &wgpu::Buffer,
        l: AttentionLayout,
        capture: bool,
    ) {
        let scale = 1.0 / (l.dk as f32).sqrt();
        let dims = [
            l.rows,
            l.heads,
            l.dk,
            l.kv_len,
            l.kv_stride,
            l.k_off,
            l.v_off,
            l.fixed_len,
            capture as u32,
            l.q_stride,
            scale.to_bits(),
            0,
        ];
        rec.dispatch(&self.attention, &[q, k, v, map, lengths, out, probs], &dims, [l.rows, l.heads]);
    }

    /// Cache rows r < rows get position t (K then V) from a fused projection with rows of `stride`
    /// floats, K at `k_off` and V right after it (Q|K|V: stride 3d, k_off d).
    #[allow(clippy::too_many_arguments)]
    pub fn kv_append(
        &self,
        rec: &mut Recorder,
        kv: &wgpu::Buffer,
        cache: &wgpu::Buffer,
        rows: u32,
        d: u32,
        max_len: u32,
        t: u32,
        stride: u32,
        k_off: u32,
    ) {
        let dims = [rows, d, max_len, t, stride, k_off, 0, 0];
        rec.dispatch(&self.kv_append, &[kv, cache], &dims, [self.groups(rows * 2 * d), 1]);
    }

    /// dst[r, :len] = src[index[r], :len] for rows of `width` floats.
    #[allow(clippy::too_many_arguments)]
    pub fn gather_rows(
        &self,
        rec: &mut Recorder,
        src: &wgpu::Buffer,
        index: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        rows: u32,
        width: u32,
        len: u32,
    ) {
        rec.dispatch(&self.gather, &[src, index, dst], &[rows, width, len, 0], [self.groups(rows * len), 1]);
    }

    /// GRU cell on rows × hidden; see gru_cell.wgsl for the layout and the padding mask.
    #[allow(clippy::too_many_arguments)]
    pub fn gru_cell(
        &self,
        rec: &mut Recorder,
        xp: &wgpu::Buffer,
        hp: &wgpu::Buffer,
        h_in: &wgpu::Buffer,
        lengths: &wgpu::Buffer,
        h_out: &wgpu::Buffer,
        memory: &wgpu::Buffer,
        dims: [u32; 8],
    ) {
        rec.dispatch(
            &self.gru_cell,
            &[xp, hp, h_in, lengths, h_out, memory],
            &dims,
            [self.groups(dims[0] * dims[1]), 1],
        );
    }

    /// GRU attention: (rows, s, key_dim, mem_dim, mode 0 additive / 1 dot, capture).
    #[allow(clippy::too_many_arguments)]
    pub fn gru_attention(
        &self,
        rec: &mut Recorder,
        q: &wgpu::Buffer,
        keys: &wgpu::Buffer,
        v: &wgpu::Buffer,
        memory: &wgpu::Buffer,
        map: &wgpu::Buffer,
        lengths: &wgpu::Buffer,
        context: &wgpu::Buffer,
        probs: &wgpu::Buffer,
        dims: [u32; 6],
    ) {
        let u = [dims[0], dims[1], dims[2], dims[3], dims[4], dims[5], 0, 0];
        rec.dispatch(&self.gru_attention, &[q, keys, v, memory, map, lengths, context, probs], &u, [dims[0], 1]);
    }

    /// mean (rows × width) of x (rows × s × width) over the first lengths[row] positions.
    #[allow(clippy::too_many_arguments)]
    pub fn masked_mean(
        &self,
        rec: &mut Recorder,
        x: &wgpu::Buffer,
        lengths: &wgpu::Buffer,
        mean: &wgpu::Buffer,
        rows: u32,
        s: u32,
        width: u32,
    ) {
        rec.dispatch(&self.masked_mean, &[x, lengths, mean], &[rows, s, width, 0], [self.groups(rows * width), 1]);
    }

    /// A whole decoder layer for one step (decoder_layer.wgsl), one workgroup per row: `x` (rows × d)
    /// in and out (the last layer leaves the final norm's output), the self-attention `cache`
    /// (rows × max_len × 2d) gaining position t, cross-attention over `cross` (K|V per source
    /// position) of source `map[r]` with `lengths`, its weights into `probs` with capture.
    #[allow(clippy::too_many_arguments)]
    pub fn decoder_layer(
        &self,
        rec: &mut Recorder,
        layer: &crate::layer::DecoderLayer,
        x: &wgpu::Buffer,
        cache: &wgpu::Buffer,
        cross: &wgpu::Buffer,
        map: &wgpu::Buffer,
        lengths: &wgpu::Buffer,
        probs: &wgpu::Buffer,
        step: crate::layer::LayerStep,
    ) {
        let pipeline = self.decoder_layer.as_ref().expect("the engine asks for decoder layers only with fused_layers");
        rec.weights_read(layer.weight_bytes);
        let buffers = [x, &layer.weights, &layer.prm, cache, cross, map, lengths, probs];
        rec.dispatch(pipeline, &buffers, &layer.launch(step), [step.rows, 1]);
    }

    /// A GRU decoder step before the output projection (gru_step.wgsl), one workgroup per row: `x`
    /// (rows × emb) holds the embeddings and gets the features, `hidden` (rows × hidden) the state,
    /// both in place; keys and memory are the encoder's (s_max positions per source row).
    #[allow(clippy::too_many_arguments)]
    pub fn gru_step(
        &self,
        rec: &mut Recorder,
        step: &crate::gru_step::GruStep,
        x: &wgpu::Buffer,
        hidden: &wgpu::Buffer,
        keys: &wgpu::Buffer,
        memory: &wgpu::Buffer,
        map: &wgpu::Buffer,
        lengths: &wgpu::Buffer,
        probs: &wgpu::Buffer,
        (rows, s_max, capture): (u32, u32, bool),
    ) {
        let [pipeline, _] = self.gru_fused.as_ref().expect("the engine asks for the GRU step only where it has one");
        rec.weights_read(step.weight_bytes);
        let buffers = [x, &step.weights, &step.prm, hidden, keys, memory, map, lengths, probs];
        rec.dispatch(pipeline, &buffers, &step.launch(rows, s_max, capture), [rows, 1]);
    }

    /// The GRU encoder's recurrence (gru_encoder.wgsl), a workgroup per source row and direction: `xp`
    /// (rows·s × 6H: both directions' input products), `lengths`, and `memory` (rows·s × 2H) written.
    pub fn gru_encoder(
        &self,
        rec: &mut Recorder,
        enc: &crate::gru_step::GruEncoder,
        xp: &wgpu::Buffer,
        lengths: &wgpu::Buffer,
        memory: &wgpu::Buffer,
        (rows, s): (u32, u32),
    ) {
        let [_, pipeline] = self.gru_fused.as_ref().expect("the engine asks for the encoder only where it has one");
        // Each position reads both directions' W_hh, as the per-op products count it.
        rec.weights_read(enc.weight_bytes * s as u64);
        let buffers = [xp, &enc.weights, &enc.prm, lengths, memory];
        rec.dispatch(pipeline, &buffers, &enc.launch(rows, s), [rows, 2]);
    }

    /// One beam-search step chosen on the device (beam_select.wgsl), one workgroup per sentence:
    /// dims = (rows, beam, k, eos, step, slots, cand_off, rows_at).
    pub fn beam_select(
        &self,
        rec: &mut Recorder,
        cands: &wgpu::Buffer,
        log: &wgpu::Buffer,
        index: &wgpu::Buffer,
        dims: [u32; 8],
    ) {
        assert!(
            dims[1] as usize <= MAX_DEVICE_BEAM && dims[2] as usize <= MAX_TOP_K,
            "beam_select takes beam ≤ {MAX_DEVICE_BEAM}, k ≤ {MAX_TOP_K}"
        );
        rec.dispatch(&self.beam_select, &[cands, log, index], &dims, [dims[5], 1]);
    }

    /// Copies `width` columns of each row: (rows, width, src_stride, src_off, dst_stride, dst_off).
    pub fn copy_cols(&self, rec: &mut Recorder, src: &wgpu::Buffer, dst: &wgpu::Buffer, dims: [u32; 6]) {
        let u = [dims[0], dims[1], dims[2], dims[3], dims[4], dims[5], 0, 0];
        rec.dispatch(&self.copy_cols, &[src, dst], &u, [self.groups(dims[0] * dims[1]), 1]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_keys_is_the_attention_shaders_limit() {
        for (name, shader) in [("scores", shader!("scores")), ("matvec_attend", shader!("matvec_attend"))] {
            assert!(
                shader.contains(&format!("const MAX_KEYS: u32 = {MAX_KEYS}u;")),
                "shaders/{name}.wgsl and kernels::MAX_KEYS differ"
            );
        }
        let attend = shader!("matvec_attend");
        assert!(attend.contains(&format!("const MAX_HEADS: u32 = {MAX_ATTEND_HEADS}u;")));
        let scores = MAX_ATTEND_HEADS as usize * MAX_KEYS;
        let context = 4 * MAX_ATTEND_CONTEXT;
        assert!(attend.contains(&format!("var<workgroup> scores: array<f32, {scores}>;")));
        assert!(attend.contains(&format!("var<workgroup> context: array<f32, {context}>;")));
        assert!(attend.contains("var<workgroup> group_red: array<f32, 256>;"));
        let lanes = include_str!("../../../shaders/matvec_lanes.wgsl");
        assert!(lanes.contains("var<workgroup> partial: array<vec4<f32>, 256>;"));
        assert_eq!(ATTEND_WORKGROUP_BYTES, 21_504);
        assert!(sequence_length_ok(MAX_KEYS).is_ok());
        assert!(sequence_length_ok(MAX_KEYS + 1).unwrap_err().contains("use the CPU backend"));
    }
}

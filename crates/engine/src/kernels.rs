//! The compute pipelines of `shaders/` and their launch parameters (one place for both: the shaders
//! read them as override constants).

use crate::gpu::Gpu;

/// The activation fused into matmul.wgsl.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    None = 0,
    Relu = 1,
    Tanh = 2,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KernelParams {
    /// Side of the square output tile of matmul.wgsl (workgroup TILE×TILE; at most 16).
    pub matmul_tile: u32,
    /// Workgroup size of the row kernels (softmax, layernorm, argmax); a power of two ≤ 256.
    pub row_workgroup: u32,
    /// LayerNorm epsilon; the same value as the candle reference (wgslate_model::ops::LAYER_NORM_EPS).
    pub layer_norm_eps: f32,
}

impl Default for KernelParams {
    fn default() -> Self {
        Self { matmul_tile: 16, row_workgroup: 64, layer_norm_eps: 1e-5 }
    }
}

pub struct Kernels {
    pub params: KernelParams,
    matmul: wgpu::ComputePipeline,
    softmax: wgpu::ComputePipeline,
    layernorm: wgpu::ComputePipeline,
    argmax: wgpu::ComputePipeline,
    embed: wgpu::ComputePipeline,
    add: wgpu::ComputePipeline,
    attention: wgpu::ComputePipeline,
    kv_append: wgpu::ComputePipeline,
    gather: wgpu::ComputePipeline,
    gru_cell: wgpu::ComputePipeline,
    gru_attention: wgpu::ComputePipeline,
    masked_mean: wgpu::ComputePipeline,
    copy_cols: wgpu::ComputePipeline,
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

fn pipeline(gpu: &Gpu, name: &str, source: &str, constants: &[(&str, f64)]) -> wgpu::ComputePipeline {
    pipeline_entry(gpu, name, source, "main", constants)
}

fn pipeline_entry(gpu: &Gpu, name: &str, source: &str, entry: &str, constants: &[(&str, f64)]) -> wgpu::ComputePipeline {
    let module = gpu.device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some(name), source: wgpu::ShaderSource::Wgsl(source.into()) });
    gpu.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(name),
        layout: None,
        module: &module,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions { constants, zero_initialize_workgroup_memory: false },
        cache: None,
    })
}

fn bind(gpu: &Gpu, pipeline: &wgpu::ComputePipeline, buffers: &[&wgpu::Buffer]) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = buffers.iter().enumerate().map(|(i, b)| wgpu::BindGroupEntry { binding: i as u32, resource: b.as_entire_binding() }).collect();
    gpu.device.create_bind_group(&wgpu::BindGroupDescriptor { label: None, layout: &pipeline.get_bind_group_layout(0), entries: &entries })
}

fn dispatch(enc: &mut wgpu::CommandEncoder, pipeline: &wgpu::ComputePipeline, group: &wgpu::BindGroup, x: u32, y: u32) {
    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None });
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, group, &[]);
    pass.dispatch_workgroups(x, y, 1);
}

impl Kernels {
    pub fn new(gpu: &Gpu, params: KernelParams) -> Result<Self, String> {
        if params.matmul_tile == 0 || params.matmul_tile > 16 {
            return Err(format!("matmul_tile {} must be in 1..=16", params.matmul_tile));
        }
        if !params.row_workgroup.is_power_of_two() || params.row_workgroup > 256 {
            return Err(format!("row_workgroup {} must be a power of two ≤ 256", params.row_workgroup));
        }
        let wg = params.row_workgroup as f64;
        Ok(Self {
            params,
            matmul: pipeline(gpu, "matmul", include_str!("../../../shaders/matmul.wgsl"), &[("TILE", params.matmul_tile as f64)]),
            softmax: pipeline(gpu, "softmax", concat!(include_str!("../../../shaders/reduce.wgsl"), include_str!("../../../shaders/softmax.wgsl")), &[("WG", wg)]),
            layernorm: pipeline(gpu, "layernorm", concat!(include_str!("../../../shaders/reduce.wgsl"), include_str!("../../../shaders/layernorm.wgsl")), &[("WG", wg), ("EPS", params.layer_norm_eps as f64)]),
            argmax: pipeline(gpu, "argmax", include_str!("../../../shaders/argmax.wgsl"), &[("WG", wg)]),
            embed: pipeline(gpu, "embed", include_str!("../../../shaders/embed.wgsl"), &[("WG", wg)]),
            add: pipeline(gpu, "add", include_str!("../../../shaders/add.wgsl"), &[("WG", wg)]),
            attention: pipeline(gpu, "attention", concat!(include_str!("../../../shaders/reduce.wgsl"), include_str!("../../../shaders/attention.wgsl")), &[("WG", wg)]),
            kv_append: pipeline_entry(gpu, "kv append", include_str!("../../../shaders/kv_cache.wgsl"), "append", &[("WG", wg)]),
            gather: pipeline(gpu, "gather rows", include_str!("../../../shaders/gather_rows.wgsl"), &[("WG", wg)]),
            gru_cell: pipeline(gpu, "gru cell", include_str!("../../../shaders/gru_cell.wgsl"), &[("WG", wg)]),
            gru_attention: pipeline(gpu, "gru attention", concat!(include_str!("../../../shaders/reduce.wgsl"), include_str!("../../../shaders/gru_attention.wgsl")), &[("WG", wg)]),
            masked_mean: pipeline(gpu, "masked mean", include_str!("../../../shaders/masked_mean.wgsl"), &[("WG", wg)]),
            copy_cols: pipeline(gpu, "copy columns", include_str!("../../../shaders/copy_cols.wgsl"), &[("WG", wg)]),
        })
    }

    /// y (m×n) = act(x (m×k) · wᵀ + b) with w stored (n×k).
    #[allow(clippy::too_many_arguments)]
    pub fn matmul(&self, gpu: &Gpu, enc: &mut wgpu::CommandEncoder, x: &wgpu::Buffer, w: &wgpu::Buffer, b: &wgpu::Buffer, y: &wgpu::Buffer, m: u32, n: u32, k: u32, act: Act) {
        let dims = gpu.uniform("matmul dims", &[m, n, k, act as u32]);
        let group = bind(gpu, &self.matmul, &[x, w, b, y, &dims]);
        let t = self.params.matmul_tile;
        dispatch(enc, &self.matmul, &group, n.div_ceil(t), m.div_ceil(t));
    }

    /// Softmax (or log-softmax) of each row of x (rows×cols) into y.
    #[allow(clippy::too_many_arguments)]
    pub fn softmax(&self, gpu: &Gpu, enc: &mut wgpu::CommandEncoder, x: &wgpu::Buffer, y: &wgpu::Buffer, rows: u32, cols: u32, log: bool) {
        let dims = gpu.uniform("softmax dims", &[rows, cols, log as u32, 0]);
        let group = bind(gpu, &self.softmax, &[x, y, &dims]);
        dispatch(enc, &self.softmax, &group, rows, 1);
    }

    #[allow(clippy::too_many_arguments)]
    pub fn layer_norm(&self, gpu: &Gpu, enc: &mut wgpu::CommandEncoder, x: &wgpu::Buffer, gamma: &wgpu::Buffer, beta: &wgpu::Buffer, y: &wgpu::Buffer, rows: u32, cols: u32) {
        let dims = gpu.uniform("layernorm dims", &[rows, cols, 0, 0]);
        let group = bind(gpu, &self.layernorm, &[x, gamma, beta, y, &dims]);
        dispatch(enc, &self.layernorm, &group, rows, 1);
    }

    /// Per row: (index, value) of the maximum, into `best` (rows × 8 bytes).
    pub fn argmax(&self, gpu: &Gpu, enc: &mut wgpu::CommandEncoder, x: &wgpu::Buffer, best: &wgpu::Buffer, rows: u32, cols: u32) {
        let dims = gpu.uniform("argmax dims", &[rows, cols, 0, 0]);
        let group = bind(gpu, &self.argmax, &[x, best, &dims]);
        dispatch(enc, &self.argmax, &group, rows, 1);
    }

    fn groups(&self, n: u32) -> u32 {
        n.div_ceil(self.params.row_workgroup)
    }

    /// x (rows×d) = table[tokens]·scale + positions[pos]; pos = r % period, or `position` when period is 0.
    #[allow(clippy::too_many_arguments)]
    pub fn embed(&self, gpu: &Gpu, enc: &mut wgpu::CommandEncoder, tokens: &wgpu::Buffer, table: &wgpu::Buffer, positions: &wgpu::Buffer, x: &wgpu::Buffer, rows: u32, d: u32, period: u32, position: u32, scale: f32) {
        let dims = gpu.uniform("embed dims", &[rows, d, period, position, scale.to_bits(), 0, 0, 0]);
        let group = bind(gpu, &self.embed, &[tokens, table, positions, x, &dims]);
        dispatch(enc, &self.embed, &group, self.groups(rows * d), 1);
    }

    /// x += a over n floats.
    pub fn add(&self, gpu: &Gpu, enc: &mut wgpu::CommandEncoder, x: &wgpu::Buffer, a: &wgpu::Buffer, n: u32) {
        let dims = gpu.uniform("add dims", &[n, 0, 0, 0]);
        let group = bind(gpu, &self.add, &[x, a, &dims]);
        dispatch(enc, &self.add, &group, self.groups(n), 1);
    }

    /// Fused scaled dot-product attention; `probs` receives the weights when `capture`.
    #[allow(clippy::too_many_arguments)]
    pub fn attention(&self, gpu: &Gpu, enc: &mut wgpu::CommandEncoder, q: &wgpu::Buffer, k: &wgpu::Buffer, v: &wgpu::Buffer, map: &wgpu::Buffer, lengths: &wgpu::Buffer, out: &wgpu::Buffer, probs: &wgpu::Buffer, l: AttentionLayout, capture: bool) {
        let scale = 1.0 / (l.dk as f32).sqrt();
        let dims = gpu.uniform("attention dims", &[l.rows, l.heads, l.dk, l.kv_len, l.kv_stride, l.k_off, l.v_off, l.fixed_len, capture as u32, l.q_stride, scale.to_bits(), 0]);
        let group = bind(gpu, &self.attention, &[q, k, v, map, lengths, out, probs, &dims]);
        dispatch(enc, &self.attention, &group, l.rows, l.heads);
    }

    /// K/V cache rows r < rows get position t from the fused K|V projection `kv` (rows × 2d).
    #[allow(clippy::too_many_arguments)]
    pub fn kv_append(&self, gpu: &Gpu, enc: &mut wgpu::CommandEncoder, kv: &wgpu::Buffer, k_cache: &wgpu::Buffer, v_cache: &wgpu::Buffer, rows: u32, d: u32, max_len: u32, t: u32) {
        let dims = gpu.uniform("kv dims", &[rows, d, max_len, t]);
        let group = bind(gpu, &self.kv_append, &[kv, k_cache, v_cache, &dims]);
        dispatch(enc, &self.kv_append, &group, self.groups(rows * d), 1);
    }

    /// dst[r, :len] = src[index[r], :len] for rows of `width` floats.
    #[allow(clippy::too_many_arguments)]
    pub fn gather_rows(&self, gpu: &Gpu, enc: &mut wgpu::CommandEncoder, src: &wgpu::Buffer, index: &wgpu::Buffer, dst: &wgpu::Buffer, rows: u32, width: u32, len: u32) {
        let dims = gpu.uniform("gather dims", &[rows, width, len, 0]);
        let group = bind(gpu, &self.gather, &[src, index, dst, &dims]);
        dispatch(enc, &self.gather, &group, self.groups(rows * len), 1);
    }

    /// GRU cell on rows × hidden; see gru_cell.wgsl for the layout and the padding mask.
    #[allow(clippy::too_many_arguments)]
    pub fn gru_cell(&self, gpu: &Gpu, enc: &mut wgpu::CommandEncoder, xp: &wgpu::Buffer, hp: &wgpu::Buffer, h_in: &wgpu::Buffer, lengths: &wgpu::Buffer, h_out: &wgpu::Buffer, memory: &wgpu::Buffer, dims: [u32; 8]) {
        let u = gpu.uniform("gru cell dims", &dims);
        let group = bind(gpu, &self.gru_cell, &[xp, hp, h_in, lengths, h_out, memory, &u]);
        dispatch(enc, &self.gru_cell, &group, self.groups(dims[0] * dims[1]), 1);
    }

    /// GRU attention: (rows, s, key_dim, mem_dim, mode 0 additive / 1 dot, capture).
    #[allow(clippy::too_many_arguments)]
    pub fn gru_attention(&self, gpu: &Gpu, enc: &mut wgpu::CommandEncoder, q: &wgpu::Buffer, keys: &wgpu::Buffer, v: &wgpu::Buffer, memory: &wgpu::Buffer, map: &wgpu::Buffer, lengths: &wgpu::Buffer, context: &wgpu::Buffer, probs: &wgpu::Buffer, dims: [u32; 6]) {
        let u = gpu.uniform("gru attention dims", &[dims[0], dims[1], dims[2], dims[3], dims[4], dims[5], 0, 0]);
        let group = bind(gpu, &self.gru_attention, &[q, keys, v, memory, map, lengths, context, probs, &u]);
        dispatch(enc, &self.gru_attention, &group, dims[0], 1);
    }

    /// mean (rows × width) of x (rows × s × width) over the first lengths[row] positions.
    #[allow(clippy::too_many_arguments)]
    pub fn masked_mean(&self, gpu: &Gpu, enc: &mut wgpu::CommandEncoder, x: &wgpu::Buffer, lengths: &wgpu::Buffer, mean: &wgpu::Buffer, rows: u32, s: u32, width: u32) {
        let u = gpu.uniform("masked mean dims", &[rows, s, width, 0]);
        let group = bind(gpu, &self.masked_mean, &[x, lengths, mean, &u]);
        dispatch(enc, &self.masked_mean, &group, self.groups(rows * width), 1);
    }

    /// Copies `width` columns of each row: (rows, width, src_stride, src_off, dst_stride, dst_off).
    pub fn copy_cols(&self, gpu: &Gpu, enc: &mut wgpu::CommandEncoder, src: &wgpu::Buffer, dst: &wgpu::Buffer, dims: [u32; 6]) {
        let u = gpu.uniform("copy dims", &[dims[0], dims[1], dims[2], dims[3], dims[4], dims[5], 0, 0]);
        let group = bind(gpu, &self.copy_cols, &[src, dst, &u]);
        dispatch(enc, &self.copy_cols, &group, self.groups(dims[0] * dims[1]), 1);
    }
}

//! The compute pipelines of `shaders/` and their launch parameters (one place for both: the shaders
//! read them as override constants).

use crate::gpu::Gpu;

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
}

fn pipeline(gpu: &Gpu, name: &str, source: &str, constants: &[(&str, f64)]) -> wgpu::ComputePipeline {
    let module = gpu.device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some(name), source: wgpu::ShaderSource::Wgsl(source.into()) });
    gpu.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(name),
        layout: None,
        module: &module,
        entry_point: Some("main"),
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
            softmax: pipeline(gpu, "softmax", include_str!("../../../shaders/softmax.wgsl"), &[("WG", wg)]),
            layernorm: pipeline(gpu, "layernorm", include_str!("../../../shaders/layernorm.wgsl"), &[("WG", wg), ("EPS", params.layer_norm_eps as f64)]),
            argmax: pipeline(gpu, "argmax", include_str!("../../../shaders/argmax.wgsl"), &[("WG", wg)]),
        })
    }

    /// y (m×n) = act(x (m×k) · wᵀ + b) with w stored (n×k).
    #[allow(clippy::too_many_arguments)]
    pub fn matmul(&self, gpu: &Gpu, enc: &mut wgpu::CommandEncoder, x: &wgpu::Buffer, w: &wgpu::Buffer, b: &wgpu::Buffer, y: &wgpu::Buffer, m: u32, n: u32, k: u32, relu: bool) {
        let dims = gpu.uniform("matmul dims", &[m, n, k, relu as u32]);
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
}

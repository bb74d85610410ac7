//! wgslate's GPU runtime: device setup on native (Vulkan) and web (WebGPU), the WGSL kernels of
//! `shaders/` with their launch parameters, and CPU twins that define what each kernel computes.

pub mod cpu;
pub mod engine;
pub mod gpu;
pub mod gru;
pub mod gru_step;
pub mod kernels;
pub mod layer;
pub mod layer_probe;
pub mod record;
pub mod transformer;
mod weights;
pub use weights::pack_int8;

pub use engine::{Architecture, GpuEngine};
pub use gpu::{AdapterReport, Cost, Gpu};
pub use kernels::{
    vector_width_ok, Act, AttentionLayout, CacheAppend, KernelParams, Kernels, Matrix, TokenSource, MAX_DEVICE_BEAM,
    MAX_TOP_K,
};
pub use record::{Pool, Recorder, Sites};
pub use wgpu;

/// Greedy decoding runs up to this many steps per submission, each step's input token taken on
/// the device from the previous step's argmax, and reads them back together.
pub const GREEDY_STEPS_PER_SUBMIT: usize = 8;

/// Beam search, where the device chooses the beam, runs up to this many steps per submission and
/// reads back their ranked candidates together.
pub const BEAM_STEPS_PER_SUBMIT: usize = 8;

/// Chained greedy steps' candidates (step-major: step s, row r at s·rows + r) regrouped per row.
pub(crate) fn per_row(cands: &[(u32, f32)], rows: usize, steps: usize) -> Vec<Vec<(u32, f32)>> {
    (0..rows).map(|r| (0..steps).map(|s| cands[s * rows + r]).collect()).collect()
}

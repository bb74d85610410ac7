//! wgslate's GPU runtime: device setup on native (Vulkan) and web (WebGPU), the WGSL kernels of
//! `shaders/` with their launch parameters, and CPU twins that define what each kernel computes.

pub mod cpu;
pub mod gpu;
pub mod kernels;
/// The Transformer on the GPU as a blocking `StepModel` (native; the page needs an async search first).
#[cfg(not(target_arch = "wasm32"))]
pub mod gru;
#[cfg(not(target_arch = "wasm32"))]
pub mod transformer;

pub use gpu::{AdapterReport, Gpu};
pub use kernels::{Act, AttentionLayout, KernelParams, Kernels};

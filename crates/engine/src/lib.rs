//! wgslate's GPU runtime: device setup on native (Vulkan) and web (WebGPU), the WGSL kernels of
//! `shaders/` with their launch parameters, and CPU twins that define what each kernel computes.

pub mod cpu;
pub mod gpu;
pub mod kernels;
pub mod gru;
pub mod transformer;

pub use gpu::{AdapterReport, Gpu};
pub use kernels::{Act, AttentionLayout, KernelParams, Kernels};

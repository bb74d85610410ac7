// x += a, elementwise (residual connections).

override WG: u32 = 64u;

struct Dims { n: u32, _pad0: u32, _pad1: u32, _pad2: u32 }

@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> dims: Dims;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < dims.n) {
        x[gid.x] = x[gid.x] + a[gid.x];
    }
}

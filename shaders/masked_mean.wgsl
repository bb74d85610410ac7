// mean[b, i] = Σ_{j < lengths[b]} x[b, j, i] / lengths[b] (the GRU decoder's initial state input).

override WG: u32 = 64u;

struct Dims { rows: u32, s: u32, width: u32, _pad: u32 }

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> lengths: array<u32>;
@group(0) @binding(2) var<storage, read_write> mean: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = gid.x;
    if (idx >= dims.rows * dims.width) {
        return;
    }
    let b = idx / dims.width;
    let i = idx % dims.width;
    var acc = 0.0;
    for (var j = 0u; j < lengths[b]; j++) {
        acc += x[(b * dims.s + j) * dims.width + i];
    }
    mean[idx] = acc / f32(lengths[b]);
}

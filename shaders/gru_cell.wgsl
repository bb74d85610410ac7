// GRU cell, gates (r, z, n) stacked as PyTorch does, from the projected input xp and state hp:
//   r = σ(xr + hr), z = σ(xz + hz), n = tanh(xn + r·hn), h' = (1 - z)·n + z·h
// xp row b is at (b · xp_rows + t) · 3H (the encoder projects every position at once).
// With `masked`, rows whose length is ≤ t keep h (padding). With `mem_stride` > 0 the new state is
// also written to memory[(b · S + t) · mem_stride + mem_off + i].

override WG: u32 = 64u;

struct Dims { rows: u32, hidden: u32, xp_rows: u32, t: u32, masked: u32, mem_stride: u32, mem_off: u32, s: u32 }

@group(0) @binding(0) var<storage, read> xp: array<f32>;
@group(0) @binding(1) var<storage, read> hp: array<f32>;
@group(0) @binding(2) var<storage, read> h_in: array<f32>;
@group(0) @binding(3) var<storage, read> lengths: array<u32>;
@group(0) @binding(4) var<storage, read_write> h_out: array<f32>;
@group(0) @binding(5) var<storage, read_write> memory: array<f32>;
@group(0) @binding(6) var<uniform> dims: Dims;

fn sigmoid(x: f32) -> f32 {
    return 1.0 / (1.0 + exp(-x));
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = gid.x;
    if (idx >= dims.rows * dims.hidden) {
        return;
    }
    let b = idx / dims.hidden;
    let i = idx % dims.hidden;
    let hh = dims.hidden;
    let xb = (b * dims.xp_rows + dims.t) * 3u * hh;
    let hb = b * 3u * hh;
    let r = sigmoid(xp[xb + i] + hp[hb + i]);
    let z = sigmoid(xp[xb + hh + i] + hp[hb + hh + i]);
    let n = tanh(xp[xb + 2u * hh + i] + r * hp[hb + 2u * hh + i]);
    let h = h_in[idx];
    var v = n + z * (h - n);
    if (dims.masked != 0u && dims.t >= lengths[b]) {
        v = h;
    }
    h_out[idx] = v;
    if (dims.mem_stride > 0u) {
        memory[(b * dims.s + dims.t) * dims.mem_stride + dims.mem_off + i] = v;
    }
}

// The GRU encoder's recurrence over every position in one dispatch: workgroup (b, dir) runs source
// row b in direction dir (0 forward, 1 backward), position after position, keeping h in workgroup
// memory; what the per-op kernels compute in two dispatches a position and direction (the W_hh
// product, then gru_cell.wgsl). kernels.rs prepends the layer weight prelude (`wrow`).
//
//   xp row (b, t): the input products of both directions, [forward 3H | backward 3H] (with b_ih)
//   h' = GRU(xp, W_hh·h + b_hh) as gru_cell.wgsl, or h where t ≥ lengths[b] (padding)
//   memory[(b·S + t)·2H + dir·H + i] = h'[i]
//
// A thread computes whole hidden units (three rows of W_hh each). Limit: H ≤ 512.

override WG: u32 = 256u;

// Offsets: W_hh in vec4 numbers of the weight buffer, the rest in floats of `prm`, per direction.
struct Encoder {
    rows: u32, hidden: u32, s: u32, _pad0: u32,
    w_f: u32, w_b: u32, s_f: u32, s_b: u32,
    b_f: u32, b_b: u32, _pad1: u32, _pad2: u32,
}

@group(0) @binding(0) var<storage, read> xp: array<f32>;
@group(0) @binding(2) var<storage, read> prm: array<f32>;
@group(0) @binding(3) var<storage, read> lengths: array<u32>;
@group(0) @binding(4) var<storage, read_write> memory: array<f32>;
@group(0) @binding(5) var<uniform> E: Encoder;

var<workgroup> h: array<f32, 512>;
var<workgroup> h_new: array<f32, 512>;

fn sigmoid(v: f32) -> f32 {
    return 1.0 / (1.0 + exp(-v));
}

// Row `row` of W_hh (at w, scales from s) times h.
fn dot_h(w: u32, s: u32, row: u32) -> f32 {
    let k4 = E.hidden / 4u;
    var acc = 0.0;
    for (var kv = 0u; kv < k4; kv++) {
        let i = 4u * kv;
        acc += dot(vec4<f32>(h[i], h[i + 1u], h[i + 2u], h[i + 3u]), wrow(w, s, row, kv, k4));
    }
    return acc;
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let b = wid.x;
    let dir = wid.y;
    if (b >= E.rows) {
        return;
    }
    let hh = E.hidden;
    let w = select(E.w_f, E.w_b, dir == 1u);
    let sc = select(E.s_f, E.s_b, dir == 1u);
    let bias = select(E.b_f, E.b_b, dir == 1u);
    for (var i = lid; i < hh; i += WG) {
        h[i] = 0.0;
    }
    workgroupBarrier();
    for (var step = 0u; step < E.s; step++) {
        let t = select(step, E.s - 1u - step, dir == 1u);
        let xb = (b * E.s + t) * 6u * hh + dir * 3u * hh;
        for (var u = lid; u < hh; u += WG) {
            let r = sigmoid(xp[xb + u] + dot_h(w, sc, u) + prm[bias + u]);
            let z = sigmoid(xp[xb + hh + u] + dot_h(w, sc, hh + u) + prm[bias + hh + u]);
            let n = tanh(xp[xb + 2u * hh + u] + r * (dot_h(w, sc, 2u * hh + u) + prm[bias + 2u * hh + u]));
            var v = n + z * (h[u] - n);
            if (t >= lengths[b]) {
                v = h[u];
            }
            h_new[u] = v;
            memory[(b * E.s + t) * 2u * hh + dir * hh + u] = v;
        }
        workgroupBarrier();
        for (var u = lid; u < hh; u += WG) {
            h[u] = h_new[u];
        }
        workgroupBarrier();
    }
}

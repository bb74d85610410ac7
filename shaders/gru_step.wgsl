// A whole GRU decoder step (before the output projection) in one dispatch, one workgroup per row:
// what the per-op kernels compute in ten (the attention query, the attention, five column copies,
// the two GRU products with the cell, the output product), the row's vectors kept in workgroup
// memory. kernels.rs prepends reduce.wgsl, scores.wgsl and the layer weight prelude (`wrow`: vec4
// number kv of row `row` of the matrix at `base`, widened to f32).
//
//   q = Wq·h (additive: e_j = v·tanh(keys_j + q)) or q = h (dot and general: e_j = keys_j·h)
//   context = Σ_j softmax(e)_j · memory_j over the row's source (map[r], lengths[map[r]] positions)
//   h' = GRU([emb; context], h), gates r, z, n as gru_cell.wgsl
//   o = tanh(Wo·[h'; context; emb] + bo)
// x holds the row's embedding and gets o; hidden holds h and gets h' (both in place).
//
// Limits: emb ≤ 256, memory width ≤ 512, hidden ≤ 512, key width ≤ 256 (additive) or the hidden
// width (gru_step.rs's `GruStepShape::fits`), at most MAX_KEYS positions.

override WG: u32 = 256u;

// Offsets: weights in vec4 numbers of the weight buffer, the rest in floats of `prm`; s_* are the
// int8 scales' offsets (unused for dense weights).
struct Step {
    rows: u32, e: u32, mem: u32, hd: u32,
    key_dim: u32, s_max: u32, mode: u32, capture: u32,
    w_q: u32, w_ih: u32, w_hh: u32, w_out: u32,
    s_q: u32, s_ih: u32, s_hh: u32, s_out: u32,
    b_ih: u32, b_hh: u32, b_out: u32, v: u32,
    _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32,
}

@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(2) var<storage, read> prm: array<f32>;
@group(0) @binding(3) var<storage, read_write> hidden: array<f32>;
@group(0) @binding(4) var<storage, read> keys: array<f32>;
@group(0) @binding(5) var<storage, read> memory: array<f32>;
@group(0) @binding(6) var<storage, read> map: array<u32>;
@group(0) @binding(7) var<storage, read> lengths: array<u32>;
@group(0) @binding(8) var<storage, read_write> probs: array<f32>;
@group(0) @binding(9) var<uniform> S: Step;

// [emb; context], h, h' and the additive query.
var<workgroup> inp: array<f32, 768>;
var<workgroup> hs: array<f32, 512>;
var<workgroup> hn: array<f32, 512>;
var<workgroup> q: array<f32, 256>;

fn sigmoid(v: f32) -> f32 {
    return 1.0 / (1.0 + exp(-v));
}

fn hs4(i: u32) -> vec4<f32> {
    return vec4<f32>(hs[i], hs[i + 1u], hs[i + 2u], hs[i + 3u]);
}

fn hn4(i: u32) -> vec4<f32> {
    return vec4<f32>(hn[i], hn[i + 1u], hn[i + 2u], hn[i + 3u]);
}

fn inp4(i: u32) -> vec4<f32> {
    return vec4<f32>(inp[i], inp[i + 1u], inp[i + 2u], inp[i + 3u]);
}

// Row `row` of the matrix at w (scales from s) times h.
fn dot_h(w: u32, s: u32, row: u32) -> f32 {
    let k4 = S.hd / 4u;
    var acc = 0.0;
    for (var kv = 0u; kv < k4; kv++) {
        acc += dot(hs4(4u * kv), wrow(w, s, row, kv, k4));
    }
    return acc;
}

// Row `row` of W_ih times [emb; context].
fn dot_inp(row: u32) -> f32 {
    let k4 = (S.e + S.mem) / 4u;
    var acc = 0.0;
    for (var kv = 0u; kv < k4; kv++) {
        acc += dot(inp4(4u * kv), wrow(S.w_ih, S.s_ih, row, kv, k4));
    }
    return acc;
}

// Row `row` of Wo times [h'; context; emb].
fn dot_features(row: u32) -> f32 {
    let h4 = S.hd / 4u;
    let c4 = S.mem / 4u;
    let k4 = h4 + c4 + S.e / 4u;
    var acc = 0.0;
    for (var kv = 0u; kv < k4; kv++) {
        var f: vec4<f32>;
        if (kv < h4) {
            f = hn4(4u * kv);
        } else if (kv < h4 + c4) {
            f = inp4(S.e + 4u * (kv - h4));
        } else {
            f = inp4(4u * (kv - h4 - c4));
        }
        acc += dot(f, wrow(S.w_out, S.s_out, row, kv, k4));
    }
    return acc;
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let r = wid.x;
    if (r >= S.rows) {
        return;
    }
    let e = S.e;
    let mem = S.mem;
    let hd = S.hd;
    let kd = S.key_dim;
    let m = map[r];
    let n = min(lengths[m], min(S.s_max, MAX_KEYS));
    for (var i = lid; i < e; i += WG) {
        inp[i] = x[r * e + i];
    }
    for (var i = lid; i < hd; i += WG) {
        hs[i] = hidden[r * hd + i];
    }
    workgroupBarrier();
    if (S.mode == 0u) {
        for (var a = lid; a < kd; a += WG) {
            q[a] = dot_h(S.w_q, S.s_q, a);
        }
    }
    workgroupBarrier();
    var local_max = -3.4e38;
    for (var j = lid; j < n; j += WG) {
        let kb = (m * S.s_max + j) * kd;
        var sc = 0.0;
        for (var a = 0u; a < kd; a++) {
            if (S.mode == 0u) {
                sc += prm[S.v + a] * tanh(keys[kb + a] + q[a]);
            } else {
                sc += keys[kb + a] * hs[a];
            }
        }
        p[j] = sc;
        local_max = max(local_max, sc);
    }
    softmax_scores(n, local_max, lid);
    workgroupBarrier();
    if (S.capture != 0u) {
        for (var j = lid; j < n; j += WG) {
            probs[r * S.s_max + j] = p[j];
        }
    }
    for (var i = lid; i < mem; i += WG) {
        var acc = 0.0;
        for (var j = 0u; j < n; j++) {
            acc += p[j] * memory[(m * S.s_max + j) * mem + i];
        }
        inp[e + i] = acc;
    }
    workgroupBarrier();
    for (var u = lid; u < hd; u += WG) {
        let xr = dot_inp(u) + prm[S.b_ih + u];
        let xz = dot_inp(hd + u) + prm[S.b_ih + hd + u];
        let xn = dot_inp(2u * hd + u) + prm[S.b_ih + 2u * hd + u];
        let hr = dot_h(S.w_hh, S.s_hh, u) + prm[S.b_hh + u];
        let hz = dot_h(S.w_hh, S.s_hh, hd + u) + prm[S.b_hh + hd + u];
        let hh = dot_h(S.w_hh, S.s_hh, 2u * hd + u) + prm[S.b_hh + 2u * hd + u];
        let rg = sigmoid(xr + hr);
        let z = sigmoid(xz + hz);
        let nn = tanh(xn + rg * hh);
        let v = nn + z * (hs[u] - nn);
        hn[u] = v;
        hidden[r * hd + u] = v;
    }
    workgroupBarrier();
    for (var c = lid; c < e; c += WG) {
        x[r * e + c] = tanh(dot_features(c) + prm[S.b_out + c]);
    }
}

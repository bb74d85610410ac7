// A whole GRU decoder step (before the output projection) in one dispatch, one workgroup per row:
// what the per-op kernels compute in eleven (the attention query, the attention, five column
// copies, the two GRU products, the cell, the output product; ten without the additive query), the
// row's vectors kept in workgroup memory. kernels.rs prepends reduce.wgsl, scores.wgsl and the
// layer weight prelude (`wrow`: vec4 number kv of row `row` of the matrix at `base`, as f32).
//
//   q = Wq·h (additive: e_j = v·tanh(keys_j + q)) or q = h (dot and general: e_j = keys_j·h)
//   context = Σ_j softmax(e)_j · memory_j over the row's source (map[r], lengths[map[r]] positions)
//   h' = GRU([emb; context], h), gates r, z, n as gru_cell.wgsl
//   o = tanh(Wo·[h'; context; emb] + bo)
// x holds the row's embedding and gets o; hidden holds h and gets h' (both in place).
//
// Each product gives an output LANES threads, whose reads of its row are adjacent (with a thread an
// output, neighbouring threads would read rows far apart, which a GPU serves a cache line each;
// a CPU adapter, which pays for the extra barriers instead, runs the per-op kernels). Limits: emb ≤ 256, memory width ≤ 512, hidden ≤ 512, key
// width ≤ 256 (additive) or the hidden width (gru_step.rs's `GruStepShape::fits`), at most
// MAX_KEYS positions.

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

// Threads sharing one output's dot product (a power of two dividing WG): adjacent threads read
// adjacent vec4s of a row.
const LANES: u32 = 8u;

// [emb; context] and h.
var<workgroup> inp: array<f32, 768>;
var<workgroup> hs: array<f32, 512>;
// From HR: the r and z gates' sums (W_ih and W_hh rows together), W_ih·[emb; ctx] and W_hh·h of
// the n gate, each `hd` long; h' then overwrites the r sums. The additive query, used before the
// gates, lives at the start.
var<workgroup> g: array<f32, 2048>;
const HR: u32 = 0u;
const HZ: u32 = 512u;
const XN: u32 = 1024u;
const HN: u32 = 1536u;

// The row this workgroup computes.
var<private> row_r: u32;

fn sigmoid(v: f32) -> f32 {
    return 1.0 / (1.0 + exp(-v));
}

// vec4 number i/4 of a product's input: h (0), [emb; context] (1) or [h'; context; emb] (2).
fn input4(src: u32, i: u32) -> vec4<f32> {
    if (src == 0u) {
        return vec4<f32>(hs[i], hs[i + 1u], hs[i + 2u], hs[i + 3u]);
    }
    var j = i;
    if (src == 2u) {
        if (i < S.hd) {
            return vec4<f32>(g[HR + i], g[HR + i + 1u], g[HR + i + 2u], g[HR + i + 3u]);
        }
        // context, then emb, in inp's order [emb; context].
        j = select(i - S.hd - S.mem, S.e + i - S.hd, i < S.hd + S.mem);
    }
    return vec4<f32>(inp[j], inp[j + 1u], inp[j + 2u], inp[j + 3u]);
}

// Where output `out` of a product goes: the query (0), W_ih's gates (1), W_hh's gates (2), the
// step's features (3: through tanh into x).
fn store(kind: u32, out: u32, v: f32) {
    let hd = S.hd;
    if (kind == 0u) {
        g[out] = v;
    } else if (kind == 1u) {
        let b = v + prm[S.b_ih + out];
        if (out < hd) {
            g[HR + out] = b;
        } else if (out < 2u * hd) {
            g[HZ + out - hd] = b;
        } else {
            g[XN + out - 2u * hd] = b;
        }
    } else if (kind == 2u) {
        let b = v + prm[S.b_hh + out];
        if (out < hd) {
            g[HR + out] += b;
        } else if (out < 2u * hd) {
            g[HZ + out - hd] += b;
        } else {
            g[HN + out - 2u * hd] = b;
        }
    } else {
        x[row_r * S.e + out] = tanh(v + prm[S.b_out + out]);
    }
}

// Rows [0, n) of the matrix at w (scales from s; 4·k4 columns) times input `src`, LANES threads a
// row, each result to `store(kind, …)`. Called by the whole workgroup.
fn product(w: u32, s: u32, n: u32, k4: u32, src: u32, kind: u32, lid: u32) {
    let lane = lid % LANES;
    for (var base = 0u; base < n; base += WG / LANES) {
        let row = base + lid / LANES;
        var v = 0.0;
        if (row < n) {
            for (var kv = lane; kv < k4; kv += LANES) {
                v += dot(input4(src, 4u * kv), wrow(w, s, row, kv, k4));
            }
        }
        red[lid] = v;
        workgroupBarrier();
        if (lane == 0u && row < n) {
            var sum = 0.0;
            for (var l = 0u; l < LANES; l++) {
                sum += red[lid + l];
            }
            store(kind, row, sum);
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let r = wid.x;
    if (r >= S.rows) {
        return;
    }
    row_r = r;
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
        product(S.w_q, S.s_q, kd, hd / 4u, 0u, 0u, lid);
    }
    var local_max = -3.4e38;
    for (var j = lid; j < n; j += WG) {
        let kb = (m * S.s_max + j) * kd;
        var sc = 0.0;
        for (var a = 0u; a < kd; a++) {
            if (S.mode == 0u) {
                sc += prm[S.v + a] * tanh(keys[kb + a] + g[a]);
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
    product(S.w_ih, S.s_ih, 3u * hd, (e + mem) / 4u, 1u, 1u, lid);
    product(S.w_hh, S.s_hh, 3u * hd, hd / 4u, 0u, 2u, lid);
    for (var u = lid; u < hd; u += WG) {
        let rg = sigmoid(g[HR + u]);
        let z = sigmoid(g[HZ + u]);
        let nn = tanh(g[XN + u] + rg * g[HN + u]);
        let v = nn + z * (hs[u] - nn);
        g[HR + u] = v;
        hidden[r * hd + u] = v;
    }
    workgroupBarrier();
    product(S.w_out, S.s_out, e, (hd + mem + e) / 4u, 2u, 3u, lid);
}

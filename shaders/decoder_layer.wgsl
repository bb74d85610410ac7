// A whole Transformer decoder layer for one step in one dispatch, one workgroup per row: what the
// per-op kernels compute in eight (matvec_norm with the cache append, attention, matvec with the
// residual; the same for cross-attention; the FFN's two products), with the row kept in workgroup
// memory between them. kernels.rs prepends reduce.wgsl, scores.wgsl and the layer's weight prelude
// (`wrow`: the vec4 number kv of row `row` of the matrix at `base`, widened to f32).
//
//   x += SelfAttn(LN1(x)) (the step's K and V go to position t of the cache first)
//   x += CrossAttn(LN2(x)) over the row's source (map[r], lengths[map[r]] keys)
//   x += Down(ReLU(Up(LN3(x))))
//   the last layer writes LNf(x) instead of x (the decoder's final norm).
//
// Limits: d ≤ 256, 3d ≤ 1024, d_ff ≤ 1024 (layer.rs's `LayerShape::fits`), at most MAX_KEYS keys
// (kernels.rs's `sequence_length_ok`, for every attention kernel).

override WG: u32 = 256u;
override EPS: f32 = 1e-5;

// Offsets: weights in vec4 numbers of the weight buffer, the rest in floats of `prm`; beta follows
// its gamma. s_* are the int8 scales' offsets (unused for dense weights).
struct Layer {
    rows: u32, d: u32, dff: u32, heads: u32,
    dk: u32, t: u32, max_len: u32, s_max: u32,
    capture: u32, last: u32, scale: f32, _pad0: u32,
    w_qkv: u32, w_so: u32, w_cq: u32, w_co: u32,
    w_up: u32, w_down: u32, b_qkv: u32, b_so: u32,
    b_cq: u32, b_co: u32, b_up: u32, b_down: u32,
    n1: u32, n2: u32, n3: u32, nf: u32,
    s_qkv: u32, s_so: u32, s_cq: u32, s_co: u32,
    s_up: u32, s_down: u32, _pad1: u32, _pad2: u32,
}

@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(2) var<storage, read> prm: array<f32>;
@group(0) @binding(3) var<storage, read_write> cache: array<f32>;
@group(0) @binding(4) var<storage, read> cross: array<f32>;
@group(0) @binding(5) var<storage, read> map: array<u32>;
@group(0) @binding(6) var<storage, read> lengths: array<u32>;
@group(0) @binding(7) var<storage, read_write> probs: array<f32>;
@group(0) @binding(8) var<uniform> L: Layer;

// The row's residual stream, a product's input and its output.
var<workgroup> xs: array<f32, 256>;
var<workgroup> a: array<f32, 1024>;
var<workgroup> o: array<f32, 1024>;

// a[0..d] = LayerNorm(xs) with gamma at prm[g], beta at prm[g + d].
fn norm_into_a(g: u32, lid: u32) {
    let d = L.d;
    var s = 0.0;
    for (var i = lid; i < d; i += WG) {
        s += xs[i];
    }
    let mean = reduce_sum(s, lid) / f32(d);
    var q = 0.0;
    for (var i = lid; i < d; i += WG) {
        let c = xs[i] - mean;
        q += c * c;
    }
    let rstd = inverseSqrt(reduce_sum(q, lid) / f32(d) + EPS);
    for (var i = lid; i < d; i += WG) {
        a[i] = (xs[i] - mean) * rstd * prm[g + i] + prm[g + d + i];
    }
    workgroupBarrier();
}

// W (n×k at `w`) times a[0..k] plus the bias at prm[b]: into o (mode 0), into o through ReLU
// (mode 1), or added to xs (mode 2: the residual). One thread per output.
fn product(w: u32, s: u32, b: u32, n: u32, k: u32, mode: u32, lid: u32) {
    let k4 = k / 4u;
    for (var col = lid; col < n; col += WG) {
        var acc = 0.0;
        for (var kv = 0u; kv < k4; kv++) {
            let i = 4u * kv;
            acc += dot(vec4<f32>(a[i], a[i + 1u], a[i + 2u], a[i + 3u]), wrow(w, s, col, kv, k4));
        }
        let v = acc + prm[b + col];
        if (mode == 2u) {
            xs[col] += v;
        } else if (mode == 1u) {
            o[col] = max(v, 0.0);
        } else {
            o[col] = v;
        }
    }
    workgroupBarrier();
}

// Key or value number `i` of position j: the cache (self) or the source's (cross) memory, K then V.
fn memory(is_cross: bool, idx: u32) -> f32 {
    if (is_cross) {
        return cross[idx];
    }
    return cache[idx];
}

// a[0..d] = attention of the queries o[0..d], head by head, over n keys from `base` (floats),
// 2d floats per position; with capture, cross-attention's weights go to probs.
fn attend(is_cross: bool, r: u32, base: u32, n: u32, lid: u32) {
    let d = L.d;
    let dk = L.dk;
    for (var h = 0u; h < L.heads; h++) {
        let hq = h * dk;
        var local_max = -3.4e38;
        for (var j = lid; j < n; j += WG) {
            let kb = base + j * 2u * d + hq;
            var sc = 0.0;
            for (var i = 0u; i < dk; i++) {
                sc += o[hq + i] * memory(is_cross, kb + i);
            }
            sc *= L.scale;
            p[j] = sc;
            local_max = max(local_max, sc);
        }
        softmax_scores(n, local_max, lid);
        workgroupBarrier();
        if (is_cross && L.capture != 0u) {
            for (var j = lid; j < n; j += WG) {
                probs[(r * L.heads + h) * L.s_max + j] = p[j];
            }
        }
        for (var i = lid; i < dk; i += WG) {
            var acc = 0.0;
            for (var j = 0u; j < n; j++) {
                acc += p[j] * memory(is_cross, base + j * 2u * d + d + hq + i);
            }
            a[hq + i] = acc;
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let r = wid.x;
    if (r >= L.rows) {
        return;
    }
    let d = L.d;
    let t = L.t;
    for (var i = lid; i < d; i += WG) {
        xs[i] = x[r * d + i];
    }
    workgroupBarrier();

    norm_into_a(L.n1, lid);
    product(L.w_qkv, L.s_qkv, L.b_qkv, 3u * d, d, 0u, lid);
    let own = r * L.max_len * 2u * d;
    for (var i = lid; i < 2u * d; i += WG) {
        cache[own + t * 2u * d + i] = o[d + i];
    }
    storageBarrier();
    attend(false, r, own, min(t + 1u, MAX_KEYS), lid);
    product(L.w_so, L.s_so, L.b_so, d, d, 2u, lid);

    norm_into_a(L.n2, lid);
    product(L.w_cq, L.s_cq, L.b_cq, d, d, 0u, lid);
    let m = map[r];
    attend(true, r, m * L.s_max * 2u * d, min(min(lengths[m], L.s_max), MAX_KEYS), lid);
    product(L.w_co, L.s_co, L.b_co, d, d, 2u, lid);

    norm_into_a(L.n3, lid);
    product(L.w_up, L.s_up, L.b_up, L.dff, d, 1u, lid);
    for (var i = lid; i < L.dff; i += WG) {
        a[i] = o[i];
    }
    workgroupBarrier();
    product(L.w_down, L.s_down, L.b_down, d, L.dff, 2u, lid);

    if (L.last != 0u) {
        norm_into_a(L.nf, lid);
        for (var i = lid; i < d; i += WG) {
            x[r * d + i] = a[i];
        }
    } else {
        for (var i = lid; i < d; i += WG) {
            x[r * d + i] = xs[i];
        }
    }
}

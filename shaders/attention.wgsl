// Scaled dot-product attention, one workgroup per (query row, head):
//   out[r, h] = softmax(q[r, h] · K[m(r), :n(r), h]ᵀ / √dk) · V[m(r), :n(r), h]
// Keys and values of "memory row" m = map[r] sit at (m · kv_len + j) · kv_stride + offset + h · dk.
// n(r) = fixed_len when it is non-zero (a decoder step's own cache), else lengths[m] (source padding).
// When capture is set, the probabilities go to probs[(r · heads + h) · kv_len + j].

override WG: u32 = 64u;

struct Dims {
    rows: u32, heads: u32, dk: u32, kv_len: u32,
    kv_stride: u32, k_off: u32, v_off: u32, fixed_len: u32,
    capture: u32, q_stride: u32, scale: f32, _pad: u32,
}

@group(0) @binding(0) var<storage, read> q: array<f32>;
@group(0) @binding(1) var<storage, read> kbuf: array<f32>;
@group(0) @binding(2) var<storage, read> vbuf: array<f32>;
@group(0) @binding(3) var<storage, read> map: array<u32>;
@group(0) @binding(4) var<storage, read> lengths: array<u32>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;
@group(0) @binding(6) var<storage, read_write> probs: array<f32>;
@group(0) @binding(7) var<uniform> dims: Dims;


@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_id) lid3: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let lid = lid3.x;
    let r = wid.x;
    let h = wid.y;
    if (r >= dims.rows) {
        return;
    }
    let m = map[r];
    var n = dims.fixed_len;
    if (n == 0u) {
        n = lengths[m];
    }
    n = min(n, min(dims.kv_len, MAX_KEYS));
    let qbase = r * dims.q_stride + h * dims.dk;
    var local_max = -3.4e38;
    for (var j = lid; j < n; j += WG) {
        let kbase = (m * dims.kv_len + j) * dims.kv_stride + dims.k_off + h * dims.dk;
        var s = 0.0;
        for (var i = 0u; i < dims.dk; i++) {
            s += q[qbase + i] * kbuf[kbase + i];
        }
        s = s * dims.scale;
        p[j] = s;
        local_max = max(local_max, s);
    }
    softmax_scores(n, local_max, lid);
    for (var j = lid; j < n; j += WG) {
        if (dims.capture != 0u) {
            probs[(r * dims.heads + h) * dims.kv_len + j] = p[j];
        }
    }
    workgroupBarrier();
    for (var i = lid; i < dims.dk; i += WG) {
        var acc = 0.0;
        for (var j = 0u; j < n; j++) {
            acc += p[j] * vbuf[(m * dims.kv_len + j) * dims.kv_stride + dims.v_off + h * dims.dk + i];
        }
        out[r * dims.heads * dims.dk + h * dims.dk + i] = acc;
    }
}

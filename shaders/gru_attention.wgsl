// The GRU decoder's attention, one workgroup per row r, over the S positions of source m = map[r]:
//   additive (mode 0): e_j = Σ_a v[a] · tanh(keys[m, j, a] + q[r, a])
//   dot / general (mode 1): e_j = Σ_i keys[m, j, i] · q[r, i]
// then p = softmax(e) over j < lengths[m], context[r] = Σ_j p_j · memory[m, j, :].

override WG: u32 = 64u;

struct Dims { rows: u32, s: u32, key_dim: u32, mem_dim: u32, mode: u32, capture: u32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<storage, read> q: array<f32>;
@group(0) @binding(1) var<storage, read> keys: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read> memory: array<f32>;
@group(0) @binding(4) var<storage, read> map: array<u32>;
@group(0) @binding(5) var<storage, read> lengths: array<u32>;
@group(0) @binding(6) var<storage, read_write> context: array<f32>;
@group(0) @binding(7) var<storage, read_write> probs: array<f32>;
@group(0) @binding(8) var<uniform> dims: Dims;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_id) lid3: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let lid = lid3.x;
    let r = wid.x;
    if (r >= dims.rows) {
        return;
    }
    let m = map[r];
    let n = min(lengths[m], min(dims.s, MAX_KEYS));
    var local_max = -3.4e38;
    for (var j = lid; j < n; j += WG) {
        let kb = (m * dims.s + j) * dims.key_dim;
        var e = 0.0;
        for (var a = 0u; a < dims.key_dim; a++) {
            if (dims.mode == 0u) {
                e += v[a] * tanh(keys[kb + a] + q[r * dims.key_dim + a]);
            } else {
                e += keys[kb + a] * q[r * dims.key_dim + a];
            }
        }
        p[j] = e;
        local_max = max(local_max, e);
    }
    softmax_scores(n, local_max, lid);
    for (var j = lid; j < n; j += WG) {
        if (dims.capture != 0u) {
            probs[r * dims.s + j] = p[j];
        }
    }
    workgroupBarrier();
    for (var i = lid; i < dims.mem_dim; i += WG) {
        var acc = 0.0;
        for (var j = 0u; j < n; j++) {
            acc += p[j] * memory[(m * dims.s + j) * dims.mem_dim + i];
        }
        context[r * dims.mem_dim + i] = acc;
    }
}

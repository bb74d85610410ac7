// A sub-layer's attention and the output product after it in one dispatch:
//   y = act(attention(q, K, V) · wᵀ + b), as attention.wgsl then matvec.wgsl compute it (a decoder
// step's output projection, with act the residual add). Bindings, weights and the output step are
// matvec.wgsl's (product.wgsl, kernels.rs's weight prelude), with x the queries (rows of q_stride
// floats); `kv`, `map` and `lengths` are declared by kernels.rs after the launch parameters, the keys
// and values in one buffer (attention.wgsl's layout, K at k_off and V at v_off of each position).
// Each workgroup first computes the attention of its (up to 4) rows into workgroup memory, a group
// of GROUP threads per head, all heads at once — a step attends over a few dozen keys, so every
// workgroup doing it costs less than a dispatch and a barrier across the device — then runs
// matvec.wgsl's loop over those rows. The weights are not captured (kernels.rs then runs the two
// kernels apart), and a head's scores are normalised before they weight the values, as in
// attention.wgsl.

override LANES: u32 = 8u;
override COLS: u32 = 32u;
// Threads per head: a power of two, with 8 groups fitting in LANES · COLS (kernels.rs sets it).
override GROUP: u32 = 32u;

// At most 8 heads (kernels.rs checks it) of up to MAX_KEYS scores each.
const MAX_HEADS: u32 = 8u;
const MAX_KEYS: u32 = 256u;
var<workgroup> scores: array<f32, 2048>;
var<workgroup> group_red: array<f32, 256>;
// The context (heads · dk ≤ 512 floats: kernels.rs's MAX_ATTEND_CONTEXT) of the workgroup's 4 rows.
var<workgroup> context: array<f32, 2048>;

// Within each group of GROUP threads, the max (or the sum) of their values; every thread calls it.
fn group_reduce(v: f32, li: u32, take_max: bool) -> f32 {
    group_red[li] = v;
    workgroupBarrier();
    let t = li % GROUP;
    for (var s = GROUP / 2u; s > 0u; s /= 2u) {
        if (t < s) {
            let a = group_red[li];
            let b = group_red[li + s];
            group_red[li] = select(a + b, max(a, b), take_max);
        }
        workgroupBarrier();
    }
    let r = group_red[li - t];
    workgroupBarrier();
    return r;
}

// The queries: x is bound as vec4 along the rows (product.wgsl); q_stride and head offsets are floats.
fn query(i: u32) -> f32 {
    return x[i / 4u][i % 4u];
}

@compute @workgroup_size(LANES * COLS)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) gid: vec3<u32>) {
    let row0 = gid.y * 4u;
    let width = dims.k;
    let dk = width / dims.heads;
    let h = li / GROUP;
    let t = li % GROUP;
    let in_head = h < min(dims.heads, MAX_HEADS);
    let at = h * MAX_KEYS;
    for (var r = 0u; r < 4u; r++) {
        if (row0 + r >= dims.m) {
            break;
        }
        let row = row0 + r;
        let m = map[row];
        var n = dims.fixed_len;
        if (n == 0u) {
            n = lengths[m];
        }
        n = min(n, min(dims.kv_len, MAX_KEYS));
        var local_max = -3.4e38;
        if (in_head) {
            let qbase = row * dims.q_stride + h * dk;
            for (var j = t; j < n; j += GROUP) {
                let kbase = (m * dims.kv_len + j) * dims.kv_stride + dims.k_off + h * dk;
                var s = 0.0;
                for (var i = 0u; i < dk; i++) {
                    s += query(qbase + i) * kv[kbase + i];
                }
                s = s * dims.scale;
                scores[at + j] = s;
                local_max = max(local_max, s);
            }
        }
        let mx = group_reduce(local_max, li, true);
        var local_sum = 0.0;
        if (in_head) {
            for (var j = t; j < n; j += GROUP) {
                let e = exp(scores[at + j] - mx);
                scores[at + j] = e;
                local_sum += e;
            }
        }
        let total = group_reduce(local_sum, li, false);
        if (in_head) {
            for (var j = t; j < n; j += GROUP) {
                scores[at + j] = scores[at + j] / total;
            }
        }
        // The sums below read every key's weight of the head.
        workgroupBarrier();
        if (in_head) {
            for (var i = t; i < dk; i += GROUP) {
                var acc = 0.0;
                for (var j = 0u; j < n; j++) {
                    acc += scores[at + j] * kv[(m * dims.kv_len + j) * dims.kv_stride + dims.v_off + h * dk + i];
                }
                context[r * width + h * dk + i] = acc;
            }
        }
        // The next row's scores overwrite these.
        workgroupBarrier();
    }

    let lane = li % LANES;
    let col = gid.x * COLS + li / LANES;
    let k4 = width / 4u;
    var acc = vec4<f32>();
    if (col < dims.n) {
        for (var kv4 = lane; kv4 < k4; kv4 += LANES) {
            let wv = weights4(col, kv4, k4);
            for (var r = 0u; r < 4u; r++) {
                if (row0 + r < dims.m) {
                    let c = r * width + 4u * kv4;
                    acc[r] += dot(vec4<f32>(context[c], context[c + 1u], context[c + 2u], context[c + 3u]), wv);
                }
            }
        }
    }
    store_lanes(li, lane, col, row0, acc);
}

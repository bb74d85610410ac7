// A decoder step's LayerNorm and the product after it in one dispatch: y = act(LN(x) · wᵀ + b), with
// LN(x) = (x − mean) / sqrt(var + EPS) · gamma + beta per row, as layernorm.wgsl then matvec.wgsl
// compute it. Bindings, weights and the output step are matvec.wgsl's (product.wgsl and kernels.rs's
// weight prelude); `gamma` and `beta` (vec4 along K) are declared by kernels.rs after the launch
// parameters. Each workgroup first finds the mean and variance of its (up to 4) rows — K is a few
// hundred, so every workgroup doing it costs less than a dispatch — then runs matvec.wgsl's loop on
// the normalised rows.

override LANES: u32 = 8u;
override COLS: u32 = 32u;
override EPS: f32 = 1e-5;


// Threads that gather the rows' statistics: few, since each halving of them is a barrier, and a
// barrier is what this kernel pays for its prologue (on software Vulkan, dearly).
const STATS: u32 = 64u;

@compute @workgroup_size(LANES * COLS)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) gid: vec3<u32>) {
    let row0 = gid.y * 4u;
    let k4 = dims.k / 4u;
    let kf = f32(dims.k);
    // Per row, the sum and the sum of squares, reduced together: mean, and var = E[x²] − mean².
    var s = vec4<f32>();
    var q = vec4<f32>();
    if (li < STATS) {
        for (var kv = li; kv < k4; kv += STATS) {
            for (var r = 0u; r < 4u; r++) {
                if (row0 + r < dims.m) {
                    let v = x[(row0 + r) * k4 + kv];
                    s[r] += v.x + v.y + v.z + v.w;
                    q[r] += dot(v, v);
                }
            }
        }
        partial[li] = s;
        partial[STATS + li] = q;
    }
    workgroupBarrier();
    for (var half = STATS / 2u; half > 0u; half /= 2u) {
        if (li < half) {
            partial[li] += partial[li + half];
            partial[STATS + li] += partial[STATS + li + half];
        }
        workgroupBarrier();
    }
    let mean = partial[0] / kf;
    let rstd = inverseSqrt(max(partial[STATS] / kf - mean * mean, vec4<f32>()) + vec4<f32>(EPS));
    workgroupBarrier();

    let lane = li % LANES;
    let col = gid.x * COLS + li / LANES;
    var acc = vec4<f32>();
    if (col < dims.n) {
        for (var kv = lane; kv < k4; kv += LANES) {
            let wv = weights4(col, kv, k4);
            let g = gamma[kv];
            let b0 = beta[kv];
            for (var r = 0u; r < 4u; r++) {
                if (row0 + r < dims.m) {
                    let xn = (x[(row0 + r) * k4 + kv] - vec4<f32>(mean[r])) * rstd[r] * g + b0;
                    acc[r] += dot(xn, wv);
                }
            }
        }
    }
    store_lanes(li, lane, col, row0, acc);
}

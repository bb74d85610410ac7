// Matrix product for few rows (a decoder step: one row per sentence or beam); bindings and output
// in product.wgsl. Tiling rows would leave most threads idle when M is 1 to 8, so here a workgroup
// computes COLS output columns for up to 4 rows (one vec4 accumulator per thread; kernels.rs's
// MATVEC_ROWS), and LANES threads share each column's dot products: lane l reads the weight row's
// vec4 number l, l + LANES, … (neighbouring lanes read neighbouring vec4: coalesced), then the
// lanes' partial sums are added in workgroup memory. Each weight is read once per 4 rows.

override LANES: u32 = 8u;
override COLS: u32 = 32u;

@compute @workgroup_size(LANES * COLS)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) gid: vec3<u32>) {
    let lane = li % LANES;
    let col = gid.x * COLS + li / LANES;
    let row0 = gid.y * 4u;
    let k4 = dims.k / 4u;
    var acc = vec4<f32>();
    if (col < dims.n) {
        for (var kv = lane; kv < k4; kv += LANES) {
            let wv = weights4(col, kv, k4);
            for (var r = 0u; r < 4u; r++) {
                if (row0 + r < dims.m) {
                    acc[r] += dot(x[(row0 + r) * k4 + kv], wv);
                }
            }
        }
    }
    store_lanes(li, lane, col, row0, acc);
}

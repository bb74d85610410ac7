// What matvec.wgsl and matvec_norm.wgsl share (kernels.rs puts it after product.wgsl): the workgroup's
// partial sums, and the last step, where lane 0 of each column adds its LANES threads' partial sums
// and writes the column for the workgroup's (up to 4) rows; `store_extra` (kernels.rs: nothing, or
// the cache append) sees each written value.

// LANES·COLS ≤ 256 threads, 4 partial sums each (kernels.rs checks the product).
var<workgroup> partial: array<vec4<f32>, 256>;

// Called by every thread of the workgroup (it holds a barrier) with its accumulator for `col`.
fn store_lanes(li: u32, lane: u32, col: u32, row0: u32, acc: vec4<f32>) {
    partial[li] = acc;
    workgroupBarrier();
    if (lane == 0u && col < dims.n) {
        var sum = vec4<f32>();
        for (var l = 0u; l < LANES; l++) {
            sum += partial[li + l];
        }
        for (var r = 0u; r < 4u; r++) {
            if (row0 + r < dims.m) {
                store_output(row0 + r, col, sum[r]);
                store_extra(row0 + r, col);
            }
        }
    }
}

// Matrix product for many rows (encoder, batched decoding); bindings and output in product.wgsl.
// Tiled: each workgroup computes a TILE×TILE block of y; per step it stages TILE rows of x and TILE
// rows of w, TILE vec4 (4·TILE values of K) each, in workgroup memory, one coalesced vec4 load per
// thread and matrix; each thread accumulates one output.

override TILE: u32 = 16u;

// 16×16 is the largest TILE the kernel parameters allow (see kernels.rs).
var<workgroup> xs: array<vec4<f32>, 256>;
var<workgroup> ws: array<vec4<f32>, 256>;

@compute @workgroup_size(TILE, TILE)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) gid: vec3<u32>) {
    let row = gid.y * TILE + lid.y;
    let col = gid.x * TILE + lid.x;
    // The output column whose weight row this thread stages (tiles hold w by rows, as stored).
    let wrow = gid.x * TILE + lid.y;
    let k4 = dims.k / 4u;
    var acc = 0.0;
    let steps = (k4 + TILE - 1u) / TILE;
    for (var t = 0u; t < steps; t++) {
        let kv = t * TILE + lid.x;
        xs[lid.y * TILE + lid.x] = select(vec4<f32>(), x[row * k4 + kv], row < dims.m && kv < k4);
        ws[lid.y * TILE + lid.x] = select(vec4<f32>(), weights4(wrow, kv, k4), wrow < dims.n && kv < k4);
        workgroupBarrier();
        for (var i = 0u; i < TILE; i++) {
            acc += dot(xs[lid.y * TILE + i], ws[lid.x * TILE + i]);
        }
        workgroupBarrier();
    }
    if (row < dims.m && col < dims.n) {
        store_output(row, col, acc);
    }
}

// y[m, n] = act(sum_k x[m, k] * w[n, k] + b[n]) with act 0: none, 1: ReLU, 2: tanh: x (M×K) times the weights as stored (N×K), transposed.
// Tiled: each workgroup computes a TILE×TILE block of y, staging TILE×TILE blocks of x and w in
// workgroup memory; each thread accumulates one output. W (the weights' element type) is f32, or
// f16 with shader-f16 (see kernels.rs); products and sums are f32 either way.

override TILE: u32 = 16u;

struct Dims { m: u32, n: u32, k: u32, act: u32 }

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<W>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> dims: Dims;

// 16×16 is the largest TILE the kernel parameters allow (see kernels.rs).
var<workgroup> xs: array<f32, 256>;
var<workgroup> ws: array<f32, 256>;

@compute @workgroup_size(TILE, TILE)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) gid: vec3<u32>) {
    let row = gid.y * TILE + lid.y;
    let col = gid.x * TILE + lid.x;
    var acc = 0.0;
    let tiles = (dims.k + TILE - 1u) / TILE;
    for (var t = 0u; t < tiles; t++) {
        let kx = t * TILE + lid.x;
        let ky = t * TILE + lid.y;
        xs[lid.y * TILE + lid.x] = select(0.0, x[row * dims.k + kx], row < dims.m && kx < dims.k);
        // ws holds w transposed: ws[k][n]
        ws[lid.y * TILE + lid.x] = select(0.0, f32(w[col * dims.k + ky]), col < dims.n && ky < dims.k);
        workgroupBarrier();
        for (var i = 0u; i < TILE; i++) {
            acc += xs[lid.y * TILE + i] * ws[i * TILE + lid.x];
        }
        workgroupBarrier();
    }
    if (row < dims.m && col < dims.n) {
        var v = acc + b[col];
        if (dims.act == 1u) {
            v = max(v, 0.0);
        } else if (dims.act == 2u) {
            v = tanh(v);
        }
        y[row * dims.n + col] = v;
    }
}

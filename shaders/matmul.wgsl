// y[m, n] = act(sum_k x[m, k] * w[n, k] + b[n]) with act 0: none, 1: ReLU, 2: tanh: x (M×K) times the
// weights as stored (N×K), transposed. K is a multiple of 4: x and w are read as vec4 along K.
// Tiled: each workgroup computes a TILE×TILE block of y; per step it stages TILE rows of x and TILE
// rows of w, TILE vec4 (4·TILE values of K) each, in workgroup memory, one coalesced vec4 load per
// thread and matrix; each thread accumulates one output. W (the weights' element type) is f32, or
// f16 with shader-f16 (see kernels.rs); products and sums are f32 either way.

override TILE: u32 = 16u;

struct Dims { m: u32, n: u32, k: u32, act: u32 }

@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w: array<vec4<W>>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> dims: Dims;

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
        ws[lid.y * TILE + lid.x] = select(vec4<f32>(), vec4<f32>(w[wrow * k4 + kv]), wrow < dims.n && kv < k4);
        workgroupBarrier();
        for (var i = 0u; i < TILE; i++) {
            acc += dot(xs[lid.y * TILE + i], ws[lid.x * TILE + i]);
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

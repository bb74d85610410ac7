// Row-wise softmax (or log-softmax) over the last dimension: one workgroup per row, tree reductions
// for the maximum and the sum in workgroup memory.

override WG: u32 = 64u;

struct Dims { rows: u32, cols: u32, log: u32, _pad: u32 }

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> dims: Dims;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_id) lid3: vec3<u32>, @builtin(workgroup_id) gid: vec3<u32>) {
    let lid = lid3.x;
    let row = gid.x;
    if (row >= dims.rows) {
        return;
    }
    let base = row * dims.cols;
    var m = -3.4e38;
    for (var i = lid; i < dims.cols; i += WG) {
        m = max(m, x[base + i]);
    }
    m = reduce_max(m, lid);
    var s = 0.0;
    for (var i = lid; i < dims.cols; i += WG) {
        s += exp(x[base + i] - m);
    }
    s = reduce_sum(s, lid);
    let lse = m + log(s);
    for (var i = lid; i < dims.cols; i += WG) {
        if (dims.log != 0u) {
            y[base + i] = x[base + i] - lse;
        } else {
            y[base + i] = exp(x[base + i] - m) / s;
        }
    }
}

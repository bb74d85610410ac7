// Row-wise LayerNorm: y = (x - mean) / sqrt(var + eps) * gamma + beta; one workgroup per row.

override WG: u32 = 64u;
override EPS: f32 = 1e-5;

struct Dims { rows: u32, cols: u32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> gamma: array<f32>;
@group(0) @binding(2) var<storage, read> beta: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> dims: Dims;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_id) lid3: vec3<u32>, @builtin(workgroup_id) gid: vec3<u32>) {
    let lid = lid3.x;
    let row = gid.x;
    if (row >= dims.rows) {
        return;
    }
    let base = row * dims.cols;
    let n = f32(dims.cols);
    var s = 0.0;
    for (var i = lid; i < dims.cols; i += WG) {
        s += x[base + i];
    }
    let mean = reduce_sum(s, lid) / n;
    var v = 0.0;
    for (var i = lid; i < dims.cols; i += WG) {
        let d = x[base + i] - mean;
        v += d * d;
    }
    let rstd = inverseSqrt(reduce_sum(v, lid) / n + EPS);
    for (var i = lid; i < dims.cols; i += WG) {
        y[base + i] = (x[base + i] - mean) * rstd * gamma[i] + beta[i];
    }
}

// What matmul.wgsl and matvec.wgsl share (kernels.rs prepends this file to both): their bindings
// and the output step. Both compute y[m, n] = act(sum_k x[m, k] * w[n, k] + b[n]), x (M×K) times
// the weights as stored (N×K), transposed, with act 0: none, 1: ReLU, 2: tanh. K is a multiple of
// 4: x and w are read as vec4 along K. W (the weights' element type) is f32, or f16 with
// shader-f16; products and sums are f32 either way.

struct Dims { m: u32, n: u32, k: u32, act: u32 }

@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w: array<vec4<W>>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> dims: Dims;

// Adds the bias, applies the activation and writes y[row, col] (callers check the bounds).
fn store_output(row: u32, col: u32, acc: f32) {
    var v = acc + b[col];
    if (dims.act == 1u) {
        v = max(v, 0.0);
    } else if (dims.act == 2u) {
        v = tanh(v);
    }
    y[row * dims.n + col] = v;
}

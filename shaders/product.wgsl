// What matmul.wgsl and matvec.wgsl share (kernels.rs prepends this file to both): their bindings
// and the output step. Both compute y[m, n] = act(sum_k x[m, k] * w[n, k] + b[n]), x (M×K) times
// the weights as stored (N×K), transposed, with act 0: none, 1: ReLU, 2: tanh, or 3: residual,
// y[m, n] += sum + b[n] (the residual add of a sub-layer, fused into its product). K is a multiple of
// 4: x and w are read as vec4 along K. Products and sums are f32 whatever the weights' storage.

// cache_len to cache_off are read by matvec_norm.wgsl's cache variant only (kernels.rs's
// `CacheAppend`): the K|V columns of a Q|K|V row, from column `cache_off` on, also go to position `t`
// of the self-attention caches of `cache_len` positions of `cache_d` floats, as kv_cache.wgsl appends
// them. heads to scale are matvec_attend.wgsl's only: attention.wgsl's layout of the same names.
struct Dims {
    m: u32, n: u32, k: u32, act: u32, cache_len: u32, t: u32, cache_d: u32, cache_off: u32,
    heads: u32, kv_len: u32, kv_stride: u32, k_off: u32, v_off: u32, fixed_len: u32, q_stride: u32, scale: f32,
}

// The weights `w` (binding 1, read through `weights4(row, kv, k4)`: the vec4 number kv of weight
// row `row`, widened to f32) and `dims` are declared by kernels.rs's weight prelude: f32 or f16
// values, or int8 packed four to a u32 with a scales buffer at binding 4 (dims then at 5).
@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

// Adds the bias, applies the activation and writes y[row, col] (callers check the bounds).
fn store_output(row: u32, col: u32, acc: f32) {
    var v = acc + b[col];
    if (dims.act == 1u) {
        v = max(v, 0.0);
    } else if (dims.act == 2u) {
        v = tanh(v);
    } else if (dims.act == 3u) {
        v = y[row * dims.n + col] + v;
    }
    y[row * dims.n + col] = v;
}

// Decoder self-attention cache, (capacity, max_len, 2d): at each position K then V.
//   append: cache[r, t] = kv[r, off:off+2d] for every row r, where kv is a fused projection with rows
//           of `stride` floats (Q|K|V: stride 3d, off d): its K and V columns, side by side.

override WG: u32 = 64u;

struct Dims { rows: u32, d: u32, max_len: u32, t: u32, stride: u32, off: u32, pad0: u32, pad1: u32 }

@group(0) @binding(0) var<storage, read> kv: array<f32>;
@group(0) @binding(1) var<storage, read_write> cache: array<f32>;
@group(0) @binding(2) var<uniform> dims: Dims;

@compute @workgroup_size(WG)
fn append(@builtin(global_invocation_id) gid: vec3<u32>) {
    let width = 2u * dims.d;
    let idx = gid.x;
    if (idx >= dims.rows * width) {
        return;
    }
    let r = idx / width;
    let i = idx % width;
    cache[(r * dims.max_len + dims.t) * width + i] = kv[r * dims.stride + dims.off + i];
}

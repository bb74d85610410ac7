// Decoder self-attention cache, (capacity, max_len, d) for K and for V:
//   append: K[r, t] = kv[r, off:off+d], V[r, t] = kv[r, off+d:off+2d] for every row r, where kv is a
//           fused projection with rows of `stride` floats (Q|K|V: stride 3d, off d);
//   gather: dst[r, j] = src[index[r], j] for j < t (beam search reorders and repeats rows).

override WG: u32 = 64u;

struct Dims { rows: u32, d: u32, max_len: u32, t: u32, stride: u32, off: u32, pad0: u32, pad1: u32 }

@group(0) @binding(0) var<storage, read> kv: array<f32>;
@group(0) @binding(1) var<storage, read_write> k_cache: array<f32>;
@group(0) @binding(2) var<storage, read_write> v_cache: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

@compute @workgroup_size(WG)
fn append(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = gid.x;
    if (idx >= dims.rows * dims.d) {
        return;
    }
    let r = idx / dims.d;
    let i = idx % dims.d;
    let dst = (r * dims.max_len + dims.t) * dims.d + i;
    let src = r * dims.stride + dims.off + i;
    k_cache[dst] = kv[src];
    v_cache[dst] = kv[src + dims.d];
}

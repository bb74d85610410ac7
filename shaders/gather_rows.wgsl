// dst[r, 0:len] = src[index[r], 0:len] for r < rows, rows of `width` floats (beam reordering).

override WG: u32 = 64u;

struct Dims { rows: u32, width: u32, len: u32, _pad: u32 }

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read> index: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = gid.x;
    if (idx >= dims.rows * dims.len) {
        return;
    }
    let r = idx / dims.len;
    let i = idx % dims.len;
    dst[r * dims.width + i] = src[index[r] * dims.width + i];
}

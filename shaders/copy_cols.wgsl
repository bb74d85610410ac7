// dst[r · dst_stride + dst_off + i] = src[r · src_stride + src_off + i] for i < width
// (assembles concatenated rows such as [embedding; context]).

override WG: u32 = 64u;

struct Dims { rows: u32, width: u32, src_stride: u32, src_off: u32, dst_stride: u32, dst_off: u32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> dims: Dims;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = gid.x;
    if (idx >= dims.rows * dims.width) {
        return;
    }
    let r = idx / dims.width;
    let i = idx % dims.width;
    dst[r * dims.dst_stride + dims.dst_off + i] = src[r * dims.src_stride + dims.src_off + i];
}

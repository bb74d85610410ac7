// x[r, i] = table[token(r), i] * scale + positions[pos(r), i], with pos(r) = r % period when
// period > 0 (the encoder: rows are batch × position) and pos(r) = position otherwise (a decoder step).
// token(r) = tokens[token_offset + r · token_stride]: stride 1 for token ids written by the host,
// stride 2·k when the ids are the previous step's top-k candidates (index, value) on the device.

override WG: u32 = 64u;

struct Dims { rows: u32, d: u32, period: u32, position: u32, scale: f32, token_stride: u32, token_offset: u32, _pad: u32 }

// The table (binding 1, read through `table_value(token, i)`) and `dims` are declared by
// kernels.rs's weight prelude: f32 or f16 values, or int8 with scales (then dims at binding 5).
@group(0) @binding(0) var<storage, read> tokens: array<u32>;
@group(0) @binding(2) var<storage, read> positions: array<f32>;
@group(0) @binding(3) var<storage, read_write> x: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = gid.x;
    if (idx >= dims.rows * dims.d) {
        return;
    }
    let r = idx / dims.d;
    let i = idx % dims.d;
    var pos = dims.position;
    if (dims.period > 0u) {
        pos = r % dims.period;
    }
    let token = tokens[dims.token_offset + r * dims.token_stride];
    x[idx] = table_value(token, i) * dims.scale + positions[pos * dims.d + i];
}

// x[r, i] = table[token[r], i] * scale + positions[pos(r), i], with pos(r) = r % period when
// period > 0 (the encoder: rows are batch × position) and pos(r) = position otherwise (a decoder step).

override WG: u32 = 64u;

struct Dims { rows: u32, d: u32, period: u32, position: u32, scale: f32, _pad0: u32, _pad1: u32, _pad2: u32 }

@group(0) @binding(0) var<storage, read> tokens: array<u32>;
@group(0) @binding(1) var<storage, read> table: array<f32>;
@group(0) @binding(2) var<storage, read> positions: array<f32>;
@group(0) @binding(3) var<storage, read_write> x: array<f32>;
@group(0) @binding(4) var<uniform> dims: Dims;

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
    x[idx] = table[tokens[r] * dims.d + i] * dims.scale + positions[pos * dims.d + i];
}

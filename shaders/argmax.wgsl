// Row-wise argmax (ties to the lower index): one workgroup per row; writes the index and the value,
// so greedy decoding reads back two numbers per row instead of the vocabulary.

override WG: u32 = 64u;

struct Dims { rows: u32, cols: u32, _pad0: u32, _pad1: u32 }
struct Best { index: u32, value: f32 }

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> best: array<Best>;
@group(0) @binding(2) var<uniform> dims: Dims;

var<workgroup> vals: array<f32, 256>;
var<workgroup> idxs: array<u32, 256>;

fn better(va: f32, ia: u32, vb: f32, ib: u32) -> bool {
    return va > vb || (va == vb && ia < ib);
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_id) lid3: vec3<u32>, @builtin(workgroup_id) gid: vec3<u32>) {
    let lid = lid3.x;
    let row = gid.x;
    if (row >= dims.rows) {
        return;
    }
    let base = row * dims.cols;
    var bv = -3.4e38;
    var bi = 0xffffffffu;
    for (var i = lid; i < dims.cols; i += WG) {
        let v = x[base + i];
        if (better(v, i, bv, bi)) {
            bv = v;
            bi = i;
        }
    }
    vals[lid] = bv;
    idxs[lid] = bi;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (lid < s && better(vals[lid + s], idxs[lid + s], vals[lid], idxs[lid])) {
            vals[lid] = vals[lid + s];
            idxs[lid] = idxs[lid + s];
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        best[row] = Best(idxs[0], vals[0]);
    }
}

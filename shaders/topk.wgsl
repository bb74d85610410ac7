// Row-wise top-k, best first, ties to the lower index (k ≤ MAX_K): one workgroup per row runs k
// rounds of an argmax, round j taking the best element ranked strictly below round j-1's pick.
// The order (value descending, then index ascending) is total, so no element is picked twice.
// Candidates of row r go to out[out_offset + r · k + j]: greedy and beam search read back k
// (index, value) pairs per row instead of the vocabulary, and the next decoder step can take its
// input token straight from here (embed.wgsl's token stride).

override WG: u32 = 64u;

struct Dims { rows: u32, cols: u32, k: u32, out_offset: u32 }
struct Cand { index: u32, value: f32 }

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<Cand>;
@group(0) @binding(2) var<uniform> dims: Dims;

var<workgroup> vals: array<f32, 256>;
var<workgroup> idxs: array<u32, 256>;

const NONE: u32 = 0xffffffffu;

// Whether (va, ia) ranks above (vb, ib); NONE (no element yet) ranks below everything, so -inf
// values are still picked.
fn better(va: f32, ia: u32, vb: f32, ib: u32) -> bool {
    if (ia == NONE) {
        return false;
    }
    if (ib == NONE) {
        return true;
    }
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
    // The previous pick; everything ranked at or above it is taken. Round 0 has none.
    var pv = 0.0;
    var pi = NONE;
    for (var j = 0u; j < dims.k; j++) {
        var bv = 0.0;
        var bi = NONE;
        for (var i = lid; i < dims.cols; i += WG) {
            let v = x[base + i];
            let below = j == 0u || better(pv, pi, v, i);
            if (below && better(v, i, bv, bi)) {
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
        pv = vals[0];
        pi = idxs[0];
        if (lid == 0u) {
            out[dims.out_offset + row * dims.k + j] = Cand(pi, pv);
        }
        workgroupBarrier();
    }
}

// Workgroup reductions shared by the row kernels. WGSL has no include: kernels.rs prepends this
// file to softmax.wgsl, layernorm.wgsl, attention.wgsl and gru_attention.wgsl (the last two also
// get scores.wgsl), each of which declares `override WG` (a power of two ≤ 256) and calls these
// from all WG invocations.

var<workgroup> red: array<f32, 256>;

fn reduce_max(v: f32, lid: u32) -> f32 {
    red[lid] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (lid < s) {
            red[lid] = max(red[lid], red[lid + s]);
        }
        workgroupBarrier();
    }
    let r = red[0];
    workgroupBarrier();
    return r;
}

fn reduce_sum(v: f32, lid: u32) -> f32 {
    red[lid] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (lid < s) {
            red[lid] = red[lid] + red[lid + s];
        }
        workgroupBarrier();
    }
    let r = red[0];
    workgroupBarrier();
    return r;
}

// Attention scores in workgroup memory, shared by attention.wgsl and gru_attention.wgsl (kernels.rs
// prepends this file, after reduce.wgsl): the kernel writes the scores of its n ≤ MAX_KEYS keys
// to p[j] (invocation j % WG writes p[j]) and passes its local maximum; softmax_scores turns them
// into probabilities in place. Every invocation of the workgroup must call it.

// The longest key sequence the kernels take (the models' max_len is 256).
const MAX_KEYS: u32 = 256u;
var<workgroup> p: array<f32, 256>;

fn softmax_scores(n: u32, local_max: f32, lid: u32) {
    let mx = reduce_max(local_max, lid);
    var local_sum = 0.0;
    for (var j = lid; j < n; j += WG) {
        let e = exp(p[j] - mx);
        p[j] = e;
        local_sum += e;
    }
    let total = reduce_sum(local_sum, lid);
    for (var j = lid; j < n; j += WG) {
        p[j] = p[j] / total;
    }
}

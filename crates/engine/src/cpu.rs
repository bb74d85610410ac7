//! CPU twins: what each kernel computes, written plainly. The kernel tests compare against these.

/// y (m×n) = act(x (m×k) · wᵀ + b), w stored (n×k).
pub fn matmul(x: &[f32], w: &[f32], b: &[f32], m: usize, n: usize, k: usize, act: crate::Act) -> Vec<f32> {
    let mut y = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0f32;
            for t in 0..k {
                acc += x[i * k + t] * w[j * k + t];
            }
            let v = acc + b[j];
            y[i * n + j] = match act {
                crate::Act::None => v,
                crate::Act::Relu => v.max(0.0),
                crate::Act::Tanh => v.tanh(),
            };
        }
    }
    y
}

pub fn softmax(x: &[f32], cols: usize, log: bool) -> Vec<f32> {
    x.chunks(cols)
        .flat_map(|r| {
            let m = r.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let s: f32 = r.iter().map(|v| (v - m).exp()).sum();
            r.iter().map(move |v| if log { v - m - s.ln() } else { (v - m).exp() / s }).collect::<Vec<_>>()
        })
        .collect()
}

pub fn layer_norm(x: &[f32], gamma: &[f32], beta: &[f32], cols: usize, eps: f32) -> Vec<f32> {
    x.chunks(cols)
        .flat_map(|r| {
            let n = cols as f32;
            let mean = r.iter().sum::<f32>() / n;
            let var = r.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
            let rstd = 1.0 / (var + eps).sqrt();
            r.iter().enumerate().map(move |(i, v)| (v - mean) * rstd * gamma[i] + beta[i]).collect::<Vec<_>>()
        })
        .collect()
}

/// Per row: the k best (index, value), best first, ties to the lower index (the search's own
/// selection, which topk.wgsl must reproduce).
pub fn top_k(x: &[f32], cols: usize, k: usize) -> Vec<Vec<(u32, f32)>> {
    x.chunks(cols).map(|r| wgslate_decode::top_k(r, k)).collect()
}

/// One GRU step (PyTorch gate order r, z, n) for rows × hidden, keeping h where `keep[row]`.
pub fn gru_cell(xp: &[f32], hp: &[f32], h: &[f32], hidden: usize, keep: &[bool]) -> Vec<f32> {
    let sig = |x: f32| 1.0 / (1.0 + (-x).exp());
    (0..h.len())
        .map(|idx| {
            let (b, i) = (idx / hidden, idx % hidden);
            if keep[b] {
                return h[idx];
            }
            let (x, p) = (&xp[b * 3 * hidden..], &hp[b * 3 * hidden..]);
            let r = sig(x[i] + p[i]);
            let z = sig(x[hidden + i] + p[hidden + i]);
            let n = (x[2 * hidden + i] + r * p[2 * hidden + i]).tanh();
            n + z * (h[idx] - n)
        })
        .collect()
}

/// Additive (v given) or dot-product attention of each row over s positions: (probs, context).
#[allow(clippy::too_many_arguments)]
pub fn gru_attention(q: &[f32], keys: &[f32], v: Option<&[f32]>, memory: &[f32], s: usize, key_dim: usize, mem_dim: usize, len: usize) -> (Vec<f32>, Vec<f32>) {
    let e: Vec<f32> = (0..len)
        .map(|j| {
            let k = &keys[j * key_dim..(j + 1) * key_dim];
            match v {
                Some(v) => (0..key_dim).map(|a| v[a] * (k[a] + q[a]).tanh()).sum(),
                None => (0..key_dim).map(|a| k[a] * q[a]).sum(),
            }
        })
        .collect();
    let p = softmax(&e, len.max(1), false);
    let ctx = (0..mem_dim).map(|i| (0..len).map(|j| p[j] * memory[j * mem_dim + i]).sum()).collect();
    let _ = s;
    (p, ctx)
}

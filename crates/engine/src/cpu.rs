//! CPU twins: what each kernel computes, written plainly. The kernel tests compare against these.

/// y (m×n) = act(x (m×k) · wᵀ + b), w stored (n×k).
pub fn matmul(x: &[f32], w: &[f32], b: &[f32], m: usize, n: usize, k: usize, relu: bool) -> Vec<f32> {
    let mut y = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0f32;
            for t in 0..k {
                acc += x[i * k + t] * w[j * k + t];
            }
            let v = acc + b[j];
            y[i * n + j] = if relu { v.max(0.0) } else { v };
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

/// Per row: (index, value) of the maximum, ties to the lower index.
pub fn argmax(x: &[f32], cols: usize) -> Vec<(u32, f32)> {
    x.chunks(cols)
        .map(|r| r.iter().enumerate().fold((u32::MAX, f32::NEG_INFINITY), |best, (i, &v)| if v > best.1 { (i as u32, v) } else { best }))
        .collect()
}

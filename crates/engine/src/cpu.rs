//! CPU twins: what each kernel computes, written plainly. The kernel tests compare against these.

/// y (m×n) = act(x (m×k) · wᵀ + b), w stored (n×k).
pub fn matmul(x: &[f32], w: &[f32], b: &[f32], m: usize, n: usize, k: usize, act: crate::Act) -> Vec<f32> {
    let mut y = vec![0f32; m * n];
    matmul_into(x, w, b, &mut y, m, n, k, act);
    y
}

/// matmul.wgsl on an existing y (m×n), which `Act::Residual` adds to.
#[allow(clippy::too_many_arguments)]
pub fn matmul_into(x: &[f32], w: &[f32], b: &[f32], y: &mut [f32], m: usize, n: usize, k: usize, act: crate::Act) {
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
                crate::Act::Residual => y[i * n + j] + v,
            };
        }
    }
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
pub fn gru_attention(
    q: &[f32],
    keys: &[f32],
    v: Option<&[f32]>,
    memory: &[f32],
    key_dim: usize,
    mem_dim: usize,
    len: usize,
) -> (Vec<f32>, Vec<f32>) {
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
    (p, ctx)
}

/// Scaled dot-product attention per (query row, head), as attention.wgsl lays it out: returns the
/// outputs (rows × heads·dk) and the probabilities ((rows · heads) × kv_len, zero past each row's n).
pub fn attention(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    map: &[u32],
    lengths: &[u32],
    l: &crate::AttentionLayout,
) -> (Vec<f32>, Vec<f32>) {
    let (rows, heads, dk, kv_len, stride) =
        (l.rows as usize, l.heads as usize, l.dk as usize, l.kv_len as usize, l.kv_stride as usize);
    let mut out = vec![0f32; rows * heads * dk];
    let mut probs = vec![0f32; rows * heads * kv_len];
    let scale = 1.0 / (dk as f32).sqrt();
    for r in 0..rows {
        let m = map[r] as usize;
        let n = if l.fixed_len != 0 { l.fixed_len } else { lengths[m] } as usize;
        let n = n.min(kv_len).min(crate::kernels::MAX_KEYS);
        for h in 0..heads {
            let qr = &q[r * l.q_stride as usize + h * dk..][..dk];
            let at = |j: usize, off: u32| (m * kv_len + j) * stride + off as usize + h * dk;
            let scores: Vec<f32> = (0..n)
                .map(|j| scale * qr.iter().zip(&k[at(j, l.k_off)..][..dk]).map(|(a, b)| a * b).sum::<f32>())
                .collect();
            let p = softmax(&scores, n.max(1), false);
            probs[(r * heads + h) * kv_len..][..n].copy_from_slice(&p[..n]);
            for i in 0..dk {
                out[(r * heads + h) * dk + i] = (0..n).map(|j| p[j] * v[at(j, l.v_off) + i]).sum();
            }
        }
    }
    (out, probs)
}

/// matvec_attend.wgsl: the attention of `l` over keys and values in one buffer (uncaptured), then
/// y = act(context · wᵀ + b) as [`matmul_into`] writes it (n outputs, w stored n × heads·dk).
#[allow(clippy::too_many_arguments)]
pub fn attention_matmul(
    q: &[f32],
    kv: &[f32],
    (map, lengths): (&[u32], &[u32]),
    l: &crate::AttentionLayout,
    (w, b): (&[f32], &[f32]),
    y: &mut [f32],
    n: usize,
    act: crate::Act,
) {
    let (context, _) = attention(q, kv, kv, map, lengths, l);
    matmul_into(&context, w, b, y, l.rows as usize, n, (l.heads * l.dk) as usize, act);
}

/// The self-attention cache (rows × max_len × 2d: K then V at each position) after writing position
/// t from kv (rows of `stride` floats, K at `k_off`, V right after).
pub fn kv_append(
    kv: &[f32],
    cache: &[f32],
    d: usize,
    max_len: usize,
    t: usize,
    stride: usize,
    k_off: usize,
) -> Vec<f32> {
    let mut out = cache.to_vec();
    for (r, row) in kv.chunks(stride).enumerate() {
        out[(r * max_len + t) * 2 * d..][..2 * d].copy_from_slice(&row[k_off..k_off + 2 * d]);
    }
    out
}

/// dst with rows r < index.len() replaced, in their first `len` floats, by src's row index[r].
pub fn gather_rows(src: &[f32], index: &[u32], dst: &[f32], width: usize, len: usize) -> Vec<f32> {
    let mut out = dst.to_vec();
    for (r, &i) in index.iter().enumerate() {
        out[r * width..][..len].copy_from_slice(&src[i as usize * width..][..len]);
    }
    out
}

/// Per row b: the mean of x[b, j, :] over j < lengths[b] (x is rows × s × width).
pub fn masked_mean(x: &[f32], lengths: &[u32], s: usize, width: usize) -> Vec<f32> {
    let mut mean = vec![0f32; lengths.len() * width];
    for (b, &len) in lengths.iter().enumerate() {
        for i in 0..width {
            let sum: f32 = (0..len as usize).map(|j| x[(b * s + j) * width + i]).sum();
            mean[b * width + i] = sum / len as f32;
        }
    }
    mean
}

/// dst with `width` columns of each row copied from src: (rows, width, src_stride, src_off,
/// dst_stride, dst_off).
pub fn copy_cols(src: &[f32], dst: &[f32], dims: [usize; 6]) -> Vec<f32> {
    let [rows, width, src_stride, src_off, dst_stride, dst_off] = dims;
    let mut out = dst.to_vec();
    for r in 0..rows {
        out[r * dst_stride + dst_off..][..width].copy_from_slice(&src[r * src_stride + src_off..][..width]);
    }
    out
}

/// A decoder layer's dense weights for [`decoder_layer`]: matrices and biases in
/// [`crate::layer::MATRICES`] order, norms LN1, LN2, LN3 (and the final norm for the last layer).
pub struct LayerWeights<'a> {
    pub matrices: [&'a [f32]; 6],
    pub biases: [&'a [f32]; 6],
    pub norms: Vec<(&'a [f32], &'a [f32])>,
}

/// One decoder step through a layer, as decoder_layer.wgsl computes it and as the per-op kernels
/// do in turn (these twins composed): returns x (rows × d; after the last layer its final norm), the
/// cache with position t appended, and the cross-attention weights (rows × heads × s_max).
#[allow(clippy::too_many_arguments)]
pub fn decoder_layer(
    x: &[f32],
    cache: &[f32],
    cross: &[f32],
    map: &[u32],
    lengths: &[u32],
    w: &LayerWeights,
    shape: crate::layer::LayerShape,
    (t, max_len, s_max): (usize, usize, usize),
    eps: f32,
) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    use crate::Act;
    let crate::layer::LayerShape { d, d_ff, heads } = shape;
    let rows = x.len() / d;
    let [qkv_w, so_w, cq_w, co_w, up_w, down_w] = w.matrices;
    let [qkv_b, so_b, cq_b, co_b, up_b, down_b] = w.biases;
    let mut x = x.to_vec();
    let norm = |x: &[f32], i: usize| layer_norm(x, w.norms[i].0, w.norms[i].1, d, eps);
    let layout = |kv_len: usize, fixed_len: usize, q_stride: usize| crate::AttentionLayout {
        rows: rows as u32,
        heads: heads as u32,
        dk: (d / heads) as u32,
        kv_len: kv_len as u32,
        kv_stride: 2 * d as u32,
        k_off: 0,
        v_off: d as u32,
        fixed_len: fixed_len as u32,
        q_stride: q_stride as u32,
    };
    let qkv = matmul(&norm(&x, 0), qkv_w, qkv_b, rows, 3 * d, d, Act::None);
    let cache = kv_append(&qkv, cache, d, max_len, t, 3 * d, d);
    let identity: Vec<u32> = (0..rows as u32).collect();
    let (att, _) = attention(&qkv, &cache, &cache, &identity, &[], &layout(max_len, t + 1, 3 * d));
    matmul_into(&att, so_w, so_b, &mut x, rows, d, d, Act::Residual);
    let q = matmul(&norm(&x, 1), cq_w, cq_b, rows, d, d, Act::None);
    let (att, probs) = attention(&q, cross, cross, map, lengths, &layout(s_max, 0, d));
    matmul_into(&att, co_w, co_b, &mut x, rows, d, d, Act::Residual);
    let hidden = matmul(&norm(&x, 2), up_w, up_b, rows, d_ff, d, Act::Relu);
    matmul_into(&hidden, down_w, down_b, &mut x, rows, d, d_ff, Act::Residual);
    if w.norms.len() == 4 {
        x = norm(&x, 3);
    }
    (x, cache, probs)
}

/// A GRU step's weights as the twin multiplies them (what the kernel widens); `w_q` and `v` only
/// for additive scores.
pub struct GruStepWeights<'a> {
    pub w_ih: &'a [f32],
    pub w_hh: &'a [f32],
    pub w_out: &'a [f32],
    pub w_q: Option<&'a [f32]>,
    pub b_ih: &'a [f32],
    pub b_hh: &'a [f32],
    pub b_out: &'a [f32],
    pub v: &'a [f32],
}

/// One GRU decoder step as gru_step.wgsl computes it and the per-op kernels do in turn (these twins
/// composed): row r attends over source map[r] (s_max positions a source, lengths[map[r]] of them)
/// and returns o (rows × emb), h' (rows × hidden) and the attention weights (rows × s_max).
#[allow(clippy::too_many_arguments)]
pub fn gru_step(
    emb: &[f32],
    h: &[f32],
    keys: &[f32],
    memory: &[f32],
    map: &[u32],
    lengths: &[u32],
    w: &GruStepWeights,
    shape: crate::gru_step::GruStepShape,
    s_max: usize,
) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    use crate::Act;
    let crate::gru_step::GruStepShape { emb: e, mem, hidden: hd, key_dim: kd, .. } = shape;
    let rows = h.len() / hd;
    let (mut o, mut h_new, mut probs) = (Vec::new(), Vec::new(), vec![0.0; rows * s_max]);
    for r in 0..rows {
        let (m, h_r, emb_r) = (map[r] as usize, &h[r * hd..][..hd], &emb[r * e..][..e]);
        let n = (lengths[m] as usize).min(s_max);
        let q = match w.w_q {
            Some(w_q) => matmul(h_r, w_q, &vec![0.0; kd], 1, kd, hd, Act::None),
            None => h_r.to_vec(),
        };
        let v = w.w_q.map(|_| w.v);
        let (keys_m, memory_m) = (&keys[m * s_max * kd..][..n * kd], &memory[m * s_max * mem..][..n * mem]);
        let (p, ctx) = gru_attention(&q, keys_m, v, memory_m, kd, mem, n);
        probs[r * s_max..][..n].copy_from_slice(&p[..n]);
        let input = [emb_r, &ctx].concat();
        let xp = matmul(&input, w.w_ih, w.b_ih, 1, 3 * hd, e + mem, Act::None);
        let hp = matmul(h_r, w.w_hh, w.b_hh, 1, 3 * hd, hd, Act::None);
        let h_r_new = gru_cell(&xp, &hp, h_r, hd, &[false]);
        let features = [&h_r_new[..], &ctx, emb_r].concat();
        o.extend(matmul(&features, w.w_out, w.b_out, 1, e, hd + mem + e, Act::Tanh));
        h_new.extend(h_r_new);
    }
    (o, h_new, probs)
}

/// The GRU encoder's recurrence as gru_encoder.wgsl computes it and the per-op kernels do in turn
/// (the product and cell twins composed): `xp` holds each position's input products of both
/// directions (rows·s × 6H), and the result is the memory (rows·s × 2H, forward then backward),
/// padding positions keeping the state.
pub fn gru_encoder(
    xp: &[f32],
    lengths: &[u32],
    w_hh: [&[f32]; 2],
    b_hh: [&[f32]; 2],
    hidden: usize,
    s: usize,
) -> Vec<f32> {
    let rows = lengths.len();
    let mut memory = vec![0.0; rows * s * 2 * hidden];
    for dir in 0..2 {
        let mut h = vec![0.0; rows * hidden];
        for step in 0..s {
            let t = if dir == 0 { step } else { s - 1 - step };
            let hp = matmul(&h, w_hh[dir], b_hh[dir], rows, 3 * hidden, hidden, crate::Act::None);
            let xp_t: Vec<f32> =
                (0..rows).flat_map(|b| xp[((b * s + t) * 6 + 3 * dir) * hidden..][..3 * hidden].to_vec()).collect();
            let keep: Vec<bool> = lengths.iter().map(|&len| t >= len as usize).collect();
            h = gru_cell(&xp_t, &hp, &h, hidden, &keep);
            for b in 0..rows {
                memory[(b * s + t) * 2 * hidden + dir * hidden..][..hidden].copy_from_slice(&h[b * hidden..][..hidden]);
            }
        }
    }
    memory
}

/// beam_select.wgsl's step, written as a sort: `log` and `index` after the step `dims` describes
/// (rows, beam, k, eos, step, slots, cand_off, rows_at; see the shader for the layout).
pub fn beam_select(cands: &[(u32, f32)], log: &[u32], index: &[u32], dims: [u32; 8]) -> (Vec<u32>, Vec<u32>) {
    let [rows, beam, k, eos, step, slots, cand_off, rows_at] = dims.map(|v| v as usize);
    let (mut log, mut index) = (log.to_vec(), index.to_vec());
    let row_entry = |step: usize, row: usize| rows_at + (step * rows + row) * 4;
    for slot in 0..slots {
        let first = slot * beam;
        let mut ranked: Vec<(f32, usize, u32, f32)> = Vec::new();
        for i in 0..beam {
            let cum = f32::from_bits(log[row_entry(step, first + i) + 3]);
            for &(tok, lp) in &cands[cand_off + (first + i) * k..][..k] {
                if lp.is_finite() {
                    ranked.push((cum + lp, i, tok, lp));
                }
            }
        }
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        let mut live = 0;
        for rank in 0..2 * beam {
            let at = ((step * slots + slot) * 2 * beam + rank) * 4;
            let Some(&(cum, i, tok, lp)) = ranked.get(rank) else {
                log[at + 1] = u32::MAX;
                continue;
            };
            log[at..at + 4].copy_from_slice(&[i as u32, tok, lp.to_bits(), cum.to_bits()]);
            if tok != eos as u32 && live < beam {
                let next = row_entry(step + 1, first + live);
                log[next..next + 4].copy_from_slice(&[(first + i) as u32, tok, lp.to_bits(), cum.to_bits()]);
                index[first + live] = (first + i) as u32;
                live += 1;
            }
        }
        for live in live..beam {
            let next = row_entry(step + 1, first + live);
            let low = f32::MIN.to_bits();
            log[next..next + 4].copy_from_slice(&[first as u32, eos as u32, low, low]);
            index[first + live] = first as u32;
        }
    }
    (log, index)
}

//! Every kernel against its CPU twin on random, non-zero inputs of odd sizes, on the machine's
//! Vulkan adapter (lavapipe in CI). Error measure: max |gpu - cpu| / max |cpu| ≤ 1e-4.

use wgslate_engine::layer::MatrixData;
use wgslate_engine::{cpu, Act, CacheAppend, Gpu, KernelParams, Kernels, Matrix, Recorder, Sites, TokenSource};

#[allow(dead_code)]
mod common;

fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E3779B97F4A7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let v = ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0;
            if v.abs() < 1e-3 {
                0.5
            } else {
                v
            }
        })
        .collect()
}

fn rel_error(gpu: &[f32], cpu: &[f32]) -> f32 {
    assert_eq!(gpu.len(), cpu.len());
    let scale = cpu.iter().fold(0f32, |m, v| m.max(v.abs())).max(1e-12);
    gpu.iter().zip(cpu).fold(0f32, |m, (a, b)| m.max((a - b).abs())) / scale
}

fn setup() -> (Gpu, Kernels) {
    let gpu = common::gpu();
    println!("adapter: {:?}", gpu.report);
    let kernels = Kernels::new(&gpu, KernelParams::default()).unwrap();
    (gpu, kernels)
}

fn run(gpu: &Gpu, f: impl FnOnce(&mut Recorder)) {
    let mut sites = Sites::default();
    let mut rec = Recorder::new(gpu, &mut sites);
    f(&mut rec);
    rec.submit();
}

#[test]
fn matmul_matches_cpu() {
    let (gpu, k) = setup();
    // k is a multiple of 4 (vec4 loads) but not of the tile's 64; m ≤ 8 runs matvec.wgsl, larger m matmul.wgsl.
    let cases = [
        (37usize, 53usize, 68usize, Act::None),
        (1, 257, 256, Act::Relu),
        (33, 8003, 20, Act::None),
        (5, 19, 44, Act::Tanh),
        (8, 1001, 132, Act::None),
        (9, 31, 260, Act::Relu),
        (3, 7, 4, Act::Tanh),
        (1, 224, 224, Act::Residual),
        (40, 67, 36, Act::Residual),
    ];
    for &(m, n, kk, relu) in &cases {
        let (x, w, b, y0) = (random(m * kk, 1), random(n * kk, 2), random(n, 3), random(m * n, 4));
        let (bx, bw, bb, by) =
            (gpu.storage("x", &x), gpu.storage("w", &w), gpu.storage("b", &b), gpu.storage("y", &y0));
        run(&gpu, |rec| k.matmul(rec, &bx, &bw, &bb, &by, m as u32, n as u32, kk as u32, relu));
        let got = pollster::block_on(gpu.read_f32(&by)).unwrap();
        let mut want = y0.clone();
        cpu::matmul_into(&x, &w, &b, &mut want, m, n, kk, relu);
        let err = rel_error(&got, &want);
        println!("matmul {m}×{kk}·({n}×{kk})ᵀ {relu:?}: rel error {err:e}");
        assert!(err <= 1e-4, "matmul {m}×{n}×{kk}: {err}");
    }
}

/// LayerNorm folded into the product (matvec_norm.wgsl, up to `matvec_max_rows` rows) against the
/// CPU twins run one after the other; more rows take the two-dispatch path, also checked.
#[test]
fn norm_matmul_matches_cpu() {
    let (gpu, k) = setup();
    let eps = k.params.layer_norm_eps;
    let cases = [
        (1usize, 432usize, 144usize, Act::None),
        (4, 144, 144, Act::Residual),
        (8, 576, 144, Act::Relu),
        (3, 37, 260, Act::None),
        (5, 301, 12, Act::Relu),
        (21, 53, 144, Act::None),
    ];
    for &(m, n, kk, act) in &cases {
        // An offset and a spread far from 0 and 1: the norm has to remove them.
        let x: Vec<f32> = random(m * kk, 5).iter().map(|v| 3.0 + 4.0 * v).collect();
        let (w, b, y0) = (random(n * kk, 6), random(n, 7), random(m * n, 8));
        let (g, be): (Vec<f32>, Vec<f32>) = (random(kk, 9).iter().map(|v| 1.0 + v).collect(), random(kk, 10));
        let [bx, bw, bb, by, bg, bbe] = [&x, &w, &b, &y0, &g, &be].map(|v| gpu.storage("t", v));
        let scratch = gpu.output("scratch", (m * kk * 4) as u64);
        run(&gpu, |rec| {
            k.norm_matmul(rec, &bx, (&bg, &bbe), &scratch, &bw, &bb, &by, [m as u32, n as u32, kk as u32], act, None)
        });
        let mut want = y0.clone();
        cpu::matmul_into(&cpu::layer_norm(&x, &g, &be, kk, eps), &w, &b, &mut want, m, n, kk, act);
        let err = rel_error(&read(&gpu, &by), &want);
        println!("layernorm + matmul {m}×{kk}·({n}×{kk})ᵀ {act:?}: rel error {err:e}");
        assert!(err <= 1e-4, "layernorm + matmul {m}×{n}×{kk}: {err}");
    }
    // int8 weights, one scale per row.
    use wgslate_model::quant;
    let k8 = Kernels::new(&gpu, KernelParams { int8_block: Some(0), ..Default::default() }).unwrap();
    let (m, n, kk) = (4usize, 96usize, 48usize);
    let w = random(n * kk, 11);
    let (q, scales) = quant::quantize(&w, kk, quant::PER_ROW);
    let dequantised = quant::dequantize(&q, &scales, quant::block_for(kk, quant::PER_ROW));
    let values = gpu.storage_u32("w", &wgslate_engine::pack_int8(&q));
    let scale_buf = gpu.storage("scales", &scales.iter().map(|s| s.to_f32()).collect::<Vec<_>>());
    let (x, b, g, be) = (random(m * kk, 12), random(n, 13), random(kk, 14), random(kk, 15));
    let [bx, bb, bg, bbe] = [&x, &b, &g, &be].map(|v| gpu.storage("t", v));
    let (by, scratch) = (gpu.output("y", (m * n * 4) as u64), gpu.output("s", (m * kk * 4) as u64));
    let w8 = Matrix { values: &values, scales: Some(&scale_buf) };
    run(&gpu, |rec| {
        k8.norm_matmul(rec, &bx, (&bg, &bbe), &scratch, w8, &bb, &by, [m as u32, n as u32, kk as u32], Act::Tanh, None)
    });
    let want =
        cpu::matmul(&cpu::layer_norm(&x, &g, &be, kk, k8.params.layer_norm_eps), &dequantised, &b, m, n, kk, Act::Tanh);
    let err = rel_error(&read(&gpu, &by), &want);
    assert!(err <= 1e-4, "int8 layernorm + matmul: {err}");
    // A decoder step's Q|K|V product with the cache append in its epilogue (4 rows: one dispatch; 21:
    // the norm, the product and kv_cache.wgsl's append), against the CPU twins.
    let (d, max_len) = (48usize, 6usize);
    for (m, t) in [(4usize, 0usize), (4, 5), (21, 2)] {
        let (x, w, b) = (random(m * d, 16), random(3 * d * d, 17), random(3 * d, 18));
        let (g, be) = (random(d, 19), random(d, 20));
        let kvc = random(m * max_len * 2 * d, 21);
        let [bx, bw, bb, bg, bbe, bc] = [&x, &w, &b, &g, &be, &kvc].map(|v| gpu.storage("t", v));
        let (by, scratch) = (gpu.output("y", (m * 3 * d * 4) as u64), gpu.output("s", (m * d * 4) as u64));
        let cache = CacheAppend { cache: &bc, len: max_len as u32, t: t as u32, d: d as u32, off: d as u32 };
        let dims = [m as u32, 3 * d as u32, d as u32];
        run(&gpu, |rec| k.norm_matmul(rec, &bx, (&bg, &bbe), &scratch, &bw, &bb, &by, dims, Act::None, Some(cache)));
        let qkv =
            cpu::matmul(&cpu::layer_norm(&x, &g, &be, d, k.params.layer_norm_eps), &w, &b, m, 3 * d, d, Act::None);
        let got = read(&gpu, &by);
        assert!(rel_error(&got, &qkv) <= 1e-4, "{m} rows: the Q|K|V product");
        // The cache holds exactly what the product wrote (the GPU's own values, appended).
        let want = cpu::kv_append(&got, &kvc, d, max_len, t, 3 * d, d);
        assert_eq!(read(&gpu, &bc), want, "{m} rows, position {t}: the cache");
    }
}

/// A matrix (rows of `k` values) in the format a fused kernel's test uploads — f16 where `f16`, int8
/// with scales per row (block 0) or per block where `block`, f32 otherwise — and what its CPU twin
/// multiplies: the values the kernel widens (int8 values times their scales).
fn matrix_in_format(w: &[f32], k: usize, block: Option<usize>, f16: bool) -> (MatrixData, Vec<f32>) {
    use wgslate_model::quant;
    match block {
        None if f16 => (MatrixData::Dense(w.to_vec()), w.iter().map(|&v| half::f16::from_f32(v).to_f32()).collect()),
        None => (MatrixData::Dense(w.to_vec()), w.to_vec()),
        Some(b) => {
            let b = if b == 0 { quant::PER_ROW } else { b };
            let (q, scales) = quant::quantize(w, k, b);
            let deq = quant::dequantize(&q, &scales, quant::block_for(k, b));
            (MatrixData::Int8 { values: q, scales: scales.iter().map(|s| s.to_f32()).collect() }, deq)
        }
    }
}

/// A whole decoder layer in one dispatch (decoder_layer.wgsl) against the CPU twins composed
/// (`cpu::decoder_layer`): x, the cache with the step's position appended, and the captured
/// cross-attention weights; rows that share a source and sources of several lengths, the first
/// and a later position, the last layer's final norm, the shipped d224 shape, int8 weights.
#[test]
fn decoder_layer_matches_cpu() {
    use wgslate_engine::layer::{DecoderLayer, LayerShape, LayerStep, LayerTensors};
    let gpu = common::gpu();
    let cases = [
        // (d, d_ff, heads, rows, t, last, int8 block; f16 weights where the block is Some(usize::MAX))
        (48usize, 96usize, 4usize, 3usize, 0usize, false, None),
        (48, 96, 4, 3, 1, true, Some(usize::MAX)),
        (48, 96, 4, 3, 4, true, None),
        (224, 896, 7, 2, 3, true, None),
        (48, 96, 4, 3, 5, false, Some(0usize)),
        (64, 128, 2, 2, 2, true, Some(16)),
        // The widest FFN the kernel takes, and a step with 251 keys (the self-attention cache near
        // the models' 256 positions).
        (128, 1024, 4, 1, 250, true, Some(0)),
    ];
    let s_max = 5usize;
    for (case, &(d, d_ff, heads, rows, t, last, block)) in cases.iter().enumerate() {
        let max_len = (t + 2).max(6);
        let f16 = block == Some(usize::MAX);
        if f16 && !gpu.has_f16() {
            println!("no shader-f16 here: the f16 case is skipped");
            continue;
        }
        let block = block.filter(|_| !f16);
        let params = KernelParams { int8_block: block.map(|b| b as u32), f16_weights: f16, ..Default::default() };
        let k = Kernels::new(&gpu, params).unwrap();
        let shape = LayerShape { d, d_ff, heads };
        let seed = 200 + 50 * case as u64;
        let dense: Vec<Vec<f32>> = shape
            .matrix_shapes()
            .iter()
            .enumerate()
            .map(|(i, &(n, kk))| random(n * kk, seed + i as u64).iter().map(|v| v / (kk as f32).sqrt()).collect())
            .collect();
        let (matrices, twin): (Vec<MatrixData>, Vec<Vec<f32>>) =
            dense.iter().zip(shape.matrix_shapes()).map(|(w, (_, kk))| matrix_in_format(w, kk, block, f16)).unzip();
        let biases: Vec<Vec<f32>> =
            shape.matrix_shapes().iter().enumerate().map(|(i, &(n, _))| random(n, seed + 10 + i as u64)).collect();
        let norms: Vec<(Vec<f32>, Vec<f32>)> = (0..if last { 4 } else { 3 })
            .map(|i| (random(d, seed + 20 + i).iter().map(|v| 1.0 + v / 2.0).collect(), random(d, seed + 30 + i)))
            .collect();
        let tensors = LayerTensors { matrices, biases: biases.clone(), norms: norms.clone() };
        let layer = DecoderLayer::upload(&gpu, &k.params, shape, &tensors).unwrap();
        // An offset and a spread far from 0 and 1: each norm has to remove them.
        let x: Vec<f32> = random(rows * d, seed + 40).iter().map(|v| 2.0 + 3.0 * v).collect();
        let cache = random(rows * max_len * 2 * d, seed + 41);
        let cross = random(3 * s_max * 2 * d, seed + 42);
        let (map, lengths) = (vec![2u32, 1, 2][..rows].to_vec(), vec![5u32, 1, 3]);
        let probs0 = vec![0f32; rows * heads * s_max];
        let [bx, bc, bcross, bp] = [&x, &cache, &cross, &probs0].map(|v| gpu.storage("t", v));
        let (bmap, blen) = (gpu.storage_u32("map", &map), gpu.storage_u32("lengths", &lengths));
        let step =
            LayerStep { rows: rows as u32, t: t as u32, max_len: max_len as u32, s_max: s_max as u32, capture: true };
        run(&gpu, |rec| k.decoder_layer(rec, &layer, &bx, &bc, &bcross, &bmap, &blen, &bp, step));
        let weights = cpu::LayerWeights {
            matrices: std::array::from_fn(|i| twin[i].as_slice()),
            biases: std::array::from_fn(|i| biases[i].as_slice()),
            norms: norms.iter().map(|(g, b)| (g.as_slice(), b.as_slice())).collect(),
        };
        let (want_x, want_cache, want_probs) = cpu::decoder_layer(
            &x,
            &cache,
            &cross,
            &map,
            &lengths,
            &weights,
            shape,
            (t, max_len, s_max),
            k.params.layer_norm_eps,
        );
        let errs = [
            rel_error(&read(&gpu, &bx), &want_x),
            rel_error(&read(&gpu, &bc), &want_cache),
            rel_error(&read(&gpu, &bp), &want_probs),
        ];
        println!("decoder layer {shape:?}, {rows} rows, t {t}, last {last}, int8 {block:?}: rel errors {errs:?} (x, cache, probs)");
        assert!(errs.iter().all(|&e| e <= 1e-4), "decoder layer case {case}: {errs:?}");
    }
}

/// A whole GRU decoder step (gru_step.wgsl) against the per-op twins composed: additive and dot
/// scores, f32, f16 and int8 weights (per row and per block), rows sharing a source, one with a
/// single position, and the shipped model's widths.
#[test]
fn gru_step_matches_cpu() {
    use wgslate_engine::gru_step::{GruStep, GruStepShape, GruStepTensors};
    let gpu = common::gpu();
    let cases = [
        // (emb, mem, hidden, key_dim, additive, rows, int8 block; f16 where Some(usize::MAX))
        (16usize, 24usize, 20usize, 12usize, true, 3usize, None),
        (16, 24, 20, 12, true, 3, Some(usize::MAX)),
        (16, 24, 20, 12, true, 3, Some(0usize)),
        (16, 20, 20, 20, false, 3, Some(4)),
        (256, 512, 512, 256, true, 2, Some(0)),
    ];
    let s_max = 5usize;
    for (case, &(e, mem, hidden, kd, additive, rows, block)) in cases.iter().enumerate() {
        let f16 = block == Some(usize::MAX);
        if f16 && !gpu.has_f16() {
            println!("no shader-f16 here: the f16 case is skipped");
            continue;
        }
        let block = block.filter(|_| !f16);
        let params = KernelParams {
            int8_block: block.map(|b| b as u32),
            f16_weights: f16,
            fused_gru_step: true,
            ..Default::default()
        };
        let k = Kernels::new(&gpu, params).unwrap();
        if !k.has_fused_gru() {
            println!("{} binds fewer than 9 storage buffers a stage: no one-dispatch GRU step", gpu.report.name);
            return;
        }
        let shape = GruStepShape { emb: e, mem, hidden, key_dim: kd, additive };
        assert!(shape.fits());
        let seed = 700 + 50 * case as u64;
        let (matrices, twin): (Vec<MatrixData>, Vec<Vec<f32>>) = shape
            .matrix_shapes()
            .iter()
            .enumerate()
            .map(|(i, &(n, kk))| {
                let w: Vec<f32> = random(n * kk, seed + i as u64).iter().map(|v| v / (kk as f32).sqrt()).collect();
                matrix_in_format(&w, kk, block, f16)
            })
            .unzip();
        let tensors = GruStepTensors {
            matrices,
            b_ih: random(3 * hidden, seed + 10),
            b_hh: random(3 * hidden, seed + 11),
            b_out: random(e, seed + 12),
            v: if additive { random(kd, seed + 13) } else { Vec::new() },
        };
        let step = GruStep::upload(&gpu, &k.params, shape, &tensors).unwrap();
        let emb = random(rows * e, seed + 20);
        let h = random(rows * hidden, seed + 21);
        let keys = random(3 * s_max * kd, seed + 22);
        let memory = random(3 * s_max * mem, seed + 23);
        let (map, lengths) = (vec![2u32, 1, 2][..rows].to_vec(), vec![5u32, 1, 3]);
        let [bx, bh, bkeys, bmem] = [&emb, &h, &keys, &memory].map(|v| gpu.storage("t", v));
        let bp = gpu.storage("probs", &vec![0f32; rows * s_max]);
        let (bmap, blen) = (gpu.storage_u32("map", &map), gpu.storage_u32("lengths", &lengths));
        let launch = (rows as u32, s_max as u32, true);
        run(&gpu, |rec| k.gru_step(rec, &step, &bx, &bh, &bkeys, &bmem, &bmap, &blen, &bp, launch));
        let weights = cpu::GruStepWeights {
            w_ih: &twin[0],
            w_hh: &twin[1],
            w_out: &twin[2],
            w_q: additive.then(|| twin[3].as_slice()),
            b_ih: &tensors.b_ih,
            b_hh: &tensors.b_hh,
            b_out: &tensors.b_out,
            v: &tensors.v,
        };
        let (want_o, want_h, want_probs) =
            cpu::gru_step(&emb, &h, &keys, &memory, &map, &lengths, &weights, shape, s_max);
        let errs = [
            rel_error(&read(&gpu, &bx), &want_o),
            rel_error(&read(&gpu, &bh), &want_h),
            rel_error(&read(&gpu, &bp), &want_probs),
        ];
        println!("GRU step {shape:?}, {rows} rows, int8 {block:?}, f16 {f16}: rel errors {errs:?} (o, h, probs)");
        assert!(errs.iter().all(|&e| e <= 1e-4), "GRU step case {case}: {errs:?}");
    }
}

/// The GRU encoder's recurrence in one dispatch (gru_encoder.wgsl) against the product and cell
/// twins composed: both directions, padding (lengths 5, 1, 3 and 0 of 5 positions), f32, f16 and int8
/// weights, the shipped model's width, and one wider than the workgroup (two units a thread).
#[test]
fn gru_encoder_matches_cpu() {
    use wgslate_engine::gru_step::GruEncoder;
    let gpu = common::gpu();
    // (hidden, int8 block; f16 where Some(usize::MAX))
    let cases =
        [(12usize, None), (12, Some(usize::MAX)), (12, Some(0usize)), (20, Some(4)), (256, Some(0)), (264, None)];
    let (s, lengths) = (5usize, vec![5u32, 1, 3, 0]);
    for (case, &(hidden, block)) in cases.iter().enumerate() {
        let f16 = block == Some(usize::MAX);
        if f16 && !gpu.has_f16() {
            continue;
        }
        let block = block.filter(|_| !f16);
        let params = KernelParams {
            int8_block: block.map(|b| b as u32),
            f16_weights: f16,
            fused_gru_step: true,
            ..Default::default()
        };
        let k = Kernels::new(&gpu, params).unwrap();
        if !k.has_fused_gru() {
            println!("{} binds fewer than 9 storage buffers a stage: no one-dispatch GRU", gpu.report.name);
            return;
        }
        let seed = 900 + 20 * case as u64;
        let (matrices, twin): (Vec<MatrixData>, Vec<Vec<f32>>) = (0..2)
            .map(|dir| {
                let w: Vec<f32> =
                    random(3 * hidden * hidden, seed + dir).iter().map(|v| v / (hidden as f32).sqrt()).collect();
                matrix_in_format(&w, hidden, block, f16)
            })
            .unzip();
        let b_hh = [random(3 * hidden, seed + 5), random(3 * hidden, seed + 6)];
        let enc =
            GruEncoder::upload(&gpu, &k.params, hidden, [&matrices[0], &matrices[1]], [&b_hh[0], &b_hh[1]]).unwrap();
        let rows = lengths.len();
        let xp = random(rows * s * 6 * hidden, seed + 7);
        let bxp = gpu.storage("xp", &xp);
        let blen = gpu.storage_u32("lengths", &lengths);
        let bmem = gpu.storage("memory", &vec![0f32; rows * s * 2 * hidden]);
        run(&gpu, |rec| k.gru_encoder(rec, &enc, &bxp, &blen, &bmem, (rows as u32, s as u32)));
        let want = cpu::gru_encoder(&xp, &lengths, [&twin[0], &twin[1]], [&b_hh[0], &b_hh[1]], hidden, s);
        let err = rel_error(&read(&gpu, &bmem), &want);
        println!("GRU encoder, hidden {hidden}, int8 {block:?}, f16 {f16}: rel error {err:e}");
        assert!(err <= 1e-4, "GRU encoder case {case}: {err}");
    }
}

/// One beam step chosen on the device (beam_select.wgsl) against its CPU twin, a sort: ties in the
/// cumulative log-prob across rows and within a row, EOS among the best, non-finite candidates
/// (too few to fill a beam), and a later step of a chain.
#[test]
fn beam_select_matches_cpu() {
    let (gpu, k) = setup();
    let (beam, kk, eos) = (3usize, 4usize, 2u32);
    let slots = 2usize;
    let rows = slots * beam;
    let steps = 2usize;
    // Slot 0: rows 0 and 1 share a cumulative log-prob and offer the same scores (ties across rows
    // and, in row 0, within the row); EOS is a best candidate. Slot 1: one finite row only.
    let cum = [-1.0f32, -1.0, -3.0, -0.5, -0.25, -2.0];
    let mut cands: Vec<(u32, f32)> = vec![(0, 0.0); steps * rows * kk];
    let row_cands: [[(u32, f32); 4]; 6] = [
        [(eos, -0.1), (7, -0.5), (9, -0.5), (11, -2.0)],
        [(5, -0.1), (7, -0.5), (8, -0.7), (12, -3.0)],
        [(4, -0.05), (6, -0.2), (10, -0.3), (13, -0.9)],
        [(20, -0.3), (eos, f32::NEG_INFINITY), (21, f32::NAN), (22, f32::NEG_INFINITY)],
        [(23, f32::NEG_INFINITY); 4],
        [(24, f32::NAN); 4],
    ];
    for step in 0..steps {
        for (r, rc) in row_cands.iter().enumerate() {
            cands[(step * rows + r) * kk..][..kk].copy_from_slice(rc);
        }
    }
    let ranked_words = steps * slots * 2 * beam * 4;
    let rows_at = ranked_words;
    let mut log: Vec<u32> = vec![7; rows_at + (steps + 1) * rows * 4];
    for (r, c) in cum.iter().enumerate() {
        log[rows_at + r * 4 + 3] = c.to_bits();
    }
    let index = vec![99u32; rows];
    let words: Vec<u32> = cands.iter().flat_map(|&(t, v)| [t, v.to_bits()]).collect();
    let (bc, bl, bi) =
        (gpu.storage_u32("cands", &words), gpu.storage_u32("log", &log), gpu.storage_u32("index", &index));
    let (mut want_log, mut want_index) = (log.clone(), index.clone());
    for step in 0..steps {
        let dims = [rows, beam, kk, eos as usize, step, slots, step * rows * kk, rows_at].map(|v| v as u32);
        run(&gpu, |rec| k.beam_select(rec, &bc, &bl, &bi, dims));
        (want_log, want_index) = cpu::beam_select(&cands, &want_log, &want_index, dims);
        let got_log: Vec<u32> = bytemuck::cast_slice(&pollster::block_on(gpu.read(&bl)).unwrap()).to_vec();
        let got_index: Vec<u32> = bytemuck::cast_slice(&pollster::block_on(gpu.read(&bi)).unwrap()).to_vec();
        assert_eq!(got_log[..want_log.len()], want_log[..], "step {step}: the log");
        assert_eq!(got_index[..rows], want_index[..], "step {step}: the parents");
        if step == 0 {
            assert_eq!(&want_index[..3], &[1, 0, 0], "the beam: row 1's 5, row 0's 7 and 9");
        }
    }
    // The twin's choice, spelled out for slot 0's first step: ranks by cumulative log-prob
    // -1.1 (row 0 EOS), -1.1 (row 1, token 5), -1.5 (row 0, 7), -1.5 (row 0, 9), -1.5 (row 1, 7), ...
    let first: Vec<(u32, u32)> = (0..5).map(|j| (want_log[j * 4], want_log[j * 4 + 1])).collect();
    assert_eq!(first, vec![(0, eos), (1, 5), (0, 7), (0, 9), (1, 7)]);
}

#[test]
fn softmax_and_log_softmax_match_cpu() {
    let (gpu, k) = setup();
    for &(rows, cols) in &[(13usize, 1001usize), (3, 7), (5, 8003)] {
        let x: Vec<f32> = random(rows * cols, 4).iter().map(|v| v * 8.0).collect();
        for log in [false, true] {
            let (bx, by) = (gpu.storage("x", &x), gpu.output("y", (rows * cols * 4) as u64));
            run(&gpu, |rec| k.softmax(rec, &bx, &by, rows as u32, cols as u32, log));
            let got = pollster::block_on(gpu.read_f32(&by)).unwrap();
            let err = rel_error(&got, &cpu::softmax(&x, cols, log));
            println!("softmax {rows}×{cols} log={log}: rel error {err:e}");
            assert!(err <= 1e-4, "softmax {rows}×{cols} log={log}: {err}");
        }
    }
}

#[test]
fn layer_norm_matches_cpu() {
    let (gpu, k) = setup();
    for &(rows, cols) in &[(7usize, 257usize), (1, 3), (31, 512)] {
        let (x, g, b) = (random(rows * cols, 5), random(cols, 6), random(cols, 7));
        let (bx, bg, bb, by) = (
            gpu.storage("x", &x),
            gpu.storage("g", &g),
            gpu.storage("b", &b),
            gpu.output("y", (rows * cols * 4) as u64),
        );
        run(&gpu, |rec| k.layer_norm(rec, &bx, &bg, &bb, &by, rows as u32, cols as u32));
        let got = pollster::block_on(gpu.read_f32(&by)).unwrap();
        let err = rel_error(&got, &cpu::layer_norm(&x, &g, &b, cols, k.params.layer_norm_eps));
        println!("layernorm {rows}×{cols}: rel error {err:e}");
        assert!(err <= 1e-4, "layernorm {rows}×{cols}: {err}");
    }
}

#[test]
fn top_k_matches_cpu() {
    let (gpu, k) = setup();
    let (rows, cols) = (9usize, 8003usize);
    let mut x = random(rows * cols, 8);
    x[3 * cols + 100] = 5.0;
    x[3 * cols + 7000] = 5.0; // a tie: the lower index ranks first
    x[4 * cols + 5] = f32::NEG_INFINITY;
    for kk in [1usize, 2, 8, 32] {
        let offset = 3u32;
        let (bx, bout) = (gpu.storage("x", &x), gpu.output("out", ((rows * kk + offset as usize) * 8) as u64));
        run(&gpu, |rec| k.top_k(rec, &bx, &bout, rows as u32, cols as u32, kk as u32, offset));
        let bytes = pollster::block_on(gpu.read(&bout)).unwrap();
        let words: &[u32] = bytemuck::cast_slice(&bytes);
        let want = cpu::top_k(&x, cols, kk);
        for (r, row) in want.iter().enumerate() {
            for (j, &expected) in row.iter().enumerate() {
                let at = 2 * (offset as usize + r * kk + j);
                assert_eq!((words[at], f32::from_bits(words[at + 1])), expected, "k {kk} row {r} rank {j}");
            }
        }
        assert_eq!(words[2 * (offset as usize + 3 * kk)], 100);
        if kk > 1 {
            assert_eq!(words[2 * (offset as usize + 3 * kk + 1)], 7000);
        }
    }
}

#[test]
fn embed_reads_token_ids_with_a_stride() {
    let (gpu, k) = setup();
    let (vocab, d, rows) = (11usize, 5usize, 3usize);
    let table = random(vocab * d, 20);
    let positions = random(4 * d, 21);
    // Candidate pairs (index, value bits) as topk.wgsl writes them, two ranks per row, after one pair.
    let words: Vec<u32> = vec![0, 0, 7, 0, 1, 0, 2, 0, 9, 0, 10, 0, 3, 0];
    let (bt, btab, bpos, bx) = (
        gpu.storage_u32("cands", &words),
        gpu.storage("table", &table),
        gpu.storage("pos", &positions),
        gpu.output("x", (rows * d * 4) as u64),
    );
    run(&gpu, |rec| {
        k.embed(
            rec,
            TokenSource { buffer: &bt, stride: 4, offset: 2 },
            &btab,
            &bpos,
            &bx,
            rows as u32,
            d as u32,
            0,
            2,
            1.5,
        )
    });
    let got = pollster::block_on(gpu.read_f32(&bx)).unwrap();
    for (r, tok) in [7usize, 2, 10].into_iter().enumerate() {
        for i in 0..d {
            let want = table[tok * d + i] * 1.5 + positions[2 * d + i];
            assert!((got[r * d + i] - want).abs() <= 1e-6, "row {r} column {i}");
        }
    }
}

#[test]
fn f16_weights_give_the_f32_results() {
    let gpu = common::gpu();
    assert!(gpu.has_f16(), "{} offers no shader-f16; the f16 path cannot be checked here", gpu.report.name);
    let k32 = Kernels::new(&gpu, KernelParams::default()).unwrap();
    let k16 = Kernels::new(&gpu, KernelParams { f16_weights: true, ..Default::default() }).unwrap();
    let (m, n, kk) = (7usize, 301usize, 44usize);
    // Weights that f16 holds exactly (as the shipped f16 safetensors are), so both paths multiply the same numbers.
    let w: Vec<f32> = random(n * kk, 22).iter().map(|&v| half::f16::from_f32(v).to_f32()).collect();
    let bb = gpu.storage("b", &random(n, 24));
    let (w32, w16) = (gpu.storage("w", &w), gpu.storage_f16("w", &w));
    // 7 rows run matvec.wgsl, 21 rows matmul.wgsl.
    for m in [m, 3 * m] {
        let x = random(m * kk, 23);
        let bx = gpu.storage("x", &x);
        let (y32, y16) = (gpu.output("y", (m * n * 4) as u64), gpu.output("y", (m * n * 4) as u64));
        run(&gpu, |rec| k32.matmul(rec, &bx, &w32, &bb, &y32, m as u32, n as u32, kk as u32, Act::Relu));
        run(&gpu, |rec| k16.matmul(rec, &bx, &w16, &bb, &y16, m as u32, n as u32, kk as u32, Act::Relu));
        let (a, c) = (pollster::block_on(gpu.read_f32(&y32)).unwrap(), pollster::block_on(gpu.read_f32(&y16)).unwrap());
        assert_eq!(a, c, "matmul of {m} rows with f16 weights differs from f32");
    }
    let tokens = gpu.storage_u32("tokens", &[3, 0, 44]);
    let pos = gpu.storage("pos", &random(2 * kk, 25));
    let (e32, e16) = (gpu.output("e", (3 * kk * 4) as u64), gpu.output("e", (3 * kk * 4) as u64));
    run(&gpu, |rec| k32.embed(rec, TokenSource::ids(&tokens), &w32, &pos, &e32, 3, kk as u32, 0, 1, 2.0));
    run(&gpu, |rec| k16.embed(rec, TokenSource::ids(&tokens), &w16, &pos, &e16, 3, kk as u32, 0, 1, 2.0));
    assert_eq!(
        pollster::block_on(gpu.read_f32(&e32)).unwrap(),
        pollster::block_on(gpu.read_f32(&e16)).unwrap(),
        "embedding with an f16 table differs"
    );
}

#[test]
fn repeated_recordings_create_no_new_objects() {
    let (gpu, k) = setup();
    let (x, y, top) = (gpu.output("x", 256), gpu.output("y", 256), gpu.output("top", 64));
    let mut sites = Sites::default();
    for (round, rows) in [4u32, 4, 3, 4].into_iter().enumerate() {
        // New inputs each round: a launch parameter left stale would leave rows of an earlier round.
        let values = random(64, 26 + round as u64);
        gpu.write(&x, bytemuck::cast_slice(&values));
        gpu.write(&y, &[0; 64]);
        let mut rec = Recorder::new(&gpu, &mut sites);
        k.softmax(&mut rec, &x, &y, rows, 16, true);
        k.top_k(&mut rec, &y, &top, rows, 16, 2, 0);
        rec.submit();
        // The rewritten launch parameters took effect: this recording's rows, no more, no fewer.
        let n = rows as usize * 16;
        let got = read(&gpu, &y);
        assert!(rel_error(&got[..n], &cpu::softmax(&values[..n], 16, true)) <= 1e-5, "{rows} rows");
        assert!(got[n..].iter().all(|&v| v == 0.0), "{rows} rows: rows past them were written");
    }
    // Two sites, each a bind group, and their launch parameters' uniform chunk, made on the first
    // recording only.
    assert_eq!(sites.objects_created, 3);
}

#[test]
fn bad_kernel_parameters_are_refused() {
    let (gpu, _) = setup();
    assert!(Kernels::new(&gpu, KernelParams { matmul_tile: 32, ..Default::default() }).is_err());
    assert!(Kernels::new(&gpu, KernelParams { row_workgroup: 48, ..Default::default() }).is_err());
    assert!(Kernels::new(&gpu, KernelParams { matvec_lanes: 16, matvec_cols: 32, ..Default::default() }).is_err());
    let err = wgslate_engine::vector_width_ok(&[("d_model", 256), ("d_ff", 1022)]).unwrap_err();
    assert!(err.contains("d_ff") && err.contains("1022"), "{err}");
}

#[test]
fn gru_cell_matches_cpu_with_padding() {
    let (gpu, k) = setup();
    let (rows, hidden, s, t) = (5usize, 37usize, 4usize, 2usize);
    let xp_all = random(rows * s * 3 * hidden, 9);
    let (hp, h) = (random(rows * 3 * hidden, 10), random(rows * hidden, 11));
    let lengths: Vec<u32> = vec![4, 2, 3, 1, 4];
    let xp_t: Vec<f32> =
        (0..rows).flat_map(|b| xp_all[(b * s + t) * 3 * hidden..(b * s + t + 1) * 3 * hidden].to_vec()).collect();
    let keep: Vec<bool> = lengths.iter().map(|&l| (t as u32) >= l).collect();
    let want = cpu::gru_cell(&xp_t, &hp, &h, hidden, &keep);
    let (bxp, bhp, bh, blen) =
        (gpu.storage("xp", &xp_all), gpu.storage("hp", &hp), gpu.storage("h", &h), gpu.storage_u32("len", &lengths));
    let (bout, bmem) =
        (gpu.output("out", (rows * hidden * 4) as u64), gpu.output("mem", (rows * s * hidden * 4) as u64));
    run(&gpu, |rec| {
        k.gru_cell(
            rec,
            &bxp,
            &bhp,
            &bh,
            &blen,
            &bout,
            &bmem,
            [rows as u32, hidden as u32, s as u32, t as u32, 1, hidden as u32, 0, s as u32],
        )
    });
    let got = pollster::block_on(gpu.read_f32(&bout)).unwrap();
    let err = rel_error(&got, &want);
    println!("gru cell: rel error {err:e}");
    assert!(err <= 1e-4, "gru cell: {err}");
    let mem = pollster::block_on(gpu.read_f32(&bmem)).unwrap();
    for b in 0..rows {
        assert_eq!(&mem[(b * s + t) * hidden..(b * s + t + 1) * hidden], &got[b * hidden..(b + 1) * hidden]);
    }
}

#[test]
fn gru_attention_matches_cpu() {
    let (gpu, k) = setup();
    let (rows, s, key_dim, mem_dim) = (3usize, 9usize, 12usize, 20usize);
    let lengths: Vec<u32> = vec![9, 4, 7];
    let (keys, memory, v) = (random(rows * s * key_dim, 12), random(rows * s * mem_dim, 13), random(key_dim, 14));
    let q = random(rows * key_dim, 15);
    let map: Vec<u32> = vec![0, 1, 2];
    for additive in [true, false] {
        let (bq, bk, bv, bm, bmap, blen) = (
            gpu.storage("q", &q),
            gpu.storage("k", &keys),
            gpu.storage("v", &v),
            gpu.storage("m", &memory),
            gpu.storage_u32("map", &map),
            gpu.storage_u32("len", &lengths),
        );
        let (bctx, bp) = (gpu.output("ctx", (rows * mem_dim * 4) as u64), gpu.output("p", (rows * s * 4) as u64));
        run(&gpu, |rec| {
            k.gru_attention(
                rec,
                &bq,
                &bk,
                &bv,
                &bm,
                &bmap,
                &blen,
                &bctx,
                &bp,
                [rows as u32, s as u32, key_dim as u32, mem_dim as u32, u32::from(!additive), 1],
            )
        });
        let ctx = pollster::block_on(gpu.read_f32(&bctx)).unwrap();
        let probs = pollster::block_on(gpu.read_f32(&bp)).unwrap();
        for r in 0..rows {
            let len = lengths[r] as usize;
            let (p, c) = cpu::gru_attention(
                &q[r * key_dim..(r + 1) * key_dim],
                &keys[r * s * key_dim..],
                additive.then_some(&v[..]),
                &memory[r * s * mem_dim..],
                key_dim,
                mem_dim,
                len,
            );
            assert!(rel_error(&probs[r * s..r * s + len], &p) <= 1e-4, "probs row {r} additive={additive}");
            assert!(rel_error(&ctx[r * mem_dim..(r + 1) * mem_dim], &c) <= 1e-4, "context row {r} additive={additive}");
        }
    }
}

fn read(gpu: &Gpu, b: &wgpu::Buffer) -> Vec<f32> {
    pollster::block_on(gpu.read_f32(b)).unwrap()
}

/// Attention over keys and values fused per position (stride 2d, K at 0, V at d).
fn fused_kv_layout([rows, heads, dk, kv_len, q_stride]: [usize; 5], fixed_len: u32) -> wgslate_engine::AttentionLayout {
    let d = (heads * dk) as u32;
    wgslate_engine::AttentionLayout {
        rows: rows as u32,
        heads: heads as u32,
        dk: dk as u32,
        kv_len: kv_len as u32,
        kv_stride: 2 * d,
        k_off: 0,
        v_off: d,
        fixed_len,
        q_stride: q_stride as u32,
    }
}

#[test]
fn attention_matches_cpu() {
    let (gpu, k) = setup();
    // (heads, dk, kv_len, fixed_len): padded source lengths per memory row, a decoder step's own
    // cache (fixed_len), one key, dk not a multiple of 4, and more keys than the 256 it attends over.
    for (case, &(heads, dk, kv_len, fixed_len)) in
        [(4usize, 16usize, 9usize, 0u32), (2, 7, 5, 3), (1, 4, 1, 0), (3, 12, 300, 0)].iter().enumerate()
    {
        let (rows, mem_rows) = (4usize, 3usize);
        let d = heads * dk;
        // K|V fused per position (stride 2d, V at offset d), queries with a wider stride than d.
        let (q_stride, kv_stride) = (d + 4, 2 * d);
        let q = random(rows * q_stride, 40 + case as u64);
        let kv = random(mem_rows * kv_len * kv_stride, 50 + case as u64);
        let map: Vec<u32> = vec![2, 0, 1, 2];
        let lengths: Vec<u32> = vec![kv_len as u32, (kv_len as u32).div_ceil(2), 1];
        let l = fused_kv_layout([rows, heads, dk, kv_len, q_stride], fixed_len);
        let (bq, bkv, bmap, blen) = (
            gpu.storage("q", &q),
            gpu.storage("kv", &kv),
            gpu.storage_u32("map", &map),
            gpu.storage_u32("len", &lengths),
        );
        let (bout, bp) =
            (gpu.output("out", (rows * d * 4) as u64), gpu.output("p", (rows * heads * kv_len * 4) as u64));
        run(&gpu, |rec| k.attention(rec, &bq, &bkv, &bkv, &bmap, &blen, &bout, &bp, l, true));
        let (want_out, want_p) = cpu::attention(&q, &kv, &kv, &map, &lengths, &l);
        let (out, p) = (read(&gpu, &bout), read(&gpu, &bp));
        let (e_out, e_p) = (rel_error(&out, &want_out), rel_error(&p, &want_p));
        println!("attention heads {heads} dk {dk} keys {kv_len} fixed {fixed_len}: rel error {e_out:e} (out), {e_p:e} (probs)");
        assert!(e_out <= 1e-4 && e_p <= 1e-4, "attention case {case}: {e_out} {e_p}");
    }
}

/// A sub-layer's attention and its output product with the residual add in one dispatch
/// (matvec_attend.wgsl) against the CPU twins composed, with dense and int8 weights: a step's own
/// cache (fixed length, queries in a Q|K|V row), cross-attention over padded sources that rows
/// share, more keys than the 256 attended, the widest context the kernel holds, rows past one
/// workgroup's 4, and (then the two kernels apart) more heads than it takes and rows past matvec's.
#[test]
fn attention_matmul_matches_cpu() {
    let gpu = common::gpu();
    let params = KernelParams { fused_attention: true, ..Default::default() };
    // (kernels, int8 block): 256 threads (32 a head), dense and int8 per row; 64 threads (8 a head)
    // with int8 per block of 4.
    let narrow = KernelParams { matvec_lanes: 4, matvec_cols: 16, ..params };
    let kernels = [
        (Kernels::new(&gpu, params).unwrap(), None),
        (Kernels::new(&gpu, KernelParams { int8_block: Some(0), ..params }).unwrap(), Some(0)),
        (Kernels::new(&gpu, KernelParams { int8_block: Some(4), ..narrow }).unwrap(), Some(4)),
    ];
    let max_rows = params.matvec_max_rows as usize;
    // (rows, heads, dk, kv_len, fixed_len, q_stride in units of d, n)
    let cases = [
        (1usize, 4usize, 36usize, 8usize, 5u32, 3usize, 144usize),
        (4, 4, 36, 21, 0, 1, 144),
        (7, 2, 6, 9, 0, 1, 37),
        (3, 3, 12, 300, 0, 1, 40),
        (2, 8, 64, 17, 0, 1, 96),
        (1, 9, 4, 5, 0, 1, 12),
        (max_rows + 3, 4, 8, 6, 0, 1, 32),
    ];
    for (case, &(rows, heads, dk, kv_len, fixed_len, q_mul, n)) in cases.iter().enumerate() {
        let seed = 300 + 10 * case as u64;
        let d = heads * dk;
        let (q_stride, kv_stride, mem_rows) = (q_mul * d, 2 * d, 3usize);
        let q = random(rows * q_stride, seed);
        let kv = random(mem_rows * kv_len * kv_stride, seed + 1);
        let map: Vec<u32> = (0..rows as u32).map(|r| (r * 2 + 1) % mem_rows as u32).collect();
        let lengths: Vec<u32> = vec![kv_len as u32, (kv_len as u32).div_ceil(2), 1];
        let l = fused_kv_layout([rows, heads, dk, kv_len, q_stride], fixed_len);
        let (w, b, y0) = (random(n * d, seed + 2), random(n, seed + 3), random(rows * n, seed + 4));
        let [bq, bkv, bb] = [&q, &kv, &b].map(|v| gpu.storage("t", v));
        let (bmap, blen) = (gpu.storage_u32("map", &map), gpu.storage_u32("len", &lengths));
        let att = gpu.output("att", (rows * d * 4) as u64);
        let probs = gpu.output("probs", (rows * heads * kv_len * 4) as u64);
        for (kern, block) in &kernels {
            let (data, widened) = matrix_in_format(&w, d, block.map(|b| b as usize), false);
            let (values, scales) = match &data {
                MatrixData::Dense(v) => (gpu.storage("w", v), None),
                MatrixData::Int8 { values, scales } => {
                    (gpu.storage_u32("w", &wgslate_engine::pack_int8(values)), Some(gpu.storage("s", scales)))
                }
            };
            let w = Matrix { values: &values, scales: scales.as_ref() };
            let by = gpu.storage("y", &y0);
            let before = gpu.cost().dispatches;
            run(&gpu, |rec| {
                kern.attention_matmul(
                    rec,
                    &bq,
                    &bkv,
                    (&bmap, &blen),
                    l,
                    [&att, &probs],
                    (w, &bb),
                    &by,
                    n as u32,
                    Act::Residual,
                )
            });
            // One dispatch where the kernel takes the shape; two (attention, product) where it does not,
            // or the device lacks its workgroup memory (lavapipe and SwiftShader have it).
            let one = kern.has_fused_attention() && rows <= max_rows && heads <= 8;
            assert_eq!(gpu.cost().dispatches - before, if one { 1 } else { 2 }, "case {case}, int8 block {block:?}");
            let mut want = y0.clone();
            cpu::attention_matmul(&q, &kv, (&map, &lengths), &l, (&widened, &b), &mut want, n, Act::Residual);
            let err = rel_error(&read(&gpu, &by), &want);
            println!("attention + matmul case {case} ({rows} rows, {heads}×{dk}, {kv_len} keys, int8 block {block:?}): rel error {err:e}");
            assert!(err <= 1e-4, "attention + matmul case {case}, int8 block {block:?}: {err}");
        }
    }
}

#[test]
fn kv_append_matches_cpu() {
    let (gpu, k) = setup();
    let (rows, d, max_len) = (3usize, 20usize, 7usize);
    let kvc = random(rows * max_len * 2 * d, 60);
    let bc = gpu.storage("cache", &kvc);
    let mut want = kvc;
    // A K|V projection (stride 2d, K at 0) and a Q|K|V one (stride 3d, K at d).
    for (t, stride, k_off) in [(0usize, 2 * d, 0), (1, 3 * d, d), (max_len - 1, 3 * d, d)] {
        let kv = random(rows * stride, 62 + t as u64);
        let bkv = gpu.storage("kv", &kv);
        let (r, s, o) = (rows as u32, stride as u32, k_off as u32);
        run(&gpu, |rec| k.kv_append(rec, &bkv, &bc, r, d as u32, max_len as u32, t as u32, s, o));
        want = cpu::kv_append(&kv, &want, d, max_len, t, stride, k_off);
        assert_eq!(read(&gpu, &bc), want, "position {t}");
    }
}

#[test]
fn gather_rows_matches_cpu() {
    let (gpu, k) = setup();
    let (width, len) = (13usize, 9usize);
    let src = random(5 * width, 70);
    // Repeated and reordered rows, as beam search makes them; only the first `len` floats move.
    for index in [vec![4u32, 4, 0, 2], vec![0], vec![3, 2, 1, 0, 1]] {
        let dst = random(index.len() * width, 71);
        let (bs, bi, bd) = (gpu.storage("src", &src), gpu.storage_u32("index", &index), gpu.storage("dst", &dst));
        run(&gpu, |rec| k.gather_rows(rec, &bs, &bi, &bd, index.len() as u32, width as u32, len as u32));
        assert_eq!(read(&gpu, &bd), cpu::gather_rows(&src, &index, &dst, width, len), "index {index:?}");
    }
}

#[test]
fn masked_mean_matches_cpu() {
    let (gpu, k) = setup();
    let (s, width) = (6usize, 67usize);
    let lengths: Vec<u32> = vec![6, 1, 3, 5];
    let x = random(lengths.len() * s * width, 80);
    let (bx, bl, bm) = (
        gpu.storage("x", &x),
        gpu.storage_u32("len", &lengths),
        gpu.output("mean", (lengths.len() * width * 4) as u64),
    );
    run(&gpu, |rec| k.masked_mean(rec, &bx, &bl, &bm, lengths.len() as u32, s as u32, width as u32));
    let err = rel_error(&read(&gpu, &bm), &cpu::masked_mean(&x, &lengths, s, width));
    println!("masked mean: rel error {err:e}");
    assert!(err <= 1e-6, "masked mean: {err}");
}

#[test]
fn copy_cols_matches_cpu() {
    let (gpu, k) = setup();
    let src = random(4 * 30, 90);
    // (rows, width, src_stride, src_off, dst_stride, dst_off): into the middle of wider rows, and a
    // whole-row copy.
    for dims in [[4usize, 11, 30, 5, 40, 17], [4, 30, 30, 0, 30, 0], [1, 1, 30, 29, 3, 2]] {
        let dst = random(dims[0] * dims[4], 91);
        let (bs, bd) = (gpu.storage("src", &src), gpu.storage("dst", &dst));
        run(&gpu, |rec| k.copy_cols(rec, &bs, &bd, dims.map(|v| v as u32)));
        assert_eq!(read(&gpu, &bd), cpu::copy_cols(&src, &dst, dims), "dims {dims:?}");
    }
}

/// Every shader in shaders/ is tested here against its CPU twin, or is a piece the listed shaders
/// include; a new shader without a test fails this.
#[test]
fn every_shader_has_a_kernel_test() {
    const TESTED: [(&str, &str); 19] = [
        ("attention.wgsl", "attention_matches_cpu"),
        ("copy_cols.wgsl", "copy_cols_matches_cpu"),
        ("embed.wgsl", "embed_reads_token_ids_with_a_stride"),
        ("gather_rows.wgsl", "gather_rows_matches_cpu"),
        ("gru_attention.wgsl", "gru_attention_matches_cpu"),
        ("gru_cell.wgsl", "gru_cell_matches_cpu_with_padding"),
        ("gru_step.wgsl", "gru_step_matches_cpu"),
        ("gru_encoder.wgsl", "gru_encoder_matches_cpu"),
        ("beam_select.wgsl", "beam_select_matches_cpu"),
        ("decoder_layer.wgsl", "decoder_layer_matches_cpu"),
        ("kv_cache.wgsl", "kv_append_matches_cpu"),
        ("layernorm.wgsl", "layer_norm_matches_cpu"),
        ("masked_mean.wgsl", "masked_mean_matches_cpu"),
        ("matmul.wgsl", "matmul_matches_cpu"),
        ("matvec.wgsl", "matmul_matches_cpu"),
        ("matvec_norm.wgsl", "norm_matmul_matches_cpu"),
        ("matvec_attend.wgsl", "attention_matmul_matches_cpu"),
        ("softmax.wgsl", "softmax_and_log_softmax_match_cpu"),
        ("topk.wgsl", "top_k_matches_cpu"),
    ];
    // Included into others: product.wgsl (matmul, matvec, matvec_norm, matvec_attend), matvec_lanes.wgsl
    // (matvec, matvec_norm, matvec_attend),
    // reduce.wgsl (softmax, layernorm, top-k, attention), scores.wgsl (attention, GRU attention).
    const PIECES: [&str; 4] = ["product.wgsl", "matvec_lanes.wgsl", "reduce.wgsl", "scores.wgsl"];
    let source = include_str!("kernels.rs");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shaders");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if !name.ends_with(".wgsl") || PIECES.contains(&name.as_str()) {
            continue;
        }
        match TESTED.iter().find(|(shader, _)| *shader == name) {
            Some((_, test)) => {
                assert!(source.contains(&format!("fn {test}()")), "{name}: test {test} is listed but not in kernels.rs")
            }
            None => missing.push(name),
        }
    }
    assert!(missing.is_empty(), "shaders without a kernel test against a CPU twin: {missing:?}");
}

/// The int8 path of matmul.wgsl, matvec.wgsl and embed.wgsl against the CPU twins on the
/// dequantised weights (what the CPU reference multiplies by), one scale per row and per block.
#[test]
fn int8_weights_match_the_dequantised_cpu_twins() {
    use wgslate_model::quant;
    let gpu = common::gpu();
    let (n, kk) = (301usize, 48usize);
    let w = random(n * kk, 40);
    let b = random(n, 41);
    for block in [0u32, 8] {
        let k8 = Kernels::new(&gpu, KernelParams { int8_block: Some(block), ..Default::default() }).unwrap();
        let stored_block = if block == 0 { quant::PER_ROW } else { block as usize };
        let (q, scales) = quant::quantize(&w, kk, stored_block);
        let dequantised = quant::dequantize(&q, &scales, quant::block_for(kk, stored_block));
        let values = gpu.storage_u32("w", &wgslate_engine::pack_int8(&q));
        let scale_buf = gpu.storage("scales", &scales.iter().map(|s| s.to_f32()).collect::<Vec<_>>());
        let w8 = Matrix { values: &values, scales: Some(&scale_buf) };
        let bb = gpu.storage("b", &b);
        // 7 rows run matvec.wgsl, 21 rows matmul.wgsl.
        for m in [7usize, 21] {
            let x = random(m * kk, 42);
            let (bx, by) = (gpu.storage("x", &x), gpu.output("y", (m * n * 4) as u64));
            run(&gpu, |rec| k8.matmul(rec, &bx, w8, &bb, &by, m as u32, n as u32, kk as u32, Act::Tanh));
            let err = rel_error(&read(&gpu, &by), &cpu::matmul(&x, &dequantised, &b, m, n, kk, Act::Tanh));
            println!("int8 matmul, block {block}, {m} rows: rel error {err:e}");
            assert!(err <= 1e-4, "int8 matmul, block {block}, {m} rows: {err}");
        }
        let tokens = gpu.storage_u32("tokens", &[3, 0, 300, 44]);
        let pos = random(kk, 43);
        let (bpos, be) = (gpu.storage("pos", &pos), gpu.output("e", (4 * kk * 4) as u64));
        run(&gpu, |rec| k8.embed(rec, TokenSource::ids(&tokens), w8, &bpos, &be, 4, kk as u32, 0, 0, 2.0));
        let got = read(&gpu, &be);
        for (r, t) in [3usize, 0, 300, 44].into_iter().enumerate() {
            for i in 0..kk {
                let want = dequantised[t * kk + i] * 2.0 + pos[i];
                assert!((got[r * kk + i] - want).abs() <= 1e-6, "int8 embedding, block {block}, row {r} column {i}");
            }
        }
    }
}

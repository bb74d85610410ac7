//! Every kernel against its CPU twin on random, non-zero inputs of odd sizes, on the machine's
//! Vulkan adapter (lavapipe in CI). Error measure: max |gpu - cpu| / max |cpu| ≤ 1e-4.

use wgslate_engine::{cpu, Act, Gpu, KernelParams, Kernels, Recorder, Sites, TokenSource};

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
            if v.abs() < 1e-3 { 0.5 } else { v }
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
    let cases = [(37usize, 53usize, 68usize, Act::None), (1, 257, 256, Act::Relu), (33, 8003, 20, Act::None), (5, 19, 44, Act::Tanh), (8, 1001, 132, Act::None), (9, 31, 260, Act::Relu), (3, 7, 4, Act::Tanh)];
    for &(m, n, kk, relu) in &cases {
        let (x, w, b) = (random(m * kk, 1), random(n * kk, 2), random(n, 3));
        let (bx, bw, bb, by) = (gpu.storage("x", &x), gpu.storage("w", &w), gpu.storage("b", &b), gpu.output("y", (m * n * 4) as u64));
        run(&gpu, |rec| k.matmul(rec, &bx, &bw, &bb, &by, m as u32, n as u32, kk as u32, relu));
        let got = pollster::block_on(gpu.read_f32(&by)).unwrap();
        let err = rel_error(&got, &cpu::matmul(&x, &w, &b, m, n, kk, relu));
        println!("matmul {m}×{kk}·({n}×{kk})ᵀ {relu:?}: rel error {err:e}");
        assert!(err <= 1e-4, "matmul {m}×{n}×{kk}: {err}");
    }
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
        let (bx, bg, bb, by) = (gpu.storage("x", &x), gpu.storage("g", &g), gpu.storage("b", &b), gpu.output("y", (rows * cols * 4) as u64));
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
    let (bt, btab, bpos, bx) = (gpu.storage_u32("cands", &words), gpu.storage("table", &table), gpu.storage("pos", &positions), gpu.output("x", (rows * d * 4) as u64));
    run(&gpu, |rec| k.embed(rec, TokenSource { buffer: &bt, stride: 4, offset: 2 }, &btab, &bpos, &bx, rows as u32, d as u32, 0, 2, 1.5));
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
    assert_eq!(pollster::block_on(gpu.read_f32(&e32)).unwrap(), pollster::block_on(gpu.read_f32(&e16)).unwrap(), "embedding with an f16 table differs");
}

#[test]
fn repeated_recordings_create_no_new_objects() {
    let (gpu, k) = setup();
    let (x, y) = (gpu.storage("x", &random(64, 26)), gpu.output("y", 256));
    let mut sites = Sites::default();
    for rows in [4u32, 4, 3, 4] {
        let mut rec = Recorder::new(&gpu, &mut sites);
        k.softmax(&mut rec, &x, &y, rows, 16, true);
        k.add(&mut rec, &y, &x, rows * 16);
        rec.submit();
    }
    // Two sites, each one uniform and one bind group, made on the first recording only.
    assert_eq!(sites.objects_created, 4);
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
    let xp_t: Vec<f32> = (0..rows).flat_map(|b| xp_all[(b * s + t) * 3 * hidden..(b * s + t + 1) * 3 * hidden].to_vec()).collect();
    let keep: Vec<bool> = lengths.iter().map(|&l| (t as u32) >= l).collect();
    let want = cpu::gru_cell(&xp_t, &hp, &h, hidden, &keep);
    let (bxp, bhp, bh, blen) = (gpu.storage("xp", &xp_all), gpu.storage("hp", &hp), gpu.storage("h", &h), gpu.storage_u32("len", &lengths));
    let (bout, bmem) = (gpu.output("out", (rows * hidden * 4) as u64), gpu.output("mem", (rows * s * hidden * 4) as u64));
    run(&gpu, |rec| k.gru_cell(rec, &bxp, &bhp, &bh, &blen, &bout, &bmem, [rows as u32, hidden as u32, s as u32, t as u32, 1, hidden as u32, 0, s as u32]));
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
        let (bq, bk, bv, bm, bmap, blen) = (gpu.storage("q", &q), gpu.storage("k", &keys), gpu.storage("v", &v), gpu.storage("m", &memory), gpu.storage_u32("map", &map), gpu.storage_u32("len", &lengths));
        let (bctx, bp) = (gpu.output("ctx", (rows * mem_dim * 4) as u64), gpu.output("p", (rows * s * 4) as u64));
        run(&gpu, |rec| k.gru_attention(rec, &bq, &bk, &bv, &bm, &bmap, &blen, &bctx, &bp, [rows as u32, s as u32, key_dim as u32, mem_dim as u32, u32::from(!additive), 1]));
        let ctx = pollster::block_on(gpu.read_f32(&bctx)).unwrap();
        let probs = pollster::block_on(gpu.read_f32(&bp)).unwrap();
        for r in 0..rows {
            let len = lengths[r] as usize;
            let (p, c) = cpu::gru_attention(&q[r * key_dim..(r + 1) * key_dim], &keys[r * s * key_dim..], additive.then_some(&v[..]), &memory[r * s * mem_dim..], s, key_dim, mem_dim, len);
            assert!(rel_error(&probs[r * s..r * s + len], &p) <= 1e-4, "probs row {r} additive={additive}");
            assert!(rel_error(&ctx[r * mem_dim..(r + 1) * mem_dim], &c) <= 1e-4, "context row {r} additive={additive}");
        }
    }
}

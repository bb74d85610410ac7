//! Every kernel against its CPU twin on random, non-zero inputs of odd sizes, on the machine's
//! Vulkan adapter (lavapipe in CI). Error measure: max |gpu - cpu| / max |cpu| ≤ 1e-4.

use wgslate_engine::{cpu, Act, Gpu, KernelParams, Kernels};

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
    let gpu = Gpu::new_blocking().expect("a Vulkan adapter (install mesa-vulkan-drivers for lavapipe)");
    println!("adapter: {:?}", gpu.report);
    let kernels = Kernels::new(&gpu, KernelParams::default()).unwrap();
    (gpu, kernels)
}

fn run(gpu: &Gpu, f: impl FnOnce(&mut wgpu::CommandEncoder)) {
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    f(&mut enc);
    gpu.queue.submit([enc.finish()]);
}

#[test]
fn matmul_matches_cpu() {
    let (gpu, k) = setup();
    for &(m, n, kk, relu) in &[(37usize, 53usize, 71usize, Act::None), (1, 257, 256, Act::Relu), (33, 8003, 17, Act::None), (5, 19, 23, Act::Tanh)] {
        let (x, w, b) = (random(m * kk, 1), random(n * kk, 2), random(n, 3));
        let (bx, bw, bb, by) = (gpu.storage("x", &x), gpu.storage("w", &w), gpu.storage("b", &b), gpu.output("y", (m * n * 4) as u64));
        run(&gpu, |enc| k.matmul(&gpu, enc, &bx, &bw, &bb, &by, m as u32, n as u32, kk as u32, relu));
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
            run(&gpu, |enc| k.softmax(&gpu, enc, &bx, &by, rows as u32, cols as u32, log));
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
        run(&gpu, |enc| k.layer_norm(&gpu, enc, &bx, &bg, &bb, &by, rows as u32, cols as u32));
        let got = pollster::block_on(gpu.read_f32(&by)).unwrap();
        let err = rel_error(&got, &cpu::layer_norm(&x, &g, &b, cols, k.params.layer_norm_eps));
        println!("layernorm {rows}×{cols}: rel error {err:e}");
        assert!(err <= 1e-4, "layernorm {rows}×{cols}: {err}");
    }
}

#[test]
fn argmax_matches_cpu() {
    let (gpu, k) = setup();
    let (rows, cols) = (9usize, 8003usize);
    let mut x = random(rows * cols, 8);
    x[3 * cols + 100] = 5.0;
    x[3 * cols + 7000] = 5.0; // a tie: the lower index wins
    let (bx, bbest) = (gpu.storage("x", &x), gpu.output("best", (rows * 8) as u64));
    run(&gpu, |enc| k.argmax(&gpu, enc, &bx, &bbest, rows as u32, cols as u32));
    let bytes = pollster::block_on(gpu.read(&bbest)).unwrap();
    let words: &[u32] = bytemuck::cast_slice(&bytes);
    let want = cpu::argmax(&x, cols);
    for r in 0..rows {
        assert_eq!(words[2 * r], want[r].0, "row {r}");
        assert_eq!(f32::from_bits(words[2 * r + 1]), want[r].1);
    }
    assert_eq!(words[6], 100);
}

#[test]
fn bad_kernel_parameters_are_refused() {
    let (gpu, _) = setup();
    assert!(Kernels::new(&gpu, KernelParams { matmul_tile: 32, ..Default::default() }).is_err());
    assert!(Kernels::new(&gpu, KernelParams { row_workgroup: 48, ..Default::default() }).is_err());
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
    run(&gpu, |enc| k.gru_cell(&gpu, enc, &bxp, &bhp, &bh, &blen, &bout, &bmem, [rows as u32, hidden as u32, s as u32, t as u32, 1, hidden as u32, 0, s as u32]));
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
        run(&gpu, |enc| k.gru_attention(&gpu, enc, &bq, &bk, &bv, &bm, &bmap, &blen, &bctx, &bp, [rows as u32, s as u32, key_dim as u32, mem_dim as u32, u32::from(!additive), 1]));
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

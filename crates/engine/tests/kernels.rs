//! Every kernel against its CPU twin on random, non-zero inputs of odd sizes, on the machine's
//! Vulkan adapter (lavapipe in CI). Error measure: max |gpu - cpu| / max |cpu| ≤ 1e-4.

use wgslate_engine::{cpu, Gpu, KernelParams, Kernels};

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
    for &(m, n, kk, relu) in &[(37usize, 53usize, 71usize, false), (1, 257, 256, true), (33, 8003, 17, false)] {
        let (x, w, b) = (random(m * kk, 1), random(n * kk, 2), random(n, 3));
        let (bx, bw, bb, by) = (gpu.storage("x", &x), gpu.storage("w", &w), gpu.storage("b", &b), gpu.output("y", (m * n * 4) as u64));
        run(&gpu, |enc| k.matmul(&gpu, enc, &bx, &bw, &bb, &by, m as u32, n as u32, kk as u32, relu));
        let got = pollster::block_on(gpu.read_f32(&by)).unwrap();
        let err = rel_error(&got, &cpu::matmul(&x, &w, &b, m, n, kk, relu));
        println!("matmul {m}×{kk}·({n}×{kk})ᵀ relu={relu}: rel error {err:e}");
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

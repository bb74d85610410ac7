//! Times single kernels at the sizes of one Transformer decoder step (d 256, FFN 1024, vocab 8000)
//! and of a 40-sentence batch: `cargo run --release -p wgslate-engine --example kernel_bench`.
//! Prints milliseconds per dispatch (mean of 20, one submission each, after a warm-up). `-- --f32`
//! keeps the weights f32 where the device would take f16.

use std::time::Instant;

use wgslate_engine::{Act, Gpu, KernelParams, Kernels, Recorder, Sites};

fn time(gpu: &Gpu, probe: &wgpu::Buffer, mut f: impl FnMut(&mut Recorder)) -> f64 {
    let mut sites = Sites::default();
    let mut once = |sites: &mut Sites| {
        let mut rec = Recorder::new(gpu, sites);
        f(&mut rec);
        rec.submit();
        pollster::block_on(gpu.read(probe)).expect("readback");
    };
    once(&mut sites);
    let t0 = Instant::now();
    for _ in 0..20 {
        once(&mut sites);
    }
    t0.elapsed().as_secs_f64() * 1000.0 / 20.0
}

fn main() -> Result<(), String> {
    let gpu = Gpu::new_blocking()?;
    let mut params = KernelParams::for_gpu(&gpu);
    if std::env::args().any(|a| a == "--f32") {
        params.f16_weights = false;
    }
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u32>().ok());
    params.matvec_lanes = env("LANES").unwrap_or(params.matvec_lanes);
    params.matvec_cols = env("COLS").unwrap_or(params.matvec_cols);
    params.matmul_tile = env("TILE").unwrap_or(params.matmul_tile);
    params.matvec_max_rows = env("MATVEC_MAX_ROWS").unwrap_or(params.matvec_max_rows);
    let k = Kernels::new(&gpu, params)?;
    println!("adapter {:?}, f16 weights {}", gpu.report, k.params.f16_weights);
    let probe = gpu.output("probe", 16);
    let vals = |n: usize| (0..n).map(|i| ((i * 7919 % 1000) as f32 - 500.0) / 1000.0).collect::<Vec<f32>>();
    let weights =
        |n: usize| if k.params.f16_weights { gpu.storage_f16("w", &vals(n)) } else { gpu.storage("w", &vals(n)) };
    let empty = |_: &mut Recorder| {};
    println!("empty submission + readback: {:.3} ms", time(&gpu, &probe, empty));
    for (m, n, kk) in [
        (1usize, 256usize, 256usize),
        (1, 1024, 256),
        (1, 256, 1024),
        (1, 8000, 256),
        (4, 8000, 256),
        (40, 8000, 256),
        (40, 1024, 256),
    ] {
        let (x, w, b, y) = (
            gpu.storage("x", &vals(m * kk)),
            weights(n * kk),
            gpu.storage("b", &vals(n)),
            gpu.output("y", (m * n * 4) as u64),
        );
        let ms = time(&gpu, &probe, |rec| k.matmul(rec, &x, &w, &b, &y, m as u32, n as u32, kk as u32, Act::None));
        println!("matmul {m}×{kk} · ({n}×{kk})ᵀ: {ms:.3} ms ({:.2} GFLOP/s)", 2.0 * (m * n * kk) as f64 / ms / 1e6);
    }
    for (rows, cols) in [(1usize, 8000usize), (40, 8000)] {
        let (x, y) = (gpu.storage("x", &vals(rows * cols)), gpu.output("y", (rows * cols * 4) as u64));
        let ms = time(&gpu, &probe, |rec| k.softmax(rec, &x, &y, rows as u32, cols as u32, true));
        println!("log-softmax {rows}×{cols}: {ms:.3} ms");
        let out = gpu.output("cands", (rows * 8 * 8) as u64);
        for top in [1u32, 8] {
            let ms = time(&gpu, &probe, |rec| k.top_k(rec, &y, &out, rows as u32, cols as u32, top, 0));
            println!("top-{top} {rows}×{cols}: {ms:.3} ms");
        }
    }
    for rows in [1usize, 40] {
        let (x, g, b, y) = (
            gpu.storage("x", &vals(rows * 256)),
            gpu.storage("g", &vals(256)),
            gpu.storage("b", &vals(256)),
            gpu.output("y", (rows * 256 * 4) as u64),
        );
        let ms = time(&gpu, &probe, |rec| k.layer_norm(rec, &x, &g, &b, &y, rows as u32, 256));
        println!("layer norm {rows}×256: {ms:.3} ms");
    }
    Ok(())
}

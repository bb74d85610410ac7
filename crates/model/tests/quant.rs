//! int8 weights: the error bound the format promises, the file layout, the loader's messages, and
//! that a whole model loads from int8 with the format reported.

use candle_core::{Device, Tensor};
use wgslate_model::quant::{self, WeightFormat, PER_ROW};
use wgslate_model::weights::{to_safetensors, CheckedWeights};

fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) as f32
        })
        .collect()
}

/// Every value is within half a step of its block's scale (plus the f16 rounding of the scale),
/// whatever the block length, including blocks that do not divide k.
#[test]
fn dequantised_values_are_within_half_a_step() {
    for (rows, k, block) in
        [(1, 1, 32), (3, 32, 32), (5, 96, 32), (7, 40, 32), (4, 64, PER_ROW), (2, 128, 8), (6, 33, 4)]
    {
        let mut w = random(rows * k, (rows * k + block % 97) as u64);
        w[0] *= 50.0; // one outlier per matrix
        let (q, scales) = quant::quantize(&w, k, block);
        let b = quant::block_for(k, block);
        assert_eq!(scales.len(), rows * k / b, "{rows}×{k} block {block}");
        let back = quant::dequantize(&q, &scales, b);
        for (i, (&orig, &got)) in w.iter().zip(&back).enumerate() {
            let chunk = &w[i / b * b..(i / b + 1) * b];
            let max = chunk.iter().fold(0f32, |m, v| m.max(v.abs()));
            let step = max / 127.0;
            let bound = 0.5 * step * 1.002 + 1e-7;
            assert!(
                (orig - got).abs() <= bound,
                "{rows}×{k} block {block}: value {i} {orig} came back as {got} (bound {bound})"
            );
        }
        // The largest value of each block is exact up to f16 rounding: it uses the full ±127.
        assert!(q.iter().any(|&v| v.unsigned_abs() == 127));
    }
}

#[test]
fn zero_blocks_and_non_finite_values_do_not_break_the_format() {
    let (q, s) = quant::quantize(&[0.0; 8], 4, 4);
    assert!(q.iter().all(|&v| v == 0) && s.iter().all(|s| s.to_f32() == 0.0));
    assert_eq!(quant::dequantize(&q, &s, 4), vec![0.0; 8]);
    let (q, _) = quant::quantize(&[f32::NAN, 1.0, -1.0, 0.5], 4, 4);
    assert_eq!(q, vec![0, 127, -127, 64]);
}

#[test]
fn format_names_parse_and_display() {
    assert_eq!(WeightFormat::parse("int8").unwrap(), WeightFormat::Int8 { block: PER_ROW });
    assert_eq!(WeightFormat::parse("int8-64").unwrap(), WeightFormat::Int8 { block: 64 });
    assert_eq!(WeightFormat::parse("int8").unwrap().to_string(), "int8, one scale per row");
    assert_eq!(WeightFormat::parse("int8-32").unwrap().to_string(), "int8, one scale per 32 values");
    for bad in ["int8-0", "int8-3", "int4", "", "int8-x", "int8-row"] {
        assert!(WeightFormat::parse(bad).is_err(), "{bad}");
    }
}

fn tensors() -> Vec<(String, Tensor)> {
    vec![
        ("a.weight".into(), Tensor::from_vec(random(6 * 64, 1), (6, 64), &Device::Cpu).unwrap()),
        ("a.bias".into(), Tensor::from_vec(random(6, 2), 6, &Device::Cpu).unwrap()),
    ]
}

#[test]
fn int8_files_hold_i8_matrices_with_f16_scales_and_vectors_in_f16() {
    let bytes = to_safetensors(&tensors(), WeightFormat::Int8 { block: 32 }).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let dtype = |n: &str| st.tensor(n).unwrap().dtype();
    assert_eq!(dtype("a.weight"), safetensors::Dtype::I8);
    assert_eq!(dtype("a.weight.scale"), safetensors::Dtype::F16);
    assert_eq!(st.tensor("a.weight.scale").unwrap().shape(), &[6, 2]);
    assert_eq!(dtype("a.bias"), safetensors::Dtype::F16);
    assert_eq!(st.tensor("a.weight").unwrap().data().len(), 6 * 64);
    let f16_bytes = to_safetensors(&tensors(), WeightFormat::F16).unwrap();

    let w = CheckedWeights::parse(&bytes).unwrap();
    assert_eq!(w.format(), WeightFormat::Int8 { block: 32 });
    assert_eq!(w.names(), vec!["a.bias".to_string(), "a.weight".to_string()]);
    let row =
        CheckedWeights::parse(&to_safetensors(&tensors(), WeightFormat::Int8 { block: PER_ROW }).unwrap()).unwrap();
    assert_eq!(row.format(), WeightFormat::Int8 { block: PER_ROW });
    assert_eq!(CheckedWeights::parse(&f16_bytes).unwrap().format(), WeightFormat::F16);
    // Dequantised values are exactly value × scale, as the GPU engine's int8 kernels widen them,
    // and the stored int8 matrix is kept for those kernels.
    let (_, values) = w.tensor("a.weight").unwrap();
    let q = w.quantized("a.weight").unwrap();
    assert_eq!((q.block, q.values.len(), q.scales.len()), (32, 6 * 64, 6 * 2));
    for (i, &v) in values.iter().enumerate() {
        assert_eq!(v as f64, q.values[i] as f64 * q.scales[i / 32].to_f64(), "value {i}");
    }
    assert!(w.quantized("a.bias").is_none());
}

fn file(parts: &[(&str, safetensors::Dtype, Vec<usize>, Vec<u8>)]) -> Vec<u8> {
    let views: Vec<_> = parts
        .iter()
        .map(|(n, d, s, b)| (n.to_string(), safetensors::tensor::TensorView::new(*d, s.clone(), b).unwrap()))
        .collect();
    safetensors::serialize(views, None).unwrap()
}

#[test]
fn malformed_int8_files_get_a_message_naming_the_tensor() {
    use safetensors::Dtype::{F16, F32, I8};
    let scale = |n: usize| vec![0u8; 2 * n];
    let cases = [
        (file(&[("w", I8, vec![2, 8], vec![1; 16])]), "has no w.scale"),
        (
            file(&[("w", I8, vec![2, 8], vec![1; 16]), ("w.scale", F16, vec![2, 3], scale(6))]),
            "w.scale must be F16 of shape [2, k / block]",
        ),
        (file(&[("w", I8, vec![2, 8], vec![1; 16]), ("w.scale", F16, vec![1, 2], scale(2))]), "w.scale must be"),
        (file(&[("w", I8, vec![8], vec![1; 8]), ("w.scale", F16, vec![8, 1], scale(8))]), "only matrices are int8"),
        (file(&[("w.scale", F16, vec![2, 1], scale(2))]), "scales no int8 tensor w"),
        (file(&[("v", F32, vec![2], vec![0; 8])]), "wgslate reads F16 and I8"),
        (
            file(&[
                ("w", I8, vec![2, 8], vec![1; 16]),
                ("w.scale", F16, vec![2, 2], scale(4)),
                ("x", I8, vec![2, 8], vec![1; 16]),
                ("x.scale", F16, vec![2, 1], scale(2)),
            ]),
            "but other tensors are",
        ),
    ];
    for (bytes, want) in cases {
        let err = CheckedWeights::parse(&bytes).err().expect("refused");
        assert!(err.contains(want), "{err:?} should contain {want:?}");
    }
}

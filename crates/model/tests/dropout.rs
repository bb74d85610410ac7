//! The trainer's dropout: right drop rate, inverted scaling, identity at inference, gradient = mask.

use candle_core::{Device, Tensor, Var};
use wgslate_model::layers::dropout;

#[test]
fn drops_the_requested_fraction_and_rescales_the_rest() {
    let n = 200_000;
    let x = Tensor::ones((400, n / 400), candle_core::DType::F32, &Device::Cpu).unwrap();
    for p in [0.1f32, 0.3, 0.5] {
        let y: Vec<f32> = dropout(&x, p, true).unwrap().flatten_all().unwrap().to_vec1().unwrap();
        let dropped = y.iter().filter(|v| **v == 0.0).count() as f64 / n as f64;
        assert!((dropped - p as f64).abs() < 0.01, "p {p}: dropped {dropped}");
        let keep = 1.0 / (1.0 - p);
        assert!(y.iter().all(|v| *v == 0.0 || (v - keep).abs() < 1e-6), "kept values must be 1/(1-p)");
        let mean = y.iter().map(|v| *v as f64).sum::<f64>() / n as f64;
        assert!((mean - 1.0).abs() < 0.02, "p {p}: mean {mean}");
    }
}

#[test]
fn masks_differ_between_calls_and_inference_is_the_identity() {
    let x = Tensor::arange(1f32, 1001f32, &Device::Cpu).unwrap();
    let a: Vec<f32> = dropout(&x, 0.3, true).unwrap().to_vec1().unwrap();
    let b: Vec<f32> = dropout(&x, 0.3, true).unwrap().to_vec1().unwrap();
    assert_ne!(a, b);
    assert_eq!(dropout(&x, 0.3, false).unwrap().to_vec1::<f32>().unwrap(), x.to_vec1::<f32>().unwrap());
    assert_eq!(dropout(&x, 0.0, true).unwrap().to_vec1::<f32>().unwrap(), x.to_vec1::<f32>().unwrap());
    assert!(dropout(&x, 1.0, true).unwrap().to_vec1::<f32>().unwrap().iter().all(|v| *v == 0.0));
}

#[test]
fn gradient_is_the_mask() {
    let x = Var::new(vec![2f32; 5000], &Device::Cpu).unwrap();
    let y = dropout(x.as_tensor(), 0.25, true).unwrap();
    let grad: Vec<f32> = y.sum_all().unwrap().backward().unwrap().get(x.as_tensor()).unwrap().to_vec1().unwrap();
    let y: Vec<f32> = y.to_vec1().unwrap();
    for (g, v) in grad.iter().zip(&y) {
        assert!((g - v / 2.0).abs() < 1e-6, "gradient {g} for output {v}");
    }
}

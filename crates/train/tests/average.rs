//! Checkpoint averaging: the element-wise mean of exports, refused when the exports disagree.

use std::path::{Path, PathBuf};

use candle_core::{Device, Tensor};
use wgslate_model::weights::{to_f16_safetensors, CheckedWeights};
use wgslate_train::average::{average, average_last, epoch_dir, epoch_exports};

fn export(dir: &Path, tensors: &[(&str, Vec<f32>, &[usize])], config: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let named: Vec<(String, Tensor)> = tensors
        .iter()
        .map(|(n, v, s)| (n.to_string(), Tensor::from_vec(v.clone(), *s, &Device::Cpu).unwrap()))
        .collect();
    std::fs::write(dir.join("model.safetensors"), to_f16_safetensors(&named).unwrap()).unwrap();
    std::fs::write(dir.join("config.json"), config).unwrap();
    std::fs::write(dir.join("tokenizer.json"), "{}").unwrap();
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wgslate-average-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn averages_the_epoch_exports_element_wise() {
    let run = scratch("mean");
    export(&epoch_dir(&run, 1), &[("a", vec![100.0, 100.0, 100.0], &[3]), ("b", vec![100.0; 4], &[2, 2])], "{}");
    export(&epoch_dir(&run, 3), &[("a", vec![1.0, 2.0, -4.0], &[3]), ("b", vec![0.5, 0.25, 1.0, 2.0], &[2, 2])], "{}");
    export(&epoch_dir(&run, 10), &[("a", vec![3.0, 0.0, 4.0], &[3]), ("b", vec![1.5, 0.75, -1.0, 0.0], &[2, 2])], "{}");
    std::fs::create_dir_all(run.join("epoch-x")).unwrap();
    let found = epoch_exports(&run).unwrap();
    assert_eq!(
        found.iter().map(|(e, _)| *e).collect::<Vec<_>>(),
        vec![1, 3, 10],
        "numeric order, other folders ignored"
    );
    let out = run.join("averaged");
    assert_eq!(average_last(&run, 2, &out).unwrap(), vec![3, 10], "the last two epochs");
    assert!(average_last(&run, 4, &out).is_err());
    let w = CheckedWeights::parse(&std::fs::read(out.join("model.safetensors")).unwrap()).unwrap();
    assert_eq!(w.tensor("a").unwrap(), (&[3usize][..], &[2.0f32, 1.0, 0.0][..]));
    assert_eq!(w.tensor("b").unwrap(), (&[2usize, 2][..], &[1.0f32, 0.5, 0.0, 1.0][..]));
    assert_eq!(std::fs::read_to_string(out.join("config.json")).unwrap(), "{}");
    std::fs::remove_dir_all(&run).unwrap();
}

#[test]
fn refuses_exports_that_disagree() {
    let run = scratch("mismatch");
    let (a, b, c) = (run.join("a"), run.join("b"), run.join("c"));
    export(&a, &[("w", vec![1.0, 2.0], &[2])], "{}");
    export(&b, &[("w", vec![1.0, 2.0, 3.0], &[3])], "{}");
    export(&c, &[("w", vec![1.0, 2.0], &[2])], "{\"other\": 1}");
    let err = average(&[a.clone(), b], &run.join("out")).unwrap_err().to_string();
    assert!(err.contains("shape"), "{err}");
    let err = average(&[a, c], &run.join("out")).unwrap_err().to_string();
    assert!(err.contains("another config"), "{err}");
    assert!(average(&[], &run.join("out")).is_err());
    std::fs::remove_dir_all(&run).unwrap();
}

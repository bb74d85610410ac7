//! A run stopped before its first validation resumes: the checkpoint written then loads back.

use candle_core::{DType, Device, Tensor};
use candle_nn::VarMap;
use wgslate_train::adam::Adam;
use wgslate_train::checkpoint::{self, Progress};

fn one_parameter() -> (VarMap, Adam) {
    let varmap = VarMap::new();
    varmap.get((2, 3), "w", candle_nn::Init::Const(0.5), DType::F32, &Device::Cpu).unwrap();
    let adam = Adam::for_varmap(&varmap).unwrap();
    (varmap, adam)
}

#[test]
fn a_checkpoint_from_before_the_first_validation_resumes() {
    let dir = std::env::temp_dir().join(format!("wgslate-checkpoint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (_vm, mut adam) = one_parameter();
    adam.step = 78;
    // What the trainer starts from, 78 batches in.
    let fresh = Progress { batch: 78, ..Progress::fresh() };
    checkpoint::save(&dir, &adam, &fresh).unwrap();

    let (_vm2, mut restored) = one_parameter();
    restored.params[0].1.set(&Tensor::zeros((2, 3), DType::F32, &Device::Cpu).unwrap()).unwrap();
    let progress = checkpoint::load(&dir, &mut restored).expect("a fresh run's checkpoint must load");
    assert_eq!((progress.epoch, progress.batch, progress.best_val_loss, progress.lr_scale), (0, 78, None, 1.0));
    assert_eq!(restored.step, 78);
    let w: Vec<f32> = restored.params[0].1.as_tensor().flatten_all().unwrap().to_vec1().unwrap();
    assert_eq!(w, vec![0.5; 6]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn progress_files_written_before_this_fix_still_load() {
    // Older trainers wrote the "no validation yet" sentinel (infinity) as JSON null, and finite losses as numbers.
    let null: Progress = serde_json::from_str(
        r#"{"epoch":0,"batch":78,"lr_scale":1.0,"best_bleu":0.0,"best_val_loss":null,"bad_epochs":0,"history":[],"train_seconds":708.9}"#,
    )
    .unwrap();
    assert_eq!(null.best_val_loss, None);
    let number: Progress = serde_json::from_str(
        r#"{"epoch":3,"batch":0,"lr_scale":1.0,"best_bleu":38.2,"best_val_loss":2.41,"bad_epochs":0,"history":[],"train_seconds":10.0}"#,
    )
    .unwrap();
    assert_eq!(number.best_val_loss, Some(2.41));
}

//! `--bpe-dropout`: a run segments its training pairs anew each epoch and still trains, exports
//! each epoch and resumes; a rate outside [0, 1) is refused before any work.

mod common;

use wgslate_train::run::train;

fn args(name: &str, bpe_dropout: f32) -> wgslate_train::run::TrainArgs {
    common::run_args(name, bpe_dropout, 0.0)
}

#[test]
fn a_run_with_bpe_dropout_trains_exports_and_resumes() {
    let a = args("bpe-dropout-run", 0.1);
    let run_dir = a.run_dir.clone();
    train(a).unwrap();
    let progress = std::fs::read_to_string(run_dir.join("progress.json")).unwrap();
    let history = serde_json::from_str::<serde_json::Value>(&progress).unwrap()["history"].clone();
    assert_eq!(history.as_array().map(Vec::len), Some(2), "{progress}");
    let epoch2 = wgslate_train::average::epoch_dir(&run_dir, 2);
    assert!(epoch2.join("model.safetensors").exists());
    // The export records the direction it was trained for (--src en --tgt de), and loads with it.
    let model = wgslate_model::Model::from_dir(&epoch2).unwrap();
    assert_eq!(model.direction.map(|d| d.pair()).as_deref(), Some("en-de"));
    // A third epoch on top of the checkpoint (in a fresh run directory), segmented anew again.
    let resumed = |direction: Option<(&str, &str)>| {
        let mut more = args("bpe-dropout-run-more", 0.1);
        for file in ["state.safetensors", "progress.json", "config.json"] {
            std::fs::copy(run_dir.join(file), more.run_dir.join(file)).unwrap();
        }
        more.epochs = 3;
        more.direction_given = direction.is_some();
        if let Some((source, target)) = direction {
            more.direction = wgslate_model::config::Direction { source: source.into(), target: target.into() };
        }
        more
    };
    // A resumed run refuses --src/--tgt that contradict the direction its config.json records, and
    // keeps that direction when none are given.
    let err = format!("{:#}", train(resumed(Some(("de", "en")))).expect_err("refused"));
    assert!(err.contains("the run being resumed translates en-de"), "{err}");
    let mut more = resumed(None);
    // (What main.rs passes when neither flag is given: the defaults, which the recorded direction replaces.)
    more.direction = wgslate_model::config::Direction { source: "fr".into(), target: "en".into() };
    let more_dir = more.run_dir.clone();
    train(more).unwrap();
    let progress = std::fs::read_to_string(more_dir.join("progress.json")).unwrap();
    let history = serde_json::from_str::<serde_json::Value>(&progress).unwrap()["history"].clone();
    assert_eq!(history.as_array().map(Vec::len), Some(3), "{progress}");
    let model = wgslate_model::Model::from_dir(&wgslate_train::average::epoch_dir(&more_dir, 3)).unwrap();
    assert_eq!(model.direction.map(|d| d.pair()).as_deref(), Some("en-de"));
}

#[test]
fn a_bad_rate_is_refused_before_training() {
    for bad in [1.0, -0.5, f32::NAN] {
        let a = args(&format!("bpe-dropout-bad-{bad}"), bad);
        let err = format!("{:#}", train(a).expect_err("refused"));
        assert!(err.contains("BPE dropout"), "{err}");
    }
}

//! Every fuzz target on its first thousand inputs (about 2 s in release), so a new panic in the
//! text path fails CI.

use wgslate_fuzz::registry::TARGETS;
use wgslate_fuzz::runner::{install_panic_hook, run};

#[test]
fn no_target_panics_on_its_first_inputs() {
    install_panic_hook();
    for target in TARGETS {
        if let Err(found) = run(target, 1, 0, 1000, 2) {
            panic!(
                "{} panicked on input {} (replay: wgslate-fuzz {} --seed 1 --start {} --count 1)\n{}\ninput: {}",
                found.target, found.index, found.target, found.index, found.failure.message, found.failure.input
            );
        }
    }
}

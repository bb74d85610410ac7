//! `settle_cpu_threads` (its own test binary: it changes the process's environment).

use wgslate_model::candle_core::utils::get_num_threads;
use wgslate_model::threads::settle_cpu_threads;

#[test]
fn candles_thread_count_is_fixed_once_within_the_cpus_available() {
    std::env::remove_var("RAYON_NUM_THREADS");
    let available = std::thread::available_parallelism().unwrap().get();
    let chosen = get_num_threads().min(available);
    settle_cpu_threads();
    assert_eq!(std::env::var("RAYON_NUM_THREADS").unwrap(), chosen.to_string());
    assert_eq!(get_num_threads(), chosen);

    // Values candle would not take are replaced by the same choice; a user's count is kept.
    for bad in ["0", "", "four", "-1"] {
        std::env::set_var("RAYON_NUM_THREADS", bad);
        settle_cpu_threads();
        assert_eq!(std::env::var("RAYON_NUM_THREADS").unwrap(), chosen.to_string(), "{bad:?}");
    }
    std::env::set_var("RAYON_NUM_THREADS", "3");
    settle_cpu_threads();
    assert_eq!(std::env::var("RAYON_NUM_THREADS").unwrap(), "3");
    assert_eq!(get_num_threads(), 3);
}

//! candle's thread count, fixed once.
//!
//! candle asks for its thread count at every CPU matrix product, and unless `RAYON_NUM_THREADS` holds
//! a positive number it answers by reading the CPU mask and parsing `/proc/cpuinfo`, every time: on a
//! 2-core machine that took a batch-1 greedy decode of the shipped Transformer from 5.9 to 25 ms a
//! sentence, on the 16-core hosts of the lent GPUs 10× (docs/benchmarks.md, "candle's thread count").

/// Sets `RAYON_NUM_THREADS` to the count candle would choose, unless it already holds a positive
/// number (then candle reads it and nothing else). Call at start-up, before any other thread exists:
/// the environment is not safe to change while another thread reads it.
pub fn settle_cpu_threads() {
    let set = std::env::var("RAYON_NUM_THREADS").ok().and_then(|s| s.parse::<usize>().ok());
    if set.is_some_and(|n| n > 0) {
        return;
    }
    let n = candle_core::utils::get_num_threads();
    std::env::set_var("RAYON_NUM_THREADS", n.to_string());
}

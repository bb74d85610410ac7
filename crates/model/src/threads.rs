//! candle's thread count, fixed once.
//!
//! candle asks for its thread count at every CPU matrix product, and unless `RAYON_NUM_THREADS` holds
//! a positive number it answers by reading the CPU mask and parsing `/proc/cpuinfo`, every time: on a
//! 2-core machine that took a batch-1 greedy decode of the shipped Transformer from 6–8 to 29–30 ms a
//! sentence, on the 16-core hosts of the lent GPUs 10× (docs/benchmarks.md, "candle's thread count").

/// Sets `RAYON_NUM_THREADS`, unless it already holds a positive number (then candle reads it and
/// nothing else), to the count candle would choose, at most the CPUs this process may run on: the
/// variable also sizes rayon's pool, which candle's products run in, and candle's own count (physical
/// cores) does not see a container's or `taskset`'s limit. Call at start-up, before any other thread
/// exists: the environment is not safe to change while another thread reads it.
pub fn settle_cpu_threads() {
    let set = std::env::var("RAYON_NUM_THREADS").ok().and_then(|s| s.parse::<usize>().ok());
    if set.is_some_and(|n| n > 0) {
        return;
    }
    std::env::set_var("RAYON_NUM_THREADS", default_cpu_threads().to_string());
}

/// candle's thread count, at most the CPUs available to this process.
pub fn default_cpu_threads() -> usize {
    let available = std::thread::available_parallelism().map_or(1, |n| n.get());
    candle_core::utils::get_num_threads().min(available).max(1)
}

//! `wgslate-fuzz [TARGET|all] --count N --seed S [--start I] [--threads T]`

use std::process::ExitCode;
use std::time::Instant;

use wgslate_fuzz::registry::{find, TARGETS};
use wgslate_fuzz::runner::{install_panic_hook, run, Target};

const USAGE: &str = "usage: wgslate-fuzz [TARGET|all] [--count N] [--seed S] [--start I] [--threads T] [--list]
Runs inputs START..START+N of each target (N = 10000, S = 1, I = 0, T = 2 by default); input I of a
target is the same for the same seed, so `--start I --count 1` replays one.";

struct Args {
    targets: Vec<&'static Target>,
    count: u64,
    seed: u64,
    start: u64,
    threads: u64,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { targets: TARGETS.iter().collect(), count: 10_000, seed: 1, start: 0, threads: 2 };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut number = |name: &str| -> Result<u64, String> {
            let v = it.next().ok_or(format!("{name} needs a value"))?;
            v.parse().map_err(|_| format!("{name}: '{v}' is not a number"))
        };
        match arg.as_str() {
            "--count" => args.count = number("--count")?,
            "--seed" => args.seed = number("--seed")?,
            "--start" => args.start = number("--start")?,
            "--threads" => args.threads = number("--threads")?.max(1),
            "--list" => {
                TARGETS.iter().for_each(|t| println!("{}", t.name));
                std::process::exit(0);
            }
            "-h" | "--help" => return Err(USAGE.into()),
            "all" => args.targets = TARGETS.iter().collect(),
            name => args.targets = vec![find(name).ok_or(format!("unknown target '{name}' (see --list)\n{USAGE}"))?],
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    wgslate_model::threads::settle_cpu_threads();
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    install_panic_hook();
    println!(
        "wgslate-fuzz: seed {}, inputs {}..{} per target, {} threads",
        args.seed,
        args.start,
        args.start + args.count,
        args.threads
    );
    let began = Instant::now();
    for target in &args.targets {
        match run(target, args.seed, args.start, args.count, args.threads) {
            Ok(s) => {
                println!("{}: {} inputs, 0 panics, {:.1} s", target.name, s.inputs, s.seconds);
            }
            Err(found) => {
                println!("{}: PANIC at input {} (seed {})", found.target, found.index, found.seed);
                println!(
                    "replay: wgslate-fuzz {} --seed {} --start {} --count 1",
                    found.target, found.seed, found.index
                );
                println!("message: {}", found.failure.message);
                println!("input: {}", found.failure.input);
                return ExitCode::FAILURE;
            }
        }
    }
    println!(
        "all {} targets: {} inputs each, 0 panics, {:.1} s",
        args.targets.len(),
        args.count,
        began.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}

//! `wgslate`: translate, evaluate and score from the command line.

mod argparse;
mod bench;
mod bleu_args;
mod bleu_cmd;
mod compare_cmd;
mod decode_args;
mod encoding;
mod input_notes;
mod line_writer;
mod output;
mod precompress;
mod pyfmt;
mod quantize_cmd;
mod score_cmd;
mod serve;
mod stdin_lines;
mod sweep;
mod table;
mod translate_cmd;
mod translator;
mod wordnet_cmd;

const USAGE: &str = "usage: wgslate <command> [args]

commands:
  bleu        score hypotheses against references (sacreBLEU-compatible flags)
  translate   translate lines with a shipped model
  eval        translate a test set and score it
  compare     where two systems differ (compare-mt's analyses)
  score       the log-probability a model gives translations you give, token by token
  bench       time the engines
  quantize    rewrite a model's weights as int8 (or f16)
  serve       serve the built web app (default: dist on 127.0.0.1:8080)
  wordnet     write METEOR's WordNet synonym table

wgslate <command> --help shows a command's flags; wgslate --version its version.";

/// A command's usage, which `wgslate <command> --help` prints.
fn command_usage(command: &str) -> Option<String> {
    Some(match command {
        "bleu" => bleu_args::USAGE.to_string(),
        "translate" | "eval" => format!("{}\n{}", translate_cmd::TRANSLATE_USAGE, decode_args::DECODE_USAGE),
        "bench" => bench::USAGE.to_string(),
        "quantize" => quantize_cmd::USAGE.to_string(),
        "serve" => serve::USAGE.to_string(),
        "wordnet" => wordnet_cmd::USAGE.to_string(),
        "compare" => compare_cmd::USAGE.to_string(),
        "score" => score_cmd::USAGE.to_string(),
        _ => return None,
    })
}

/// Ends the program when its output cannot be written: a reader that closed the pipe (`| head`) is
/// the reader's choice (exit 0); anything else (a full disk) is one line and exit code 2.
pub fn output_failed(e: std::io::Error) -> ! {
    output_failed_because(e.kind() == std::io::ErrorKind::BrokenPipe, &e.to_string())
}

/// `output_failed` from what is known: the reason, and whether the reader closed the pipe. Written
/// without `eprintln!`, which panics itself when stderr is gone.
fn output_failed_because(broken_pipe: bool, why: &str) -> ! {
    // A full disk, say: its temporary file (and the space it takes) goes.
    output::remove_temporary();
    if broken_pipe {
        std::process::exit(0);
    }
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "wgslate: cannot write the output: {why}");
    std::process::exit(2);
}

fn main() {
    // Library errors (candle's) carry a backtrace when RUST_BACKTRACE is set, and it would follow our
    // one-line message; RUST_LIB_BACKTRACE=1 still asks for it.
    if std::env::var_os("RUST_LIB_BACKTRACE").is_none() {
        std::env::set_var("RUST_LIB_BACKTRACE", "0");
    }
    // Without it (a server, a container) the Vulkan loader's Wayland probe prints
    // "error: XDG_RUNTIME_DIR is invalid or not set" twice, which reads as our failure.
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
    }
    wgslate_model::threads::settle_cpu_threads();
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        // println!/eprintln! panic when their stream fails: `wgslate … | head` closing stdout early (the
        // reader's choice, not an error), a full disk, a closed stderr.
        if let Some(why) = msg.strip_prefix("failed printing to stdout: ") {
            output_failed_because(why.contains("Broken pipe"), why);
        }
        if msg.starts_with("failed printing to stderr") {
            std::process::exit(2);
        }
        eprintln!("wgslate: internal error: {info}");
    }));
    // An argument that is not UTF-8 (a file name in another encoding) gets a message; args() panics.
    let args: Vec<String> = match std::env::args_os().skip(1).map(|a| a.into_string()).collect() {
        Ok(args) => args,
        Err(bad) => {
            eprintln!(
                "wgslate: the argument {} is not UTF-8 text: rename the file, or give it through standard input",
                bad.to_string_lossy()
            );
            std::process::exit(2);
        }
    };
    // After "--" every argument is a file name (argparse), "-h" and "--version" included.
    let options = &args[..args.iter().position(|a| a == "--").unwrap_or(args.len())];
    let result = match args.first().map(String::as_str) {
        // sacreBLEU's own parser answers -h and --version (abbreviated too, in their place in the line).
        Some("bleu") => match bleu_args::parse(&args[1..]) {
            Ok(bleu_args::Parsed::Help) => {
                println!("{}", bleu_args::USAGE);
                Ok(())
            }
            Ok(bleu_args::Parsed::Version) => {
                println!("{}", bleu_args::VERSION);
                Ok(())
            }
            Ok(bleu_args::Parsed::Score(a)) => {
                let mut a = *a;
                bleu_args::apply_env(&mut a, |k| std::env::var(k).ok());
                bleu_cmd::run(a)
            }
            Err(e) => Err(e),
        }
        .map_err(|e| format!("wgslate bleu: error: {e}")),
        Some(command)
            if options.iter().skip(1).any(|a| a == "-h" || a == "--help") && command_usage(command).is_some() =>
        {
            command_usage(command).into_iter().for_each(|usage| println!("{usage}"));
            Ok(())
        }
        Some("translate") => translate_cmd::run_translate(&args[1..]).map_err(|e| format!("wgslate translate: {e}")),
        Some("eval") => translate_cmd::run_eval(&args[1..]).map_err(|e| format!("wgslate eval: {e}")),
        Some("bench") => bench::run(&args[1..]).map_err(|e| format!("wgslate bench: {e}")),
        Some("quantize") => quantize_cmd::run(&args[1..]).map_err(|e| format!("wgslate quantize: {e}")),
        Some("serve") => serve::run(&args[1..]).map_err(|e| format!("wgslate serve: {e}")),
        Some("wordnet") => wordnet_cmd::run(&args[1..]).map_err(|e| format!("wgslate wordnet: {e}")),
        Some("compare") => compare_cmd::run(&args[1..]).map_err(|e| format!("wgslate compare: {e}")),
        Some("score") => score_cmd::run(&args[1..]).map_err(|e| format!("wgslate score: {e}")),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            Ok(())
        }
        // Nothing asked: the usage, as an error (a script that left out its command should not pass).
        None => Err(USAGE.to_string()),
        Some("-V" | "--version" | "version") => {
            println!("wgslate {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Some(other) => Err(format!("wgslate: unknown command '{other}'\n{USAGE}")),
    };
    if let Err(e) = result {
        eprintln!("{e}");
        std::process::exit(2);
    }
}

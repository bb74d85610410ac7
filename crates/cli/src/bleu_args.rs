//! sacreBLEU's command-line flags (the subset that scores files), parsed without panics.

#[derive(Debug, Clone)]
pub struct BleuArgs {
    pub refs: Vec<String>,
    pub inputs: Option<Vec<String>>,
    pub metrics: Vec<String>,
    pub tokenize: Option<String>,
    pub lowercase: bool,
    pub smooth_method: String,
    pub smooth_value: Option<f64>,
    pub force: bool,
    pub sentence_level: bool,
    pub chrf_char_order: usize,
    pub chrf_word_order: usize,
    pub chrf_beta: i64,
    pub chrf_whitespace: bool,
    pub chrf_lowercase: bool,
    pub chrf_eps_smoothing: bool,
    pub ter_case_sensitive: bool,
    pub ter_asian_support: bool,
    pub ter_no_punct: bool,
    pub ter_normalized: bool,
    pub confidence: bool,
    pub confidence_n: usize,
    pub paired_bs: bool,
    pub paired_bs_n: usize,
    pub width: usize,
    pub format: String,
    pub score_only: bool,
    pub short: bool,
    pub num_refs: usize,
    /// SACREBLEU_SEED as given (None: unset), read only when a bootstrap needs it.
    pub seed: Option<String>,
}

impl Default for BleuArgs {
    fn default() -> Self {
        Self {
            refs: vec![],
            inputs: None,
            metrics: vec!["bleu".into()],
            tokenize: None,
            lowercase: false,
            smooth_method: "exp".into(),
            smooth_value: None,
            force: false,
            sentence_level: false,
            chrf_char_order: 6,
            chrf_word_order: 0,
            chrf_beta: 2,
            chrf_whitespace: false,
            chrf_lowercase: false,
            chrf_eps_smoothing: false,
            ter_case_sensitive: false,
            ter_asian_support: false,
            ter_no_punct: false,
            ter_normalized: false,
            confidence: false,
            confidence_n: 1000,
            paired_bs: false,
            paired_bs_n: 1000,
            width: 1,
            format: "json".into(),
            score_only: false,
            short: false,
            num_refs: 1,
            seed: None,
        }
    }
}

/// `wgslate bleu --version`: sacreBLEU's flag, answered with what this is.
pub const VERSION: &str = concat!("wgslate bleu ", env!("CARGO_PKG_VERSION"), " (scores as sacreBLEU 2.6.0 does)");

pub const USAGE: &str = "usage: wgslate bleu REF [REF ...] [-i HYP [HYP ...]] [-m {bleu,chrf,ter} ...] [-tok {13a,intl,zh,char,none}] [-lc]
       [-s {none,floor,add-k,exp}] [-sv X] [--force] [-sl] [-cc N] [-cw N] [--chrf-beta N] [--chrf-whitespace]
       [--chrf-lowercase] [--chrf-eps-smoothing] [--ter-case-sensitive] [--ter-normalized] [--ter-no-punct]
       [--ter-asian-support] [-ci] [-cin N] [-pbs] [-pbsn N] [-nr N] [-w N] [-f {json,text,latex}] [-b] [-sh] [-q] [-nc]";

const FORMATS: [&str; 3] = ["json", "text", "latex"];

/// sacreBLEU's environment: SACREBLEU_FORMAT (any case) overrides `-f` when it names a format;
/// SACREBLEU_SEED seeds the bootstrap.
pub fn apply_env(a: &mut BleuArgs, var: impl Fn(&str) -> Option<String>) {
    if let Some(f) = var("SACREBLEU_FORMAT").map(|f| f.to_lowercase()).filter(|f| FORMATS.contains(&f.as_str())) {
        a.format = f;
    }
    a.seed = var("SACREBLEU_SEED");
}

fn looks_like_option(s: &str) -> bool {
    s.starts_with('-') && s.len() > 1 && s.parse::<f64>().is_err()
}

fn number<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, String> {
    v.parse().map_err(|_| format!("argument {flag}: invalid value: '{v}'"))
}

pub fn parse(argv: &[String]) -> Result<BleuArgs, String> {
    let mut a = BleuArgs::default();
    let mut i = 0;
    while i < argv.len() {
        let raw = &argv[i];
        i += 1;
        // As argparse: after "--" every argument is a reference file, even one that starts with "-".
        if raw == "--" {
            a.refs.extend(argv[i..].iter().cloned());
            break;
        }
        if !looks_like_option(raw) {
            a.refs.push(raw.clone());
            continue;
        }
        let (flag, inline) = match raw.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (raw.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            match argv.get(i) {
                Some(v) if !looks_like_option(v) => {
                    i += 1;
                    Ok(v.clone())
                }
                _ => Err(format!("argument {name}: expected one argument")),
            }
        };
        match flag.as_str() {
            "-i" | "--input" => {
                let mut files: Vec<String> = inline.clone().into_iter().collect();
                while i < argv.len() && !looks_like_option(&argv[i]) {
                    files.push(argv[i].clone());
                    i += 1;
                }
                a.inputs = Some(files);
            }
            "-m" | "--metrics" => {
                let mut m: Vec<String> = inline.clone().into_iter().collect();
                while i < argv.len() && !looks_like_option(&argv[i]) {
                    m.push(argv[i].clone());
                    i += 1;
                }
                if m.is_empty() {
                    return Err("argument -m/--metrics: expected at least one argument".into());
                }
                for x in &m {
                    if !["bleu", "chrf", "ter"].contains(&x.as_str()) {
                        return Err(format!(
                            "argument -m/--metrics: invalid choice: '{x}' (choose from 'bleu', 'chrf', 'ter')"
                        ));
                    }
                }
                // sacreBLEU keys its metrics by name: a repeated one counts once, where it first appears.
                a.metrics =
                    m.iter().enumerate().filter(|(k, x)| !m[..*k].contains(x)).map(|(_, x)| x.clone()).collect();
            }
            "-tok" | "--tokenize" => {
                let v = value("-tok/--tokenize")?;
                wgslate_metrics::Tokenize::parse(&v).map_err(|e| format!("argument -tok/--tokenize: {e}"))?;
                a.tokenize = Some(v);
            }
            "-lc" | "--lowercase" => a.lowercase = true,
            "-s" | "--smooth-method" => {
                let v = value("-s/--smooth-method")?;
                if !["none", "floor", "add-k", "exp"].contains(&v.as_str()) {
                    return Err(format!("argument --smooth-method/-s: invalid choice: '{v}' (choose from 'none', 'floor', 'add-k', 'exp')"));
                }
                a.smooth_method = v;
            }
            "-sv" | "--smooth-value" => a.smooth_value = Some(number("-sv/--smooth-value", &value("-sv")?)?),
            "--force" => a.force = true,
            "-sl" | "--sentence-level" => a.sentence_level = true,
            "-cc" | "--chrf-char-order" => a.chrf_char_order = number("--chrf-char-order", &value("-cc")?)?,
            "-cw" | "--chrf-word-order" => a.chrf_word_order = number("--chrf-word-order", &value("-cw")?)?,
            "--chrf-beta" => a.chrf_beta = number("--chrf-beta", &value("--chrf-beta")?)?,
            "--chrf-whitespace" => a.chrf_whitespace = true,
            "--chrf-lowercase" => a.chrf_lowercase = true,
            "--chrf-eps-smoothing" => a.chrf_eps_smoothing = true,
            "--ter-case-sensitive" => a.ter_case_sensitive = true,
            "--ter-asian-support" => a.ter_asian_support = true,
            "--ter-no-punct" => a.ter_no_punct = true,
            "--ter-normalized" => a.ter_normalized = true,
            "-ci" | "--confidence" => a.confidence = true,
            "-cin" | "--confidence-n" => a.confidence_n = number("--confidence-n", &value("-cin")?)?,
            "-pbs" | "--paired-bs" => a.paired_bs = true,
            "-pbsn" | "--paired-bs-n" => a.paired_bs_n = number("--paired-bs-n", &value("-pbsn")?)?,
            "-nr" | "--num-refs" => a.num_refs = number("--num-refs", &value("-nr")?)?,
            "-w" | "--width" => a.width = number("--width", &value("-w")?)?,
            "-f" | "--format" => {
                let v = value("-f/--format")?;
                if !FORMATS.contains(&v.as_str()) {
                    return Err(format!(
                        "argument --format/-f: invalid choice: '{v}' (choose from 'json', 'text', 'latex')"
                    ));
                }
                a.format = v;
            }
            "-b" | "--score-only" => a.score_only = true,
            "-sh" | "--short" => a.short = true,
            "-q" | "--quiet" | "-nc" | "--no-color" => {}
            "-e" | "--encoding" => {
                let v = value("-e/--encoding")?;
                if !v.eq_ignore_ascii_case("utf-8") && !v.eq_ignore_ascii_case("utf8") {
                    return Err(format!("only UTF-8 input is supported, not '{v}'"));
                }
            }
            "-par" | "--paired-ar" => return Err("--paired-ar is not supported; use --paired-bs".into()),
            "-t" | "--test-set" | "-l" | "--language-pair" | "--download" | "--echo" | "--list" => {
                return Err(format!(
                    "{flag}: wgslate works offline and has no built-in test sets; give reference files"
                ))
            }
            other => return Err(format!("unrecognized arguments: {other}")),
        }
    }
    if a.confidence_n == 0 || a.paired_bs_n == 0 {
        return Err("the number of resamples must be positive".into());
    }
    if a.chrf_char_order == 0 && a.chrf_word_order == 0 {
        return Err("chrF needs a character or word order above 0".into());
    }
    if a.num_refs == 0 {
        return Err("--num-refs must be at least 1".into());
    }
    Ok(a)
}

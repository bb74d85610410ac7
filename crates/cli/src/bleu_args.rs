//! sacreBLEU's command-line flags (the subset that scores files), parsed without panics.

use wgslate_metrics::pystr::decimal_value;

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
    /// `--detail`: text output and a note that local files carry no subset information.
    pub detail: bool,
    pub num_refs: usize,
    /// `-e`: how the files and standard input are decoded.
    pub encoding: Encoding,
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
            detail: false,
            num_refs: 1,
            encoding: Encoding::Utf8,
            seed: None,
        }
    }
}

/// The text encodings `-e` takes: Python's codecs whose decoding is simple enough to be exact here.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Encoding {
    Utf8,
    /// UTF-8 without a leading byte order mark.
    Utf8Sig,
    Latin1,
    Ascii,
}

impl Encoding {
    /// The codec Python's `codecs.lookup` finds for `name` (its normalisation: lower case, runs of
    /// other characters than letters, digits and `.` as one `_`; then its alias table).
    pub fn named(name: &str) -> Option<Self> {
        let mut norm = String::new();
        for c in name.to_ascii_lowercase().chars() {
            if c.is_ascii_alphanumeric() || c == '.' {
                norm.push(c);
            } else if !norm.is_empty() && !norm.ends_with('_') {
                norm.push('_');
            }
        }
        let norm = norm.trim_end_matches('_');
        const ALIASES: [(Encoding, &[&str]); 4] = [
            (Encoding::Utf8, &["u8", "utf", "utf8", "utf8_ucs2", "utf8_ucs4", "cp65001"]),
            (Encoding::Utf8Sig, &[]),
            (
                Encoding::Latin1,
                &[
                    "8859",
                    "cp819",
                    "csisolatin1",
                    "ibm819",
                    "iso8859",
                    "iso8859_1",
                    "iso_8859_1",
                    "iso_8859_1_1987",
                    "iso_ir_100",
                    "l1",
                    "latin",
                    "latin1",
                ],
            ),
            (
                Encoding::Ascii,
                &[
                    "646",
                    "ansi_x3.4_1968",
                    "ansi_x3.4_1986",
                    "ansi_x3_4_1968",
                    "cp367",
                    "csascii",
                    "ibm367",
                    "iso646_us",
                    "iso_646.irv_1991",
                    "iso_ir_6",
                    "us",
                    "us_ascii",
                ],
            ),
        ];
        let modules = [
            (Encoding::Utf8, "utf_8"),
            (Encoding::Utf8Sig, "utf_8_sig"),
            (Encoding::Latin1, "latin_1"),
            (Encoding::Ascii, "ascii"),
        ];
        let alias = |n: &str| ALIASES.iter().find(|(_, names)| names.contains(&n)).map(|(e, _)| *e);
        alias(norm)
            .or_else(|| alias(&norm.replace('.', "_")))
            .or_else(|| modules.iter().find(|(_, m)| *m == norm).map(|(e, _)| *e))
    }

    /// The text of `bytes` read from `name`, decoded as Python decodes it (strictly).
    pub fn decode(self, name: &str, bytes: Vec<u8>) -> Result<String, String> {
        match self {
            Encoding::Utf8 => wgslate_metrics::utf8_text(name, bytes).map_err(|e| {
                if e.contains("UTF-16") {
                    e
                } else {
                    format!("{e}; if it is Latin-1 text, add -e latin-1")
                }
            }),
            Encoding::Utf8Sig => {
                let body = bytes.strip_prefix(b"\xEF\xBB\xBF").map(<[u8]>::to_vec).unwrap_or(bytes);
                wgslate_metrics::utf8_text(name, body)
            }
            Encoding::Latin1 => Ok(bytes.iter().map(|&b| b as char).collect()),
            Encoding::Ascii => match bytes.iter().position(|b| !b.is_ascii()) {
                Some(at) => Err(format!("{name} is not ASCII text (byte {:#04x} at offset {at})", bytes[at])),
                None => Ok(bytes.iter().map(|&b| b as char).collect()),
            },
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

/// How many values an option takes (argparse's nargs).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Takes {
    Nothing,
    One,
    /// nargs='*'
    Any,
    /// nargs='+'
    AtLeastOne,
}

/// sacreBLEU 2.6.0's options, every spelling, in the order its parser registers them: argparse
/// resolves abbreviations against this list and names ambiguous matches in this order.
const OPTIONS: &[(&[&str], Takes)] = &[
    (&["-h", "--help"], Takes::Nothing),
    (&["--citation", "--cite"], Takes::Nothing),
    (&["--list"], Takes::Nothing),
    (&["--test-set", "-t"], Takes::One),
    (&["--language-pair", "-l"], Takes::One),
    (&["--origlang", "-ol"], Takes::One),
    (&["--subset"], Takes::One),
    (&["--download"], Takes::One),
    (&["--echo"], Takes::AtLeastOne),
    (&["--input", "-i"], Takes::Any),
    (&["--num-refs", "-nr"], Takes::One),
    (&["--encoding", "-e"], Takes::One),
    (&["--metrics", "-m"], Takes::AtLeastOne),
    (&["--sentence-level", "-sl"], Takes::Nothing),
    (&["--smooth-method", "-s"], Takes::One),
    (&["--smooth-value", "-sv"], Takes::One),
    (&["--tokenize", "-tok"], Takes::One),
    (&["--lowercase", "-lc"], Takes::Nothing),
    (&["--force"], Takes::Nothing),
    (&["--chrf-char-order", "-cc"], Takes::One),
    (&["--chrf-word-order", "-cw"], Takes::One),
    (&["--chrf-beta"], Takes::One),
    (&["--chrf-whitespace"], Takes::Nothing),
    (&["--chrf-lowercase"], Takes::Nothing),
    (&["--chrf-eps-smoothing"], Takes::Nothing),
    (&["--ter-case-sensitive"], Takes::Nothing),
    (&["--ter-asian-support"], Takes::Nothing),
    (&["--ter-no-punct"], Takes::Nothing),
    (&["--ter-normalized"], Takes::Nothing),
    (&["--confidence", "-ci"], Takes::Nothing),
    (&["--confidence-n", "-cin"], Takes::One),
    (&["--paired-ar", "-par"], Takes::Nothing),
    (&["--paired-bs", "-pbs"], Takes::Nothing),
    (&["--paired-ar-n", "-parn"], Takes::One),
    (&["--paired-bs-n", "-pbsn"], Takes::One),
    (&["--paired-jobs", "-j"], Takes::One),
    (&["--quiet", "-q"], Takes::Nothing),
    (&["--short", "-sh"], Takes::Nothing),
    (&["--score-only", "-b"], Takes::Nothing),
    (&["--width", "-w"], Takes::One),
    (&["--detail", "-d"], Takes::Nothing),
    (&["--no-color", "-nc"], Takes::Nothing),
    (&["--format", "-f"], Takes::One),
    (&["--version", "-V"], Takes::Nothing),
];

/// What `wgslate bleu`'s command line asks for.
#[derive(Debug)]
pub enum Parsed {
    Score(Box<BleuArgs>),
    Help,
    Version,
}

/// One command-line word as argparse sees it before consuming any.
#[derive(Debug, Clone)]
enum Word {
    /// A value or a file name ('A').
    Value,
    /// The first "--" ('-'): every word after it is a value.
    Dashes,
    /// An option ('O'): which one (None: unknown), as spelled, and a value joined to it.
    Opt { opt: Option<usize>, spelled: String, joined: Option<String> },
}

fn exact(spelled: &str) -> Option<usize> {
    OPTIONS.iter().position(|(names, _)| names.contains(&spelled))
}

/// argparse's `_parse_optional` and `_get_option_tuples` (Python 3.11, `allow_abbrev`): exact
/// spellings, `--opt=value`, unique prefixes of long options, and a one-letter option with its
/// value or further one-letter flags joined (`-w3`, `-bq`).
fn classify(arg: &str) -> Result<Word, String> {
    if !arg.starts_with('-') || arg.len() == 1 {
        return Ok(Word::Value);
    }
    if let Some(opt) = exact(arg) {
        return Ok(Word::Opt { opt: Some(opt), spelled: arg.into(), joined: None });
    }
    if let Some((name, value)) = arg.split_once('=') {
        if let Some(opt) = exact(name) {
            return Ok(Word::Opt { opt: Some(opt), spelled: name.into(), joined: Some(value.into()) });
        }
    }
    let mut matches: Vec<(usize, &str, Option<String>)> = Vec::new();
    for (k, (names, _)) in OPTIONS.iter().enumerate() {
        for name in names.iter() {
            if let Some(long) = arg.strip_prefix("--") {
                let (prefix, value) = match long.split_once('=') {
                    Some((p, v)) => (p, Some(v.to_string())),
                    None => (long, None),
                };
                if name.starts_with(&format!("--{prefix}")) {
                    matches.push((k, name, value));
                }
            } else if arg.get(..2) == Some(name) {
                matches.push((k, name, Some(arg[2..].to_string())));
            } else if name.starts_with(arg) {
                matches.push((k, name, None));
            }
        }
    }
    match matches.len() {
        0 => {}
        1 => {
            let (k, name, joined) = matches.pop().expect("one match");
            return Ok(Word::Opt { opt: Some(k), spelled: name.into(), joined });
        }
        _ => {
            let names: Vec<&str> = matches.iter().map(|m| m.1).collect();
            return Err(format!("ambiguous option: {arg} could match {}", names.join(", ")));
        }
    }
    // A negative number or a word with a space is a value, not an unknown option. argparse's
    // pattern, `^-\d+$|^-\d*\.\d+$`: digits of any script, and `$` also before a last line break.
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| decimal_value(c).is_some());
    let number = arg[1..].strip_suffix('\n').unwrap_or(&arg[1..]);
    let negative_number =
        digits(number) || number.split_once('.').is_some_and(|(a, b)| (a.is_empty() || digits(a)) && digits(b));
    if negative_number || arg.contains(' ') {
        return Ok(Word::Value);
    }
    Ok(Word::Opt { opt: None, spelled: arg.into(), joined: None })
}

/// The word as Python's number parsers see it: digits of every script as ASCII digits.
fn ascii_digits(v: &str) -> String {
    v.trim().chars().map(|c| decimal_value(c).and_then(|d| char::from_digit(d, 10)).unwrap_or(c)).collect()
}

/// Python's `int()` of a command-line word: surrounding whitespace, a sign, `_` between digits, and
/// digits of any script (`٣`).
fn python_int(v: &str) -> Option<i64> {
    let t = &ascii_digits(v);
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let ok = !body.is_empty()
        && !body.starts_with('_')
        && !body.ends_with('_')
        && !body.contains("__")
        && body.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    if !ok {
        return None;
    }
    // Python ints have no bound: one past i64 is kept as the nearest i64, which every use refuses.
    let digits = body.replace('_', "");
    let n: i64 = digits.parse().unwrap_or(i64::MAX);
    Some(if neg { -n } else { n })
}

/// Python's `float()` of a command-line word (whitespace, `_` between digits, digits of any script).
fn python_float(v: &str) -> Option<f64> {
    let t = &ascii_digits(v);
    let lower = t.to_ascii_lowercase();
    let bare = lower.trim_start_matches(['+', '-']);
    if ["inf", "infinity", "nan"].contains(&bare) {
        return t.parse().ok().or_else(|| lower.replace("infinity", "inf").parse().ok());
    }
    let underscores_ok = t.split('_').count() == 1
        || t.as_bytes().windows(3).all(|w| w[1] != b'_' || (w[0].is_ascii_digit() && w[2].is_ascii_digit()))
            && !t.starts_with('_')
            && !t.ends_with('_');
    if !underscores_ok || bare.starts_with(|c: char| !c.is_ascii_digit() && c != '.') {
        return None;
    }
    t.replace('_', "").parse().ok()
}

fn argument(opt: usize) -> String {
    format!("argument {}", OPTIONS[opt].0.join("/"))
}

fn int_value(opt: usize, v: &str) -> Result<i64, String> {
    python_int(v).ok_or_else(|| format!("{}: invalid int value: '{v}'", argument(opt)))
}

fn choice(opt: usize, v: &str, choices: &[&str]) -> Result<String, String> {
    if choices.contains(&v) {
        return Ok(v.to_string());
    }
    let list: Vec<String> = choices.iter().map(|c| format!("'{c}'")).collect();
    Err(format!("{}: invalid choice: '{v}' (choose from {})", argument(opt), list.join(", ")))
}

/// What sacreBLEU stores while parsing and only judges after it (so a later `-h` still answers
/// first): the int options as given (Python ints: any sign and size), the language pair, and the
/// first option this program refuses.
struct Deferred {
    width: i64,
    num_refs: i64,
    confidence_n: i64,
    paired_bs_n: i64,
    paired_jobs: i64,
    chrf_char_order: i64,
    chrf_word_order: i64,
    langpair: Option<String>,
    refusal: Option<String>,
}

impl Deferred {
    fn of(a: &BleuArgs) -> Self {
        let i = |n: usize| n as i64;
        Self {
            width: i(a.width),
            num_refs: i(a.num_refs),
            confidence_n: i(a.confidence_n),
            paired_bs_n: i(a.paired_bs_n),
            paired_jobs: 1,
            chrf_char_order: i(a.chrf_char_order),
            chrf_word_order: i(a.chrf_word_order),
            langpair: None,
            refusal: None,
        }
    }

    fn refuse(&mut self, why: String) {
        self.refusal.get_or_insert(why);
    }

    /// Where sacreBLEU would fail (or crash) on a value, a message; a value it never reads is kept
    /// without complaint.
    fn settle(self, a: &mut BleuArgs) -> Result<(), String> {
        if let Some(why) = self.refusal {
            return Err(why);
        }
        let count = |n: i64, min: i64, what: &str| {
            usize::try_from(n)
                .ok()
                .filter(|_| n >= min)
                .ok_or_else(|| format!("{what} must be at least {min}, not {n}"))
        };
        a.width = count(self.width, 0, "--width")?;
        // Python refuses a format precision above its int range ("precision too big").
        if a.width > i32::MAX as usize {
            return Err(format!("--width {} is too big: at most {}", a.width, i32::MAX));
        }
        a.num_refs = count(self.num_refs, 1, "--num-refs")?;
        // sacreBLEU resamples only for more than one resample; fewer give the plain score.
        a.confidence_n = self.confidence_n.clamp(0, i64::MAX) as usize;
        // The paired test takes 0 or fewer as its default, 1 000.
        a.paired_bs_n = if self.paired_bs_n > 0 { self.paired_bs_n as usize } else { 1000 };
        if a.paired_bs && self.paired_jobs < 0 {
            return Err(format!("--paired-jobs must be at least 0, not {}", self.paired_jobs));
        }
        if a.metrics.iter().any(|m| m == "chrf") {
            a.chrf_char_order = count(self.chrf_char_order, 0, "--chrf-char-order")?;
            a.chrf_word_order = count(self.chrf_word_order, 0, "--chrf-word-order")?;
            if a.chrf_char_order == 0 && a.chrf_word_order == 0 {
                return Err("chrF needs a character or word order above 0".into());
            }
        }
        if let Some(pair) = self.langpair {
            // sacreBLEU takes the target language from the pair to choose BLEU's tokenizer.
            let target = pair
                .split('-')
                .nth(1)
                .ok_or_else(|| format!("--language-pair {pair}: expected SOURCE-TARGET, such as en-de"))?;
            match target {
                "zh" if a.tokenize.is_none() => a.tokenize = Some("zh".into()),
                "ja" | "ko" if a.tokenize.is_none() && a.metrics.iter().any(|m| m == "bleu") => {
                    return Err(format!(
                        "BLEU for {target} uses sacreBLEU's {target}-mecab tokenizer (MeCab), which wgslate does not have; choose one with -tok"
                    ))
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Applies one option with its values; Some ends parsing there (help and version act at once).
fn apply(a: &mut BleuArgs, ints: &mut Deferred, opt: usize, values: Vec<String>) -> Result<Option<Parsed>, String> {
    let one = || values.first().cloned().unwrap_or_default();
    match OPTIONS[opt].0[0] {
        "-h" => return Ok(Some(Parsed::Help)),
        "--version" => return Ok(Some(Parsed::Version)),
        "--input" => a.inputs = Some(values),
        "--metrics" => {
            for x in &values {
                choice(opt, x, &["bleu", "chrf", "ter"])?;
            }
            // As given: a repeated one still counts against sentence level's one metric (bleu_cmd).
            a.metrics = values;
        }
        "--tokenize" => {
            let v = one();
            wgslate_metrics::Tokenize::parse(&v).map_err(|e| format!("{}: {e}", argument(opt)))?;
            a.tokenize = Some(v);
        }
        "--lowercase" => a.lowercase = true,
        "--smooth-method" => a.smooth_method = choice(opt, &one(), &["none", "floor", "add-k", "exp"])?,
        "--smooth-value" => {
            let v = one();
            a.smooth_value =
                Some(python_float(&v).ok_or_else(|| format!("{}: invalid float value: '{v}'", argument(opt)))?)
        }
        "--force" => a.force = true,
        "--sentence-level" => a.sentence_level = true,
        "--chrf-char-order" => ints.chrf_char_order = int_value(opt, &one())?,
        "--chrf-word-order" => ints.chrf_word_order = int_value(opt, &one())?,
        "--chrf-beta" => a.chrf_beta = int_value(opt, &one())?,
        "--chrf-whitespace" => a.chrf_whitespace = true,
        "--chrf-lowercase" => a.chrf_lowercase = true,
        "--chrf-eps-smoothing" => a.chrf_eps_smoothing = true,
        "--ter-case-sensitive" => a.ter_case_sensitive = true,
        "--ter-asian-support" => a.ter_asian_support = true,
        "--ter-no-punct" => a.ter_no_punct = true,
        "--ter-normalized" => a.ter_normalized = true,
        "--confidence" => a.confidence = true,
        "--confidence-n" => ints.confidence_n = int_value(opt, &one())?,
        "--paired-bs" => a.paired_bs = true,
        "--paired-bs-n" => ints.paired_bs_n = int_value(opt, &one())?,
        "--num-refs" => ints.num_refs = int_value(opt, &one())?,
        "--width" => ints.width = int_value(opt, &one())?,
        "--format" => a.format = choice(opt, &one(), &FORMATS)?,
        "--score-only" => a.score_only = true,
        "--short" => a.short = true,
        "--detail" => a.detail = true,
        "--quiet" | "--no-color" => {}
        // Parallel jobs of the paired tests, and the resamples of the refused -par: checked, not used.
        "--paired-jobs" => ints.paired_jobs = int_value(opt, &one())?,
        // The resamples of the refused -par: checked, not used.
        "--paired-ar-n" => {
            int_value(opt, &one())?;
        }
        "--encoding" => {
            let v = one();
            match Encoding::named(&v) {
                Some(e) => a.encoding = e,
                None => ints.refuse(format!(
                    "--encoding {v}: wgslate reads UTF-8 (also utf-8-sig), Latin-1 and ASCII; convert the files to UTF-8 (iconv -f {v} -t UTF-8)"
                )),
            }
        }
        "--language-pair" => ints.langpair = Some(one()),
        "--paired-ar" => ints.refuse("--paired-ar is not supported; use --paired-bs".into()),
        "--citation" | "--origlang" | "--subset" => ints.refuse(format!(
            "{}: needs a built-in test set, and wgslate has none; give reference files",
            OPTIONS[opt].0[0]
        )),
        name => {
            ints.refuse(format!("{name}: wgslate works offline and has no built-in test sets; give reference files"))
        }
    }
    Ok(None)
}

/// Parses `wgslate bleu`'s arguments exactly as sacreBLEU 2.6.0's argparse parser does (Python 3.11):
/// the same spellings are accepted, values are taken the same way, and the reference files are the
/// first run of plain words, so whatever sacreBLEU refuses is refused here too.
pub fn parse(argv: &[String]) -> Result<Parsed, String> {
    let mut words = Vec::with_capacity(argv.len());
    let mut after_dashes = false;
    for arg in argv {
        words.push(if after_dashes {
            Word::Value
        } else if arg == "--" {
            after_dashes = true;
            Word::Dashes
        } else {
            classify(arg)?
        });
    }
    let mut a = BleuArgs::default();
    let mut ints = Deferred::of(&a);
    let mut refs_taken = false;
    let mut extras: Vec<String> = Vec::new();
    let is_opt = |k: usize| matches!(words.get(k), Some(Word::Opt { .. }));
    // The reference files: one run of values (and "--") from `start`, the first "--" dropped.
    let mut positionals = |start: usize, a: &mut BleuArgs| -> usize {
        if refs_taken {
            return start;
        }
        let end = (start..words.len()).find(|&k| is_opt(k)).unwrap_or(words.len());
        let mut refs = argv[start..end].to_vec();
        if let Some(k) = refs.iter().position(|r| r == "--") {
            refs.remove(k);
        }
        a.refs = refs;
        refs_taken = true;
        end
    };
    let last_opt = (0..words.len()).rev().find(|&k| is_opt(k));
    let mut start = 0;
    while last_opt.is_some_and(|last| start <= last) {
        let next = (start..words.len()).find(|&k| is_opt(k)).expect("an option at or after start");
        if start != next {
            let end = positionals(start, &mut a);
            if end > start {
                start = end;
                continue;
            }
            extras.extend(argv[start..next].iter().cloned());
            start = next;
        }
        let Word::Opt { opt, spelled, joined } = words[start].clone() else { unreachable!("an option") };
        let (mut opt, mut spelled, mut joined) = (opt, spelled, joined);
        // As argparse: a chain such as `-bq` is checked whole before any of it acts.
        let mut actions: Vec<(usize, Vec<String>)> = Vec::new();
        loop {
            let Some(k) = opt else {
                extras.push(argv[start].clone());
                start += 1;
                break;
            };
            let takes = OPTIONS[k].1;
            if let Some(value) = joined.take() {
                if takes == Takes::Nothing {
                    // `-bq`: a one-letter flag followed by more one-letter options.
                    let first = value.chars().next();
                    let next = first.map(|c| format!("-{c}")).and_then(|s| exact(&s).map(|o| (o, s)));
                    match next.filter(|_| !spelled.starts_with("--")) {
                        Some((o, s)) => {
                            actions.push((k, vec![]));
                            let rest = &value[first.map_or(0, char::len_utf8)..];
                            (opt, spelled, joined) = (Some(o), s, (!rest.is_empty()).then(|| rest.to_string()));
                            continue;
                        }
                        None => return Err(format!("{}: ignored explicit argument '{value}'", argument(k))),
                    }
                }
                actions.push((k, vec![value]));
                start += 1;
                break;
            }
            let values_end =
                (start + 1..words.len()).find(|&j| !matches!(words[j], Word::Value)).unwrap_or(words.len());
            let available = values_end - start - 1;
            let count = match takes {
                Takes::Nothing => 0,
                Takes::One | Takes::AtLeastOne if available == 0 => {
                    let what = if takes == Takes::One { "one argument" } else { "at least one argument" };
                    return Err(format!("{}: expected {what}", argument(k)));
                }
                Takes::One => 1,
                Takes::Any | Takes::AtLeastOne => available,
            };
            actions.push((k, argv[start + 1..start + 1 + count].to_vec()));
            start += 1 + count;
            break;
        }
        for (k, values) in actions {
            if let Some(done) = apply(&mut a, &mut ints, k, values)? {
                return Ok(done);
            }
        }
    }
    let stop = positionals(start, &mut a);
    extras.extend(argv[stop..].iter().cloned());
    if !extras.is_empty() {
        return Err(format!("unrecognized arguments: {}", extras.join(" ")));
    }
    ints.settle(&mut a)?;
    Ok(Parsed::Score(Box::new(a)))
}

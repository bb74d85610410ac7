//! sacreBLEU's command-line flags (the subset that scores files), parsed without panics.

use crate::argparse::{self, python_float, python_int, Flow, Options, Takes};
pub use crate::encoding::Encoding;

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
    /// The target language of `-l SRC-TGT`: METEOR's stemmer and synonyms follow it.
    pub target_language: Option<String>,
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
            target_language: None,
        }
    }
}

/// `wgslate bleu --version`: sacreBLEU's flag, answered with what this is.
pub const VERSION: &str = concat!("wgslate bleu ", env!("CARGO_PKG_VERSION"), " (scores as sacreBLEU 2.6.0 does)");

pub const USAGE: &str =
    "usage: wgslate bleu REF [REF ...] [-i HYP [HYP ...]] [-m {bleu,chrf,ter,wer,per,meteor} ...] [-tok {13a,intl,zh,char,none}] [-lc]
       [-s {none,floor,add-k,exp}] [-sv X] [--force] [-sl] [-cc N] [-cw N] [--chrf-beta N] [--chrf-whitespace]
       [--chrf-lowercase] [--chrf-eps-smoothing] [--ter-case-sensitive] [--ter-normalized] [--ter-no-punct]
       [--ter-asian-support] [-ci] [-cin N] [-pbs] [-pbsn N] [-nr N] [-w N] [-f {json,text,latex}] [-b] [-sh] [-q] [-nc]
       [-e ENCODING] [-l SRC-TGT] [-d] [-j N] [-V]   (sacreBLEU 2.6.0's own; -t/--test-set is refused: no downloads)
wer, per and meteor extend sacreBLEU's metric choices: WER as jiwer 4.0.0, PER as Moses' PerScorer (both on the
first reference), METEOR as nltk 3.10.4's meteor_score on 13a tokens (Porter stems and WordNet synonyms for English
output; Snowball stems for -l xx-de and xx-fr; exact matches for other targets). METEOR reads WordNet 3.0 from
$WGSLATE_WORDNET or /usr/share/wordnet (Debian's wordnet-base).";

const FORMATS: [&str; 3] = ["json", "text", "latex"];

/// sacreBLEU's environment: SACREBLEU_FORMAT (any case) overrides `-f` when it names a format;
/// SACREBLEU_SEED seeds the bootstrap.
pub fn apply_env(a: &mut BleuArgs, var: impl Fn(&str) -> Option<String>) {
    if let Some(f) = var("SACREBLEU_FORMAT").map(|f| f.to_lowercase()).filter(|f| FORMATS.contains(&f.as_str())) {
        a.format = f;
    }
    a.seed = var("SACREBLEU_SEED");
}

/// sacreBLEU 2.6.0's options, every spelling, in the order its parser registers them: argparse
/// resolves abbreviations against this list and names ambiguous matches in this order.
const OPTIONS: &Options = &[
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

fn argument(opt: usize) -> String {
    argparse::argument(OPTIONS, opt)
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

/// The most bootstrap resamples (`-cin`, `-pbsn`) and chrF n-gram orders (`-cc`, `-cw`) taken.
const MAX_RESAMPLES: usize = 1_000_000;
const MAX_CHRF_ORDER: usize = 10_000;

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
        // Past these the resamples or n-gram tables would not fit in memory (sacreBLEU runs out too).
        let too_many = |n: usize, flag: &str, most: usize| {
            (n > most).then(|| format!("{flag} {n} is more than this program can hold: at most {most}"))
        };
        let resamples =
            [(a.confidence, a.confidence_n, "--confidence-n"), (a.paired_bs, a.paired_bs_n, "--paired-bs-n")];
        if let Some(why) = resamples.iter().filter(|r| r.0).find_map(|r| too_many(r.1, r.2, MAX_RESAMPLES)) {
            return Err(why);
        }
        if a.paired_bs && self.paired_jobs < 0 {
            return Err(format!("--paired-jobs must be at least 0, not {}", self.paired_jobs));
        }
        if a.metrics.iter().any(|m| m == "chrf") {
            a.chrf_char_order = count(self.chrf_char_order, 0, "--chrf-char-order")?;
            a.chrf_word_order = count(self.chrf_word_order, 0, "--chrf-word-order")?;
            let orders = [(a.chrf_char_order, "--chrf-char-order"), (a.chrf_word_order, "--chrf-word-order")];
            if let Some(why) = orders.iter().find_map(|o| too_many(o.0, o.1, MAX_CHRF_ORDER)) {
                return Err(why);
            }
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
            a.target_language = Some(target.to_string());
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
fn apply(a: &mut BleuArgs, later: &mut Deferred, opt: usize, values: Vec<String>) -> Result<Option<Parsed>, String> {
    let one = || values.first().cloned().unwrap_or_default();
    match OPTIONS[opt].0[0] {
        "-h" => return Ok(Some(Parsed::Help)),
        "--version" => return Ok(Some(Parsed::Version)),
        "--input" => a.inputs = Some(values),
        "--metrics" => {
            for x in &values {
                choice(opt, x, &["bleu", "chrf", "ter", "wer", "per", "meteor"])?;
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
        "--chrf-char-order" => later.chrf_char_order = int_value(opt, &one())?,
        "--chrf-word-order" => later.chrf_word_order = int_value(opt, &one())?,
        "--chrf-beta" => a.chrf_beta = int_value(opt, &one())?,
        "--chrf-whitespace" => a.chrf_whitespace = true,
        "--chrf-lowercase" => a.chrf_lowercase = true,
        "--chrf-eps-smoothing" => a.chrf_eps_smoothing = true,
        "--ter-case-sensitive" => a.ter_case_sensitive = true,
        "--ter-asian-support" => a.ter_asian_support = true,
        "--ter-no-punct" => a.ter_no_punct = true,
        "--ter-normalized" => a.ter_normalized = true,
        "--confidence" => a.confidence = true,
        "--confidence-n" => later.confidence_n = int_value(opt, &one())?,
        "--paired-bs" => a.paired_bs = true,
        "--paired-bs-n" => later.paired_bs_n = int_value(opt, &one())?,
        "--num-refs" => later.num_refs = int_value(opt, &one())?,
        "--width" => later.width = int_value(opt, &one())?,
        "--format" => a.format = choice(opt, &one(), &FORMATS)?,
        "--score-only" => a.score_only = true,
        "--short" => a.short = true,
        "--detail" => a.detail = true,
        "--quiet" | "--no-color" => {}
        // Parallel jobs of the paired tests, and the resamples of the refused -par: checked, not used.
        "--paired-jobs" => later.paired_jobs = int_value(opt, &one())?,
        // The resamples of the refused -par: checked, not used.
        "--paired-ar-n" => {
            int_value(opt, &one())?;
        }
        "--encoding" => {
            let v = one();
            match Encoding::named(&v) {
                Some(e) => a.encoding = e,
                None => later.refuse(format!(
                    "--encoding {v}: wgslate reads UTF-8 (also utf-8-sig), Latin-1 and ASCII, by Python's names for them; \
                     for another encoding, convert the files to UTF-8 first (iconv -f ENCODING -t UTF-8)"
                )),
            }
        }
        "--language-pair" => later.langpair = Some(one()),
        "--paired-ar" => later.refuse("--paired-ar is not supported; use --paired-bs".into()),
        "--citation" | "--origlang" | "--subset" => later.refuse(format!(
            "{}: needs a built-in test set, and wgslate has none; give reference files",
            OPTIONS[opt].0[0]
        )),
        name => {
            later.refuse(format!("{name}: wgslate works offline and has no built-in test sets; give reference files"))
        }
    }
    Ok(None)
}

/// Parses `wgslate bleu`'s arguments exactly as sacreBLEU 2.6.0's argparse parser does (Python 3.11):
/// the same spellings are accepted, values are taken the same way, and the reference files are the
/// first run of plain words, so whatever sacreBLEU refuses is refused here too.
pub fn parse(argv: &[String]) -> Result<Parsed, String> {
    let mut a = BleuArgs::default();
    let mut later = Deferred::of(&a);
    let mut stopped = None;
    let refs = argparse::parse(OPTIONS, argv, |opt, values| match apply(&mut a, &mut later, opt, values)? {
        Some(done) => {
            stopped = Some(done);
            Ok(Flow::Stop)
        }
        None => Ok(Flow::Go),
    })?;
    let Some(refs) = refs else { return Ok(stopped.expect("a stop says why")) };
    a.refs = refs;
    later.settle(&mut a)?;
    Ok(Parsed::Score(Box::new(a)))
}

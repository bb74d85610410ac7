//! `wgslate translate` and `wgslate eval`.

use std::io::{IsTerminal, Write};
use std::time::Instant;

use wgslate_decode::{BeamConfig, Search};
use wgslate_metrics::signature::{self, Resampling};
use wgslate_metrics::{Bleu, BleuOptions, Chrf, ChrfOptions};
use wgslate_model::catalog::{self, language_name};
use wgslate_model::config::Direction;
use wgslate_model::language::{LineCounts, Mismatch};
use wgslate_model::sentences::line_end;
use wgslate_model::translate::{encode_prefix, Notices};
use wgslate_model::Model;

use crate::decode_args;
use crate::input_notes::InputNotes;
use crate::line_writer::{line_chunks, next_goal, LineWriter, Prefixes};
use crate::output::Output;
use crate::stdin_lines::StdinLines;
use crate::sweep;
use crate::translator::{Reranker, Translator};

pub const TRANSLATE_USAGE: &str =
    "usage: wgslate translate --model DIR [--model DIR …] [--backend auto|gpu|cpu] [-i FILE] [-o FILE] [decoding flags]
       wgslate eval --model DIR [--model DIR …] --src FILE --ref FILE [-o FILE] [--backend auto|gpu|cpu] [decoding flags]
       wgslate eval … --sweep KEY=V1,V2,… [--csv]
  -i FILE (translate): the lines to translate (default, or -: standard input; FILE.gz is read compressed)
  --src FILE --ref FILE (eval): the sources and their references, a line each (- for one of them: standard input)
  -o FILE: where the translations go (translate: default standard output; eval: its hypotheses, one per line;
    FILE.gz is written compressed)
  --batch N: sentences translated together (default 32); translate writes the first N, then chunks twice as big
  several --model: an ensemble (the mean of the models' probabilities each step; they must share a tokenizer and a direction)
  --rerank DIR [--rerank-weight W]: reorder the beam's n-best by score + W · log P(source | hypothesis)
    under DIR, a model of the reverse direction (W defaults to 0.5)
  --sweep KEY=V1,V2,… (eval): one evaluation per value of beam, lenpen (α), coverage (β) or end-penalty (γ),
    printed as a table of BLEU, chrF2 and the length ratio (--csv: comma-separated); e.g. --sweep beam=1,2,4,8,16
  --best: beam 4 reranked with the reverse model (--rerank DIR, else the one MODELS/index.json lists
    beside MODELS/<pair>/<arch>), the page's Best quality search
  --prefix TEXT (translate): every line's translation begins with TEXT (its first sentence's, when a
    line has several); --prefixes FILE: line i's begins with FILE's line i (a blank line: no prefix)";

struct Common {
    models: Vec<String>,
    backend: String,
    input: Option<String>,
    /// `-o FILE`: translate's output, eval's hypotheses.
    output: Option<String>,
    src: Option<String>,
    reference: Option<String>,
    batch: usize,
    rerank: Option<String>,
    /// `--rerank-weight`; `RERANK_WEIGHT` when not given.
    rerank_weight: Option<f32>,
    /// `--prefix TEXT`.
    prefix: Option<String>,
    /// `--prefixes FILE`.
    prefixes: Option<String>,
}

fn parse_common(rest: &[String]) -> Result<Common, String> {
    let mut c = Common {
        models: Vec::new(),
        backend: "auto".into(),
        input: None,
        output: None,
        src: None,
        reference: None,
        batch: 32,
        rerank: None,
        rerank_weight: None,
        prefix: None,
        prefixes: None,
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let v = rest.get(i + 1).cloned().ok_or_else(|| format!("{} needs a value\n{TRANSLATE_USAGE}", rest[i]));
        // Only --model may be given again (an ensemble); another repeat would silently drop the first value.
        let flag = match rest[i].as_str() {
            "--input" => "-i",
            "--output" => "-o",
            other => other,
        };
        if flag != "--model" && seen.contains(&flag) {
            return Err(format!("{} is given twice: give it once", rest[i]));
        }
        seen.push(flag);
        match rest[i].as_str() {
            "--model" => c.models.push(v?),
            "--backend" => c.backend = v?,
            "-i" | "--input" => c.input = Some(v?),
            "-o" | "--output" => c.output = Some(v?),
            "--src" => c.src = Some(v?),
            "--ref" => c.reference = Some(v?),
            "--batch" => {
                c.batch = v?
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or("--batch must be a whole number of sentences, 1 or more")?
            }
            "--rerank" => c.rerank = Some(v?),
            "--prefix" => {
                let text = v?;
                if text.trim().is_empty() {
                    return Err("--prefix is empty: give the words the translations begin with".into());
                }
                c.prefix = Some(text);
            }
            "--prefixes" => c.prefixes = Some(v?),
            "--rerank-weight" => {
                let text = v?;
                let weight = text.parse().ok().filter(|w: &f32| w.is_finite() && *w >= 0.0);
                c.rerank_weight = Some(weight.ok_or(format!("--rerank-weight must be a number ≥ 0, not '{text}'"))?);
            }
            other => {
                return Err(format!("unknown argument '{other}'\n{TRANSLATE_USAGE}\n{}", decode_args::DECODE_USAGE))
            }
        }
        i += 2;
    }
    if c.models.is_empty() {
        return Err(format!("--model is required\n{TRANSLATE_USAGE}"));
    }
    if c.prefix.is_some() && c.prefixes.is_some() {
        return Err("--prefix gives every line one prefix and --prefixes each its own: give one of them".into());
    }
    c.models = c.models.iter().map(|m| model_dirs(m)).collect::<Result<Vec<_>, _>>()?.concat();
    if !["cpu", "gpu", "auto"].contains(&c.backend.as_str()) {
        return Err(format!("--backend must be cpu, gpu or auto, not '{}'", c.backend));
    }
    Ok(c)
}

/// The model directories `--model DIR` names: DIR itself, or for an ensemble that the index beside
/// it lists (`MODELS/<pair>/ensemble`, which the page offers but which has no directory) its members.
pub(crate) fn model_dirs(dir: &str) -> Result<Vec<String>, String> {
    let path = std::path::Path::new(dir);
    if path.join("config.json").is_file() {
        return Ok(vec![dir.to_string()]);
    }
    let (arch, pair_dir) = (path.file_name().map(|a| a.to_string_lossy()), path.parent());
    let pair = pair_dir.and_then(|p| p.file_name()).map(|p| p.to_string_lossy());
    let index = pair_dir.and_then(|p| p.parent()).map(|root| root.join("index.json"));
    if let (Some(arch), Some(pair), Some(index)) = (arch, pair, index) {
        if let Some(entries) = std::fs::read_to_string(&index).ok().and_then(|t| catalog::parse(&t).ok()) {
            if let Some(e) = catalog::find(&entries, &format!("{pair}/{arch}")).filter(|e| !e.members.is_empty()) {
                let pair_dir = pair_dir.expect("a pair directory");
                return Ok(e.members.iter().map(|m| pair_dir.join(m).display().to_string()).collect());
            }
        }
    }
    Err(not_a_model_dir(dir))
}

/// Why `dir`, which holds no config.json, is not a model directory.
pub fn not_a_model_dir(dir: &str) -> String {
    let path = std::path::Path::new(dir);
    let holds = "give the directory that holds config.json, model.safetensors and tokenizer.json, such as www/models/en-de/transformer";
    if path.is_dir() {
        format!("{dir} is not a model directory (no config.json): {holds}")
    } else if path.exists() {
        format!("{dir} is a file, not a model directory: {holds}")
    } else {
        format!("cannot read the model directory {dir}: it does not exist")
    }
}

/// Loads every --model; an ensemble's members must share one tokenizer.json.
pub(crate) fn load_models(dirs: &[String]) -> Result<Vec<Model>, String> {
    let tokenizer = |d: &str| {
        std::fs::read(std::path::Path::new(d).join("tokenizer.json"))
            .map_err(|e| format!("cannot read {d}/tokenizer.json: {e}"))
    };
    let first = tokenizer(&dirs[0])?;
    // en-de and de-en share a tokenizer: the directions config.json or the index record must agree.
    let mut known: Vec<(&String, String)> = Vec::new();
    for d in dirs {
        if let Some(direction) = model_direction(d)? {
            known.push((d, direction.pair()));
        }
    }
    if let Some((d, pair)) = known.iter().find(|(_, p)| *p != known[0].1) {
        return Err(format!(
            "{d} translates {pair} but {} translates {}: an ensemble's models must translate the same direction",
            known[0].0, known[0].1
        ));
    }
    for d in &dirs[1..] {
        if tokenizer(d)? != first {
            return Err(format!(
                "{d} has another tokenizer.json than {}: an ensemble's models must share one",
                dirs[0]
            ));
        }
    }
    dirs.iter().map(|d| Model::from_dir(std::path::Path::new(d))).collect()
}

/// The engines for `c`'s models and `search`; with a reverse model (`--rerank`: its directory and
/// model), the beam's whole n-best is kept for it to reorder (`parse_args` made sure it is a beam).
fn translator<'a>(
    c: &'a Common,
    models: &'a [Model],
    reverse: Option<(&'a str, &'a Model)>,
    search: &Search,
) -> Result<Translator<'a>, String> {
    let Some((dir, model)) = reverse else {
        return Translator::new(&c.backend, &c.models, models, search, c.batch, None);
    };
    let search = match search {
        Search::Beam(b) => Search::Beam(BeamConfig { nbest: b.beam, ..b.clone() }),
        other => other.clone(),
    };
    let weight = c.rerank_weight.unwrap_or(wgslate_decode::settings::RERANK_WEIGHT);
    Translator::new(&c.backend, &c.models, models, &search, c.batch, Some(Reranker { dir, model, weight }))
}

/// `--rerank DIR` and its model, loaded before the translation so that a bad DIR is reported first.
fn load_reranker(c: &Common) -> Result<Option<(&str, Model)>, String> {
    c.rerank.as_deref().map(|dir| Ok((dir, Model::from_dir(std::path::Path::new(dir))?))).transpose()
}

/// Why `name` (a file, standard input) is not read as text to translate: UTF-16 without a byte
/// order mark, and the `iconv` that converts it.
pub fn utf16_refusal(name: &str) -> String {
    let message = wgslate_metrics::utf16_without_bom_message(name);
    format!("{message} (iconv -f UTF-16LE -t UTF-8 converts it; UTF-16BE where the zeros come first)")
}

/// A file's UTF-8 text (a `.gz` name is gunzipped, as `wgslate bleu` reads one). UTF-16 without a
/// byte order mark is refused too (`wgslate bleu` reads it as sacreBLEU does): translated, its
/// NULs came back as garbage and an extra line.
fn read_utf8(path: &str) -> Result<String, String> {
    if path.is_empty() {
        return Err("'' names no file (-i, --src and --ref take a file name)".into());
    }
    // `-`, as for -i: standard input (eval's --src or --ref).
    let bytes = match path {
        "-" => crate::bleu_cmd::read_standard_input()?,
        _ => crate::bleu_cmd::read_bytes(path)?,
    };
    if wgslate_metrics::utf16_without_bom(&bytes) {
        return Err(utf16_refusal(input_name(path)));
    }
    wgslate_metrics::utf8_text(input_name(path), bytes)
}

/// What the messages call an input: its file name, or "standard input" for `-`.
fn input_name(path: &str) -> &str {
    if path == "-" {
        "standard input"
    } else {
        path
    }
}

pub(crate) fn read_lines(path: &str) -> Result<Vec<String>, String> {
    Ok(wgslate_metrics::pystr::lines(&read_utf8(path)?))
}

/// Sentences to translate: a byte order mark is not part of the first one (references keep it,
/// as sacreBLEU does).
pub(crate) fn without_bom(mut lines: Vec<String>) -> Vec<String> {
    if let Some(first) = lines.first_mut() {
        if let Some(rest) = first.strip_prefix('\u{feff}') {
            *first = rest.to_string();
        }
    }
    lines
}

/// The decoding flags and the others; `--best` without `--rerank DIR` reranks with the reverse
/// direction's model from the index beside the (first) model.
fn parse_args(args: &[String]) -> Result<(Search, Common), String> {
    // `--beam=4` as `--beam 4`, `-i=FILE` as `-i FILE` (the flags that take no value keep their "=" and
    // are refused).
    let args: Vec<String> = args
        .iter()
        .flat_map(|a| match a.split_once('=') {
            Some((flag, value))
                if (flag.starts_with("--") || flag == "-i") && !["--sample", "--best"].contains(&flag) =>
            {
                vec![flag.to_string(), value.to_string()]
            }
            _ => vec![a.clone()],
        })
        .collect();
    let (decoding, rest) = decode_args::parse(&args)?;
    let mut c = parse_common(&rest)?;
    let beam = matches!(&decoding.search, Search::Beam(b) if b.beam >= 2);
    if decoding.best_reranks && beam && c.rerank.is_none() {
        c.rerank = Some(reverse_model_dir(&c.models[0])?);
    }
    if c.rerank.is_none() && c.rerank_weight.is_some() {
        return Err("--rerank-weight weighs --rerank DIR's score: add --rerank (or --best)".into());
    }
    // Before any input is read: a wrong DIR, or a search without an n-best to reorder, is refused at once.
    if let Some(dir) = &c.rerank {
        if !beam {
            return Err("--rerank reorders a beam's n-best: add --beam K with K ≥ 2, or --best".into());
        }
        check_reranker(&c.models[0], dir)?;
    }
    Ok((decoding.search, c))
}

/// The reverse direction's model for the model in `dir` (`MODELS/<pair>/<arch>`), as the page
/// picks it (`catalog::reranker`): `MODELS/index.json`'s model of the opposite direction.
fn reverse_model_dir(dir: &str) -> Result<String, String> {
    let missing = |why: String| {
        format!("--best reranks with the reverse direction's model, but {why}: add --rerank DIR, or use --beam 4 to search without it")
    };
    let listed = Listed::find(dir).map_err(missing)?;
    let name = listed.entry.name();
    let reverse = catalog::reranker(&listed.entries, &name).ok_or_else(|| {
        missing(format!("{} lists no model of the opposite direction to {name}", listed.index_path.display()))
    })?;
    Ok(listed.root.join(reverse).to_string_lossy().into_owned())
}

/// A model directory `MODELS/<pair>/<arch>` that `MODELS/index.json` lists: where the CLI learns a
/// shipped model's direction, as the page does.
struct Listed {
    root: std::path::PathBuf,
    index_path: std::path::PathBuf,
    entries: Vec<catalog::CatalogEntry>,
    /// The model's own entry.
    entry: catalog::CatalogEntry,
}

impl Listed {
    /// The index entry of `dir`, or why there is none. Best effort: the canonical path decides, so
    /// a model linked into a tree from outside it counts as outside.
    fn find(dir: &str) -> Result<Listed, String> {
        // Absolute, so that `transformer` or `../transformer` inside the tree has a pair and a root.
        let path = std::fs::canonicalize(dir).map_err(|e| format!("cannot read the model directory {dir}: {e}"))?;
        let outside = || format!("{dir} is not in a models/<pair>/<arch> tree");
        let arch = path.file_name().ok_or_else(outside)?.to_string_lossy();
        let pair_dir = path.parent().ok_or_else(outside)?;
        let pair = pair_dir.file_name().ok_or_else(outside)?.to_string_lossy();
        let root = pair_dir.parent().ok_or_else(outside)?.to_path_buf();
        let index_path = root.join("index.json");
        let index = std::fs::read_to_string(&index_path)
            .map_err(|e| format!("{} cannot be read ({e})", index_path.display()))?;
        let entries = catalog::parse(&index)?;
        let name = format!("{pair}/{arch}");
        let entry = catalog::find(&entries, &name).cloned();
        let entry = entry.ok_or_else(|| format!("{} does not list {name}", index_path.display()))?;
        Ok(Listed { root, index_path, entries, entry })
    }
}

/// The languages a model translates: its config.json's `source` and `target`, else the pair its
/// tree's index lists it under; None when neither records them. A config.json and an index that
/// disagree are refused.
fn model_direction(dir: &str) -> Result<Option<Direction>, String> {
    let path = std::path::Path::new(dir).join("config.json");
    let config = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let recorded = Direction::of_config(&config).map_err(|e| format!("{dir}/{e}"))?;
    let listed = Listed::find(dir).ok().map(|l| (Direction::new(l.entry.source(), l.entry.target()), l));
    match (recorded, listed) {
        (Some(r), Some((Ok(d), l))) if r != d => Err(format!(
            "{} says {dir} translates {}, but {} lists it under {}",
            path.display(),
            r.pair(),
            l.index_path.display(),
            l.entry.pair
        )),
        (Some(r), _) => Ok(Some(r)),
        (None, listed) => Ok(listed.and_then(|(d, _)| d.ok())),
    }
}

/// Where translations go: `-o FILE`, else standard output.
fn output_to(c: &Common, inputs: &[&Option<String>]) -> Result<Output, String> {
    match c.output.as_deref().filter(|p| *p != "-") {
        None => Ok(Output::stdout()),
        Some(path) => Output::file(path, &inputs.iter().filter_map(|i| i.as_deref()).collect::<Vec<_>>()),
    }
}

/// A note when most lines with text read as another language than the (first) model translates
/// from (config.json's direction, else the index's), naming the index's model for that language:
/// such "translations" are nonsense.
fn language_note(dir: &str, lines: &LineCounts) -> Option<String> {
    let direction = model_direction(dir).ok()??;
    let (read_as, n, with_text) = lines.most()?;
    let listed = Listed::find(dir).ok();
    let (entries, name, arch) = match &listed {
        Some(l) => (&l.entries[..], l.entry.name(), l.entry.arch.as_str()),
        None => (&[][..], dir.to_string(), ""),
    };
    let m = Mismatch::of(entries, &name, (&direction.source, &direction.target), arch, Some(read_as))?;
    let advice = match (&listed, &m.instead, m.instead_label()) {
        (Some(l), Some(model), Some(label)) => {
            // MODELS as the user wrote it (`www/models/en-de/transformer` → `www/models`) when that is
            // the tree's root, else the root's full path.
            let written = std::path::Path::new(dir.trim_end_matches('/')).parent().and_then(std::path::Path::parent);
            let same = |p: &&std::path::Path| std::fs::canonicalize(p).is_ok_and(|p| p == l.root);
            let root = written.filter(|p| !p.as_os_str().is_empty()).filter(same).unwrap_or(&l.root);
            format!(": --model {} translates {label}", root.join(model).display())
        }
        (Some(l), ..) => {
            format!(": {} lists no model that translates {}", l.index_path.display(), language_name(read_as))
        }
        (None, ..) => String::new(),
    };
    let subject = match with_text {
        1 => "the line reads".to_string(),
        _ => format!("{n} of {with_text} lines read"),
    };
    Some(format!("{}{advice}", m.message(&subject)))
}

/// When `--ref` cannot be the references (the same file as `--src`, or text in another language
/// than the model's target), which scores near 0 without a word.
fn reference_note(dir: &str, src: &str, reference: &str, refs: &[String]) -> Option<String> {
    let canonical = |p: &str| std::fs::canonicalize(p).ok();
    if canonical(src).is_some() && canonical(src) == canonical(reference) {
        return Some(format!(
            "--src and --ref are the same file ({reference}): the translations are scored against their own sources"
        ));
    }
    // A target the language guess cannot name (a user's `ro` model) would read as its neighbour.
    let target = model_direction(dir).ok()??.target;
    if !wgslate_model::language::knows(&target) {
        return None;
    }
    let mut lines = LineCounts::default();
    refs.iter().for_each(|l| lines.add(l));
    let (read_as, n, with_text) = lines.most()?;
    let subject = match with_text {
        1 => format!("the line of --ref {reference} reads"),
        _ => format!("{n} of {with_text} lines of --ref {reference} read"),
    };
    (read_as != target).then(|| {
        format!(
            "{subject} as {}, but the model translates into {}: are they the references?",
            language_name(read_as),
            language_name(&target)
        )
    })
}

/// Refuses a reranker that translates another direction than the reverse of the model's.
fn check_reranker(model: &str, reranker: &str) -> Result<(), String> {
    if !std::path::Path::new(reranker).join("config.json").is_file() {
        return Err(format!("--rerank: {}", not_a_model_dir(reranker)));
    }
    if let (Some(forward), Some(backward)) = (model_direction(model)?, model_direction(reranker)?) {
        if (&backward.source, &backward.target) != (&forward.target, &forward.source) {
            return Err(format!(
                "--rerank {reranker} translates {}, but reranking {model} ({}) needs a model of the reverse direction, {}-{}",
                backward.pair(),
                forward.pair(),
                forward.target,
                forward.source
            ));
        }
    }
    Ok(())
}

pub fn run_translate(args: &[String]) -> Result<(), String> {
    let (search, c) = parse_args(args)?;
    if c.src.is_some() || c.reference.is_some() {
        return Err("--src and --ref are eval's: translate reads -i FILE, or standard input".into());
    }
    let models = load_models(&c.models)?;
    let from_stdin = c.input.as_deref().is_none_or(|p| p == "-");
    let text = match &c.input {
        Some(p) if !from_stdin => read_utf8(p)?,
        _ => String::new(),
    };
    let output = output_to(&c, &[&c.input, &c.prefixes])?;
    if c.prefixes.is_some() && from_stdin {
        return Err(
            "--prefixes pairs its lines with the input's, counted before translating: give the input as -i FILE".into(),
        );
    }
    let prefixes = prefixes_of(&c, &models[0])?;
    let reverse = load_reranker(&c)?;
    let mut writer = LineWriter {
        translator: translator(&c, &models, reverse.as_ref().map(|(d, m)| (*d, m)), &search)?,
        output,
        model: &models[0],
        // Asked for before a rerank widens the n-best to the whole beam.
        shown: decode_args::outputs_asked(&search),
        // Windows line ends in, Windows line ends out, as the page's file translation does (standard
        // input's is known with its first line).
        line_end: line_end(&text),
        notices: Default::default(),
        prefixes,
    };
    let (first, most) = (c.batch, c.batch.saturating_mul(32));
    let mut notes = InputNotes::new(writer.shown > 1);
    match from_stdin {
        // As they come: a line typed or written by a slow program is answered at once.
        true => {
            let typed = std::io::stdin().is_terminal();
            if typed {
                eprintln!("wgslate: type a line and press Enter to translate it; Ctrl-D ends");
            }
            let (mut input, mut read_so_far, mut goal) = (StdinLines::start(typed), 0, first.max(1));
            while let Some((group, read)) = input.next_group(goal, |line| writer.weight(line)) {
                writer.line_end = input.line_end;
                writer.write(&group, read_so_far)?;
                read_so_far += group.len();
                group.iter().for_each(|l| notes.add(l));
                read?;
                goal = next_goal(goal, most);
            }
        }
        false => {
            let lines = without_bom(wgslate_metrics::pystr::lines(&text));
            if let Prefixes::PerLine(p) = &writer.prefixes {
                if p.len() != lines.len() {
                    return Err(format!(
                        "--prefixes {} has {} but the input has {}: one prefix per line (blank: none)",
                        c.prefixes.as_deref().unwrap_or_default(),
                        wgslate_metrics::plural(p.len(), "line"),
                        wgslate_metrics::plural(lines.len(), "line")
                    ));
                }
            }
            let weights: Vec<usize> = lines.iter().map(|l| writer.weight(l)).collect();
            for chunk in line_chunks(&weights, first, most) {
                writer.write(&lines[chunk.clone()], chunk.start)?;
            }
            lines.iter().for_each(|l| notes.add(l));
        }
    };
    let notices = writer.finish();
    let language = language_note(&c.models[0], &notes.language);
    let whole_lines = notes.several_sentences();
    let all = language.into_iter().chain(notices.messages_at("line")).chain(whole_lines);
    for note in all.chain(notes.lone_carriage_returns()) {
        eprintln!("wgslate: {note}");
    }
    Ok(())
}

/// `--prefix` or `--prefixes` as subwords, each checked (a line's problem names the line).
fn prefixes_of(c: &Common, model: &Model) -> Result<Prefixes, String> {
    if let Some(text) = &c.prefix {
        let ids = encode_prefix(model, text).map_err(|e| format!("--prefix: {e}"))?;
        return Ok(Prefixes::All(ids));
    }
    let Some(path) = &c.prefixes else { return Ok(Prefixes::None) };
    let lines = without_bom(read_lines(path)?);
    let ids = lines
        .iter()
        .enumerate()
        .map(|(i, l)| encode_prefix(model, l).map_err(|e| format!("--prefixes {path}, line {}: {e}", i + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Prefixes::PerLine(ids))
}

pub fn run_eval(args: &[String]) -> Result<(), String> {
    let (sweep, args) = sweep::take(args)?;
    let args = &args[..];
    // Each value's search: the flags given, with the swept setting's flag last.
    let searches: Vec<(String, Search)> = match &sweep {
        None => vec![(String::new(), parse_args(args)?.0)],
        Some(s) => s
            .values
            .iter()
            .map(|v| {
                let with_value = [args, &[s.key.flag.to_string(), v.clone()]].concat();
                parse_args(&with_value)
                    .map(|(search, _)| (v.clone(), search))
                    .map_err(|e| format!("--sweep {}={v}: {e}", s.name))
            })
            .collect::<Result<_, _>>()?,
    };
    let (search, c) = parse_args(args)?;
    if c.prefix.is_some() || c.prefixes.is_some() {
        return Err("--prefix and --prefixes are translate's: eval scores the search's own translations".into());
    }
    if sweep.is_some() && c.output.is_some() {
        return Err("-o writes one set of hypotheses, and a sweep makes one per value: drop -o".into());
    }
    if c.input.is_some() {
        return Err(
            "-i is translate's: eval reads --src FILE and scores against --ref FILE (several references: wgslate bleu)"
                .into(),
        );
    }
    // eval scores one translation per sentence; a list of several would be scored by its first silently.
    if decode_args::outputs_asked(&search) > 1 {
        let flag = if matches!(search, Search::Sample(_)) { "--samples" } else { "--nbest" };
        return Err(format!(
            "{flag} lists several translations of each sentence, which is translate's; eval scores one per sentence \
             (the first of the list): drop {flag}"
        ));
    }
    let (src, reference) = (c.src.clone().ok_or("--src is required")?, c.reference.clone().ok_or("--ref is required")?);
    if src == "-" && reference == "-" {
        return Err("--src - and --ref - both name standard input: give one of them as a file".into());
    }
    let models = load_models(&c.models)?;
    if [&src, &reference].iter().any(|p| *p == "-") && std::io::stdin().is_terminal() {
        eprintln!("wgslate: type the lines and end with Ctrl-D (they are scored once all are in)");
    }
    let sources = without_bom(read_lines(&src)?);
    let mut notes = InputNotes::new(false);
    sources.iter().for_each(|l| notes.add(l));
    for note in language_note(&c.models[0], &notes.language).into_iter().chain(notes.lone_carriage_returns()) {
        eprintln!("wgslate: {note}");
    }
    let refs = read_lines(&reference)?;
    let (src, reference) = (input_name(&src).to_string(), input_name(&reference).to_string());
    if let Some(note) = reference_note(&c.models[0], &src, &reference, &refs) {
        eprintln!("wgslate: {note}");
    }
    if sources.len() != refs.len() {
        return Err(format!(
            "{src} has {} but {reference} has {}",
            wgslate_metrics::plural(sources.len(), "line"),
            refs.len()
        ));
    }
    if sources.is_empty() {
        return Err(format!("{src} contains no sentence: nothing to translate and score"));
    }
    let hypotheses = match c.output {
        Some(_) => Some(output_to(&c, &[&c.src, &c.reference])?),
        None => None,
    };
    let reverse = load_reranker(&c)?;
    if let Some(sweep) = sweep {
        let refs_view: Vec<&str> = refs.iter().map(String::as_str).collect();
        let mut rows = Vec::new();
        for (value, search) in &searches {
            let t0 = Instant::now();
            let mut translator = translator(&c, &models, reverse.as_ref().map(|(d, m)| (*d, m)), search)?;
            let out = translator.translate(&sources)?;
            let seconds = t0.elapsed().as_secs_f64();
            let hyps: Vec<&str> = out.iter().map(|t| t.outputs.first().map(|o| o.0.as_str()).unwrap_or("")).collect();
            let (bleu, chrf) = wgslate_metrics::eval_scores(&hyps, &refs_view);
            let row = wgslate_decode::sweep::Row {
                value: value.clone(),
                bleu: bleu.score,
                chrf,
                hyp_len: bleu.sys_len as usize,
                ref_len: bleu.ref_len as usize,
                seconds,
            };
            eprintln!(
                "wgslate: {} {value}: BLEU {:.2} ({}, {:.1} s)",
                sweep.name,
                row.bleu,
                search_details(search, c.rerank.is_some()),
                seconds
            );
            rows.push(row);
        }
        println!("{}", wgslate_decode::sweep::format_table(&sweep.name, &rows, sweep.csv));
        return Ok(());
    }
    let t0 = Instant::now();
    let mut translator = translator(&c, &models, reverse.as_ref().map(|(d, m)| (*d, m)), &search)?;
    let out = translator.translate(&sources)?;
    let backend = translator.backend.clone();
    let model = &models[0];
    let seconds = t0.elapsed().as_secs_f64();
    // As translate says them: a score of cut sentences, or of characters the model never saw, is
    // not the model's on the whole text.
    for note in Notices::of(model, &sources, &out).messages_at("line") {
        eprintln!("wgslate: {note}");
    }
    let hyps: Vec<&str> = out.iter().map(|t| t.outputs.first().map(|o| o.0.as_str()).unwrap_or("")).collect();
    if let Some(mut file) = hypotheses {
        hyps.iter()
            .try_for_each(|h| writeln!(file, "{h}"))
            .and_then(|_| file.finish())
            .unwrap_or_else(|e| crate::output_failed(e));
    }
    let refs_view = vec![refs.iter().map(String::as_str).collect::<Vec<_>>()];
    let opts = BleuOptions::default();
    let bleu = Bleu::new(opts.clone()).corpus_score(&hyps, &refs_view);
    let chrf = Chrf::new(ChrfOptions::default());
    // sacreBLEU's text lines with two decimals: `wgslate bleu REF -i HYP -m bleu chrf -f text -w 2`.
    let bleu_line = format!(
        "BLEU|{} = {} {}",
        signature::bleu(&opts, Some(1), &Resampling::default()),
        wgslate_metrics::pystr::fixed(bleu.score, 2),
        crate::bleu_cmd::bleu_verbose(&bleu)
    );
    let chrf_line = format!(
        "chrF2|{} = {}",
        signature::chrf(&chrf.options, Some(1), &Resampling::default()),
        wgslate_metrics::pystr::fixed(chrf.corpus_score(&hyps, &refs_view), 2)
    );
    crate::bleu_cmd::print_single(vec![bleu_line, chrf_line], "text");
    let (n, format) = (sources.len(), model.weight_format);
    println!(
        "{} in {seconds:.1} s: {:.2} sentences/s (backend {backend}, {:?}, weights {format})",
        wgslate_metrics::plural(n, "sentence"),
        n as f64 / seconds,
        search_details(&search, c.rerank.is_some())
    );
    Ok(())
}

/// The search as the page names it, with the settings that change its output when not the defaults.
fn search_details(search: &Search, reranked: bool) -> String {
    let label = search.label(reranked);
    let extra = match search {
        Search::Beam(b) => {
            let s = &b.scoring;
            let mut parts = Vec::new();
            if s.length_penalty != wgslate_decode::LengthPenalty::None {
                parts.push(format!("{:?}", s.length_penalty).to_lowercase());
            }
            if s.coverage != 0.0 {
                parts.push(format!("coverage {}", s.coverage));
            }
            if s.end_penalty != 0.0 {
                parts.push(format!("end penalty {}", s.end_penalty));
            }
            parts
        }
        Search::Sample(c) => vec![format!("T {} top-k {} top-p {} seed {}", c.temperature, c.top_k, c.top_p, c.seed)],
        Search::Greedy(_) => vec![],
    };
    [vec![label], extra].concat().join(", ")
}

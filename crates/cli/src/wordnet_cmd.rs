//! `wgslate wordnet`: WordNet 3.0's synonym table, compact, for METEOR in the page (which downloads
//! it only when METEOR is asked for) and for `WGSLATE_WORDNET`.

use wgslate_metrics::WordNet;

pub const USAGE: &str = "usage: wgslate wordnet --out FILE [--from DIR]

Writes the synonym table METEOR uses (WordNet 3.0, from Debian's wordnet-base: --from defaults to
/usr/share/wordnet) as one compact file.";

pub fn run(args: &[String]) -> Result<(), String> {
    let (mut out, mut from) = (None, "/usr/share/wordnet".to_string());
    for pair in args.chunks(2) {
        let value = pair.get(1).cloned().ok_or_else(|| format!("{} needs a value\n{USAGE}", pair[0]));
        match pair[0].as_str() {
            "--out" => out = Some(value?),
            "--from" => from = value?,
            other => return Err(format!("unknown argument '{other}'\n{USAGE}")),
        }
    }
    let out = out.ok_or_else(|| format!("--out is required\n{USAGE}"))?;
    let wordnet = WordNet::from_dir(std::path::Path::new(&from))
        .map_err(|e| format!("{e} (Debian's wordnet-base installs WordNet 3.0 in /usr/share/wordnet)"))?;
    let bytes = wordnet.to_bytes();
    std::fs::write(&out, &bytes).map_err(|e| format!("cannot write {out}: {e}"))?;
    eprintln!("wgslate wordnet: {out}: {:.2} MB", bytes.len() as f64 / 1e6);
    Ok(())
}

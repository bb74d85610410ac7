//! `.br` and `.gz` copies of the served files, written once at start beside each file and rewritten
//! when the file is newer than its copy.

use std::io::Write;
use std::path::{Path, PathBuf};

const COMPRESSIBLE: [&str; 12] =
    ["html", "js", "css", "json", "wasm", "safetensors", "svg", "txt", "en", "de", "fr", "cs"];
type Compressor = fn(&[u8]) -> std::io::Result<Vec<u8>>;

/// Below this a compressed copy saves less than a packet.
const MIN_SIZE: u64 = 1024;

fn copy_path(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".{suffix}"));
    PathBuf::from(name)
}

fn modified(path: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The `.br` / `.gz` copy of `path` if it is at least as new as the file and smaller than `size`.
pub fn fresh_copy(path: &Path, suffix: &str, size: usize) -> Option<Vec<u8>> {
    let copy = copy_path(path, suffix);
    if modified(&copy)? < modified(path)? {
        return None;
    }
    std::fs::read(copy).ok().filter(|c| c.len() < size)
}

pub fn gzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(bytes)?;
    e.finish()
}

pub fn brotli(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams { quality: 11, lgwin: 24, ..Default::default() };
    brotli::BrotliCompress(&mut &bytes[..], &mut out, &params)?;
    Ok(out)
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            files(&path, out)?;
        } else if path.extension().and_then(|e| e.to_str()).is_some_and(|e| COMPRESSIBLE.contains(&e)) {
            out.push(path);
        }
    }
    Ok(())
}

/// Writes the missing or stale copies under `root`; returns how many it wrote.
pub fn run(root: &Path) -> std::io::Result<usize> {
    let mut paths = Vec::new();
    files(root, &mut paths)?;
    let mut written = 0;
    for path in paths {
        if std::fs::metadata(&path)?.len() < MIN_SIZE {
            continue;
        }
        let compressors: [(&str, Compressor); 2] = [("br", brotli), ("gz", gzip)];
        // Weights barely compress (brotli at its best saves 1.5 % more than gzip on an int8 model,
        // in 30 s): gzip only.
        let weights = path.extension().is_some_and(|e| e == "safetensors");
        let mut bytes = None;
        for (suffix, compress) in compressors.into_iter().skip(usize::from(weights)) {
            let copy = copy_path(&path, suffix);
            if modified(&copy).is_some_and(|c| modified(&path).is_some_and(|f| c >= f)) {
                continue;
            }
            let bytes = match &bytes {
                Some(b) => b,
                None => bytes.insert(std::fs::read(&path)?),
            };
            std::fs::write(&copy, compress(bytes)?)?;
            written += 1;
        }
    }
    Ok(written)
}

//! `.br` and `.gz` copies of the served files, written once at start beside each file and rewritten
//! when the file is newer than its copy.

use std::io::Write;
use std::path::{Path, PathBuf};

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

/// What `run` found and wrote.
#[derive(Default)]
pub struct Copies {
    pub written: usize,
    /// The copies that hold their file (written now, or checked): the only ones ever sent.
    pub usable: std::collections::HashSet<PathBuf>,
    /// Newer files named like a copy that do not hold their file: neither sent nor replaced.
    pub foreign: Vec<PathBuf>,
    /// Files and folders that could not be read, or whose copy could not be written, and why: their
    /// files are sent as they are (a folder or file the server cannot write must not stop it).
    pub failed: Vec<(PathBuf, std::io::Error)>,
}

/// The `.br` / `.gz` copy of `path` if `run` found it usable, it is at least as new as the file (the
/// file may change while the server runs) and it is smaller than `size`.
pub fn fresh_copy(
    path: &Path,
    suffix: &str,
    size: usize,
    usable: &std::collections::HashSet<PathBuf>,
) -> Option<Vec<u8>> {
    let copy = copy_path(path, suffix);
    if !usable.contains(&copy) || modified(&copy)? < modified(path)? {
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

/// The compressible files under `dir`; the folders that could not be listed go to `failed`. Symbolic
/// links are not followed: their targets may lie outside the served directory, where no copy may be
/// written (and a link to a parent would loop).
fn files(dir: &Path, out: &mut Vec<PathBuf>, failed: &mut Vec<(PathBuf, std::io::Error)>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => return failed.push((dir.to_path_buf(), e)),
    };
    for entry in entries {
        let found = entry.and_then(|entry| Ok((entry.file_type()?, entry.path())));
        match found {
            Ok((_, path)) if path.file_name().is_some_and(crate::serve::hidden) => {}
            Ok((kind, path)) if kind.is_dir() => files(&path, out, failed),
            Ok((kind, path)) if kind.is_file() && crate::serve::compressible(&path) => out.push(path),
            Ok(_) => {}
            Err(e) => failed.push((dir.to_path_buf(), e)),
        }
    }
}

/// Whether `copy` decompresses to `original`: a newer `X.gz` that the user put there for another
/// purpose must not be sent as the gzip encoding of `X`.
fn holds(copy: &[u8], suffix: &str, original: &[u8]) -> bool {
    use std::io::Read;
    let mut out = Vec::with_capacity(original.len());
    let ok = match suffix {
        "gz" => flate2::read::GzDecoder::new(copy).take(original.len() as u64 + 1).read_to_end(&mut out).is_ok(),
        _ => brotli::Decompressor::new(copy, 4096).take(original.len() as u64 + 1).read_to_end(&mut out).is_ok(),
    };
    ok && out == original
}

/// Writes the missing or stale copies under `root`; what it could not read or write is in `failed`.
pub fn run(root: &Path) -> Copies {
    let mut paths = Vec::new();
    let mut copies = Copies::default();
    files(root, &mut paths, &mut copies.failed);
    // In name order (and what failed too), so that what it says comes in the same order each time.
    paths.sort();
    for path in paths {
        if let Err(e) = copy_file(&path, &mut copies) {
            copies.failed.push((path, e));
        }
    }
    copies.failed.sort_by(|a, b| a.0.cmp(&b.0));
    copies
}

/// Writes `path`'s missing or stale copies.
fn copy_file(path: &Path, copies: &mut Copies) -> std::io::Result<()> {
    if std::fs::metadata(path)?.len() < MIN_SIZE {
        return Ok(());
    }
    let compressors: [(&str, Compressor); 2] = [("br", brotli), ("gz", gzip)];
    // Weights barely compress (brotli at its best saves 1.5 % more than gzip on an int8 model,
    // in 30 s): gzip only.
    let weights = path.extension().is_some_and(|e| e == "safetensors");
    let bytes = std::fs::read(path)?;
    for (suffix, compress) in compressors.into_iter().skip(usize::from(weights)) {
        let copy = copy_path(path, suffix);
        // A link at the copy's name is not ours to write through (nor to send).
        if std::fs::symlink_metadata(&copy).is_ok_and(|m| m.file_type().is_symlink()) {
            copies.foreign.push(copy);
            continue;
        }
        let fresh = modified(&copy).is_some_and(|c| modified(path).is_some_and(|f| c >= f));
        if fresh {
            if std::fs::read(&copy).is_ok_and(|c| holds(&c, suffix, &bytes)) {
                copies.usable.insert(copy);
            } else {
                copies.foreign.push(copy);
            }
            continue;
        }
        // Written beside it, then renamed: a start stopped half-way leaves no truncated copy that
        // would look newer than its file (and foreign) from then on.
        let partial = copy_path(path, &format!("{suffix}.partial"));
        match compress(&bytes).and_then(|c| std::fs::write(&partial, c)).and_then(|_| std::fs::rename(&partial, &copy))
        {
            Ok(()) => {
                copies.written += 1;
                copies.usable.insert(copy);
            }
            // The other copy may still be written; a half-written one goes.
            Err(e) => {
                let _ = std::fs::remove_file(&partial);
                copies.failed.push((partial, e));
            }
        }
    }
    Ok(())
}

//! Where `translate` and `eval` write: standard output, or `-o FILE`, written under a temporary name
//! beside FILE and renamed over it once complete, so that a run that fails leaves FILE as it was
//! (and a hard link to an input is replaced, not written through).

use std::fs::File;
use std::io::{BufWriter, StdoutLock, Write};
use std::path::{Path, PathBuf};

pub enum Output {
    Stdout(BufWriter<StdoutLock<'static>>),
    File { file: Option<BufWriter<File>>, temporary: PathBuf, path: PathBuf },
}

impl Output {
    pub fn stdout() -> Output {
        Output::Stdout(BufWriter::new(std::io::stdout().lock()))
    }

    /// `-o path`: refused when it names one of `inputs` (its translation would replace it) or a
    /// folder; the temporary file is created now, so that a folder that cannot be written fails
    /// before the translation, not after it.
    pub fn file(path: &str, inputs: &[&str]) -> Result<Output, String> {
        let same = |other: &str| match (std::fs::canonicalize(path), std::fs::canonicalize(other)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if let Some(input) = inputs.iter().find(|i| same(i)) {
            return Err(format!("-o {path} is the input {input}: writing it would destroy it; give another file"));
        }
        let dest = Path::new(path);
        if dest.is_dir() {
            return Err(format!("-o {path} is a folder: give a file name"));
        }
        let name = dest.file_name().ok_or_else(|| format!("-o {path} names no file"))?;
        let temporary = dest.with_file_name(format!(".{}.{}.part", name.to_string_lossy(), std::process::id()));
        let file = File::create(&temporary).map_err(|e| format!("cannot write {path}: {e}"))?;
        Ok(Output::File { file: Some(BufWriter::new(file)), temporary, path: dest.to_path_buf() })
    }

    /// Flushes standard output, or puts the finished file in place.
    pub fn finish(mut self) -> std::io::Result<()> {
        match &mut self {
            Output::Stdout(out) => out.flush(),
            Output::File { file, temporary, path } => {
                file.take().expect("finished once").into_inner().map_err(|e| e.into_error())?.sync_all()?;
                std::fs::rename(&*temporary, &*path)
            }
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Output::Stdout(out) => out.write(buf),
            Output::File { file, .. } => file.as_mut().expect("not finished").write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Output::Stdout(out) => out.flush(),
            Output::File { file, .. } => file.as_mut().expect("not finished").flush(),
        }
    }
}

impl Drop for Output {
    /// A run that stopped before `finish` leaves no temporary file behind.
    fn drop(&mut self) {
        if let Output::File { file: Some(_), temporary, .. } = self {
            let _ = std::fs::remove_file(temporary);
        }
    }
}

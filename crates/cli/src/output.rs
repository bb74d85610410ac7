//! Where `translate` and `eval` write: standard output, or `-o FILE`, written under a temporary name
//! beside FILE and renamed over it once complete, so that a run that fails (or is stopped with
//! Ctrl-C) leaves FILE as it was (and a hard link to an input is replaced, not written through).
//! A symbolic link is followed (its target gets the translation, the link stays), a FIFO or device
//! (`/dev/stdout`) is written straight through, and a replaced file keeps its permissions.

use std::fs::File;
use std::io::{BufWriter, StdoutLock, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub enum Output {
    Stdout(BufWriter<StdoutLock<'static>>),
    /// A FIFO, a terminal or another device: it cannot be replaced, only written to.
    Device(BufWriter<File>),
    File {
        file: Option<BufWriter<File>>,
        temporary: PathBuf,
        path: PathBuf,
    },
}

/// The temporary file being written, for the Ctrl-C handler to remove.
static TEMPORARY: Mutex<Option<PathBuf>> = Mutex::new(None);

/// On Ctrl-C (or SIGTERM) the temporary file goes too: no `.FILE.PID.part` is left behind.
fn remove_temporary_on_interrupt() {
    let _ = ctrlc::set_handler(|| {
        if let Some(path) = TEMPORARY.lock().ok().and_then(|mut t| t.take()) {
            let _ = std::fs::remove_file(path);
        }
        std::process::exit(130);
    });
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
        let given = Path::new(path);
        if given.is_dir() {
            return Err(format!("-o {path} is a folder: give a file name"));
        }
        // Through symbolic links: the file they name is the one written.
        let dest = std::fs::canonicalize(given).unwrap_or_else(|_| given.to_path_buf());
        let existing = std::fs::metadata(&dest).ok();
        if existing.as_ref().is_some_and(|m| !m.is_file()) {
            let device = std::fs::OpenOptions::new().write(true).open(&dest);
            return Ok(Output::Device(BufWriter::new(device.map_err(|e| format!("cannot write {path}: {e}"))?)));
        }
        let name = dest.file_name().ok_or_else(|| format!("-o {path} names no file"))?;
        let temporary = dest.with_file_name(format!(".{}.{}.part", name.to_string_lossy(), std::process::id()));
        let file = File::create(&temporary).map_err(|e| format!("cannot write {path}: {e}"))?;
        if let Some(m) = existing {
            // A private file stays private.
            let _ = std::fs::set_permissions(&temporary, m.permissions());
        }
        *TEMPORARY.lock().unwrap_or_else(|e| e.into_inner()) = Some(temporary.clone());
        remove_temporary_on_interrupt();
        Ok(Output::File { file: Some(BufWriter::new(file)), temporary, path: dest })
    }

    /// Flushes standard output or the device, or puts the finished file in place.
    pub fn finish(mut self) -> std::io::Result<()> {
        match &mut self {
            Output::Stdout(out) => out.flush(),
            Output::Device(out) => out.flush(),
            Output::File { file, temporary, path } => {
                file.take().expect("finished once").into_inner().map_err(|e| e.into_error())?.sync_all()?;
                std::fs::rename(&*temporary, &*path)?;
                TEMPORARY.lock().unwrap_or_else(|e| e.into_inner()).take();
                Ok(())
            }
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Output::Stdout(out) => out.write(buf),
            Output::Device(out) => out.write(buf),
            Output::File { file, .. } => file.as_mut().expect("not finished").write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Output::Stdout(out) => out.flush(),
            Output::Device(out) => out.flush(),
            Output::File { file, .. } => file.as_mut().expect("not finished").flush(),
        }
    }
}

impl Drop for Output {
    /// A run that stopped before `finish` leaves no temporary file behind.
    fn drop(&mut self) {
        if let Output::File { file: Some(_), temporary, .. } = self {
            let _ = std::fs::remove_file(temporary);
            TEMPORARY.lock().unwrap_or_else(|e| e.into_inner()).take();
        }
    }
}

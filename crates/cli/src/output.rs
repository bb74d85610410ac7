//! Where `translate` and `eval` write: standard output, or `-o FILE`, written under a temporary name
//! beside FILE and renamed over it once complete, so that a run that fails (or is stopped by
//! Ctrl-C, kill or a hangup) leaves FILE as it was (and a hard link to an input is replaced, not written through).
//! A symbolic link is followed (its target gets the translation, the link stays), `/dev/stdout` is
//! standard output, another device or a FIFO is written straight through, and a replaced file keeps
//! its permissions. A FILE named `*.gz` is written gzipped.

use std::fs::File;
use std::io::{BufWriter, StdoutLock, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub enum Output {
    Stdout(BufWriter<StdoutLock<'static>>),
    /// A FIFO, a terminal or another device: it cannot be replaced, only written to.
    Device(BufWriter<File>),
    File {
        file: Option<Sink>,
        temporary: PathBuf,
        path: PathBuf,
    },
}

/// The temporary file's writer: gzip for a FILE named `*.gz` (as `-i` and `bleu` read such a name),
/// compressed as it is written (reopening the file to compress it failed on a read-only FILE's copy).
pub enum Sink {
    Plain(BufWriter<File>),
    Gzip(flate2::write::GzEncoder<BufWriter<File>>),
}

impl Sink {
    fn new(file: File, gzip: bool) -> Sink {
        if gzip {
            Sink::Gzip(flate2::write::GzEncoder::new(BufWriter::new(file), flate2::Compression::default()))
        } else {
            Sink::Plain(BufWriter::new(file))
        }
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Sink::Plain(w) => w,
            Sink::Gzip(w) => w,
        }
    }

    /// The file, with everything written to it (the gzip stream ended).
    fn into_file(self) -> std::io::Result<File> {
        let buffered = match self {
            Sink::Plain(w) => w,
            Sink::Gzip(w) => w.finish()?,
        };
        buffered.into_inner().map_err(|e| e.into_error())
    }
}

/// The temporary file being written, for the Ctrl-C handler and `output_failed` to remove.
static TEMPORARY: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Removes the temporary file, if one is being written (a run that cannot finish).
pub fn remove_temporary() {
    if let Some(path) = TEMPORARY.lock().unwrap_or_else(|e| e.into_inner()).take() {
        let _ = std::fs::remove_file(path);
    }
}

/// On Ctrl-C, `kill` (SIGTERM) or a closed terminal (SIGHUP) the temporary file goes too (no
/// `.FILE.PID.part` is left behind), then the process dies of the signal as it would have, so that
/// a shell loop around it stops as well. A signal this process was started ignoring (`nohup`, a
/// script's `&`) stays ignored.
fn remove_temporary_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let handled: Vec<i32> = [SIGINT, SIGTERM, SIGHUP].into_iter().filter(|&s| !ignored(s)).collect();
    let Ok(mut signals) = signal_hook::iterator::Signals::new(handled) else { return };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            remove_temporary();
            let _ = signal_hook::low_level::emulate_default_handler(signal);
        }
    });
}

/// Whether `signal` is ignored (as `nohup` leaves SIGHUP).
fn ignored(signal: i32) -> bool {
    // SAFETY: a null new action only reads the current one into `current`.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut current) == 0 && current.sa_sigaction == libc::SIG_IGN
    }
}

/// The file `path` names: through symbolic links, also one whose target does not exist yet.
fn resolved(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    match std::fs::read_link(path) {
        Ok(target) => path.parent().unwrap_or(Path::new(".")).join(target),
        Err(_) => path.to_path_buf(),
    }
}

impl Output {
    pub fn stdout() -> Output {
        Output::Stdout(BufWriter::new(std::io::stdout().lock()))
    }

    /// `-o path`: refused when it names one of `inputs` (its translation would replace it) or a
    /// folder; the temporary file is created now, so that a folder that cannot be written fails
    /// before the translation, not after it.
    pub fn file(path: &str, inputs: &[&str]) -> Result<Output, String> {
        // Not through /proc: with standard output redirected to a file, it resolves to that file,
        // which a rename would replace (and `>> log` lose what it held).
        if ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"].contains(&path) {
            return Ok(Output::stdout());
        }
        let given = Path::new(path);
        let regular = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file());
        let same = |other: &str| match (std::fs::canonicalize(path), std::fs::canonicalize(other)) {
            (Ok(a), Ok(b)) => a == b && regular(&a),
            _ => false,
        };
        if let Some(input) = inputs.iter().find(|i| same(i)) {
            return Err(format!("-o {path} is the input {input}: writing it would destroy it; give another file"));
        }
        if given.is_dir() {
            return Err(format!("-o {path} is a folder: give a file name"));
        }
        let dest = resolved(given);
        let existing = std::fs::metadata(&dest).ok();
        if existing.as_ref().is_some_and(|m| !m.is_file()) || path.starts_with("/dev/") {
            let device = std::fs::OpenOptions::new().write(true).open(&dest);
            return Ok(Output::Device(BufWriter::new(device.map_err(|e| format!("cannot write {path}: {e}"))?)));
        }
        let name = dest.file_name().ok_or_else(|| format!("-o {path} names no file"))?;
        // The OS says "No such file or directory" of the temporary file beside it; other causes
        // (a folder not to be read) are left to its message.
        if let Some(folder) = dest.parent().filter(|f| !f.as_os_str().is_empty()) {
            match std::fs::metadata(folder) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(format!("cannot write {path}: there is no folder {}", folder.display()))
                }
                Ok(m) if !m.is_dir() => {
                    return Err(format!("cannot write {path}: {} is a file, not a folder", folder.display()))
                }
                _ => {}
            }
        }
        let temporary = dest.with_file_name(format!(".{}.{}.part", name.to_string_lossy(), std::process::id()));
        let file = File::create(&temporary).map_err(|e| {
            format!("cannot write {path}: {e} (the translation is written beside it first, as {})", temporary.display())
        })?;
        if let Some(m) = existing {
            // A private file stays private.
            let _ = std::fs::set_permissions(&temporary, m.permissions());
        }
        *TEMPORARY.lock().unwrap_or_else(|e| e.into_inner()) = Some(temporary.clone());
        remove_temporary_on_signals();
        let gzip = Path::new(path).extension().is_some_and(|e| e == "gz");
        Ok(Output::File { file: Some(Sink::new(file, gzip)), temporary, path: dest })
    }

    /// Flushes standard output or the device, or puts the finished file in place.
    pub fn finish(mut self) -> std::io::Result<()> {
        match &mut self {
            Output::Stdout(out) => out.flush(),
            Output::Device(out) => out.flush(),
            Output::File { file, temporary, path } => {
                file.take().expect("finished once").into_file()?.sync_all()?;
                // Held across the rename: a Ctrl-C now waits, and then finds nothing to remove.
                let mut pending = TEMPORARY.lock().unwrap_or_else(|e| e.into_inner());
                let renamed = std::fs::rename(&*temporary, &*path);
                if renamed.is_err() {
                    let _ = std::fs::remove_file(&*temporary);
                }
                pending.take();
                renamed
            }
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Output::Stdout(out) => out.write(buf),
            Output::Device(out) => out.write(buf),
            Output::File { file, .. } => file.as_mut().expect("not finished").writer().write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Output::Stdout(out) => out.flush(),
            Output::Device(out) => out.flush(),
            Output::File { file, .. } => file.as_mut().expect("not finished").writer().flush(),
        }
    }
}

impl Drop for Output {
    /// A run that stopped before `finish` leaves no temporary file behind.
    fn drop(&mut self) {
        if let Output::File { file: Some(_), .. } = self {
            remove_temporary();
        }
    }
}

//! `wgslate serve DIR`: a small static file server for the built app, bound to 127.0.0.1.
//! It sends the same Content-Security-Policy as index.html and the MIME types WebAssembly needs,
//! writes `.br` and `.gz` copies of the compressible files at start (`precompress.rs`) and sends
//! the smallest one the browser accepts, with a strong ETag per encoding so a second visit gets
//! `304 Not Modified` instead of the bytes again.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use wgslate_decode::settings::percent_decoded;

pub const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'";

fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "ico" => "image/x-icon",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "txt" | "en" | "de" | "fr" | "cs" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Whether `path` is worth a compressed copy: text, JSON, SVG, WebAssembly and the weights (whose
/// MIME type is the generic one); not images already compressed.
pub fn compressible(path: &Path) -> bool {
    let kind = mime(path);
    ["text/", "application/json", "application/manifest+json", "image/svg+xml", "application/wasm"]
        .iter()
        .any(|k| kind.starts_with(k))
        || path.extension().is_some_and(|e| e == "safetensors")
}

/// Maps a request path inside `root`, refusing anything that climbs out of it (also when written
/// with escapes: `%2e%2e` is decoded before the check, and through a symbolic link that leads
/// outside `root`).
fn resolve(root: &Path, url_path: &str) -> Option<Found> {
    // `my%20file.txt`, `%C3%BCber.txt`; a path that is not UTF-8 names no file here.
    let clean = String::from_utf8(percent_decoded(url_path.split(['?', '#']).next().unwrap_or("/"))).ok()?;
    let mut path = root.to_path_buf();
    for c in Path::new(clean.trim_start_matches('/')).components() {
        match c {
            Component::Normal(p) if hidden(p) => return None,
            Component::Normal(p) => path.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    let names_folder = clean.rsplit('/').next().is_some_and(|last| last.is_empty() || last == ".");
    let folder = path.is_dir();
    if folder {
        path.push("index.html");
    } else if names_folder {
        // `/index.html/` (or `/index.html/.`) names a folder, and the page's relative links would
        // resolve inside it.
        return None;
    }
    let (real, real_root) = (path.canonicalize().ok()?, root.canonicalize().ok()?);
    // Only a regular file: reading a named pipe waits for a writer, holding the thread for ever.
    // `/sub` served as `/sub/index.html` would resolve the page's relative links in `/`: it is redirected.
    (real.starts_with(real_root) && real.is_file()).then_some(Found { path, slash_missing: folder && !names_folder })
}

/// Hidden files and folders (`.git`, `.env`) are not the app's: neither served nor compressed.
pub fn hidden(name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes().starts_with(b".")
}

/// A file `resolve` found for a request path.
struct Found {
    path: PathBuf,
    /// The path names a folder without its closing `/`: the answer is a redirect to it.
    slash_missing: bool,
}

/// The request headers this server acts on.
#[derive(Default)]
struct Headers {
    accept_encoding: String,
    if_none_match: String,
    range: String,
    if_range: String,
}

/// Whether `Accept-Encoding` lists `coding` (or `*`) without `q=0`.
fn accepts(accept_encoding: &str, coding: &str) -> bool {
    accept_encoding.split(',').any(|item| {
        let mut parts = item.split(';').map(str::trim);
        let name = parts.next().unwrap_or("");
        let q_zero = parts.any(|p| {
            p.split_once('=').is_some_and(|(k, q)| k.trim().eq_ignore_ascii_case("q") && q.trim().parse() == Ok(0.0))
        });
        (name.eq_ignore_ascii_case(coding) || name == "*") && !q_zero
    })
}

/// FNV-1a over the file: the ETag changes whenever the content does.
fn content_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The file's representation for this request: (body, Content-Encoding, ETag, length before encoding).
fn representation(
    path: &Path,
    body: Vec<u8>,
    headers: &Headers,
    usable: &HashSet<PathBuf>,
) -> (Vec<u8>, Option<&'static str>, String, usize) {
    let (hash, decoded) = (content_hash(&body), body.len());
    for (coding, suffix) in [("br", "br"), ("gzip", "gz")] {
        if !accepts(&headers.accept_encoding, coding) {
            continue;
        }
        // A stale copy (older than the file) is never sent: precompress rewrites it at start.
        if let Some(compressed) = crate::precompress::fresh_copy(path, suffix, body.len(), usable) {
            return (compressed, Some(coding), format!("\"{hash:016x}-{suffix}\""), decoded);
        }
    }
    (body, None, format!("\"{hash:016x}\""), decoded)
}

/// Whether a range may be sent under `If-Range` (RFC 9110 §13.1.5, compared strongly): none was
/// given, it names this representation, or this is the file as it is and the tag names one of its
/// compressed copies. Browsers ask for a range without Accept-Encoding, so a download that came
/// compressed (its bytes decoded on arrival) goes on in the file's own bytes, which are those.
fn if_range_holds(if_range: &str, etag: &str, encoding: Option<&str>) -> bool {
    let of_a_copy = || {
        let file = etag.trim_end_matches('"');
        ["-br\"", "-gz\""].iter().any(|suffix| if_range.strip_suffix(suffix) == Some(file))
    };
    if_range.is_empty() || if_range == etag || (encoding.is_none() && of_a_copy())
}

/// The most a request line and its headers may take; a longer one is refused, not buffered.
const MAX_HEAD: u64 = 64 * 1024;

/// The time a client has to send its whole request line and headers (a browser sends them at once).
const HEAD_TIME: Duration = Duration::from_secs(10);

/// Connections served at once; more wait in the listen queue until one ends.
const MAX_CONNECTIONS: usize = 64;

/// The request head read under one deadline for all of it: a timeout per read let a client that
/// sends a byte every few seconds hold its thread for ever.
struct Deadline {
    stream: TcpStream,
    until: Instant,
}

impl Read for Deadline {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        self.stream.read(buf)
    }
}

/// The bytes `Range: bytes=…` asks for out of `len`, first and last included: None where there is
/// no such header or it is one this server does not take (several ranges, another unit, a malformed
/// one: the whole body is sent, as RFC 9110 §14.2 allows), Err where none of its bytes exist (416).
fn byte_range(range: &str, len: usize) -> Option<Result<(usize, usize), ()>> {
    let (unit, spec) = range.split_once('=')?;
    if !unit.trim().eq_ignore_ascii_case("bytes") || spec.contains(',') {
        return None;
    }
    let (first, last) = spec.trim().split_once('-')?;
    // A position past u64 is past the file too (RFC 9110 §14.1.1), not a malformed range.
    let number =
        |s: &str| (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().unwrap_or(u64::MAX));
    let wanted = match (first.is_empty(), last.is_empty()) {
        // `bytes=-N`: the last N bytes.
        (true, false) => match number(last)? {
            0 => return Some(Err(())),
            n => (len as u64).saturating_sub(n),
        },
        (false, _) => number(first)?,
        (true, true) => return None,
    };
    let end = if first.is_empty() || last.is_empty() { u64::MAX } else { number(last)? };
    if end < wanted {
        return None;
    }
    if wanted >= len as u64 {
        return Some(Err(()));
    }
    Some(Ok((wanted as usize, end.min(len as u64 - 1) as usize)))
}

/// The request line's method and path: None unless it is `METHOD /path HTTP/x` in UTF-8, or the
/// absolute form `METHOD http://host/path HTTP/x` that HTTP/1.1 servers must also take (RFC 9112 §3.2.2).
fn request_line(line: &[u8]) -> Option<(String, String)> {
    let text = std::str::from_utf8(line).ok()?;
    let mut parts = text.split_whitespace();
    let (method, target, version) = (parts.next()?, parts.next()?, parts.next()?);
    let (scheme, rest) = match target.starts_with('/') {
        true => ("", target),
        false => target.split_once("://")?,
    };
    let path = match scheme.to_ascii_lowercase().as_str() {
        "" => target.to_string(),
        "http" | "https" if !rest.is_empty() && !rest.starts_with('/') => {
            rest.find(['/', '?']).map_or("/".to_string(), |i| match &rest[i..] {
                query if query.starts_with('?') => format!("/{query}"),
                path => path.to_string(),
            })
        }
        _ => return None,
    };
    (path.starts_with('/') && version.starts_with("HTTP/") && parts.next().is_none())
        .then(|| (method.to_string(), path))
}

fn respond(mut stream: TcpStream, root: &Path, usable: &HashSet<PathBuf>) -> std::io::Result<()> {
    // A client that stops reading the answer does not hold its thread for ever.
    stream.set_write_timeout(Some(Duration::from_secs(30)))?;
    let deadline = Deadline { stream: stream.try_clone()?, until: Instant::now() + HEAD_TIME };
    let mut reader = BufReader::new(deadline.take(MAX_HEAD));
    let mut line = Vec::new();
    // A read that fails (the client took too long) leaves the request incomplete: nothing is
    // answered when nothing came, a 400 when part of a request did.
    let _ = reader.read_until(b'\n', &mut line);
    let mut headers = Headers::default();
    let mut complete = false;
    loop {
        let mut header = Vec::new();
        if reader.read_until(b'\n', &mut header).unwrap_or(0) == 0 || !header.ends_with(b"\n") {
            break;
        }
        if header == b"\r\n" || header == b"\n" {
            complete = true;
            break;
        }
        if let Some((name, value)) = String::from_utf8_lossy(&header).split_once(':') {
            let value = value.trim().to_string();
            match name.trim().to_ascii_lowercase().as_str() {
                "accept-encoding" => headers.accept_encoding = value,
                "if-none-match" => headers.if_none_match = value,
                "range" => headers.range = value,
                "if-range" => headers.if_range = value,
                _ => {}
            }
        }
    }
    if line.is_empty() {
        // Nothing asked (a browser's spare connection, or a client gone quiet): nothing to answer.
        return Ok(());
    }
    let request = request_line(&line).filter(|_| complete);
    let (method, target) = request.clone().unwrap_or_default();
    let found = request.as_ref().and_then(|_| resolve(root, &target));
    let found = found.and_then(|f| std::fs::read(&f.path).ok().map(|b| (f, b)));
    let mut extra = String::new();
    let (status, kind, body) = match (request.is_some(), method.as_str(), found) {
        (false, _, _) => ("400 Bad Request", "text/plain; charset=utf-8", b"bad request\n".to_vec()),
        (_, "GET" | "HEAD", Some((found, _))) if found.slash_missing => {
            let (path, query) =
                target.split_once('?').map_or((target.as_str(), String::new()), |(p, q)| (p, format!("?{q}")));
            // One leading slash: `//app/` would be another host's address.
            extra = format!("Location: /{}/{query}\r\n", path.trim_start_matches('/'));
            ("301 Moved Permanently", "text/plain; charset=utf-8", b"moved\n".to_vec())
        }
        (_, "GET" | "HEAD", Some((found, body))) => {
            let p = found.path;
            let (body, encoding, etag, decoded) = representation(&p, body, &headers, usable);
            extra = format!("ETag: {etag}\r\nVary: Accept-Encoding\r\nAccept-Ranges: bytes\r\n");
            // The page's download progress counts decoded bytes.
            let encoded = encoding
                .map(|coding| format!("Content-Encoding: {coding}\r\nX-Decoded-Length: {decoded}\r\n"))
                .unwrap_or_default();
            // If-None-Match compares weakly: W/"x" matches "x" (RFC 9110 13.1.2); If-Range strongly,
            // and a date there (or another tag) asks for the whole file. Only a GET takes a range.
            let range = (method == "GET" && if_range_holds(&headers.if_range, &etag, encoding))
                .then(|| byte_range(&headers.range, body.len()))
                .flatten();
            if headers
                .if_none_match
                .split(',')
                .map(|t| t.trim())
                .any(|t| t.trim_start_matches("W/") == etag || t == "*")
            {
                extra += &encoded;
                ("304 Not Modified", mime(&p), Vec::new())
            } else if let Some(Ok((first, last))) = range {
                extra += &format!("{encoded}Content-Range: bytes {first}-{last}/{}\r\n", body.len());
                ("206 Partial Content", mime(&p), body[first..=last].to_vec())
            } else if let Some(Err(())) = range {
                // Plain text of its own: not the file's encoding.
                extra += &format!("Content-Range: bytes */{}\r\n", body.len());
                ("416 Range Not Satisfiable", "text/plain; charset=utf-8", b"range not satisfiable\n".to_vec())
            } else {
                extra += &encoded;
                ("200 OK", mime(&p), body)
            }
        }
        (_, "GET" | "HEAD", None) => ("404 Not Found", "text/plain; charset=utf-8", b"not found\n".to_vec()),
        _ => {
            extra = "Allow: GET, HEAD\r\n".into();
            ("405 Method Not Allowed", "text/plain; charset=utf-8", b"method not allowed\n".to_vec())
        }
    };
    // A 304 has no body, and a Content-Length there would have to be the 200's.
    let length = if status.starts_with("304") { String::new() } else { format!("Content-Length: {}\r\n", body.len()) };
    // no-cache: the browser keeps the file but asks each time; the ETag makes that a 304.
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\n{length}Content-Security-Policy: {CSP}\r\nCache-Control: no-cache\r\n{extra}Connection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes())?;
    if method != "HEAD" {
        stream.write_all(&body)?;
    }
    stream.flush()
}

/// Counts the connections being served; `enter` waits while `MAX_CONNECTIONS` are.
#[derive(Default)]
struct Connections {
    open: Mutex<usize>,
    ended: Condvar,
}

/// One connection's place among the `MAX_CONNECTIONS`, given back when it ends.
struct Place(Arc<Connections>);

impl Connections {
    fn enter(self: &Arc<Self>) -> Place {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        while *open >= MAX_CONNECTIONS {
            open = self.ended.wait(open).unwrap_or_else(|e| e.into_inner());
        }
        *open += 1;
        Place(self.clone())
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        *self.0.open.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
        self.0.ended.notify_one();
    }
}

/// What could not be compressed, one line per folder and reason: a read-only `dist/` is one line,
/// not two per file.
fn failure_lines(failed: &[(PathBuf, std::io::Error)]) -> Vec<String> {
    let mut groups: Vec<(&Path, String, Vec<&Path>)> = Vec::new();
    for (path, e) in failed {
        let (folder, why) = (path.parent().unwrap_or(Path::new("")), e.to_string());
        match groups.iter_mut().find(|(f, w, _)| *f == folder && *w == why) {
            Some((_, _, paths)) => paths.push(path),
            None => groups.push((folder, why, vec![path])),
        }
    }
    groups
        .into_iter()
        .map(|(folder, why, paths)| match paths.as_slice() {
            [one] => format!(
                "{}: {why}: no compressed copy (the file is sent uncompressed, if it can be read)",
                one.display()
            ),
            many => {
                let names: Vec<_> = many.iter().take(3).map(|p| p.file_name().unwrap_or_default().to_string_lossy()).collect();
                let more = if many.len() > 3 { ", …" } else { "" };
                format!(
                    "{}: {why}, {} times ({}{more}): no compressed copies there (those files are sent uncompressed, if they can be read)",
                    folder.display(),
                    many.len(),
                    names.join(", ")
                )
            }
        })
        .collect()
}

pub const USAGE: &str =
    "usage: wgslate serve [DIR] [--port N]   (DIR defaults to dist; the port to 8080, 0 picks a free one)
  Writes a .br and a .gz copy beside each compressible file of DIR over 1 KB (not through symbolic links)
  and sends the smallest one the browser accepts.";

pub fn run(args: &[String]) -> Result<(), String> {
    let (mut dir, mut port) = (None, None::<u16>);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--port" if port.is_some() => return Err("--port is given twice: give it once".into()),
            "--port" => {
                port = Some(it.next().and_then(|p| p.parse().ok()).ok_or("--port needs a number from 0 to 65535")?)
            }
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}\n{USAGE}")),
            d if dir.is_none() => dir = Some(d),
            extra => return Err(format!("unexpected argument {extra}\n{USAGE}")),
        }
    }
    let (dir, port) = (dir.unwrap_or("dist"), port.unwrap_or(8080));
    let root = PathBuf::from(dir);
    if !root.is_dir() {
        let why = if root.exists() { "it is a file, not a folder" } else { "there is no such folder" };
        return Err(format!("cannot serve {dir}: {why} (./scripts/serve builds the app into dist/)"));
    }
    if !root.join("index.html").exists() {
        return Err(format!("{dir}/index.html not found: build the app first (./scripts/serve builds it into dist/)"));
    }
    // Before compressing (seconds for a fresh build): a port in use is said at once, and nothing is written.
    let listener =
        TcpListener::bind(("127.0.0.1", port)).map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let copies = crate::precompress::run(&root);
    if copies.written > 0 {
        println!("wrote {} compressed copies (.br, .gz) in {dir}", copies.written);
    }
    for f in &copies.foreign {
        eprintln!(
            "wgslate serve: {} is not a compressed copy of its file: it is neither sent nor replaced",
            f.display()
        );
    }
    for line in failure_lines(&copies.failed) {
        eprintln!("wgslate serve: {line}");
    }
    let usable = Arc::new(copies.usable);
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(port);
    println!("serving {dir} on http://127.0.0.1:{port}");
    std::io::stdout().flush().map_err(|e| e.to_string())?;
    let connections = Arc::new(Connections::default());
    for stream in listener.incoming().flatten() {
        let (root, usable, place) = (root.clone(), usable.clone(), connections.enter());
        // No thread to be had (the system's limit): that connection closes, the server goes on.
        let _ = std::thread::Builder::new().spawn(move || {
            let _ = respond(stream, &root, &usable);
            drop(place);
        });
    }
    Ok(())
}

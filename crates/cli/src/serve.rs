//! `wgslate serve DIR`: a small static file server for the built app, bound to 127.0.0.1.
//! It sends the same Content-Security-Policy as index.html and the MIME types WebAssembly needs,
//! writes `.br` and `.gz` copies of the compressible files at start (`precompress.rs`) and sends
//! the smallest one the browser accepts, with a strong ETag per encoding so a second visit gets
//! `304 Not Modified` instead of the bytes again.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

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
fn resolve(root: &Path, url_path: &str) -> Option<PathBuf> {
    // `my%20file.txt`, `%C3%BCber.txt`; a path that is not UTF-8 names no file here.
    let clean = String::from_utf8(percent_decoded(url_path.split(['?', '#']).next().unwrap_or("/"))).ok()?;
    let mut path = root.to_path_buf();
    for c in Path::new(clean.trim_start_matches('/')).components() {
        match c {
            Component::Normal(p) => path.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if path.is_dir() {
        path.push("index.html");
    } else if clean.rsplit('/').next().is_some_and(|last| last.is_empty() || last == ".") {
        // `/index.html/` (or `/index.html/.`) names a folder, and the page's relative links would
        // resolve inside it.
        return None;
    }
    let (real, real_root) = (path.canonicalize().ok()?, root.canonicalize().ok()?);
    // Only a regular file: reading a named pipe waits for a writer, holding the thread for ever.
    (real.starts_with(real_root) && real.is_file()).then_some(path)
}

/// The request headers this server acts on.
#[derive(Default)]
struct Headers {
    accept_encoding: String,
    if_none_match: String,
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

/// The most a request line and its headers may take; a longer one is refused, not buffered.
const MAX_HEAD: u64 = 64 * 1024;

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
    // A client that stops sending does not hold its thread for ever.
    stream.set_read_timeout(Some(std::time::Duration::from_secs(30)))?;
    // Nor does one that stops reading the answer.
    stream.set_write_timeout(Some(std::time::Duration::from_secs(30)))?;
    let mut reader = BufReader::new(std::io::Read::take(stream.try_clone()?, MAX_HEAD));
    let mut line = Vec::new();
    // A read that fails (the client went quiet for 30 s) leaves the request incomplete: nothing is
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
            match name.trim().to_ascii_lowercase().as_str() {
                "accept-encoding" => headers.accept_encoding = value.trim().to_string(),
                "if-none-match" => headers.if_none_match = value.trim().to_string(),
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
    let found =
        request.as_ref().and_then(|_| resolve(root, &target)).and_then(|p| std::fs::read(&p).ok().map(|b| (p, b)));
    let mut extra = String::new();
    let (status, kind, body) = match (request.is_some(), method.as_str(), found) {
        (false, _, _) => ("400 Bad Request", "text/plain; charset=utf-8", b"bad request\n".to_vec()),
        (_, "GET" | "HEAD", Some((p, body))) => {
            let (body, encoding, etag, decoded) = representation(&p, body, &headers, usable);
            extra = format!("ETag: {etag}\r\nVary: Accept-Encoding\r\n");
            if let Some(coding) = encoding {
                // The page's download progress counts decoded bytes.
                extra += &format!("Content-Encoding: {coding}\r\nX-Decoded-Length: {decoded}\r\n");
            }
            // If-None-Match compares weakly: W/"x" matches "x" (RFC 9110 13.1.2).
            if headers
                .if_none_match
                .split(',')
                .map(|t| t.trim())
                .any(|t| t.trim_start_matches("W/") == etag || t == "*")
            {
                ("304 Not Modified", mime(&p), Vec::new())
            } else {
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
    for (path, e) in &copies.failed {
        eprintln!(
            "wgslate serve: {}: {e}: no compressed copy (the file is sent uncompressed, if it can be read)",
            path.display()
        );
    }
    let usable = std::sync::Arc::new(copies.usable);
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(port);
    println!("serving {dir} on http://127.0.0.1:{port}");
    std::io::stdout().flush().map_err(|e| e.to_string())?;
    for stream in listener.incoming().flatten() {
        let (root, usable) = (root.clone(), usable.clone());
        std::thread::spawn(move || {
            let _ = respond(stream, &root, &usable);
        });
    }
    Ok(())
}

//! `wgslate serve DIR`: a small static file server for the built app, bound to 127.0.0.1.
//! It sends the same Content-Security-Policy as index.html and the MIME types WebAssembly needs.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

pub const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'";

fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "txt" | "en" | "de" | "fr" | "cs" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Maps a request path inside `root`, refusing anything that climbs out of it.
fn resolve(root: &Path, url_path: &str) -> Option<PathBuf> {
    let clean = url_path.split(['?', '#']).next().unwrap_or("/");
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
    }
    Some(path)
}

fn respond(mut stream: TcpStream, root: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" || header == "\n" {
            break;
        }
    }
    let mut parts = request.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let found = resolve(root, target).and_then(|p| std::fs::read(&p).ok().map(|b| (p, b)));
    let (status, kind, body) = match (method, found) {
        ("GET" | "HEAD", Some((p, body))) => ("200 OK", mime(&p), body),
        ("GET" | "HEAD", None) => ("404 Not Found", "text/plain; charset=utf-8", b"not found\n".to_vec()),
        _ => ("405 Method Not Allowed", "text/plain; charset=utf-8", b"method not allowed\n".to_vec()),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nContent-Security-Policy: {CSP}\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    if method != "HEAD" {
        stream.write_all(&body)?;
    }
    stream.flush()
}

pub fn run(args: &[String]) -> Result<(), String> {
    let (mut dir, mut port) = (None, 8080u16);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--port" => port = it.next().and_then(|p| p.parse().ok()).ok_or("--port needs a number from 0 to 65535")?,
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag} (usage: wgslate serve [DIR] [--port N])")),
            d if dir.is_none() => dir = Some(d),
            extra => return Err(format!("unexpected argument {extra} (usage: wgslate serve [DIR] [--port N])")),
        }
    }
    let dir = dir.unwrap_or("dist");
    let root = PathBuf::from(dir);
    if !root.join("index.html").exists() {
        return Err(format!("{dir}/index.html not found: build the app first (trunk build --release)"));
    }
    let listener = TcpListener::bind(("127.0.0.1", port)).map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    println!("serving {dir} on http://127.0.0.1:{port}");
    for stream in listener.incoming().flatten() {
        let root = root.clone();
        std::thread::spawn(move || {
            let _ = respond(stream, &root);
        });
    }
    Ok(())
}

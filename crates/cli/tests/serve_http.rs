//! `wgslate serve` over real HTTP: precompressed copies chosen by Accept-Encoding, strong ETags per
//! encoding, 304 on a matching If-None-Match, and stale copies never sent.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

struct Server(Child, u16);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
    }
}

fn start(dir: &std::path::Path) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .args(["serve", dir.to_str().unwrap(), "--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let port = loop {
        let line = lines.next().expect("server printed its address").unwrap();
        if let Some(p) = line.split("http://127.0.0.1:").nth(1) {
            break p.trim().parse().unwrap();
        }
    };
    Server(child, port)
}

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

fn get(port: u16, path: &str, extra: &str) -> Response {
    send(port, format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n{extra}\r\n").as_bytes())
}

/// Sends the bytes of a request as they are and reads the whole response.
fn send(port: u16, request: &[u8]) -> Response {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(request).unwrap();
    s.shutdown(std::net::Shutdown::Write).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let mut lines = head.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines.filter_map(|l| l.split_once(':')).map(|(n, v)| (n.to_string(), v.trim().to_string())).collect();
    let r = Response { status, headers, body: raw[split + 4..].to_vec() };
    if r.status == 304 {
        // RFC 9110: a 304 has no content, and a Content-Length there would describe the 200's.
        assert_eq!((r.header("Content-Length"), r.body.len()), (None, 0));
    } else {
        assert_eq!(r.header("Content-Length").unwrap().parse::<usize>().unwrap(), r.body.len());
    }
    r
}

/// An empty folder of this test's own under the system's temporary one (two tests that shared a
/// name removed each other's files when run side by side).
fn fresh_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("wgslate-serve-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn gunzip(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(b).read_to_end(&mut out).unwrap();
    out
}

fn unbrotli(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::BrotliDecompress(&mut &b[..], &mut out).unwrap();
    out
}

#[test]
fn serves_the_smallest_accepted_encoding_with_etags_and_304s() {
    let dir = fresh_dir("encodings");
    std::fs::create_dir_all(dir.join("models")).unwrap();
    let js: Vec<u8> = (0..4000).flat_map(|i| format!("let x{i} = {};\n", i % 7).into_bytes()).collect();
    let weights: Vec<u8> = (0..8192u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8 & 0x0f).collect();
    std::fs::write(dir.join("index.html"), "<!doctype html><p>hi</p>").unwrap();
    std::fs::write(dir.join("app.js"), &js).unwrap();
    std::fs::write(dir.join("models/model.safetensors"), &weights).unwrap();
    let server = start(&dir);
    let port = server.1;
    assert!(dir.join("app.js.br").exists() && dir.join("app.js.gz").exists());
    assert!(!dir.join("models/model.safetensors.br").exists(), "weights get gzip only");
    assert!(!dir.join("index.html.gz").exists(), "files under 1 KB are sent as they are");

    let br = get(port, "/app.js", "Accept-Encoding: gzip, deflate, br, zstd\r\n");
    assert_eq!((br.status, br.header("Content-Encoding")), (200, Some("br")));
    assert_eq!(unbrotli(&br.body), js);
    assert_eq!(br.header("X-Decoded-Length"), Some(js.len().to_string().as_str()));
    assert!(br.body.len() < js.len() / 5, "{} of {}", br.body.len(), js.len());
    assert_eq!(br.header("Vary"), Some("Accept-Encoding"));
    let gz = get(port, "/app.js", "Accept-Encoding: br;q=0, gzip\r\n");
    assert_eq!(gz.header("Content-Encoding"), Some("gzip"));
    assert_eq!(gunzip(&gz.body), js);
    let plain = get(port, "/app.js", "");
    assert_eq!((plain.header("Content-Encoding"), &plain.body), (None, &js));
    let tags = [br.header("ETag").unwrap(), gz.header("ETag").unwrap(), plain.header("ETag").unwrap()];
    assert!(tags.iter().all(|t| t.starts_with('"') && !t.starts_with("W/")), "strong ETags: {tags:?}");
    assert!(tags[0] != tags[1] && tags[1] != tags[2] && tags[0] != tags[2], "one ETag per encoding: {tags:?}");

    let model = get(port, "/models/model.safetensors", "Accept-Encoding: br, gzip\r\n");
    assert_eq!(model.header("Content-Encoding"), Some("gzip"));
    assert_eq!(gunzip(&model.body), weights);

    // A second visit: the browser sends back the ETag it holds and gets no bytes.
    let again = get(port, "/app.js", &format!("Accept-Encoding: br\r\nIf-None-Match: {}\r\n", tags[0]));
    assert_eq!((again.status, again.body.len()), (304, 0));
    assert_eq!(again.header("ETag"), Some(tags[0]));
    // If-None-Match compares weakly (RFC 9110): a W/ tag of the same value validates it too.
    let weak = get(port, "/app.js", &format!("Accept-Encoding: br\r\nIf-None-Match: \"x\", W/{}\r\n", tags[0]));
    assert_eq!(weak.status, 304);
    let other = get(port, "/app.js", &format!("Accept-Encoding: br\r\nIf-None-Match: {}\r\n", tags[2]));
    assert_eq!(other.status, 200, "the identity ETag does not validate the brotli copy");

    // The file changes while the server runs: its copies are now stale and are not sent.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let js2: Vec<u8> = js.iter().rev().copied().collect();
    std::fs::write(dir.join("app.js"), &js2).unwrap();
    let fresh = get(port, "/app.js", &format!("Accept-Encoding: br, gzip\r\nIf-None-Match: {}\r\n", tags[0]));
    assert_eq!((fresh.status, fresh.header("Content-Encoding"), &fresh.body), (200, None, &js2));
    assert_ne!(fresh.header("ETag"), Some(tags[2]));
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn escaped_names_are_served_links_are_not_written_through_and_foreign_copies_are_not_sent() {
    let base = fresh_dir("links");
    let (dir, outside) = (base.join("site"), base.join("outside"));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let text: Vec<u8> = (0..400).flat_map(|i| format!("line {i}\n").into_bytes()).collect();
    std::fs::write(dir.join("index.html"), "<p>hi</p>").unwrap();
    std::fs::write(dir.join("my file.txt"), "spaced\n").unwrap();
    std::fs::write(dir.join("über.txt"), "umlaut\n").unwrap();
    std::fs::write(dir.join("sub/a.txt"), "a\n").unwrap();
    std::fs::write(outside.join("data.txt"), &text).unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("ext")).unwrap();
    std::os::unix::fs::symlink(&base, dir.join("up")).unwrap();
    // A link at a copy's name: writing the copy would create or overwrite its target outside.
    std::fs::write(dir.join("linked.txt"), &text).unwrap();
    std::os::unix::fs::symlink(outside.join("elsewhere"), dir.join("linked.txt.gz")).unwrap();
    // A newer file named like a copy that holds something else.
    std::fs::write(dir.join("notes.txt"), &text).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(dir.join("notes.txt.gz"), b"not a gzip copy of notes.txt").unwrap();
    let server = start(&dir);
    let port = server.1;

    let names: Vec<String> =
        std::fs::read_dir(&outside).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names, ["data.txt"], "no copy written through the link");
    assert_eq!(std::fs::read(dir.join("notes.txt.gz")).unwrap(), b"not a gzip copy of notes.txt", "not replaced");
    let notes = get(port, "/notes.txt", "Accept-Encoding: gzip\r\n");
    assert_eq!((notes.header("Content-Encoding"), &notes.body), (None, &text), "not sent as notes.txt's gzip encoding");
    assert_eq!(get(port, "/notes.txt", "Accept-Encoding: br\r\n").header("Content-Encoding"), Some("br"));
    let linked = get(port, "/linked.txt", "Accept-Encoding: gzip\r\n");
    assert_eq!((linked.header("Content-Encoding"), &linked.body), (None, &text));

    assert_eq!(get(port, "/my%20file.txt", "").body, b"spaced\n");
    assert_eq!(get(port, "/%C3%BCber.txt", "").body, b"umlaut\n");
    assert_eq!(get(port, "/sub/%61.txt", "").body, b"a\n");
    // Links that lead out of the folder are not followed (the files there are not the app's).
    for climb in [
        "/%2e%2e/outside/data.txt",
        "/sub/..%2f..%2foutside/data.txt",
        "/%FF.txt",
        "/ext/data.txt",
        "/up/outside/data.txt",
    ] {
        assert_eq!(get(port, climb, "").status, 404, "{climb}");
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn requests_that_are_not_http_get_400_and_a_file_is_not_a_folder() {
    let dir = fresh_dir("bad");
    std::fs::write(dir.join("index.html"), "<!doctype html><p>hi</p>").unwrap();
    let server = start(&dir);
    let port = server.1;
    assert_eq!(get(port, "/index.html", "").status, 200);
    assert_eq!(get(port, "/", "").status, 200);
    assert_eq!(get(port, "/index.html/", "").status, 404, "a file is not a folder");
    assert_eq!(get(port, "/index.html/.", "").status, 404, "a file is not a folder");
    // The absolute form, which HTTP/1.1 servers must take too (RFC 9112 §3.2.2).
    for request in [
        &b"GET http://localhost/index.html HTTP/1.1\r\n\r\n"[..],
        b"GET HTTP://localhost:8080 HTTP/1.1\r\n\r\n",
        b"GET http://localhost?x=1 HTTP/1.1\r\n\r\n",
        b"GET /?next=http://example.com/ HTTP/1.1\r\n\r\n",
    ] {
        let r = send(port, request);
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(request));
        assert!(r.body.ends_with(b"<p>hi</p>"), "{}", String::from_utf8_lossy(request));
    }
    for request in [
        &b"GET /\xff\xfe HTTP/1.1\r\n\r\n"[..],
        b"GARBAGE\r\n\r\n",
        b"GET example.com/ HTTP/1.1\r\n\r\n",
        b"GET ftp://example.com/ HTTP/1.1\r\n\r\n",
        b"GET http:///index.html HTTP/1.1\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: localhost\r\n",
    ] {
        let r = send(port, request);
        assert_eq!((r.status, r.body.as_slice()), (400, &b"bad request\n"[..]), "{}", String::from_utf8_lossy(request));
    }
    // A head longer than 64 KiB is refused once that much has come, not buffered without end.
    let mut long = b"GET /".to_vec();
    long.resize(70 * 1024, b'a');
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let _ = s.write_all(&long);
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    assert!(raw.starts_with(b"HTTP/1.1 400 "), "{}", String::from_utf8_lossy(&raw[..raw.len().min(80)]));
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// What the server cannot compress (here: a folder where a copy's temporary file goes) is sent as
/// it is, with a note, rather than stopping the server; a named pipe is not a file to send (reading
/// it waited for a writer for ever); a 405 says what is allowed; `Q=0` refuses a coding as `q=0` does.
#[test]
fn what_cannot_be_compressed_or_read_is_no_stop_and_a_pipe_no_hang() {
    let dir = fresh_dir("uncompressible");
    std::fs::create_dir_all(dir.join("app.js.br.partial/in-the-way")).unwrap();
    // Several in one folder, for one reason (a read-only folder, as root cannot make one): one line.
    for blocked in ["a.js.br.partial", "a.js.gz.partial", "b.js.br.partial", "c.js.br.partial"] {
        std::fs::create_dir_all(dir.join("lib").join(blocked).join("in-the-way")).unwrap();
    }
    std::fs::write(dir.join("index.html"), "<p>wgslate</p>\n".repeat(200)).unwrap();
    let script = "export const wgslate = 1;\n".repeat(100);
    std::fs::write(dir.join("app.js"), &script).unwrap();
    std::fs::write(dir.join("module.mjs"), &script).unwrap();
    for name in ["a", "b", "c"] {
        std::fs::write(dir.join(format!("lib/{name}.js")), &script).unwrap();
    }
    assert!(Command::new("mkfifo").arg(dir.join("pipe.txt")).status().unwrap().success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_wgslate"))
        .args(["serve", dir.to_str().unwrap(), "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let port: u16 = loop {
        let line = lines.next().expect("server printed its address").unwrap();
        if let Some(p) = line.split("http://127.0.0.1:").nth(1) {
            break p.trim().parse().unwrap();
        }
    };
    let stderr = child.stderr.take().unwrap();
    let server = Server(child, port);
    // The brotli copy could not be written; the gzip one was.
    let r = get(port, "/app.js", "Accept-Encoding: br, gzip\r\n");
    assert_eq!((r.status, r.header("Content-Encoding")), (200, Some("gzip")));
    assert_eq!(gunzip(&r.body), script.as_bytes());
    assert_eq!(get(port, "/module.mjs", "").header("Content-Type"), Some("text/javascript; charset=utf-8"));
    let r = get(port, "/index.html", "Accept-Encoding: br;Q=0, gzip; Q = 0\r\n");
    assert_eq!((r.status, r.header("Content-Encoding")), (200, None));
    let r = send(port, b"POST / HTTP/1.1\r\nHost: localhost\r\n\r\n");
    assert_eq!((r.status, r.header("Allow")), (405, Some("GET, HEAD")));
    // A pipe nobody writes: answered at once (the test's own timeout turns a hang into a failure).
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(20))).unwrap();
    s.write_all(b"GET /pipe.txt HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
    let mut head = [0u8; 12];
    s.read_exact(&mut head).expect("an answer for the pipe");
    assert_eq!(&head, b"HTTP/1.1 404");
    drop(server);
    let mut said = String::new();
    BufReader::new(stderr).read_to_string(&mut said).unwrap();
    let partial = dir.join("app.js.br.partial");
    assert!(said.contains(&format!("wgslate serve: {}: ", partial.display())), "{said}");
    assert!(said.contains("no compressed copy (the file is sent uncompressed, if it can be read)"), "{said}");
    let lib = dir.join("lib");
    assert_eq!(said.matches(&format!("wgslate serve: {}", lib.display())).count(), 1, "{said}");
    assert!(
        said.contains(", 4 times (a.js.br.partial, a.js.gz.partial, b.js.br.partial, …): no compressed copies there"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Hidden files are not served (nor copied); a folder named without its `/` is redirected to it (the
/// page's relative links would resolve one level up); a byte range is sent as a 206, so an
/// interrupted download resumes (curl's `-C -` checks that against a client we did not write).
#[test]
fn hidden_files_folders_without_slash_and_byte_ranges() {
    let dir = fresh_dir("range");
    for sub in [".git", "app", "empty", "models"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    std::fs::write(dir.join("index.html"), "<p>root</p>").unwrap();
    std::fs::write(dir.join("app/index.html"), "<p>app</p>").unwrap();
    let secret = "TOKEN=hunter2\n".repeat(100);
    std::fs::write(dir.join(".env"), &secret).unwrap();
    std::fs::write(dir.join(".git/config"), &secret).unwrap();
    std::fs::write(dir.join("app/.hidden.txt"), &secret).unwrap();
    let weights: Vec<u8> = (0..50_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    std::fs::write(dir.join("models/model.safetensors"), &weights).unwrap();
    let server = start(&dir);
    let port = server.1;
    for hidden in ["/.env", "/.git/config", "/app/.hidden.txt", "/%2eenv", "/app/../.env"] {
        assert_eq!(get(port, hidden, "").status, 404, "{hidden}");
    }
    assert!(!dir.join(".env.gz").exists() && !dir.join(".git/config.gz").exists(), "hidden files got copies");

    // `//app/` would be the address of a host named app.
    for (asked, location) in [("/app", "/app/"), ("/app?x=1", "/app/?x=1"), ("//app", "/app/"), ("/app/.", "")] {
        let r = get(port, asked, "");
        match location {
            "" => assert_eq!((r.status, r.body.as_slice()), (200, &b"<p>app</p>"[..]), "{asked}"),
            _ => assert_eq!((r.status, r.header("Location")), (301, Some(location)), "{asked}"),
        }
    }
    assert_eq!(get(port, "/app/", "").body, b"<p>app</p>");
    assert_eq!(get(port, "/empty", "").status, 404, "a folder without index.html");

    let total = weights.len();
    let range = |spec: &str, extra: &str| get(port, "/models/model.safetensors", &format!("Range: {spec}\r\n{extra}"));
    let whole = get(port, "/models/model.safetensors", "");
    let etag = whole.header("ETag").unwrap().to_string();
    assert_eq!(whole.header("Accept-Ranges"), Some("bytes"));
    for (spec, first, last) in [
        ("bytes=0-9", 0, 9),
        ("bytes=100-", 100, total - 1),
        ("bytes=-5", total - 5, total - 1),
        ("bytes=49990-99999", 49_990, total - 1),
        ("BYTES = 7-7", 7, 7),
    ] {
        let r = range(spec, "");
        assert_eq!(r.status, 206, "{spec}");
        assert_eq!(r.header("Content-Range"), Some(format!("bytes {first}-{last}/{total}").as_str()), "{spec}");
        assert_eq!(r.body, weights[first..=last], "{spec}");
    }
    for spec in ["bytes=50000-", "bytes=-0", "bytes=60000-70000", "bytes=99999999999999999999-"] {
        let r = range(spec, "");
        assert_eq!((r.status, r.header("Content-Range")), (416, Some(format!("bytes */{total}").as_str())), "{spec}");
    }
    // Not taken, so the whole file: several ranges, another unit, a malformed range, a changed file.
    for (spec, extra) in [
        ("bytes=0-1, 5-6", String::new()),
        ("items=0-1", String::new()),
        ("bytes=9-2", String::new()),
        ("bytes=x-", String::new()),
        ("bytes=0-9", "If-Range: \"not-the-tag\"\r\n".to_string()),
        ("bytes=0-9", "If-Range: Wed, 21 Oct 2015 07:28:00 GMT\r\n".to_string()),
    ] {
        let r = range(spec, &extra);
        assert_eq!((r.status, r.body.len()), (200, total), "{spec} {extra}");
    }
    assert_eq!(range("bytes=0-9", &format!("If-Range: {etag}\r\n")).status, 206);
    assert_eq!(range("bytes=0-9", &format!("If-None-Match: {etag}\r\n")).status, 304);
    // A HEAD takes no range (RFC 9110 §14.2); a 416 is plain text, whatever encoding was asked for.
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(b"HEAD /models/model.safetensors HTTP/1.1\r\nRange: bytes=0-9\r\n\r\n").unwrap();
    let mut head = String::new();
    s.read_to_string(&mut head).unwrap();
    assert!(head.starts_with("HTTP/1.1 200 ") && !head.contains("Content-Range"), "{head}");
    let refused = range("bytes=60000-", "Accept-Encoding: gzip\r\n");
    assert_eq!((refused.status, refused.header("Content-Encoding")), (416, None));
    // A gzip-encoded range is a range of the gzip bytes.
    let gz = get(port, "/models/model.safetensors", "Accept-Encoding: gzip\r\n");
    let gz_part = range("bytes=0-99", "Accept-Encoding: gzip\r\n");
    assert_eq!((gz_part.header("Content-Encoding"), &gz_part.body[..]), (Some("gzip"), &gz.body[..100]));
    // A browser resumes without Accept-Encoding: the compressed copy's tag then names the file's own
    // bytes, which are the decoded ones it holds. Not the other way round, nor another file's copy.
    let gz_tag = gz.header("ETag").unwrap().to_string();
    assert_ne!(gz_tag, etag);
    let rest = range("bytes=30000-", &format!("If-Range: {gz_tag}\r\n"));
    assert_eq!((rest.status, rest.header("Content-Encoding"), &rest.body[..]), (206, None, &weights[30_000..]));
    let br_tag = gz_tag.replace("-gz\"", "-br\"");
    assert_eq!(range("bytes=30000-", &format!("If-Range: {br_tag}\r\n")).status, 206);
    let gz_whole = range("bytes=0-99", &format!("Accept-Encoding: gzip\r\nIf-Range: {etag}\r\n"));
    assert_eq!((gz_whole.status, gz_whole.body.len()), (200, gz.body.len()));
    let other = format!("\"{}-gz\"", "0".repeat(16));
    assert_eq!(range("bytes=30000-", &format!("If-Range: {other}\r\n")).status, 200);

    // curl resumes a download cut at 20 000 bytes.
    let part = dir.join("download.part");
    std::fs::write(&part, &weights[..20_000]).unwrap();
    let url = format!("http://127.0.0.1:{port}/models/model.safetensors");
    // -q: no ~/.curlrc; no proxy a CI machine may set.
    let curl = ["-q", "--noproxy", "*", "-f", "-sS", "-C", "-", "-o", part.to_str().unwrap(), &url];
    match Command::new("curl").args(curl).status() {
        Ok(status) => {
            assert!(status.success(), "curl -C - failed: {status}");
            assert_eq!(std::fs::read(&part).unwrap(), weights, "the resumed download differs");
        }
        Err(e) => eprintln!("curl not found ({e}): the resume check against curl was skipped"),
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A client that sends its head a byte at a time is cut off after 10 s in all (a timeout per read
/// let one sending a byte every 29 s hold its thread for ever), and a crowd of idle connections
/// does not start a thread each: at most 64 are served at once, the rest wait.
#[test]
fn slow_and_crowding_clients_hold_no_more_than_their_share() {
    let dir = fresh_dir("slow");
    std::fs::write(dir.join("index.html"), "<p>hi</p>").unwrap();
    let server = start(&dir);
    let port = server.1;

    let mut slow = TcpStream::connect(("127.0.0.1", port)).unwrap();
    slow.write_all(b"GET / HTTP/1.1\r\n").unwrap();
    slow.set_read_timeout(Some(std::time::Duration::from_millis(500))).unwrap();
    let started = std::time::Instant::now();
    let mut answer = Vec::new();
    // Up to 40 s of a byte every half second; the server must answer (400: the head never ended) on its own.
    while started.elapsed().as_secs() < 40 {
        if slow.write_all(b"X").is_err() {
            break;
        }
        let mut buf = [0u8; 256];
        match slow.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
            Err(_) => {}
        }
    }
    assert!(
        answer.starts_with(b"HTTP/1.1 400 "),
        "after {:?}: {}",
        started.elapsed(),
        String::from_utf8_lossy(&answer)
    );

    let idle: Vec<TcpStream> = (0..150).map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap()).collect();
    std::thread::sleep(std::time::Duration::from_millis(500));
    // The server's threads, where the system lists them.
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{}/task", server.0.id())) {
        let busy = tasks.count();
        assert!(busy <= 64 + 2, "{busy} threads for 150 idle connections");
    }
    drop(idle);
    assert_eq!(get(port, "/", "").status, 200, "served again once the crowd left");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

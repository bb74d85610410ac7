//! The app's downloads (models, test sets, the model index) with their progress, a stop, and a
//! resume: a download that is cut off or stopped keeps what came, and the next request for the file
//! asks only for the rest (`Range`, with `If-Range` naming the file's ETag, so a changed file comes
//! whole). After a cut that happens at once, a few times while each try brings more; after a Stop,
//! when a job next needs the file.

use std::cell::RefCell;

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::browser::{call_global, global_property, js_error, online, sleep_ms};
use crate::offline_models;

/// The request header naming a download that may be stopped, and the channel on which its stop is
/// said (www/sw.js listens).
const DOWNLOAD_HEADER: &str = "x-wgslate-download";
const DOWNLOADS_CHANNEL: &str = "wgslate-downloads";

/// Said of every download that failed for want of a connection (whatever the browser says: offline
/// or not): the Translate view then names the models that translate without one.
pub const DOWNLOAD_FAILED: &str = "the download failed";

/// Tries for the rest after a cut, within one request for the file, each only after the one before
/// brought more bytes.
const RESUMES: i32 = 4;

/// Unfinished downloads kept at once (the oldest goes first); each is at most one model's weights.
const KEPT_PARTS: usize = 4;

/// The most reserved ahead for a file of the length its answer names (a bad length is no crash).
const MAX_RESERVE: u64 = 64 << 20;

/// What came of a download that did not finish, the strong ETag that asks for the rest of it, and
/// the file's whole length where its answer named it.
struct Part {
    bytes: Vec<u8>,
    tag: String,
    total: Option<u64>,
}

thread_local! {
    static PARTS: RefCell<Vec<(String, Part)>> = const { RefCell::new(Vec::new()) };
}

fn take_part(url: &str) -> Option<Part> {
    PARTS.with(|parts| {
        let mut parts = parts.borrow_mut();
        let at = parts.iter().position(|(u, _)| u == url)?;
        Some(parts.remove(at).1)
    })
}

/// The share of `url` a stopped or cut download left here (0 when none, or its length is unknown).
pub fn kept_share(url: &str) -> f64 {
    PARTS.with(|parts| {
        let parts = parts.borrow();
        let part = parts.iter().find(|(u, _)| u == url).map(|(_, p)| p);
        part.and_then(|p| Some(p.bytes.len() as f64 / p.total? as f64)).unwrap_or(0.0)
    })
}

fn keep_part(url: &str, part: Part) {
    if part.bytes.is_empty() {
        return;
    }
    PARTS.with(|parts| {
        let mut parts = parts.borrow_mut();
        parts.retain(|(u, _)| u != url);
        if parts.len() == KEPT_PARTS {
            parts.remove(0);
        }
        parts.push((url.to_string(), part));
    });
}

/// What an answer means for the `have` bytes already here (0: no range was asked for) of a file
/// `expected` bytes long (where the first answer said).
#[derive(Debug, PartialEq)]
enum Answer {
    /// The whole file from its first byte; what was here is dropped.
    Whole,
    /// The rest of a file of `total` bytes, from the first byte not here.
    Rest { total: u64 },
    /// Not the rest of what is here (another range, or none the server could give): the whole
    /// file is asked for again.
    AskAgain,
    /// An error status.
    Refused(u16),
}

fn answer(status: u16, have: u64, expected: Option<u64>, content_range: Option<&str>, encoded: bool) -> Answer {
    match status {
        // A range of a compressed answer would be of its compressed bytes, not of those here.
        206 if have > 0 && encoded => Answer::AskAgain,
        206 if have > 0 => match content_range.and_then(range_start_and_total) {
            Some((first, total)) if first == have && total > have && expected.is_none_or(|t| t == total) => {
                Answer::Rest { total }
            }
            _ => Answer::AskAgain,
        },
        416 if have > 0 => Answer::AskAgain,
        200..=299 if status != 206 => Answer::Whole,
        _ => Answer::Refused(status),
    }
}

/// `Content-Range: bytes FIRST-LAST/TOTAL` as (FIRST, TOTAL); None for any other form.
fn range_start_and_total(header: &str) -> Option<(u64, u64)> {
    let (unit, spec) = header.trim().split_once(' ')?;
    let (span, total) = spec.split_once('/')?;
    let (first, last) = span.split_once('-')?;
    let (first, last, total) = (first.parse().ok()?, last.parse::<u64>().ok()?, total.parse().ok()?);
    (unit.eq_ignore_ascii_case("bytes") && first <= last && last < total).then_some((first, total))
}

/// The ETag a resume can name in `If-Range`: a strong one only (RFC 9110 §13.1.5).
fn resume_tag(etag: Option<String>) -> Option<String> {
    etag.filter(|t| t.starts_with('"') && t.len() >= 2 && t.ends_with('"'))
}

/// How a failed download's message ends when its part is kept: how much, and that a new try goes
/// on from there. The part lives in this tab's engine worker, so a reload starts from 0.
fn resume_note(part: Option<&Part>) -> String {
    match part {
        Some(Part { bytes, total: Some(total), .. }) => {
            format!(
                " ({} of {} kept in this tab: trying again goes on from there)",
                size(bytes.len() as u64),
                size(*total)
            )
        }
        Some(Part { bytes, .. }) => {
            format!(" ({} kept in this tab: trying again goes on from there)", size(bytes.len() as u64))
        }
        None => String::new(),
    }
}

fn size(n: u64) -> String {
    match n {
        0..1000 => format!("{n} bytes"),
        1000..100_000 => format!("{} kB", n / 1000),
        _ => format!("{:.1} MB", n as f64 / 1e6),
    }
}

/// What follows a try that failed.
#[derive(Debug, PartialEq)]
enum Next {
    /// Ask for the rest of what came, after a pause.
    Resume,
    /// Ask for the whole file again (an answer that did not continue the part).
    StartAgain,
    /// Report the failure (keeping what came for a later try).
    GiveUp,
}

/// A cut is resumed only while each try brings more (a line that gives nothing is not asked
/// again and again), at most `RESUMES` times; the file is asked for whole once; nothing after a Stop.
fn next_step(failed: &Failed, had: usize, resumes: i32, asked_again: bool, stopped: bool) -> Next {
    let came = failed.part.as_ref().map_or(0, |p| p.bytes.len());
    match () {
        _ if stopped => Next::GiveUp,
        _ if failed.ask_again && !asked_again => Next::StartAgain,
        _ if failed.cut && came > had && resumes < RESUMES => Next::Resume,
        _ => Next::GiveUp,
    }
}

/// Fetches a URL's bytes, reporting (bytes so far, total if known) as chunks arrive.
pub async fn fetch_bytes(url: &str, progress: impl FnMut(u64, Option<u64>)) -> Result<Vec<u8>, String> {
    fetch_bytes_until(url, None, progress).await
}

pub async fn fetch_text(url: &str) -> Result<String, String> {
    String::from_utf8(fetch_bytes(url, |_, _| {}).await?).map_err(|_| format!("{url} is not UTF-8"))
}

/// `fetch_bytes` that stops, with an error, once `signal` is aborted. A cut or stopped download
/// leaves its bytes for the next request for `url` (module comment).
pub async fn fetch_bytes_until(
    url: &str,
    signal: Option<&web_sys::AbortSignal>,
    mut progress: impl FnMut(u64, Option<u64>),
) -> Result<Vec<u8>, String> {
    // The caller shows the kept share itself from the start (`kept_share`), before its other files.
    let mut part = take_part(url);
    let (mut resumes, mut asked_again) = (0, false);
    let stopped = || signal.is_some_and(|s| s.aborted());
    loop {
        let had = part.as_ref().map_or(0, |p| p.bytes.len());
        let mut failed = match fetch_once(url, signal, part.take(), &mut progress).await {
            Ok(got) => {
                // Awaited before the model is built: the page asks the service worker to keep the
                // model once it has loaded, and the service worker then finds this copy.
                if got.resumed {
                    if let Err(e) = keep_for_offline(url, &got).await {
                        web_sys::console::warn_1(&JsValue::from_str(&format!("{url}: not kept for offline use: {e}")));
                    }
                }
                return Ok(got.bytes);
            }
            Err(failed) => failed,
        };
        match next_step(&failed, had, resumes, asked_again, stopped()) {
            Next::StartAgain => {
                asked_again = true;
                continue;
            }
            Next::Resume => {
                resumes += 1;
                sleep_ms(500 * resumes).await;
                if !stopped() {
                    part = failed.part;
                    continue;
                }
                failed.message = stop_message(url);
            }
            Next::GiveUp => {}
        }
        if !stopped() {
            failed.message += &resume_note(failed.part.as_ref());
        }
        if let Some(p) = failed.part {
            keep_part(url, p);
        }
        return Err(failed.message);
    }
}

fn stop_message(url: &str) -> String {
    format!("{url}: the download stopped, as no job needs it any more")
}

/// A whole file, and whether it was put together from a kept part and the rest.
struct Fetched {
    bytes: Vec<u8>,
    resumed: bool,
    kind: Option<String>,
    tag: Option<String>,
}

/// A try that did not bring the whole file: what it says, what came (with a tag to resume it by),
/// whether the connection failed (no answer, or cut on the way), and whether the file is to be
/// asked for again from its start.
struct Failed {
    message: String,
    part: Option<Part>,
    cut: bool,
    ask_again: bool,
}

impl Failed {
    fn said(message: String, part: Option<Part>) -> Self {
        Failed { message, part, cut: false, ask_again: false }
    }
}

/// One request for `url`: the rest of `part` if one is given, else the whole file.
async fn fetch_once(
    url: &str,
    signal: Option<&web_sys::AbortSignal>,
    part: Option<Part>,
    progress: &mut impl FnMut(u64, Option<u64>),
) -> Result<Fetched, Failed> {
    let init = js_sys::Object::new();
    let headers = js_sys::Object::new();
    let set = |o: &js_sys::Object, k: &str, v: &JsValue| {
        js_sys::Reflect::set(o, &JsValue::from_str(k), v).map(|_| ()).map_err(|e| Failed::said(js_error(e), None))
    };
    // The service worker's own download for this one, named so that it can be stopped too: Chromium
    // does not tell a service worker that the page gave up a fetch, and it fetched on for its cache.
    let download = format!("{:016x}", (js_sys::Math::random() * 9e15) as u64);
    if let Some(signal) = signal {
        set(&init, "signal", signal)?;
        set(&headers, DOWNLOAD_HEADER, &JsValue::from_str(&download))?;
    }
    let have = part.as_ref().map_or(0, |p| p.bytes.len() as u64);
    if let Some(p) = &part {
        set(&headers, "Range", &JsValue::from_str(&format!("bytes={have}-")))?;
        set(&headers, "If-Range", &JsValue::from_str(&p.tag))?;
    }
    set(&init, "headers", &headers)?;
    let cut = |received: Option<u64>, e: JsValue, part: Option<Part>| match signal {
        Some(s) if s.aborted() => {
            if let Ok(channel) = web_sys::BroadcastChannel::new(DOWNLOADS_CHANNEL) {
                let _ = channel.post_message(&JsValue::from_str(&download));
                channel.close();
            }
            Failed::said(stop_message(url), part)
        }
        _ => Failed { message: download_error(url, received, e), part, cut: true, ask_again: false },
    };
    let promise: js_sys::Promise = call_global("fetch", &js_sys::Array::of2(&JsValue::from_str(url), &init))
        .map_err(|e| Failed::said(e, None))?
        .into();
    let resp: web_sys::Response = match JsFuture::from(promise).await {
        Ok(resp) => resp.dyn_into().map_err(|e| Failed::said(js_error(e), None))?,
        Err(e) => return Err(cut(None, e, part)),
    };
    let header = |name: &str| resp.headers().get(name).ok().flatten();
    // Unread, an answer would stay open (and the service worker's stream with it).
    let drop_body = || {
        if let Some(body) = resp.body() {
            let _ = body.cancel();
        }
    };
    // None of the files fetched is a page: a network's sign-in page answers in their place.
    if header("content-type").is_some_and(|t| t.starts_with("text/html")) {
        drop_body();
        let message = format!("{url}: the server sent a web page instead of this file (a network's sign-in page?)");
        return Err(Failed::said(message, part));
    }
    let (expected, encoded) = (part.as_ref().and_then(|p| p.total), header("content-encoding").is_some());
    let answered = answer(resp.status(), have, expected, header("content-range").as_deref(), encoded);
    // A 206 that names no tag of its own goes on under the part's.
    let part_tag = part.as_ref().map(|p| p.tag.clone());
    let (mut bytes, total) = match answered {
        Answer::Refused(status) => {
            drop_body();
            // A server's passing trouble leaves what came for the next try; a missing file does not.
            let part = part.filter(|_| status >= 500 || status == 408 || status == 429);
            return Err(Failed::said(format!("{url}: {}", http_problem(status)), part));
        }
        Answer::AskAgain => {
            drop_body();
            let message = format!("{url}: the server did not send the rest of the file");
            return Err(Failed { message, part: None, cut: false, ask_again: true });
        }
        Answer::Rest { total } => (part.map(|p| p.bytes).unwrap_or_default(), Some(total)),
        // With Content-Encoding the length counts compressed bytes while the reader yields decoded
        // ones; `wgslate serve` then names the decoded length.
        Answer::Whole => {
            let length = if encoded { "x-decoded-length" } else { "content-length" };
            (Vec::new(), header(length).and_then(|v| v.parse::<u64>().ok()))
        }
    };
    let resumed = !bytes.is_empty();
    let tag = resume_tag(header("etag")).or(part_tag.filter(|_| resumed));
    let Some(body) = resp.body() else {
        return Err(Failed::said(format!("{url}: empty response"), None));
    };
    let reader: web_sys::ReadableStreamDefaultReader =
        body.get_reader().dyn_into().map_err(|_| Failed::said(format!("{url}: cannot read the response"), None))?;
    bytes.reserve(total.unwrap_or(0).saturating_sub(bytes.len() as u64).min(MAX_RESERVE) as usize);
    loop {
        let chunk = match JsFuture::from(reader.read()).await {
            Ok(chunk) => chunk,
            Err(e) => {
                let received = bytes.len() as u64;
                let part = tag.clone().map(|tag| Part { bytes, tag, total });
                return Err(cut(Some(received), e, part));
            }
        };
        let field = |name: &str| js_sys::Reflect::get(&chunk, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED);
        if field("done").as_bool().unwrap_or(true) {
            break;
        }
        bytes.extend(js_sys::Uint8Array::new(&field("value")).to_vec());
        progress(bytes.len() as u64, total);
    }
    // An answer that ends short of the length it named was cut too (and is not a model to build).
    let received = bytes.len() as u64;
    match total {
        Some(t) if received < t => {
            let part = tag.map(|tag| Part { bytes, tag, total });
            Err(cut(Some(received), JsValue::from_str("the answer ended early"), part))
        }
        Some(t) if received > t => Err(Failed {
            message: format!("{url}: the server sent more than the {t} bytes it said the file has"),
            part: None,
            cut: false,
            ask_again: true,
        }),
        _ => Ok(Fetched { bytes, resumed, kind: header("content-type"), tag }),
    }
}

/// Puts a file put together from a resumed download in the service worker's cache. The service
/// worker keeps whole answers only (a 206 cannot be cached), and would download the whole file again
/// when the page asks it to keep the model. Only into a cache it has made: there is none without it.
async fn keep_for_offline(url: &str, got: &Fetched) -> Result<(), String> {
    let caches = global_property("caches");
    if caches.is_undefined() || caches.is_null() {
        return Ok(());
    }
    let caches: web_sys::CacheStorage = caches.unchecked_into();
    if JsFuture::from(caches.has(offline_models::CACHE)).await.map_err(js_error)?.as_bool() != Some(true) {
        return Ok(());
    }
    let cache: web_sys::Cache =
        JsFuture::from(caches.open(offline_models::CACHE)).await.map_err(js_error)?.unchecked_into();
    let headers = web_sys::Headers::new().map_err(js_error)?;
    let length = got.bytes.len().to_string();
    let named =
        [("Content-Type", got.kind.as_deref()), ("Content-Length", Some(&length)), ("ETag", got.tag.as_deref())];
    for (name, value) in named {
        if let Some(value) = value {
            headers.set(name, value).map_err(js_error)?;
        }
    }
    let init = web_sys::ResponseInit::new();
    init.set_headers_headers(&headers);
    let body = js_sys::Uint8Array::from(&got.bytes[..]);
    let response = web_sys::Response::new_with_opt_js_u8_array_and_init(Some(&body), &init).map_err(js_error)?;
    JsFuture::from(cache.put_with_str(url, &response)).await.map_err(js_error)?;
    if url.starts_with("models/") {
        offline_models::tell_kept();
    }
    Ok(())
}

/// What an HTTP error status means for a file the page needs.
fn http_problem(status: u16) -> String {
    match status {
        404 | 410 => format!("the server has no such file (HTTP {status})"),
        500..=599 => format!("the server had a problem (HTTP {status}); try again later"),
        _ => format!("the server refused it (HTTP {status})"),
    }
}

/// A download that failed on the way (no answer, or the connection dropped mid-file after
/// `received` bytes), naming the file; offline, it says so, since only files kept for offline use
/// load then. The browser's own words ("Failed to fetch", "network error") tell the user nothing
/// more: they go to the console.
fn download_error(url: &str, received: Option<u64>, e: JsValue) -> String {
    web_sys::console::warn_1(&JsValue::from_str(&format!("{url}: {}", js_error(e))));
    if !online() {
        // A model's file names the model: that is what the user chose and can keep.
        let model = url.strip_prefix("models/").and_then(|p| p.rsplit_once('/')).map(|(m, _)| m);
        return match model {
            Some(m) => {
                format!("you are offline, and {m} is not kept for offline use (no {url}): reconnect and try again")
            }
            None => {
                format!("{url}: you are offline and this file is not kept for offline use; reconnect and try again")
            }
        };
    }
    let how = match received {
        None => "no answer from the server".to_string(),
        Some(n) => format!("the connection dropped after {}", size(n)),
    };
    format!("{url}: {DOWNLOAD_FAILED} ({how}); check the connection and try again")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_errors_say_whose_problem_they_are() {
        assert_eq!(http_problem(404), "the server has no such file (HTTP 404)");
        assert_eq!(http_problem(503), "the server had a problem (HTTP 503); try again later");
        assert_eq!(http_problem(403), "the server refused it (HTTP 403)");
    }

    #[test]
    fn an_answer_continues_what_is_here_only_from_its_first_missing_byte() {
        let plain = |status, have, range| answer(status, have, None, range, false);
        assert_eq!(plain(200, 0, None), Answer::Whole);
        // A server that ignores the range (or whose file changed: If-Range) sends it all.
        assert_eq!(plain(200, 500, None), Answer::Whole);
        assert_eq!(plain(206, 500, Some("bytes 500-999/1000")), Answer::Rest { total: 1000 });
        assert_eq!(plain(206, 500, Some("BYTES 500-999/1000")), Answer::Rest { total: 1000 });
        for other in [
            "bytes 0-999/1000",
            "bytes 400-999/1000",
            "bytes 500-999/*",
            "bytes */1000",
            "items 500-999/1000",
            "bytes 500-1000/1000",
            "nonsense",
        ] {
            assert_eq!(plain(206, 500, Some(other)), Answer::AskAgain, "{other}");
        }
        assert_eq!(plain(206, 500, None), Answer::AskAgain);
        // The rest of another length than the first answer named, or of compressed bytes.
        assert_eq!(answer(206, 500, Some(1000), Some("bytes 500-999/1000"), false), Answer::Rest { total: 1000 });
        assert_eq!(answer(206, 500, Some(1200), Some("bytes 500-999/1000"), false), Answer::AskAgain);
        assert_eq!(answer(206, 500, None, Some("bytes 500-999/1000"), true), Answer::AskAgain);
        // The file is now no longer than what is here.
        assert_eq!(plain(416, 500, Some("bytes */500")), Answer::AskAgain);
        assert_eq!(plain(416, 0, None), Answer::Refused(416));
        assert_eq!(plain(206, 0, Some("bytes 0-9/10")), Answer::Refused(206));
        assert_eq!(plain(404, 500, None), Answer::Refused(404));
        assert_eq!(plain(304, 0, None), Answer::Refused(304));
    }

    #[test]
    fn only_a_strong_etag_can_ask_for_the_rest() {
        assert_eq!(resume_tag(Some("\"abc-gz\"".into())).as_deref(), Some("\"abc-gz\""));
        for weak in ["W/\"abc\"", "abc", "\"", ""] {
            assert_eq!(resume_tag(Some(weak.into())), None, "{weak}");
        }
        assert_eq!(resume_tag(None), None);
    }

    fn part(n: usize, total: Option<u64>) -> Part {
        Part { bytes: vec![0; n], tag: "\"t\"".into(), total }
    }

    #[test]
    fn a_failure_says_what_was_kept() {
        let note = resume_note(Some(&part(1_234_567, Some(3_600_000))));
        assert_eq!(note, " (1.2 MB of 3.6 MB kept in this tab: trying again goes on from there)");
        assert_eq!(resume_note(Some(&part(5_000, None))), " (5 kB kept in this tab: trying again goes on from there)");
        assert_eq!(
            resume_note(Some(&part(700, None))),
            " (700 bytes kept in this tab: trying again goes on from there)"
        );
        assert_eq!(resume_note(None), "");
    }

    #[test]
    fn a_cut_is_resumed_only_while_each_try_brings_more() {
        let cut = |n| Failed { message: String::new(), part: Some(part(n, None)), cut: true, ask_again: false };
        assert_eq!(next_step(&cut(100), 0, 0, false, false), Next::Resume);
        assert_eq!(next_step(&cut(100), 100, 0, false, false), Next::GiveUp, "nothing more came");
        assert_eq!(next_step(&cut(200), 100, RESUMES - 1, false, false), Next::Resume);
        assert_eq!(next_step(&cut(200), 100, RESUMES, false, false), Next::GiveUp, "tries used up");
        assert_eq!(next_step(&cut(100), 0, 0, false, true), Next::GiveUp, "stopped");
        // Without a tag nothing is kept, so nothing can be resumed.
        let untagged = Failed { part: None, ..cut(0) };
        assert_eq!(next_step(&untagged, 0, 0, false, false), Next::GiveUp);
        let again = Failed { message: String::new(), part: None, cut: false, ask_again: true };
        assert_eq!(next_step(&again, 100, 0, false, false), Next::StartAgain);
        assert_eq!(next_step(&again, 0, 0, true, false), Next::GiveUp, "the whole file is asked for once");
        assert_eq!(next_step(&again, 100, 0, false, true), Next::GiveUp);
        // An answer that is not a cut (a 404, a sign-in page) is reported at once.
        let said = Failed::said("x".into(), Some(part(100, None)));
        assert_eq!(next_step(&said, 0, 0, false, false), Next::GiveUp);
    }
}

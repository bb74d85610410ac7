//! Small helpers over browser APIs: yielding to the event loop, reading dropped or picked files.

use crate::engine_jobs::{adapter_name, is_software_adapter};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// A property of the global object (the window in the page, the scope in a worker).
pub fn global_property(name: &str) -> JsValue {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

/// Calls the global `name` function (`fetch`, `setTimeout`) with `args`, in the page or a worker.
pub fn call_global(name: &str, args: &js_sys::Array) -> Result<JsValue, String> {
    let f: js_sys::Function = global_property(name).dyn_into().map_err(|_| format!("no {name} here"))?;
    f.apply(&js_sys::global(), args).map_err(js_error)
}

/// Lets the browser paint and handle input (or a worker its messages) before the next chunk of work.
pub async fn yield_now() {
    sleep_ms(0).await;
}

pub fn js_error(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

/// Reads a file as UTF-8 text (the browser replaces invalid bytes with U+FFFD; we refuse such files).
pub async fn read_file(file: &web_sys::File) -> Result<String, String> {
    let buf = JsFuture::from(file.array_buffer()).await.map_err(js_error)?;
    let bytes = js_sys::Uint8Array::new(&buf).to_vec();
    let name = file.name();
    // UTF-16 English is valid UTF-8 (every other byte NUL): without a byte order mark it would be read.
    if wgslate_metrics::utf16_without_bom(&bytes) {
        return Err(format!("{} and open it again", wgslate_metrics::utf16_without_bom_message(&name)));
    }
    // A byte order mark stays: sacreBLEU (and so the BLEU view) counts it as part of the first line.
    wgslate_metrics::utf8_text(&name, bytes).map_err(|e| match e.contains("UTF-16") {
        true => e,
        false => format!("{e}; save it as UTF-8 and open it again"),
    })
}

/// Whether the page (or worker) runs in a secure context: https, or http from this machine. Elsewhere
/// browsers hide the Cache API, the clipboard and WebGPU.
pub fn secure_context() -> bool {
    global_property("isSecureContext").as_bool().unwrap_or(true)
}

/// Why offline copies, Copy and WebGPU are missing on a page served over plain http from another machine.
pub const INSECURE: &str =
    "this page is served over plain http from another machine; browsers allow that only on https or localhost";

/// The file of a drop event: None when no file was dropped (then the event is left alone, so dragged
/// text still lands in a textarea as the browser puts it there), an error when several were.
pub fn dropped_file(ev: &web_sys::DragEvent) -> Option<Result<web_sys::File, String>> {
    let files = ev.data_transfer()?.files()?;
    let first = files.get(0)?;
    ev.prevent_default();
    Some(match files.length() {
        1 => Ok(first),
        n => Err(format!("{n} files were dropped; drop one at a time (nothing was loaded).")),
    })
}

/// Whether a drag carries files (during dragover only their kind is known, not the files).
pub fn drags_files(ev: &web_sys::DragEvent) -> bool {
    ev.data_transfer().is_some_and(|dt| dt.types().iter().any(|t| t.as_string().as_deref() == Some("Files")))
}

/// The first file picked in an `<input type=file>`.
/// The input is emptied once its file is taken: the browser fires no change for a file picked again
/// while it is still the input's value, so picking the same file after a Stop or with other settings
/// would do nothing.
pub fn picked_file(ev: &web_sys::Event) -> Option<web_sys::File> {
    let input = ev.target()?.dyn_into::<web_sys::HtmlInputElement>().ok()?;
    let file = input.files()?.get(0);
    input.set_value("");
    file
}

/// Scrolls the page the least that shows the band from `top` to `bottom` (in viewport pixels)
/// below the `covered` pixels at the top of the screen (a sticky line); it stays put when in view.
pub fn scroll_page_to_show(top: f64, bottom: f64, covered: f64) {
    let Some(window) = web_sys::window() else { return };
    let height = window.inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(0.0);
    if top < covered {
        window.scroll_by_with_x_and_y(0.0, top - covered);
    } else if bottom > height {
        window.scroll_by_with_x_and_y(0.0, bottom - height);
    }
}

/// Scrolls the page to the first element `selector` names when it lies off the screen (wholly
/// above it, or starting in its last 40 px or below): on a phone a result can appear a screen or
/// more away from the button that asked for it, and nothing on screen changed.
pub fn reveal(selector: &str) {
    let Some(window) = web_sys::window() else { return };
    let Some(element) = window.document().and_then(|d| d.query_selector(selector).ok().flatten()) else { return };
    let Some(height) = window.inner_height().ok().and_then(|h| h.as_f64()) else { return };
    let rect = element.get_bounding_client_rect();
    if rect.bottom() < 0.0 || rect.top() > height - 40.0 {
        element.scroll_into_view_with_bool(true);
    }
}

/// The tab's sessionStorage item `key`, if there is one (none where storage is blocked).
pub fn session_get(key: &str) -> Option<String> {
    web_sys::window()?.session_storage().ok()??.get_item(key).ok()?
}

/// Stores `value` under `key` in the tab's sessionStorage; false where it does not fit or storage is blocked.
pub fn session_set(key: &str, value: &str) -> bool {
    web_sys::window().and_then(|w| w.session_storage().ok().flatten()).is_some_and(|s| s.set_item(key, value).is_ok())
}

pub fn session_remove(key: &str) {
    if let Some(s) = web_sys::window().and_then(|w| w.session_storage().ok().flatten()) {
        let _ = s.remove_item(key);
    }
}

pub fn set_title(title: &str) {
    if let Some(d) = web_sys::window().and_then(|w| w.document()) {
        d.set_title(title);
    }
}

pub fn location_hash() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

/// The URL's query before the hash (`?text=…`), or "".
pub fn location_search() -> String {
    web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default()
}

/// Replaces the query before the hash (`search`: "" or `?…`) without a history entry: the page's
/// state is written after the "#", and a second copy before it would be stale at once.
pub fn set_location_search(search: &str) {
    if let Some(w) = web_sys::window() {
        let (path, hash) = (w.location().pathname().unwrap_or_default(), location_hash());
        if let Ok(h) = w.history() {
            let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&format!("{path}{search}{hash}")));
        }
    }
}

/// Replaces the URL's hash without a history entry (and without a `hashchange` event).
pub fn set_location_hash(hash: &str) {
    if let Some(w) = web_sys::window() {
        if let Ok(h) = w.history() {
            let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(hash));
        }
    }
}

/// Sets the URL's hash as a new history entry, so Back returns to the one before.
pub fn push_location_hash(hash: &str) {
    if let Some(w) = web_sys::window() {
        if let Ok(h) = w.history() {
            let _ = h.push_state_with_url(&JsValue::NULL, "", Some(hash));
        }
    }
}

/// False when the browser knows it has no network (`navigator.onLine`; a true is no promise).
pub fn online() -> bool {
    let navigator = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("navigator")).ok();
    let online = navigator.and_then(|n| js_sys::Reflect::get(&n, &JsValue::from_str("onLine")).ok());
    online.and_then(|v| v.as_bool()) != Some(false)
}

/// The browser's default WebGPU adapter, as the page names and judges it.
pub struct WebGpuAdapter {
    /// `isFallbackAdapter`: a software implementation (SwiftShader), far slower than the CPU engine.
    pub fallback: bool,
    /// For the backend label (`engine_jobs::adapter_name`).
    pub name: String,
}

/// `navigator[name]`, or why the page lacks it: `missing` in a secure context, else the insecure origin
/// (browsers hide these APIs there).
fn navigator_api(name: &str, missing: &str) -> Result<JsValue, String> {
    let api = js_sys::Reflect::get(&global_property("navigator"), &JsValue::from_str(name)).map_err(js_error)?;
    match (api.is_undefined() || api.is_null(), secure_context()) {
        (false, _) => Ok(api),
        (true, true) => Err(missing.into()),
        (true, false) => Err(INSECURE.into()),
    }
}

/// The default WebGPU adapter's kind, or why WebGPU cannot be used here.
pub async fn webgpu_adapter() -> Result<WebGpuAdapter, String> {
    let gpu = navigator_api("gpu", "this browser has no WebGPU (navigator.gpu is missing)")?;
    let request = js_sys::Reflect::get(&gpu, &JsValue::from_str("requestAdapter"))
        .map_err(js_error)?
        .dyn_into::<js_sys::Function>()
        .map_err(js_error)?;
    let promise = js_sys::Promise::from(
        request.call0(&gpu).map_err(|e| format!("requesting a WebGPU adapter failed: {}", js_error(e)))?,
    );
    let adapter =
        JsFuture::from(promise).await.map_err(|e| format!("requesting a WebGPU adapter failed: {}", js_error(e)))?;
    if adapter.is_null() || adapter.is_undefined() {
        return Err("no WebGPU adapter was found".into());
    }
    // `adapter.info.isFallbackAdapter` in current browsers, `adapter.isFallbackAdapter` before.
    let flag = |obj: &JsValue| {
        js_sys::Reflect::get(obj, &JsValue::from_str("isFallbackAdapter")).ok().and_then(|v| v.as_bool())
    };
    let info = js_sys::Reflect::get(&adapter, &JsValue::from_str("info")).unwrap_or(JsValue::UNDEFINED);
    let text = |key: &str| {
        js_sys::Reflect::get(&info, &JsValue::from_str(key)).ok().and_then(|v| v.as_string()).unwrap_or_default()
    };
    let fields = ["description", "vendor", "architecture", "device"].map(text);
    let name = adapter_name(&fields[0], &fields[1], &fields[2], &fields[3]);
    let fallback = flag(&info).or_else(|| flag(&adapter)).unwrap_or(false) || is_software_adapter(&fields.join(" "));
    Ok(WebGpuAdapter { fallback, name })
}

/// Moves the keyboard focus to the element with this `data-testid`, if there is one.
pub fn focus_testid(testid: &str) {
    focus(&format!("[data-testid=\"{testid}\"]"));
}

/// Moves the keyboard focus to the first element `selector` names, if there is one.
pub fn focus(selector: &str) {
    let element = web_sys::window().and_then(|w| w.document()).and_then(|d| d.query_selector(selector).ok().flatten());
    if let Some(e) = element.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = e.focus();
    }
}

fn active_element() -> Option<web_sys::Element> {
    web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element())
}

/// Whether the keyboard focus is nowhere (on the page itself): the element that held it has gone.
pub fn focus_lost() -> bool {
    active_element().is_none_or(|a| a.tag_name() == "BODY")
}

/// Whether the keyboard focus is inside the first element `selector` names: a part of the page
/// about to be drawn again would take the focus with it, to the top of the page.
pub fn focus_within(selector: &str) -> bool {
    let area = web_sys::window().and_then(|w| w.document()).and_then(|d| d.query_selector(selector).ok().flatten());
    area.zip(active_element()).is_some_and(|(area, active)| area.contains(Some(&active)))
}

/// Asks the user `question` in the browser's own dialog; false when declined (or no dialog can be shown).
pub fn confirm(question: &str) -> bool {
    web_sys::window().and_then(|w| w.confirm_with_message(question).ok()).unwrap_or(false)
}

thread_local! {
    /// Set by `reload_soon`: the reload was asked for (and a long job's end agreed to).
    static LEAVING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the page is being reloaded on purpose (`reload_soon`), so the leave warning keeps quiet.
pub fn leaving_on_purpose() -> bool {
    LEAVING.with(std::cell::Cell::get)
}

/// Reloads the page (after the current task, so pending URL updates land first).
pub fn reload_soon() {
    LEAVING.with(|l| l.set(true));
    wasm_bindgen_futures::spawn_local(async {
        sleep_ms(50).await;
        if let Some(w) = web_sys::window() {
            let _ = w.location().reload();
        }
    });
}

/// Puts `text` on the clipboard, or says why it could not.
pub async fn copy_to_clipboard(text: &str) -> Result<(), String> {
    let clipboard = navigator_api("clipboard", "this browser offers no clipboard to the page")?;
    let clipboard: web_sys::Clipboard = clipboard.unchecked_into();
    JsFuture::from(clipboard.write_text(text)).await.map(|_| ()).map_err(js_error)
}

pub async fn sleep_ms(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = call_global("setTimeout", &js_sys::Array::of2(&resolve, &JsValue::from(ms)));
    });
    let _ = JsFuture::from(promise).await;
}

pub fn now_ms() -> f64 {
    global_property("performance").dyn_into::<web_sys::Performance>().map(|p| p.now()).unwrap_or(0.0)
}

/// Offers `blob` as a download named `name`.
pub fn download(name: &str, blob: &web_sys::Blob) {
    let Ok(url) = web_sys::Url::create_object_url_with_blob(blob) else { return };
    if let Some(a) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("a").ok())
        .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    {
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
}

/// Offers `text` as a download of type `mime` named `name`.
pub fn download_text(name: &str, text: &str, mime: &str) {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    if let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) {
        download(name, &blob);
    }
}

/// The value of `attribute` on the event's target or its nearest ancestor that has it.
pub fn closest_data(ev: &web_sys::Event, attribute: &str) -> Option<String> {
    let target: web_sys::Element = ev.target()?.dyn_into().ok()?;
    target.closest(&format!("[{attribute}]")).ok()??.get_attribute(attribute)
}

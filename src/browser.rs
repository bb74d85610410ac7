//! Small helpers over browser APIs: yielding to the event loop, reading dropped or picked files.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Lets the browser paint and handle input before the next chunk of work.
pub async fn yield_now() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        }
    });
    let _ = JsFuture::from(promise).await;
}

pub fn js_error(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).or_else(|| e.as_string()).unwrap_or_else(|| format!("{e:?}"))
}

/// Reads a file as UTF-8 text (the browser replaces invalid bytes with U+FFFD; we refuse such files).
pub async fn read_file(file: &web_sys::File) -> Result<String, String> {
    let buf = JsFuture::from(file.array_buffer()).await.map_err(js_error)?;
    let bytes = js_sys::Uint8Array::new(&buf).to_vec();
    String::from_utf8(bytes).map_err(|e| format!("{} is not UTF-8 text (invalid byte at offset {})", file.name(), e.utf8_error().valid_up_to()))
}

/// The first file of a drop event, if any.
pub fn dropped_file(ev: &web_sys::DragEvent) -> Option<web_sys::File> {
    ev.data_transfer()?.files()?.get(0)
}

/// The first file picked in an `<input type=file>`.
pub fn picked_file(ev: &web_sys::Event) -> Option<web_sys::File> {
    ev.target()?.dyn_into::<web_sys::HtmlInputElement>().ok()?.files()?.get(0)
}


pub fn location_hash() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

pub fn set_location_hash(hash: &str) {
    if let Some(w) = web_sys::window() {
        if let Ok(h) = w.history() {
            let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(hash));
        }
    }
}

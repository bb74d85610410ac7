//! The translation settings in the page's URL: decoding and encoding the query around the checks
//! in `wgslate_decode::settings`.

pub use wgslate_decode::Settings;

/// Settings and text from a `key=value&…` query, and a message per value refused.
pub fn from_query(query: &str) -> (Settings, String, Vec<String>) {
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(query) else {
        return (Settings::default(), String::new(), vec![]);
    };
    let pairs: Vec<(String, String)> = js_sys::try_iter(&params)
        .ok()
        .flatten()
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let pair: js_sys::Array = entry.ok()?.into();
            Some((pair.get(0).as_string()?, pair.get(1).as_string()?))
        })
        .collect();
    Settings::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
}

/// `key=value&…` for the URL: the settings that differ from the defaults, then the text.
pub fn to_query(settings: &Settings, text: &str) -> String {
    // An empty URLSearchParams cannot fail to construct in a page (it only needs the global).
    let p = web_sys::UrlSearchParams::new().expect("URLSearchParams");
    for (k, v) in settings.to_pairs() {
        p.append(k, &v);
    }
    if !text.is_empty() {
        p.append("text", text);
    }
    String::from(p.to_string())
}

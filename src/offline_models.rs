//! "Available offline": the models the service worker (www/sw.js) keeps in the Cache API, each with
//! its size and a button that removes its files.

use std::cell::RefCell;
use std::collections::HashSet;

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::prelude::{Closure, JsValue};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wgslate_model::catalog::CatalogEntry;

use crate::browser::{self, js_error};

/// The Cache API cache www/sw.js writes (and `download` puts a resumed download in).
pub const CACHE: &str = "wgslate";
const FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];
/// Where a tab's Remove tells the page's other tabs to look at the cache again.
const CHANGED_CHANNEL: &str = "wgslate-offline";

/// Tells the pages that a file was kept (they list the kept models anew), as www/sw.js does.
pub fn tell_kept() {
    if let Ok(channel) = web_sys::BroadcastChannel::new(CHANGED_CHANNEL) {
        let _ = channel.post_message(&JsValue::from_str("kept"));
        channel.close();
    }
}

thread_local! {
    /// The models this page asked the service worker to keep.
    static ASKED: RefCell<HashSet<String>> = RefCell::new(HashSet::new());
}

/// Asks the service worker to keep `models`' files, once per model and page: the worker keeps what
/// passes through it, and the page hands it the downloads it saw itself, but a model the engine
/// worker downloaded before the service worker took over passed through neither, so it was never
/// kept (and a reload without a network failed). The service worker skips the files it holds.
pub fn keep(models: &[String]) {
    let new: Vec<String> =
        models.iter().filter(|m| ASKED.with(|a| a.borrow_mut().insert(m.to_string()))).cloned().collect();
    if new.is_empty() || !browser::secure_context() {
        return;
    }
    spawn_local(async move {
        if let Err(e) = ask_to_keep(&new).await {
            web_sys::console::warn_1(&format!("could not ask to keep {} for offline use: {e}", new.join(", ")).into());
        }
    });
}

async fn ask_to_keep(models: &[String]) -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    let base = window.location().href().map_err(js_error)?;
    let urls = js_sys::Array::new();
    for f in models.iter().flat_map(|m| FILES.map(|f| format!("models/{m}/{f}"))) {
        urls.push(&web_sys::Url::new_with_base(&f, &base).map_err(js_error)?.href().into());
    }
    // Waits while the service worker installs (on a first visit); never settles where none registers.
    let ready = window.navigator().service_worker().ready().map_err(js_error)?;
    let registration: web_sys::ServiceWorkerRegistration =
        JsFuture::from(ready).await.map_err(js_error)?.unchecked_into();
    let Some(active) = registration.active() else { return Ok(()) };
    let message = js_sys::Object::new();
    js_sys::Reflect::set(&message, &"type".into(), &"keep".into()).map_err(js_error)?;
    js_sys::Reflect::set(&message, &"urls".into(), &urls).map_err(js_error)?;
    active.post_message(&message).map_err(js_error)
}

async fn open_cache() -> Result<web_sys::Cache, String> {
    // Hidden (undefined, not an error to catch) outside a secure context.
    if !browser::secure_context() {
        return Err(browser::INSECURE.into());
    }
    let caches = web_sys::window().ok_or("no window")?.caches().map_err(js_error)?;
    JsFuture::from(caches.open(CACHE)).await.map_err(js_error)?.dyn_into().map_err(js_error)
}

/// The models whose files are in the cache (a model with its weights there), and the ensembles
/// all of whose members are.
async fn kept(entries: &[CatalogEntry]) -> Result<Vec<CatalogEntry>, String> {
    let cache = open_cache().await?;
    let mut stored = HashSet::new();
    for e in entries.iter().filter(|e| e.members.is_empty()) {
        let url = format!("models/{}/model.safetensors", e.name());
        if !JsFuture::from(cache.match_with_str(&url)).await.map_err(js_error)?.is_undefined() {
            stored.insert(e.name());
        }
    }
    Ok(entries.iter().filter(|e| e.model_names().iter().all(|m| stored.contains(m))).cloned().collect())
}

/// Deletes a model's files; an ensemble's are its members'.
async fn remove(entry: &CatalogEntry) -> Result<(), String> {
    let cache = open_cache().await?;
    for name in entry.model_names() {
        for f in FILES {
            JsFuture::from(cache.delete_with_str(&format!("models/{name}/{f}"))).await.map_err(js_error)?;
        }
    }
    Ok(())
}

/// The other kept entries that lose files when `entry`'s are removed: the ensembles a model is
/// part of, or for an ensemble the other ensembles that share a member with it.
fn also_removed(entry: &CatalogEntry, kept: &[CatalogEntry]) -> Vec<String> {
    let files = entry.model_names();
    kept.iter()
        .filter(|k| k.name() != entry.name() && !k.members.is_empty())
        .filter(|k| k.model_names().iter().any(|m| files.contains(m)))
        .map(CatalogEntry::name)
        .collect()
}

/// "A", "A and B", "A, B and C".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// A kept row's text: direction and label, and what its Remove also takes off the list. An
/// ensemble has no files of its own: it names its members (by title) instead of a size.
fn row_text(entry: &CatalogEntry, kept: &[CatalogEntry]) -> String {
    let title =
        |name: &String| kept.iter().find(|k| &k.name() == name).map_or_else(|| name.clone(), |k| k.title.clone());
    let others: Vec<String> = also_removed(entry, kept).iter().map(title).collect();
    let head = format!("{} → {}", entry.source(), entry.target());
    if entry.members.is_empty() {
        let part_of = match others.is_empty() {
            true => String::new(),
            false => format!(" (part of {})", and_list(&others)),
        };
        return format!("{head} · {}{part_of}", entry.label());
    }
    let members: Vec<String> = entry.model_names().iter().map(title).collect();
    let also = match others.is_empty() {
        true => String::new(),
        false => format!("; removing it also removes {}", and_list(&others)),
    };
    format!("{head} · {} · made of {}, whose files it uses{also}", entry.title, and_list(&members))
}

#[component]
pub fn OfflineModels(
    entries: RwSignal<Vec<CatalogEntry>>,
    model_status: RwSignal<String>,
    /// The kept models, which this view finds (the model picker marks them).
    list: RwSignal<Vec<CatalogEntry>>,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let secure = browser::secure_context();
    let refresh = move || {
        if !secure {
            return;
        }
        spawn_local(async move {
            match kept(&entries.get_untracked()).await {
                Ok(k) => {
                    error.set(None);
                    // The model picker redraws on a change only.
                    if list.with_untracked(|l| *l != k) {
                        list.set(k);
                    }
                }
                Err(e) => error.set(Some(format!("The offline copies cannot be read: {e}"))),
            }
        })
    };
    // Another tab's Remove changes the same cache, and the service worker keeps a model's files
    // after the model loaded: each says so on this channel.
    let channel = web_sys::BroadcastChannel::new(CHANGED_CHANNEL).ok();
    if let Some(c) = &channel {
        let on_message = Closure::<dyn FnMut()>::new(refresh);
        c.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        on_message.forget();
    }
    let channel = StoredValue::new_local(channel);
    on_cleanup(move || {
        if let Some(c) = channel.get_value() {
            c.close();
        }
    });
    // A model loaded from files kept earlier is news too. A Memo, so the download's progress events
    // (which set the same status again) rescan nothing.
    let status = Memo::new(move |_| model_status.get());
    Effect::new(move |_| {
        entries.track();
        status.track();
        refresh();
    });
    view! {
        <details class="offline" data-testid="offline-models" on:toggle=move |_| refresh()>
            <summary>"Available offline"</summary>
            {match secure {
                true => view! { <p class="hint">"Each model you use is kept in this browser, so the page translates without a network after the first visit."</p> }.into_any(),
                false => view! { <p class="hint" data-testid="offline-insecure">{format!("Nothing can be kept for offline use: {}.", browser::INSECURE)}</p> }.into_any(),
            }}
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            {move || {
                if !secure {
                    return ().into_any();
                }
                let kept = list.get();
                if kept.is_empty() {
                    return view! { <p data-testid="offline-none">"No model is kept yet."</p> }.into_any();
                }
                view! {
                    <ul>
                        {kept.iter().map(|e| {
                            let name = e.name();
                            let testid = format!("offline-remove-{name}");
                            let label = row_text(e, &kept);
                            let aria = match e.members.is_empty() {
                                true => format!("Remove {name} from this browser"),
                                false => format!("Remove {name} and its {} models from this browser", e.members.len()),
                            };
                            let entry = e.clone();
                            view! {
                                <li data-testid="offline-model" data-model=e.name()>
                                    {label}" "
                                    <button data-testid=testid aria-label=aria on:click=move |_| {
                                        let entry = entry.clone();
                                        spawn_local(async move {
                                            if let Err(e) = remove(&entry).await {
                                                error.set(Some(format!("Could not remove {}: {e}", entry.name())));
                                            }
                                            if let Some(c) = channel.get_value() {
                                                let _ = c.post_message(&"removed".into());
                                            }
                                            refresh();
                                        });
                                    }>"Remove"</button>
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                }.into_any()
            }}
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(arch: &str, members: &[&str]) -> CatalogEntry {
        CatalogEntry {
            pair: "en-de".into(),
            arch: arch.into(),
            title: arch.into(),
            bytes: 1,
            test_bleu: 1.0,
            members: members.iter().map(|m| m.to_string()).collect(),
        }
    }

    #[test]
    fn a_row_names_the_ensembles_its_remove_takes_off_the_list() {
        let kept =
            [entry("a", &[]), entry("b", &[]), entry("c", &[]), entry("e2", &["a", "b"]), entry("e3", &["a", "c"])];
        assert_eq!(row_text(&kept[0], &kept), "en → de · a · 0.0 MB · test BLEU 1.0 (part of e2 and e3)");
        assert_eq!(row_text(&kept[1], &kept), "en → de · b · 0.0 MB · test BLEU 1.0 (part of e2)");
        assert_eq!(
            row_text(&kept[3], &kept),
            "en → de · e2 · made of a and b, whose files it uses; removing it also removes e3"
        );
        assert_eq!(row_text(&kept[2], &kept[..3]), "en → de · c · 0.0 MB · test BLEU 1.0");
        assert_eq!(and_list(&["x".into(), "y".into(), "z".into()]), "x, y and z");
    }
}

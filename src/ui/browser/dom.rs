//! Values out of DOM events and elements: input text, checkboxes, picked
//! or dropped files, the URL hash, globals the browser tests read.

use wasm_bindgen::{JsCast, JsValue};

/// The `value` of the event's input, select or textarea.
pub fn target_value(ev: &web_sys::Event) -> String {
    ev.target()
        .and_then(|t| js_sys::Reflect::get(&t, &"value".into()).ok())
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

/// Whether the event's checkbox is checked.
pub fn target_checked(ev: &web_sys::Event) -> bool {
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        .is_some_and(|i| i.checked())
}

/// The files picked in the event's `<input type=file>`, and the input (to
/// clear it, so picking the same file again fires again).
pub fn picked_files(
    ev: &web_sys::Event,
) -> (Option<web_sys::HtmlInputElement>, Vec<web_sys::File>) {
    let input = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
    let files =
        input.as_ref().and_then(|i| i.files()).map(|list| file_list(&list)).unwrap_or_default();
    (input, files)
}

/// A node for a file input that picks a folder: `webkitdirectory`, which
/// the view macro does not know, is set on the element once it is mounted.
pub fn folder_picker() -> leptos::prelude::NodeRef<leptos::html::Input> {
    use leptos::prelude::{Effect, Get};
    let node = leptos::prelude::NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(el) = node.get() {
            let _ = el.set_attribute("webkitdirectory", "");
        }
    });
    node
}

/// The files of a drop.
pub fn dropped_files(ev: &web_sys::DragEvent) -> Vec<web_sys::File> {
    ev.data_transfer().and_then(|d| d.files()).map(|l| file_list(&l)).unwrap_or_default()
}

fn file_list(list: &web_sys::FileList) -> Vec<web_sys::File> {
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// A picked file's path inside the picked folder (`webkitRelativePath`,
/// which web-sys lacks), or its name.
pub fn relative_path(file: &web_sys::File) -> String {
    let rel = js_sys::Reflect::get(file, &"webkitRelativePath".into())
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default();
    if rel.is_empty() {
        file.name()
    } else {
        rel
    }
}

/// The URL's `#…` part.
pub fn current_hash() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

/// Go to `#hash`.
pub fn set_hash(hash: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.location().set_hash(hash);
    }
}

/// `decodeURIComponent`, or the text as it is when it is not valid.
pub fn decode_uri_component(text: &str) -> String {
    js_sys::decode_uri_component(text).map(String::from).unwrap_or_else(|_| text.to_string())
}

pub fn encode_uri_component(text: &str) -> String {
    String::from(js_sys::encode_uri_component(text))
}

/// Ask the user (a `confirm()` box); false when there is no window.
pub fn confirm(message: &str) -> bool {
    web_sys::window().and_then(|w| w.confirm_with_message(message).ok()).unwrap_or(false)
}

/// Scroll the element with this id into view, if it is on the page.
pub fn scroll_to(id: &str) {
    if let Some(el) =
        web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id))
    {
        el.scroll_into_view();
    }
}

/// Scroll the element with this id into view and move the keyboard focus
/// to it (it needs `tabindex="-1"`), on the next frame, once it is drawn.
pub fn focus_into_view(id: impl Into<String>) {
    let id: String = id.into();
    leptos::prelude::request_animation_frame(move || {
        let el =
            web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(&id));
        if let Some(el) = el {
            el.scroll_into_view();
            if let Ok(h) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el) {
                let _ = h.focus();
            }
        }
    });
}

/// Move the keyboard focus to the element `id` once it is drawn (checked
/// each frame; it needs `tabindex="-1"`), or to `fallback` if it is not
/// there within `frames` frames: after a button that leaves its page, the
/// focus goes where the reader is sent rather than to `<body>`.
pub fn focus_when_drawn(id: &'static str, fallback: &'static str, frames: u32) {
    leptos::prelude::request_animation_frame(move || {
        let drawn = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(id))
            .is_some();
        // `focus()` scrolls only as far as needed: the score under the
        // page's title stays where it is, with what is above it.
        let focus = |id: &str| {
            let el =
                web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id));
            if let Some(h) =
                el.and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok())
            {
                let _ = h.focus();
            }
        };
        match (drawn, frames) {
            (true, _) => focus(id),
            (false, 0) => focus(fallback),
            (false, n) => focus_when_drawn(id, fallback, n - 1),
        }
    });
}

/// Set `window[name]` (values the browser tests and benchmarks read).
pub fn publish_global(name: &str, value: &JsValue) {
    let _ = js_sys::Reflect::set(&js_sys::global(), &name.into(), value);
}

/// A plain JS object from (key, value) pairs.
pub fn js_object(fields: &[(&str, JsValue)]) -> JsValue {
    let o = js_sys::Object::new();
    for (k, v) in fields {
        let _ = js_sys::Reflect::set(&o, &(*k).into(), v);
    }
    o.into()
}

/// Log a warning on the console.
pub fn warn(text: &str) {
    web_sys::console::warn_1(&text.into());
}

/// Open the `<details>` matched by `selector` and scroll it into view, if
/// it is on the page; whether it was.
pub fn open_details(selector: &str) -> bool {
    let el = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(selector).ok().flatten());
    let Some(el) = el else { return false };
    if let Some(d) = wasm_bindgen::JsCast::dyn_ref::<web_sys::HtmlDetailsElement>(&el) {
        d.set_open(true);
    }
    el.scroll_into_view();
    true
}

/// Add or remove a class of the document's root element (`<html>`): page-
/// wide modes the stylesheet follows (presenter mode, a running tour).
pub fn set_root_class(class: &str, on: bool) {
    let root = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element());
    if let Some(root) = root {
        let list = root.class_list();
        let _ = if on { list.add_1(class) } else { list.remove_1(class) };
    }
}

/// Whether the document's root element has `class`.
pub fn root_has_class(class: &str) -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
        .is_some_and(|r| r.class_list().contains(class))
}

//! A drop zone for files: highlighted while something is dragged over it,
//! it hands the dropped files to `on_drop`.

use leptos::prelude::*;

use crate::ui::browser::dom::dropped_files;

#[component]
pub fn DropZone(
    id: &'static str,
    label: &'static str,
    on_drop: impl Fn(Vec<web_sys::File>) + 'static,
) -> impl IntoView {
    let dragging = RwSignal::new(false);
    view! {
        <div id=id class="drop-zone" class:dragging=move || dragging.get()
            on:dragover=move |ev: leptos::ev::DragEvent| { ev.prevent_default(); dragging.set(true); }
            on:dragleave=move |_| dragging.set(false)
            on:drop=move |ev: leptos::ev::DragEvent| {
                ev.prevent_default();
                dragging.set(false);
                on_drop(dropped_files(&ev));
            }>
            {label}
        </div>
    }
}

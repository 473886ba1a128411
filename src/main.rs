//! Entry point of the web app (built to wasm by Trunk).

#[cfg(target_arch = "wasm32")]
mod ui;

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    // index.html's loading screen, painted before the app arrived.
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("boot-screen"))
    {
        el.remove();
    }
    leptos::mount::mount_to_body(ui::App);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("repoqa-web is the browser app: build it with `trunk build` (see README.md); use the `repoqa` binary for the command line.");
    std::process::exit(2);
}

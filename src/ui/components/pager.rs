//! Paging for the long tables (the task list, the per-task results).
//!
//! A 500-row table built in one go is one long stop of the page in
//! Chromium (a few hundred ms); 100 rows at a time keep every render short
//! and the page answering clicks. The demo (60 tasks) fits on one page.

use leptos::prelude::*;

/// Rows per page.
pub const PAGE_ROWS: usize = 100;

/// The row range shown on page `page` of `total` rows (clamped).
pub fn page_range(page: usize, total: usize) -> std::ops::Range<usize> {
    let pages = total.div_ceil(PAGE_ROWS).max(1);
    let start = page.min(pages - 1) * PAGE_ROWS;
    start.min(total)..(start + PAGE_ROWS).min(total)
}

/// "Rows 101–200 of 500 · ‹ Previous · Next ›", shown only when there is
/// more than one page. `id` prefixes the element ids (for tests).
#[component]
pub fn Pager(
    id: &'static str,
    #[prop(into)] total: Signal<usize>,
    page: RwSignal<usize>,
) -> impl IntoView {
    let pages = move || total.get().div_ceil(PAGE_ROWS).max(1);
    // Keep the page in range when the rows shrink (a filter, a new build).
    Effect::new(move |_| {
        let last = pages() - 1;
        if page.get() > last {
            page.set(last);
        }
    });
    move || {
        let n = total.get();
        (n > PAGE_ROWS).then(|| {
            let r = page_range(page.get(), n);
            let p = page.get().min(pages() - 1);
            view! {
                <nav class="pager" id=format!("{id}-pager") aria-label="Pages" data-page=p.to_string() data-pages=pages().to_string()>
                    <button type="button" id=format!("{id}-prev") disabled={p == 0}
                        on:click=move |_| page.update(|p| *p = p.saturating_sub(1))>"‹ Previous"</button>
                    <span class="muted">{format!(" rows {}–{} of {n} (page {} of {}) ", r.start + 1, r.end, p + 1, pages())}</span>
                    <button type="button" id=format!("{id}-next") disabled={p + 1 >= pages()}
                        on:click=move |_| page.update(|p| *p += 1)>"Next ›"</button>
                </nav>
            }
        })
    }
}

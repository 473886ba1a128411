//! Which page is shown: kept in the URL hash so a reload stays put.

use crate::ui::browser::dom::{decode_uri_component, encode_uri_component};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Page {
    Home,
    Dataset,
    Tasks,
    /// One task, by task id ("lang::owner/repo::name").
    Task(String),
    Results,
    /// Ask a model (the Run panel).
    Run,
    Curate,
    /// CoReQA: questions about a repository, judged by a model.
    Coreqa,
    Leaderboard,
    Verify,
    /// Teaching: Be the model.
    Teach,
    About,
}

impl Page {
    pub fn from_hash(hash: &str) -> Page {
        let h = hash.trim_start_matches('#');
        if let Some(id) = h.strip_prefix("task/") {
            // The id is URI-encoded (it holds "/" and ":").
            return Page::Task(decode_uri_component(id));
        }
        match h {
            "about" => Page::About,
            "dataset" => Page::Dataset,
            "tasks" => Page::Tasks,
            "results" => Page::Results,
            "run" => Page::Run,
            "curate" => Page::Curate,
            "coreqa" => Page::Coreqa,
            "leaderboard" => Page::Leaderboard,
            "verify" => Page::Verify,
            "teach" => Page::Teach,
            _ => Page::Home,
        }
    }

    /// The document title while this page is shown (a tab, a history entry
    /// and a screen reader name the page, not only the app).
    pub fn title(&self) -> String {
        let name = match self {
            Page::Home => return "RepoQA Web — Searching Needle Function".to_string(),
            Page::Dataset => "Dataset",
            Page::Tasks => "Tasks",
            Page::Task(id) => return format!("Task {id} — RepoQA Web"),
            Page::Results => "Results",
            Page::Run => "Run a model",
            Page::Curate => "Curate",
            Page::Coreqa => "CoReQA",
            Page::Leaderboard => "Leaderboard",
            Page::Verify => "Verify",
            Page::Teach => "Teach: be the model",
            Page::About => "About / self-check",
        };
        format!("{name} — RepoQA Web")
    }

    /// The nav entry this page belongs to.
    pub fn section(&self) -> &'static str {
        match self {
            Page::Home => "home",
            Page::Dataset => "dataset",
            Page::Tasks | Page::Task(_) => "tasks",
            Page::Results => "results",
            Page::Run => "run",
            Page::Curate => "curate",
            Page::Coreqa => "coreqa",
            Page::Leaderboard => "leaderboard",
            Page::Verify => "verify",
            Page::Teach => "teach",
            Page::About => "about",
        }
    }
}

/// `#task/<id>` for a task id.
pub fn task_href(id: &str) -> String {
    format!("#task/{}", encode_uri_component(id))
}

/// What the Tasks list shows: its filters and page. Kept in context (not in
/// the page component) so that opening a task and coming back returns to
/// the same filtered page of the list.
#[derive(Clone, Copy)]
pub struct TaskListView {
    pub lang: leptos::prelude::RwSignal<String>,
    pub repo: leptos::prelude::RwSignal<String>,
    pub status: leptos::prelude::RwSignal<String>,
    pub query: leptos::prelude::RwSignal<String>,
    pub page: leptos::prelude::RwSignal<usize>,
}

impl TaskListView {
    pub fn new() -> TaskListView {
        use leptos::prelude::RwSignal;
        TaskListView {
            lang: RwSignal::new(String::new()),
            repo: RwSignal::new(String::new()),
            status: RwSignal::new(String::new()),
            query: RwSignal::new(String::new()),
            page: RwSignal::new(0),
        }
    }
}

impl Default for TaskListView {
    fn default() -> Self {
        Self::new()
    }
}

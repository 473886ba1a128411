//! The CoReQA page's state: the files loaded into it (a QA set, answers,
//! judge scores, pairwise verdicts), kept while the user visits other pages
//! and saved in IndexedDB (`jobs::coreqa`), so a reload finds them.

use std::sync::Arc;

use leptos::prelude::*;
use repoqa::coreqa::answer::AnswerLine;
use repoqa::coreqa::files::CoreqaFile;
use repoqa::coreqa::judge::JudgeLine;
use repoqa::coreqa::pairwise::PairLine;
use repoqa::coreqa::qa::QaItem;

/// One loaded file: its name, its text (what is saved) and what it holds.
#[derive(Clone)]
pub struct LoadedCoreqa {
    pub name: String,
    pub text: Arc<str>,
    pub file: Arc<CoreqaFile>,
}

#[derive(Clone, Copy)]
pub struct CoreqaState {
    pub files: RwSignal<Vec<LoadedCoreqa>>,
    /// The last load's outcome.
    pub status: RwSignal<Option<Result<String, String>>>,
    /// Whether the saved files were read back (once per page load).
    pub restored: RwSignal<bool>,
}

impl Default for CoreqaState {
    fn default() -> CoreqaState {
        CoreqaState::new()
    }
}

impl CoreqaState {
    pub fn new() -> CoreqaState {
        CoreqaState {
            files: RwSignal::new(Vec::new()),
            status: RwSignal::new(None),
            restored: RwSignal::new(false),
        }
    }

    /// Add a file, replacing one of the same name.
    pub fn add(&self, loaded: LoadedCoreqa) {
        self.files.update(|fs| match fs.iter_mut().find(|f| f.name == loaded.name) {
            Some(f) => *f = loaded,
            None => fs.push(loaded),
        });
    }

    /// Every question of the loaded QA files (the first of an id wins).
    pub fn questions(&self) -> Vec<QaItem> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        self.files.with(|fs| {
            for f in fs {
                if let CoreqaFile::Qa(items) = &*f.file {
                    out.extend(items.iter().filter(|q| seen.insert(q.id.clone())).cloned());
                }
            }
        });
        out
    }

    pub fn answers(&self) -> Vec<AnswerLine> {
        self.collect(|f| if let CoreqaFile::Answers(v) = f { v.clone() } else { Vec::new() })
    }

    pub fn judged(&self) -> Vec<JudgeLine> {
        self.collect(|f| if let CoreqaFile::Judgments(v) = f { v.clone() } else { Vec::new() })
    }

    pub fn pairs(&self) -> Vec<PairLine> {
        self.collect(|f| if let CoreqaFile::Pairs(v) = f { v.clone() } else { Vec::new() })
    }

    fn collect<T>(&self, of: impl Fn(&CoreqaFile) -> Vec<T>) -> Vec<T> {
        self.files.with(|fs| fs.iter().flat_map(|f| of(&f.file)).collect())
    }
}

//! The state of the reviewers' pages (Leaderboard, Verify): the loaded
//! SCORES files and the view's choices; the Verify page's inputs and its
//! last report. Kept while the user visits other pages.

use std::sync::Arc;

use leptos::prelude::*;
use repoqa::input::dataset::Dataset;
use repoqa::report::{LineError, ModelOutput, ModelScores, ScoresFile};
use repoqa::review::bundle::Bundle;
use repoqa::review::evidence::EvidenceTable;
use repoqa::review::ladder::{depth_of_path, ntoken_of_path, Ladder, DEFAULT_FRACTION};
use repoqa::review::leaderboard::SortKey;
use repoqa::review::verify::Report;

use super::AppState;

/// One loaded SCORES file.
#[derive(Clone)]
pub struct LoadedScores {
    pub source: String,
    pub file: Arc<ScoresFile>,
    /// SHA-256 of the file's bytes as loaded (a report names its inputs).
    pub sha256: String,
    /// The answer texts by task id, for a run of the app's own answers
    /// (a SCORES file holds none): shown beside each other when compared.
    pub answers: Option<Arc<std::collections::BTreeMap<String, String>>>,
}

/// The Leaderboard page.
#[derive(Clone, Copy)]
pub struct LeaderboardState {
    pub files: RwSignal<Vec<LoadedScores>>,
    pub threshold: RwSignal<f64>,
    /// Sort key and descending.
    pub sort: RwSignal<(SortKey, bool)>,
    /// Models chosen for the charts (`source\u{1f}model` keys).
    pub compare: RwSignal<Vec<String>>,
    /// The model whose misses are listed (its `source\u{1f}model` key).
    pub miss_model: RwSignal<Option<String>>,
    /// The last load's outcome.
    pub status: RwSignal<Option<Result<String, String>>>,
    /// The confidence level of the intervals column, when shown.
    pub ci_level: RwSignal<Option<f64>>,
    /// Each model's pass@1 with its intervals, filled by
    /// `jobs::reviewers::leaderboard_evidence` a model at a time.
    pub evidence: RwSignal<BoardEvidence>,
    /// The two runs compared task by task (`source\u{1f}model` keys).
    pub paired: RwSignal<(Option<String>, Option<String>)>,
    /// The share of the shortest length's pass@1 an effective context
    /// length keeps (`repoqa::review::ladder`).
    pub fraction: RwSignal<f64>,
    /// The ladder of each model loaded at two lengths or more (or at two
    /// depths of a grid), filled by
    /// `jobs::reviewers::ladder_evidence`.
    pub ladders: RwSignal<LadderBoard>,
}

/// What the ladders were computed for: threshold and fraction (as bits),
/// and the files (a hash of their sources and contents).
pub type LadderStamp = (u64, u64, u64);

/// The length ladders for one stamp.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LadderBoard {
    pub stamp: Option<LadderStamp>,
    pub ladders: Vec<Ladder>,
    /// A model whose files cannot make a ladder (two at one length), said.
    pub errors: Vec<String>,
    pub complete: bool,
}

/// Where Results' "Send to the Leaderboard" puts the current answers.
pub const SENT_SOURCE: &str = "your answers";

/// Where the runs kept in this browser appear among the Leaderboard's
/// runs (and so in "Two runs, task by task"; `jobs::runs`).
pub const RUNS_SOURCE: &str = "runs in this browser";

/// `files` with each run once: the current answers sent from Results
/// ([`SENT_SOURCE`]) are left out where a run kept in this browser
/// ([`RUNS_SOURCE`]) is the same model's at the same length, or at any
/// length when the sent file names none (one run, not two rows, however
/// often "Add to the Leaderboard" was pressed).
pub fn once_each(files: &[LoadedScores]) -> impl Iterator<Item = &LoadedScores> {
    let kept: Vec<(Vec<&String>, Option<usize>)> = files
        .iter()
        .filter(|f| f.source.starts_with(RUNS_SOURCE))
        .map(|f| (f.file.models.keys().collect(), ntoken_of_path(&f.source)))
        .collect();
    files.iter().filter(move |f| {
        if !f.source.starts_with(SENT_SOURCE) {
            return true;
        }
        let models: Vec<&String> = f.file.models.keys().collect();
        let at = ntoken_of_path(&f.source);
        !kept.iter().any(|(m, n)| *m == models && (at.is_none() || *n == at))
    })
}

/// Two SCORES files equal but for their models' `eval_date`.
fn same_but_date(a: &ScoresFile, b: &ScoresFile) -> bool {
    a.models.len() == b.models.len()
        && a.models.iter().zip(&b.models).all(|((ma, sa), (mb, sb))| {
            ma == mb && (ModelScores { eval_date: sb.eval_date.clone(), ..sa.clone() }) == *sb
        })
}

/// A loaded file at its length: `(ntoken, source, file)`.
pub type AtLength = (usize, String, Arc<ScoresFile>);

/// What the intervals were computed for: threshold and level (as bits) and
/// how many files were loaded.
pub type EvidenceStamp = (u64, u64, usize);

/// The leaderboard's intervals for one stamp, by (source, model).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BoardEvidence {
    pub stamp: Option<EvidenceStamp>,
    pub tables: Vec<((String, String), EvidenceTable)>,
    pub complete: bool,
}

impl BoardEvidence {
    pub fn get(&self, source: &str, model: &str) -> Option<&EvidenceTable> {
        self.tables.iter().find(|((s, m), _)| s == source && m == model).map(|(_, t)| t)
    }
}

impl Default for LeaderboardState {
    fn default() -> LeaderboardState {
        LeaderboardState::new()
    }
}

impl LeaderboardState {
    pub fn new() -> LeaderboardState {
        LeaderboardState {
            files: RwSignal::new(Vec::new()),
            threshold: RwSignal::new(0.8),
            sort: RwSignal::new((SortKey::Average, true)),
            compare: RwSignal::new(Vec::new()),
            miss_model: RwSignal::new(None),
            status: RwSignal::new(None),
            ci_level: RwSignal::new(None),
            evidence: RwSignal::new(BoardEvidence::default()),
            paired: RwSignal::new((None, None)),
            fraction: RwSignal::new(DEFAULT_FRACTION),
            ladders: RwSignal::new(LadderBoard::default()),
        }
    }

    /// The loaded files whose folder names their length (a run directory's
    /// `ntoken_<N>/`, `repoqa::review::ladder::ntoken_of_path`), untracked. The
    /// current answers sent from Results ([`SENT_SOURCE`]) are left out
    /// where the runs kept in this browser ([`RUNS_SOURCE`]) hold the same
    /// file: one run, not two files at one length.
    pub fn at_lengths(&self) -> Vec<AtLength> {
        self.files.with_untracked(|fs| {
            once_each(fs)
                .filter_map(|f| {
                    Some((ntoken_of_path(&f.source)?, f.source.clone(), f.file.clone()))
                })
                .collect()
        })
    }

    /// The models loaded at two lengths or more, or at two depths of a
    /// depth grid (`ntoken_<N>/depth_<r>/`), in order of first sight: those
    /// whose ladder may be shown ([`repoqa::review::ladder::Ladder::is_shown`]).
    pub fn ladder_models(files: &[AtLength]) -> Vec<String> {
        // A model's points: (length, depth's bits; None = official depths).
        type Point = (usize, Option<u64>);
        let mut seen: Vec<(String, Vec<Point>)> = Vec::new();
        for (n, source, f) in files {
            let point = (*n, depth_of_path(source).map(f64::to_bits));
            for m in f.models.keys() {
                match seen.iter_mut().find(|(x, _)| x == m) {
                    Some((_, ps)) if !ps.contains(&point) => ps.push(point),
                    Some(_) => {}
                    None => seen.push((m.clone(), vec![point])),
                }
            }
        }
        seen.into_iter().filter(|(_, ps)| ps.len() > 1).map(|(m, _)| m).collect()
    }

    /// The stamp of the ladders the view needs now (untracked).
    pub fn ladder_stamp(&self) -> LadderStamp {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.files.with_untracked(|fs| {
            for f in fs {
                f.source.hash(&mut h);
                f.sha256.hash(&mut h);
            }
        });
        (
            self.threshold.get_untracked().to_bits(),
            self.fraction.get_untracked().to_bits(),
            h.finish(),
        )
    }

    /// The stamp of the intervals the view needs now (untracked).
    pub fn evidence_stamp(&self) -> Option<EvidenceStamp> {
        let level = self.ci_level.get_untracked()?;
        Some((
            self.threshold.get_untracked().to_bits(),
            level.to_bits(),
            self.files.with_untracked(Vec::len),
        ))
    }

    /// Every loaded model as `(key, label)`: the key `source\u{1f}model`
    /// ([`LeaderboardState::model_of`]), the label its name, with its
    /// file's path when the same model is loaded from two files (a
    /// ladder's lengths, say). Tracked.
    pub fn runs(&self) -> Vec<(String, String)> {
        self.files.with(|fs| {
            let mut out: Vec<(String, String)> = Vec::new();
            for f in fs {
                for m in f.file.models.keys() {
                    out.push((format!("{}\u{1f}{m}", f.source), m.clone()));
                }
            }
            let names: Vec<String> = out.iter().map(|(_, m)| m.clone()).collect();
            for (key, label) in &mut out {
                if names.iter().filter(|n| *n == label).count() > 1 {
                    let source = key.split('\u{1f}').next().unwrap_or_default();
                    *label = format!("{label} ({source})");
                }
            }
            out
        })
    }

    /// The one model `key` (`source\u{1f}model`) names, with its file.
    pub fn model_of(&self, key: &str) -> Option<(String, LoadedScores)> {
        let (source, model) = key.split_once('\u{1f}')?;
        self.files.with(|fs| {
            fs.iter()
                .find(|f| f.source == source && f.file.models.contains_key(model))
                .map(|f| (model.to_string(), f.clone()))
        })
    }

    /// Put a run of answers scored in this page (the SCORES file made of
    /// `answers`), replacing an earlier copy from the same `source`.
    pub fn put_answers(
        &self,
        source: String,
        file: ScoresFile,
        answers: std::collections::BTreeMap<String, String>,
    ) {
        // The same run again (only its eval_date new): nothing changes, so
        // nothing drawn from the list (the ladder, the table) is redrawn.
        let unchanged = self.files.with_untracked(|fs| {
            fs.iter().any(|f| {
                f.source == source
                    && f.answers.as_deref() == Some(&answers)
                    && same_but_date(&f.file, &file)
            })
        });
        if unchanged {
            return;
        }
        let text = file.to_python_json();
        let sha256 = repoqa::input::identity::sha256_hex(text.as_bytes());
        let loaded =
            LoadedScores { source, file: Arc::new(file), sha256, answers: Some(Arc::new(answers)) };
        self.files.update(|fs| match fs.iter_mut().find(|f| f.source == loaded.source) {
            Some(f) => *f = loaded,
            None => fs.push(loaded),
        });
    }

    /// Add a parsed file (`bytes`: as read) unless one of that name is
    /// already there.
    pub fn add(&self, source: String, file: ScoresFile, bytes: &[u8]) -> bool {
        self.add_all(vec![(source, file, bytes.to_vec())]) == 1
    }

    /// Add files read together in one change, so the table is drawn once
    /// with all of them and no row moves under the pointer while it fills;
    /// how many were new.
    pub fn add_all(&self, files: Vec<(String, ScoresFile, Vec<u8>)>) -> usize {
        let mut added = 0;
        self.files.update(|fs| {
            for (source, file, bytes) in files {
                if !fs.iter().any(|f| f.source == source) {
                    let sha256 = repoqa::input::identity::sha256_hex(&bytes);
                    fs.push(LoadedScores { source, file: Arc::new(file), sha256, answers: None });
                    added += 1;
                }
            }
        });
        added
    }
}

/// A model-outputs file given to the Verify page.
#[derive(Clone)]
pub struct VerifyOutputs {
    pub name: String,
    pub outputs: Arc<Vec<ModelOutput>>,
    pub errors: Vec<LineError>,
}

/// The Verify page.
#[derive(Clone, Copy)]
pub struct VerifyState {
    pub scores: RwSignal<Option<(String, Arc<ScoresFile>)>>,
    pub outputs: RwSignal<Option<VerifyOutputs>>,
    pub dataset: RwSignal<Option<(String, Arc<Dataset>)>>,
    /// Use the app's dataset when none is given here.
    pub use_loaded: RwSignal<bool>,
    /// The app's dataset, when it was not used because it shares no
    /// repository with the SCORES file.
    pub loaded_unrelated: RwSignal<Option<String>>,
    pub ignore_comments: RwSignal<bool>,
    pub report: RwSignal<Option<Report>>,
    /// A new verdict not yet brought into view with the focus (set with
    /// each report; the Verify page takes it when the verdict is drawn,
    /// also when the verdict was made from another page, a Leaderboard
    /// row's "verify").
    pub focus_pending: RwSignal<bool>,
    pub error: RwSignal<Option<String>>,
    /// A result bundle given (its SCORES and outputs are set from it too).
    pub bundle: RwSignal<Option<(String, Arc<Bundle>)>>,
    /// The app's state (its loaded dataset).
    pub app: AppState,
}

impl VerifyState {
    pub fn new(app: AppState) -> VerifyState {
        VerifyState {
            scores: RwSignal::new(None),
            outputs: RwSignal::new(None),
            dataset: RwSignal::new(None),
            use_loaded: RwSignal::new(true),
            loaded_unrelated: RwSignal::new(None),
            ignore_comments: RwSignal::new(false),
            report: RwSignal::new(None),
            focus_pending: RwSignal::new(false),
            bundle: RwSignal::new(None),
            error: RwSignal::new(None),
            app,
        }
    }

    /// The dataset to check against: the one given here, else the app's if
    /// asked and it holds at least one of the file's repositories (else
    /// `loaded_unrelated` names it).
    pub fn chosen_dataset(&self) -> Option<(String, Arc<Dataset>)> {
        if let Some(d) = self.dataset.get_untracked() {
            return Some(d);
        }
        self.loaded_unrelated.set(None);
        if !self.use_loaded.get_untracked() {
            return None;
        }
        let loaded = self.app.dataset.with_untracked(|d| {
            d.as_ref().map(|d| (format!("{} (loaded in the app)", d.origin), d.dataset.clone()))
        })?;
        let related = self.scores.with_untracked(|s| {
            s.as_ref().is_none_or(|(_, f)| repoqa::review::verify::shares_repos(f, &loaded.1))
        });
        if related {
            Some(loaded)
        } else {
            self.loaded_unrelated.set(Some(loaded.0));
            None
        }
    }
}

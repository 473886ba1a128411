//! Which pairs of functions become call-path tasks (NOT UPSTREAM;
//! docs/call-path.md). Per repository, seeded like SNF's needles (the
//! repository's crc32, as `curate` seeds its needle sample) so a dataset
//! gives the same tasks on every run and front:
//!
//! - **path tasks**: a source A and a target B in different files whose
//!   shortest chain of calls has a length in [`Selection::path_lengths`]
//!   (2 to 4 calls by default); the gold path is the shortest path a
//!   breadth-first search over the sorted edges finds first (any shortest
//!   path passes, [`shortest_paths_len`]);
//! - **no-path tasks** ([`Selection::no_path_share`], 20 % by default): A
//!   and B in different files with no path from A to B, chosen to tempt —
//!   B reaches A (the path exists the other way), or A and B share a
//!   caller.
//!
//! Candidates are listed in a fixed order (source, then target, in node
//! order), shuffled by SplitMix64 from the seed, and the first are taken;
//! lengths are taken in turn (2, 3, 4, 2, …) so the short ones do not crowd
//! out the long. A repository short of path tasks gets no-path tasks in
//! the same share of what it gives (none when it gives no path task), so
//! answering `NO PATH` everywhere never scores more than the share. A repository that cannot give the tasks asked gives fewer
//! and says so ([`RepoTasks::shortfall`]), never silently none.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::graph::CallGraph;
use crate::seeded::SplitMix64;

/// Tasks per repository by default.
pub const TASKS_PER_REPO: usize = 10;
/// The default path lengths (calls from A to B).
pub const PATH_LENGTHS: [usize; 3] = [2, 3, 4];
/// The default share of no-path tasks.
pub const NO_PATH_SHARE: f64 = 0.2;

/// What to select.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Selection {
    pub tasks_per_repo: usize,
    /// The shortest-path lengths (in calls) a path task may have.
    pub path_lengths: Vec<usize>,
    /// The share of no-path tasks, 0 to 1.
    pub no_path_share: f64,
}

impl Default for Selection {
    fn default() -> Selection {
        Selection {
            tasks_per_repo: TASKS_PER_REPO,
            path_lengths: PATH_LENGTHS.to_vec(),
            no_path_share: NO_PATH_SHARE,
        }
    }
}

/// Why a no-path task was chosen: what makes it tempting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Temptation {
    /// B reaches A: the path exists the other way.
    Reversed,
    /// A function calls both A and B.
    SharedCaller,
}

/// One selected pair: node indexes into the repository's graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PathPair {
    pub source: usize,
    pub target: usize,
    /// The gold shortest path, source to target; empty for a no-path task.
    pub path: Vec<usize>,
    /// Set for a no-path task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_path: Option<Temptation>,
}

/// A repository's tasks, and what it could not give.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RepoTasks {
    pub pairs: Vec<PathPair>,
    /// Set when fewer than the tasks asked were found: how many were asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shortfall: Option<usize>,
    /// Pairs passed over because their functions do not fit one window.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unfit: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Breadth-first distances (in calls) from one node, and each reached
/// node's parent on the first shortest path found (edges in sorted order).
struct Reach {
    dist: Vec<Option<usize>>,
    parent: Vec<Option<usize>>,
}

fn bfs(g: &CallGraph, from: usize) -> Reach {
    let n = g.nodes.len();
    let (mut dist, mut parent) = (vec![None; n], vec![None; n]);
    dist[from] = Some(0);
    let mut queue = VecDeque::from([from]);
    while let Some(a) = queue.pop_front() {
        let d = dist[a].unwrap_or(0);
        for &b in &g.edges[a] {
            if dist[b].is_none() {
                dist[b] = Some(d + 1);
                parent[b] = Some(a);
                queue.push_back(b);
            }
        }
    }
    Reach { dist, parent }
}

/// The length (in calls) of the shortest path from `a` to `b`, if any.
pub fn shortest_paths_len(g: &CallGraph, a: usize, b: usize) -> Option<usize> {
    bfs(g, a).dist.get(b).copied().flatten()
}

/// Select the tasks of one repository's graph; `seed` is the
/// repository's (`curate::default_seed` of its name, by default).
pub fn select(g: &CallGraph, selection: &Selection, seed: u64) -> RepoTasks {
    match select_fitting(g, selection, seed, |_| Ok::<bool, std::convert::Infallible>(true)) {
        Ok(t) => t,
        Err(never) => match never {},
    }
}

/// [`select`], taking only the pairs `fits` accepts (a window that holds
/// every function of the pair's path, `crate::callpath::window`): a pair
/// that does not fit is passed over for the next of its kind, and counted
/// in [`RepoTasks::unfit`].
pub fn select_fitting<E>(
    g: &CallGraph,
    selection: &Selection,
    seed: u64,
    mut fits: impl FnMut(&PathPair) -> Result<bool, E>,
) -> Result<RepoTasks, E> {
    let n = g.nodes.len();
    let all: Vec<Reach> = (0..n).map(|a| bfs(g, a)).collect();
    let reaches = |a: usize, b: usize| all[a].dist[b].is_some();
    // Callers of each node, for the shared-caller temptation.
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (a, bs) in g.edges.iter().enumerate() {
        for &b in bs {
            callers[b].push(a);
        }
    }
    let mut by_length: Vec<Vec<(usize, usize)>> = vec![Vec::new(); selection.path_lengths.len()];
    let mut no_path: Vec<(usize, usize, Temptation)> = Vec::new();
    for a in 0..n {
        for b in 0..n {
            if a == b || g.nodes[a].path == g.nodes[b].path {
                continue;
            }
            match all[a].dist[b] {
                Some(d) => {
                    if let Some(k) = selection.path_lengths.iter().position(|&l| l == d) {
                        by_length[k].push((a, b));
                    }
                }
                None if reaches(b, a) => no_path.push((a, b, Temptation::Reversed)),
                None if callers[a].iter().any(|c| callers[b].contains(c)) => {
                    no_path.push((a, b, Temptation::SharedCaller))
                }
                None => {}
            }
        }
    }
    let mut rng = SplitMix64(seed);
    for list in &mut by_length {
        shuffle(list, &mut rng);
    }
    shuffle(&mut no_path, &mut rng);
    let share = selection.no_path_share.clamp(0.0, 1.0);
    let want_no = ((selection.tasks_per_repo as f64) * share).round() as usize;
    let want_path = selection.tasks_per_repo - want_no.min(selection.tasks_per_repo);
    let mut unfit = 0;
    // Path tasks, the lengths in turn.
    let mut pairs = Vec::new();
    let mut next = vec![0usize; by_length.len()];
    while pairs.len() < want_path {
        let before = pairs.len();
        let mut left = false;
        for (k, list) in by_length.iter().enumerate() {
            if pairs.len() == want_path {
                break;
            }
            // The next pair of this length that fits.
            while let Some(&(a, b)) = list.get(next[k]) {
                next[k] += 1;
                left = true;
                let pair = PathPair {
                    source: a,
                    target: b,
                    path: path_to(&all[a].parent, a, b),
                    no_path: None,
                };
                if fits(&pair)? {
                    pairs.push(pair);
                    break;
                }
                unfit += 1;
            }
        }
        if pairs.len() == before && !left {
            break;
        }
    }
    // A repository short of path tasks keeps the share: its no-path tasks
    // are cut to match, so answering NO PATH everywhere never scores more
    // than the share asked.
    let want_no = if want_path > 0 && pairs.len() < want_path && share < 1.0 {
        want_no.min((pairs.len() as f64 * share / (1.0 - share)).round() as usize)
    } else {
        want_no
    };
    let mut taken = 0;
    for &(a, b, why) in &no_path {
        if taken == want_no {
            break;
        }
        let pair = PathPair { source: a, target: b, path: Vec::new(), no_path: Some(why) };
        if fits(&pair)? {
            pairs.push(pair);
            taken += 1;
        } else {
            unfit += 1;
        }
    }
    let shortfall = (pairs.len() < selection.tasks_per_repo).then_some(selection.tasks_per_repo);
    Ok(RepoTasks { pairs, shortfall, unfit })
}

/// Fisher–Yates from the end, as the other seeded samples do.
fn shuffle<T>(v: &mut [T], rng: &mut SplitMix64) {
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
}

/// The tasks of each repository's graph, each seeded by its name (as
/// `curate` seeds a repository's needle sample), in the graphs' order.
pub fn dataset_tasks(graphs: &[super::graph::RepoGraph], selection: &Selection) -> Vec<RepoTasks> {
    graphs
        .iter()
        .map(|g| select(&g.graph, selection, crate::curate::default_seed(&g.repo)))
        .collect()
}

/// The path from `a` to `b` along BFS `parent` links.
fn path_to(parent: &[Option<usize>], a: usize, b: usize) -> Vec<usize> {
    let mut path = vec![b];
    let mut at = b;
    while at != a {
        match parent[at] {
            Some(p) => {
                path.push(p);
                at = p;
            }
            None => return Vec::new(),
        }
    }
    path.reverse();
    path
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::callpath::graph::FunctionNode;

    /// A graph of nodes named by their index, node i in file `files[i]`.
    fn graph(files: &[&str], edges: &[(usize, usize)]) -> CallGraph {
        let nodes = files
            .iter()
            .enumerate()
            .map(|(i, f)| FunctionNode {
                path: f.to_string(),
                name: format!("f{i}"),
                class: None,
                start_line: 0,
                end_line: 1,
                start_byte: 0,
                end_byte: 0,
            })
            .collect::<Vec<_>>();
        let mut out = vec![Vec::new(); nodes.len()];
        for &(a, b) in edges {
            out[a].push(b);
        }
        for e in &mut out {
            e.sort_unstable();
        }
        CallGraph { nodes, edges: out, ambiguous: Default::default() }
    }

    #[test]
    fn gold_paths_are_shortest_and_no_path_pairs_tempt() {
        // 0 -> 1 -> 2 -> 3 -> 4, a shortcut 0 -> 2, and 5 calling 3 and 6.
        let g = graph(
            &["a", "b", "c", "d", "e", "f", "g"],
            &[(0, 1), (1, 2), (2, 3), (3, 4), (0, 2), (5, 3), (5, 6)],
        );
        assert_eq!(shortest_paths_len(&g, 0, 4), Some(3));
        assert_eq!(shortest_paths_len(&g, 4, 0), None);
        let sel = Selection { tasks_per_repo: 50, ..Selection::default() };
        let t = select(&g, &sel, 7);
        assert_eq!(t.shortfall, Some(50), "this small graph gives fewer");
        for p in &t.pairs {
            match p.no_path {
                None => {
                    assert_eq!(p.path.first(), Some(&p.source));
                    assert_eq!(p.path.last(), Some(&p.target));
                    assert!(p.path.windows(2).all(|w| g.edges[w[0]].contains(&w[1])), "{p:?}");
                    assert_eq!(Some(p.path.len() - 1), shortest_paths_len(&g, p.source, p.target));
                    assert!((2..=4).contains(&(p.path.len() - 1)));
                }
                Some(why) => {
                    assert!(p.path.is_empty());
                    assert_eq!(shortest_paths_len(&g, p.source, p.target), None);
                    match why {
                        Temptation::Reversed => {
                            assert!(shortest_paths_len(&g, p.target, p.source).is_some())
                        }
                        Temptation::SharedCaller => {
                            assert!(
                                (p.source, p.target) == (3, 6) || (p.source, p.target) == (6, 3)
                            )
                        }
                    }
                }
            }
        }
        // 0 -> 4 goes by the shortcut: 0, 2, 3, 4.
        let p = t.pairs.iter().find(|p| (p.source, p.target) == (0, 4)).expect("0 -> 4 chosen");
        assert_eq!(p.path, [0, 2, 3, 4]);
        // Stable: the same seed, the same tasks; another seed, another order.
        assert_eq!(select(&g, &sel, 7), t);
        // Ten asked: 2 no-path tasks (20 %), and the 6 path tasks there are
        // of the 8 asked (0-3, 0-4, 1-3, 1-4, 2-4, 5-4): fewer, said.
        let ten = select(&g, &Selection::default(), 7);
        assert_eq!(ten.pairs.iter().filter(|p| p.no_path.is_some()).count(), 2);
        assert_eq!((ten.pairs.len(), ten.shortfall), (8, Some(10)));
        let six = select(&g, &Selection { tasks_per_repo: 5, ..Selection::default() }, 7);
        assert_eq!((six.pairs.len(), six.shortfall), (5, None));
    }

    #[test]
    fn same_file_pairs_and_lengths_outside_the_range_are_not_taken() {
        // 0 -> 1 in one file; 1 -> 2 one call only.
        let g = graph(&["a", "a", "b"], &[(0, 1), (1, 2)]);
        let t = select(&g, &Selection::default(), 1);
        // 0 -> 2 (2 calls) is the one path task; 2 -> 0 and 2 -> 1 are
        // reversed no-path tasks.
        let paths: Vec<&PathPair> = t.pairs.iter().filter(|p| p.no_path.is_none()).collect();
        assert_eq!(paths.len(), 1);
        assert_eq!(paths[0].path, [0, 1, 2]);
        assert_eq!(t.shortfall, Some(10));
    }
}

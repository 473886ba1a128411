//! A line diff (longest common subsequence), to show how a model's function
//! differs from the needle's reference text. Functions are short, so the
//! quadratic table is small; past a size limit only the common head and tail
//! are matched, which keeps the page responsive on pathological input.

/// What happened to a line, going from the reference to the answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffOp {
    /// In both.
    Same,
    /// Only in the reference (missing from the answer).
    Removed,
    /// Only in the answer.
    Added,
}

impl DiffOp {
    /// The unified-diff marker.
    pub fn marker(self) -> char {
        match self {
            DiffOp::Same => ' ',
            DiffOp::Removed => '-',
            DiffOp::Added => '+',
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffLine {
    pub op: DiffOp,
    pub text: String,
}

/// Cells of the LCS table above which the middle is shown as removed + added.
const MAX_CELLS: usize = 4_000_000;

/// The lines of `old` (reference) and `new` (answer), aligned.
pub fn line_diff(old: &str, new: &str) -> Vec<DiffLine> {
    let a: Vec<&str> = old.split('\n').collect();
    let b: Vec<&str> = new.split('\n').collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail =
        a[head..].iter().rev().zip(b[head..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (am, bm) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    let line = |op, t: &str| DiffLine { op, text: t.to_string() };
    let mut out: Vec<DiffLine> = a[..head].iter().map(|t| line(DiffOp::Same, t)).collect();
    if am.len().saturating_mul(bm.len()) > MAX_CELLS {
        out.extend(am.iter().map(|t| line(DiffOp::Removed, t)));
        out.extend(bm.iter().map(|t| line(DiffOp::Added, t)));
    } else {
        // lcs[i][j]: LCS length of am[i..] and bm[j..].
        let w = bm.len() + 1;
        let mut lcs = vec![0u32; (am.len() + 1) * w];
        for i in (0..am.len()).rev() {
            for j in (0..bm.len()).rev() {
                lcs[i * w + j] = if am[i] == bm[j] {
                    lcs[(i + 1) * w + j + 1] + 1
                } else {
                    lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < am.len() || j < bm.len() {
            if i < am.len() && j < bm.len() && am[i] == bm[j] {
                out.push(line(DiffOp::Same, am[i]));
                i += 1;
                j += 1;
            } else if i < am.len() && (j == bm.len() || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])
            {
                // Removals first on ties, as unified diffs show them.
                out.push(line(DiffOp::Removed, am[i]));
                i += 1;
            } else {
                out.push(line(DiffOp::Added, bm[j]));
                j += 1;
            }
        }
    }
    out.extend(a[a.len() - tail..].iter().map(|t| line(DiffOp::Same, t)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(d: &[DiffLine]) -> String {
        d.iter().map(|l| format!("{}{}", l.op.marker(), l.text)).collect::<Vec<_>>().join("|")
    }

    #[test]
    fn aligns_changed_and_moved_lines() {
        assert_eq!(render(&line_diff("a\nb\nc", "a\nb\nc")), " a| b| c");
        assert_eq!(render(&line_diff("a\nb\nc\nd", "a\nx\nc\nd\ne")), " a|-b|+x| c| d|+e");
        assert_eq!(render(&line_diff("", "x")), "-|+x");
        let d = line_diff("def f():\n    return 1", "def f():\n    return 2\n");
        assert_eq!(d.iter().filter(|l| l.op == DiffOp::Same).count(), 1);
        assert_eq!(d.len(), 4);
    }

    #[test]
    fn reconstructs_both_sides() {
        let (old, new) = ("1\n2\n3\n4\n5\n6", "0\n2\n4\n3\n5\n7");
        let d = line_diff(old, new);
        let side = |skip| {
            d.iter()
                .filter(|l| l.op != skip)
                .map(|l| l.text.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(side(DiffOp::Added), old);
        assert_eq!(side(DiffOp::Removed), new);
    }
}

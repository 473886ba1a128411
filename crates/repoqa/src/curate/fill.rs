//! Filling in missing needle descriptions after curation (from a model):
//! the prompts of the needles without one, and the descriptions obtained
//! put back so that the report is exactly what curating again with the
//! completed descriptions would give, without parsing the repository again.
//! A needle whose description could not be obtained stays out of
//! `repo.needles` and keeps its warning; it is never kept with an empty one.

use super::{annotation_prompt, CurateReport, CurateWarning, Descriptions};

/// One needle to describe: the annotation prompt of its code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescribeJob {
    pub name: String,
    pub path: String,
    /// 0-based, like the dataset's.
    pub start_line: usize,
    pub end_line: usize,
    pub prompt: String,
}

impl CurateReport {
    /// The needles without a description, in sample order, with their
    /// prompts. (A needle whose code cannot be cut from the content, which
    /// only a hand-edited report has, gets no job and stays missing.)
    pub fn describe_jobs(&self) -> Vec<DescribeJob> {
        self.missing_descriptions()
            .into_iter()
            .filter_map(|n| {
                let code = self.needle_code(n)?;
                Some(DescribeJob {
                    name: n.name.clone(),
                    path: n.path.clone(),
                    start_line: n.start_line,
                    end_line: n.end_line,
                    prompt: annotation_prompt(&code, self.language),
                })
            })
            .collect()
    }

    /// Add descriptions (a non-blank one replaces the needle's), as
    /// `curate_repo` would with the earlier descriptions followed by these:
    /// `repo.needles` becomes the described sampled needles in sample order,
    /// and the missing/fewer/unused warnings are brought up to date.
    pub fn apply_descriptions(&mut self, more: &Descriptions) {
        for n in &mut self.sampled {
            if let Some(d) = more.get(&n.name) {
                n.description = d.to_string();
            }
        }
        self.repo.needles =
            self.sampled.iter().filter(|n| !n.description.is_empty()).cloned().collect();

        let described =
            |name: &str| self.sampled.iter().any(|n| n.name == name && !n.description.is_empty());
        self.warnings.retain(|w| match w {
            CurateWarning::MissingDescription { name, .. } => !described(name),
            CurateWarning::FewerNeedles { .. } => false,
            _ => true,
        });
        // curate_repo's order: missing ones, then "fewer", then unused names.
        let kept = self.repo.needles.len();
        let sampled = self.sampled.len();
        if kept < sampled {
            let at = self
                .warnings
                .iter()
                .rposition(|w| matches!(w, CurateWarning::MissingDescription { .. }))
                .map_or(self.warnings.len(), |i| i + 1);
            self.warnings.insert(at, CurateWarning::FewerNeedles { kept, sampled });
        }
        for name in more.names() {
            let unused = CurateWarning::UnusedDescription { name: name.to_string() };
            if !self.sampled.iter().any(|n| n.name == name) && !self.warnings.contains(&unused) {
                self.warnings.push(unused);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{curate_repo, CurateOptions, SourceFile};
    use super::*;
    use crate::code::lang::Language;

    /// Go functions of distinct bodies, one file per four.
    fn go_repo() -> Vec<SourceFile> {
        (0..4)
            .map(|f| {
                let mut text = format!("package calc\n\n// File {f}.\n");
                for i in 0..4 {
                    let k = f * 4 + i;
                    text.push_str(&format!(
                        "func step{k}(v int) int {{\n\tw := v * {k}\n\treturn w - {f}\n}}\n\n"
                    ));
                }
                SourceFile::new(format!("calc/f{f}.go"), text.into_bytes())
            })
            .collect()
    }

    fn curate(d: &Descriptions) -> CurateReport {
        curate_repo(&go_repo(), &CurateOptions::new(Language::Go, "t/calc"), d).unwrap()
    }

    fn text(name: &str) -> String {
        format!("\n1. **Purpose**: about {}.\n", name.len())
    }

    #[test]
    fn jobs_are_the_missing_needles_in_sample_order() {
        let none = curate(&Descriptions::new());
        let jobs = none.describe_jobs();
        let names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
        let sampled: Vec<&str> = none.sampled.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, sampled);
        let first = &none.sampled[0];
        let code = none.needle_code(first).unwrap();
        assert!(code.starts_with(&format!("func {}(", first.name)), "{code}");
        assert_eq!(jobs[0].prompt, annotation_prompt(&code, Language::Go));
        assert_eq!((jobs[0].start_line, jobs[0].end_line), (first.start_line, first.end_line));

        let some: Descriptions =
            none.sampled[..3].iter().map(|n| (n.name.clone(), text(&n.name))).collect();
        assert_eq!(curate(&some).describe_jobs(), jobs[3..].to_vec());
    }

    #[test]
    fn applying_equals_curating_with_the_completed_file() {
        let none = curate(&Descriptions::new());
        let names: Vec<String> = none.sampled.iter().map(|n| n.name.clone()).collect();
        // The file has two needles and a stray name; the model gives five
        // more (one blank, i.e. a failure) and a stray name of its own.
        let mut file = Descriptions::new();
        file.insert(names[4].clone(), text(&names[4]));
        file.insert("gone", "\n1. old\n");
        file.insert(names[1].clone(), text(&names[1]));
        let mut model = Descriptions::new();
        for i in [7, 0, 2, 9] {
            model.insert(names[i].clone(), text(&names[i]) + "by model\n");
        }
        model.insert(names[3].clone(), "  ");
        model.insert("stray", "\n1. x\n");
        let mut full = file.clone();
        for name in model.names() {
            full.insert(name, model.get(name).unwrap_or("  "));
        }

        let mut applied = curate(&file);
        applied.apply_descriptions(&model);
        let expected = curate(&full);
        assert_eq!(applied, expected);
        assert_eq!(applied.repo.needles.len(), 6);
        assert!(applied.warnings.contains(&CurateWarning::FewerNeedles { kept: 6, sampled: 10 }));
        assert!(applied
            .warnings
            .contains(&CurateWarning::UnusedDescription { name: "stray".into() }));

        // Completing everything clears the warnings about descriptions.
        let rest: Descriptions = names.iter().map(|n| (n.clone(), text(n))).collect();
        let mut done = applied.clone();
        done.apply_descriptions(&rest);
        let mut all = full.clone();
        for n in &names {
            all.insert(n.clone(), text(n));
        }
        assert_eq!(done, curate(&all));
        assert_eq!(done.repo.needles.len(), 10);
        assert!(done.describe_jobs().is_empty());
    }
}

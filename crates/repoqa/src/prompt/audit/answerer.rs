//! The artifact-only answerer: what the leak is worth.
//!
//! It reads the prompt's code context and never the needle's description
//! (the text after the last `Function Description:` is cut off unread). It
//! looks for a construction artifact and answers with the function that
//! follows it, in a code block. Scored by the official scorer, its pass rate
//! is the share of tasks a model could solve without reading the question.
//!
//! Sites, strongest first:
//! - an indented line (only spaces, or a fragment when the cut is shifted)
//!   followed by a line at column 0 whose body is indented deeper
//!   (`stray-line-break`, P6; `shifted-needle`, P3);
//! - a path line glued after code (`glued-path`, K5): the function ending there;
//! - a line ending in a space (`export `, `template <typename T> `) followed
//!   by a line at column 0 (`stray-line-break`, P6);
//! - a doc comment, attribute or decorator, a blank line, then a line at
//!   column 0 (`extra-blank-line`, P6);
//! - the blank-line run before a column-0 line that is longer than every
//!   other run of its file (`extra-blank-line`, P6).

/// The code context of a prompt, without the instruction around it and
/// without the description (cut at its marker, never read).
pub fn code_context_of(prompt: &str) -> &str {
    let body = prompt.strip_prefix(crate::prompt::context::INSTRUCTION).unwrap_or(prompt);
    match body.rfind("\nFunction Description:") {
        Some(i) => &body[..i],
        None => body,
    }
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

fn blank(line: &str) -> bool {
    line.trim().is_empty()
}

fn is_path_line(line: &str) -> bool {
    line.starts_with("# Path: ") || line.starts_with("// Path: ")
}

/// The function starting at line `start` whose body is indented deeper
/// than `base`: lines while blank or deeper, plus a closing line at `base`
/// that starts with `}` (brace languages).
fn function_from(lines: &[&str], start: usize, base: usize) -> String {
    let mut end = start + 1;
    while end < lines.len() {
        let l = lines[end];
        if blank(l) || indent(l) > base {
            end += 1;
            continue;
        }
        if l.trim_start().starts_with('}') || l.trim_start().starts_with(')') {
            end += 1;
        }
        break;
    }
    while end > start + 1 && blank(lines[end - 1]) {
        end -= 1;
    }
    lines[start..end].join("\n")
}

/// The answer to one prompt: a fenced code block, or "" when no artifact
/// is found.
pub fn answer(prompt: &str) -> String {
    let lines: Vec<&str> = code_context_of(prompt).split('\n').collect();
    let block = |code: String| format!("```\n{code}\n```");
    let next_body = |i: usize| lines[i..].iter().find(|l| !blank(l)).map(|l| indent(l));

    // Stray line break inside an indented line: "    " (or a fragment such as
    // "    pu" when the cut is shifted) above a line at column 0 whose body is
    // indented deeper: the line is re-joined and its function answered.
    for i in 0..lines.len().saturating_sub(2) {
        let (part, head) = (lines[i], lines[i + 1]);
        if indent(part) == 0 || head.is_empty() || indent(head) != 0 {
            continue;
        }
        if next_body(i + 2).is_some_and(|b| b > indent(part)) {
            let mut code = function_from(&lines, i + 1, indent(part));
            code.insert_str(0, part.trim_start());
            return block(cut_at_glue(code));
        }
    }
    // Glued path: the needle ends where a Path: line starts mid-line.
    for (i, l) in lines.iter().enumerate() {
        let Some(p) = l.find("# Path: ").or_else(|| l.find("// Path: ")) else { continue };
        if p == 0 || blank(&l[..p]) {
            continue;
        }
        let last = &l[..p];
        let target = if last.trim_start().starts_with('}') {
            indent(last)
        } else {
            indent(last).saturating_sub(1)
        };
        let start = (0..i)
            .rev()
            .find(|&j| !blank(lines[j]) && indent(lines[j]) <= target && !is_path_line(lines[j]))
            .unwrap_or(i);
        let mut code: Vec<&str> = lines[start..i].to_vec();
        code.push(last);
        return block(code.join("\n"));
    }
    // Stray line break after a line head at column 0: "export " or
    // "template <typename T> " (ending in a space) above a column-0 line.
    for i in 0..lines.len().saturating_sub(1) {
        let (part, head) = (lines[i], lines[i + 1]);
        if !blank(part) && part.ends_with(' ') && !head.is_empty() && indent(head) == 0 {
            let code = format!("{}{}", part, function_from(&lines, i + 1, 0));
            return block(cut_at_glue(code));
        }
    }
    // Detached doc comment / attribute / decorator.
    let not_code = ["use ", "import ", "#include", "package ", "mod ", "from "];
    for i in 2..lines.len() {
        let (doc, gap, head) = (lines[i - 2].trim_start(), lines[i - 1], lines[i]);
        let docish = ["//", "*/", "#[", "@", "# "].iter().any(|p| doc.starts_with(p))
            && !doc.starts_with("//!")
            && !is_path_line(doc);
        if docish
            && gap.is_empty()
            && !head.is_empty()
            && indent(head) == 0
            && !not_code.iter().any(|p| head.starts_with(p))
        {
            return block(cut_at_glue(function_from(&lines, i, 0)));
        }
    }
    // The longest blank run of a file, if it is the only one that long.
    let mut best: Option<(usize, usize)> = None; // (margin, line)
    let mut section_start = 0;
    for end in (0..=lines.len()).filter(|&j| j == lines.len() || is_path_line(lines[j])) {
        let mut runs: Vec<(usize, usize)> = Vec::new(); // (run, next line)
        let mut run = 0;
        for (j, l) in lines.iter().enumerate().take(end).skip(section_start) {
            if l.is_empty() {
                run += 1;
                continue;
            }
            if run > 0 && indent(l) == 0 && !is_path_line(l) {
                runs.push((run, j));
            }
            run = 0;
        }
        runs.sort_by_key(|r| std::cmp::Reverse(r.0));
        if let [first, rest @ ..] = runs.as_slice() {
            let second = rest.first().map_or(0, |r| r.0);
            if first.0 > second && best.is_none_or(|(m, _)| first.0 - second > m) {
                best = Some((first.0 - second, first.1));
            }
        }
        section_start = end + 1;
    }
    match best {
        Some((_, j)) => block(cut_at_glue(function_from(&lines, j, 0))),
        None => String::new(),
    }
}

/// A function text cut before a glued `Path:` line.
fn cut_at_glue(code: String) -> String {
    for marker in ["# Path: ", "// Path: "] {
        if let Some(p) = code.find(marker) {
            let line_start = code[..p].rfind('\n').map_or(0, |i| i + 1);
            if !blank(&code[line_start..p]) {
                return code[..p].to_string();
            }
        }
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(ctx: &str) -> String {
        format!(
            "{}{ctx}\nFunction Description:never read\n{}",
            crate::prompt::context::INSTRUCTION,
            crate::prompt::context::INSTRUCTION
        )
    }

    #[test]
    fn answers_the_function_after_a_stray_line_break() {
        let p = prompt("# Path: a.py\nclass A:\n    def g(self):\n        pass\n    \ndef f(self):\n        return 1\n    def h(self):\n        pass\n");
        assert_eq!(answer(&p), "```\ndef f(self):\n        return 1\n```");
    }

    #[test]
    fn answers_the_function_glued_to_a_path_line() {
        let p =
            prompt("// Path: a.go\nfunc g() {\n}\n\nfunc f() {\n\treturn\n}// Path: b.go\n...\n");
        assert_eq!(answer(&p), "```\nfunc f() {\n\treturn\n}\n```");
    }

    #[test]
    fn answers_after_a_detached_doc_comment_and_gives_up_without_artifact() {
        let p = prompt("// Path: a.rs\nfn g() {}\n\n/// Doc.\n\nfn f() {\n    1\n}\n\nfn h() {}\n");
        assert_eq!(answer(&p), "```\nfn f() {\n    1\n}\n```");
        assert_eq!(answer(&prompt("x = 1\ny = 2\n")), "");
    }

    #[test]
    fn never_reads_the_description() {
        let ctx = "# Path: a.py\nx = 1\n";
        let a = format!("{}{ctx}\nFunction Description:def f():\n\n\n\ndef g(): pass\n", "");
        assert_eq!(code_context_of(&a), ctx);
        assert_eq!(answer(&a), "");
    }
}

//! CoReQA's judge: a second model grades each answer against the question's
//! reference answer on the paper's four criteria (accuracy, completeness,
//! relevance, clarity), each 1 to 10 in five levels of two points
//! ([`super::levels`]: accuracy's levels in the paper's words, the others'
//! worded the same way), thinking step by step first ([`JUDGE_TEMPLATE`],
//! editable: [`judge_prompt`]).
//!
//! One prompt asks all four criteria, where the paper designs a prompt per
//! criterion (not published): the paper does not give its prompts; we ask
//! the four at once, so an answer costs one judge request per repetition,
//! not four, and the judge reads the reference once for all four; each
//! criterion keeps its own definition, chain-of-thought step and levels in
//! the prompt. A template of one's own (`--template`) can ask differently.
//!
//! A reply must end with the four score lines (`Accuracy: 7`, …; Markdown
//! emphasis and `/10` allowed); the text before them is the judge's
//! reasoning, kept with the scores. A reply without them, or with a score
//! outside 1 to 10, is never guessed at: [`JudgeItem::check_reply`] makes
//! the runner ask again, then report the item failed with the reason.
//!
//! Every answer is judged `repetitions` times (the paper averages two, and
//! checks robustness over five), each one [`JudgeItem`] through the
//! benchmark runner and one line of a judgments file ([`JudgeLine`]):
//!
//! ```json
//! {"question_id": "acme/widget#8", "setting": "none", "model": "m", "repetition": 1,
//!  "judge": "j", "scores": {"accuracy": 7, "completeness": 6, "relevance": 9, "clarity": 8},
//!  "reasoning": "…"}
//! ```
//!
//! [`summarize`] turns them into the paper's table: per model, setting and
//! language, the mean of each criterion over the questions in each
//! repetition, then the mean and the population standard deviation
//! (divided by n) of those per-repetition means; and the mean smoothed
//! BLEU of the answers against their references (RepoQA's
//! [`crate::scoring::bleu::function_similarity`]), to set beside the judge.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use super::answer::{first_run, is_first_run, AnswerLine, ContextSetting};
use super::qa::QaItem;
use super::CoreqaError;
use crate::llm::run::RunItem;
use crate::llm::wire::RequestParams;

/// The judge's sampling temperature in the paper.
pub const JUDGE_TEMPERATURE: f64 = 0.2;

/// The four criteria, in the order the judge writes them.
pub const CRITERIA: [&str; 4] = ["accuracy", "completeness", "relevance", "clarity"];

/// The default judge prompt. `{{repository}}`, `{{question}}`,
/// `{{reference_answer}}` and `{{answer}}` are filled in.
pub const JUDGE_TEMPLATE: &str = "\
You are a strict and fair judge of answers to questions about the code repository {{repository}}. \
The question comes from a GitHub issue; the reference answer was written from the issue's discussion. \
Grade the candidate answer on four criteria, each from 1 to 10 in five levels of two points (a higher score is better):

Accuracy: the factual correctness of the candidate answer compared with the reference answer. Verify each fact it states and check the accuracy of what it quotes (code, names, versions, messages).
  1-2: the generated answer is mostly incorrect. 3-4: the generated answer contains significant factual errors. 5-6: the generated answer has some factual errors but is primarily accurate. 7-8: the generated answer has minor inaccuracies but is overall correct. 9-10: the generated answer is factually correct and has no errors.
Completeness: whether the candidate answer covers all aspects of the question. Work out the key points of the reference answer, then find any critical point the candidate answer leaves out.
  1-2: the generated answer misses most of the reference answer's key points. 3-4: the generated answer misses significant key points. 5-6: the generated answer covers the main point but misses some key points. 7-8: the generated answer misses only minor points. 9-10: the generated answer covers every key point of the reference answer.
Relevance: whether the candidate answer addresses the core concern of the question. Work out the question's core concern, then decide whether the candidate answer addresses it directly and stays on topic.
  1-2: the generated answer is mostly off topic. 3-4: the generated answer addresses the question's core concern only in part. 5-6: the generated answer addresses the core concern but strays from it at times. 7-8: the generated answer addresses the core concern with minor digressions. 9-10: the generated answer addresses the core concern directly and stays on topic.
Clarity: whether the candidate answer is easy to understand. Judge the clarity of its logic and the simplicity of its wording, compared with the reference answer.
  1-2: the generated answer is mostly hard to understand. 3-4: the generated answer has significant lapses of logic or wording. 5-6: the generated answer is understandable but at times unclear. 7-8: the generated answer is clear with minor lapses. 9-10: the generated answer is clear, logical and simple to follow.

## Question

{{question}}

## Reference answer

{{reference_answer}}

## Candidate answer

{{answer}}

## How to reply

First think step by step: compare the candidate answer with the reference answer point by point, and say for each criterion which level fits and why. \
Then end your reply with exactly these four lines, each with a whole number from 1 to 10:
Accuracy: <score>
Completeness: <score>
Relevance: <score>
Clarity: <score>
";

/// Fill the judge `template`'s places: `{{repository}}`, `{{question}}`,
/// `{{reference_answer}}` and `{{answer}}` (which it must have).
pub fn judge_prompt(template: &str, qa: &QaItem, answer: &str) -> Result<String, CoreqaError> {
    let values = [
        ("repository", qa.repository.as_str()),
        ("question", qa.question.trim_end()),
        ("reference_answer", qa.reference_answer.trim_end()),
        ("answer", answer.trim_end()),
    ];
    fill_template(template, &values, &["answer"])
}

/// Fill `template`'s `{{name}}` places from `values` in one pass (a value
/// that itself holds `{{answer}}` stays as it is); every name in
/// `required` must have a place, and an unknown place is an error.
pub(crate) fn fill_template(
    template: &str,
    values: &[(&str, &str)],
    required: &[&str],
) -> Result<String, CoreqaError> {
    let bad = |message: String| CoreqaError::Template { message };
    for r in required {
        if !template.contains(&format!("{{{{{r}}}}}")) {
            return Err(bad(format!("it has no {{{{{r}}}}} place")));
        }
    }
    let size: usize = values.iter().map(|(_, v)| v.len()).sum();
    let mut out = String::with_capacity(template.len() + size);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            rest = "";
            break;
        };
        let name = &after[..end];
        let Some(&(_, value)) = values.iter().find(|(n, _)| *n == name) else {
            let places: Vec<String> = values.iter().map(|(n, _)| format!("{{{{{n}}}}}")).collect();
            return Err(bad(format!(
                "unknown place {{{{{name}}}}}; the places are {}",
                places.join(", ")
            )));
        };
        out.push_str(value);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// One value per criterion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Criteria<T> {
    pub accuracy: T,
    pub completeness: T,
    pub relevance: T,
    pub clarity: T,
}

impl<T: Copy> Criteria<T> {
    pub fn get(&self, criterion: usize) -> T {
        [self.accuracy, self.completeness, self.relevance, self.clarity][criterion]
    }
    pub(crate) fn from_fn(f: impl Fn(usize) -> T) -> Criteria<T> {
        Criteria { accuracy: f(0), completeness: f(1), relevance: f(2), clarity: f(3) }
    }
}

impl Criteria<u8> {
    /// The mean of the four scores.
    pub fn overall(&self) -> f64 {
        (0..4).map(|c| f64::from(self.get(c))).sum::<f64>() / 4.0
    }
}

/// A judge's reply read: the four scores and the reasoning before them.
#[derive(Clone, Debug, PartialEq)]
pub struct JudgeVerdict {
    pub scores: Criteria<u8>,
    pub reasoning: String,
}

/// The criterion and value of a line like `**Accuracy**: 7/10`; `Ok(None)`
/// for any other line (prose such as `Accuracy: the answer…`), `Err` for a
/// score line whose number is not 1 to 10.
fn score_line(line: &str) -> Result<Option<(usize, u8)>, String> {
    let deco = |c: char| matches!(c, '*' | '_' | '#' | '-' | '>' | '`') || c.is_whitespace();
    let t = line.trim_matches(deco);
    let Some((name, value)) = t.split_once(':') else { return Ok(None) };
    let name = name.trim_matches(deco).to_ascii_lowercase();
    let Some(criterion) = CRITERIA.iter().position(|c| *c == name) else { return Ok(None) };
    let value = value.trim_matches(deco);
    if !value.starts_with(|c: char| c.is_ascii_digit()) {
        return Ok(None);
    }
    let number = value.strip_suffix("/10").unwrap_or(value).trim_end_matches(['.', ' ']);
    match number.parse::<u8>() {
        Ok(n @ 1..=10) => Ok(Some((criterion, n))),
        _ => Err(format!("{:?} is not a score from 1 to 10", t)),
    }
}

/// Read a judge's reply: its last four score lines must name the four
/// criteria once each.
pub fn read_verdict(reply: &str) -> Result<JudgeVerdict, String> {
    let lines: Vec<&str> = reply.lines().collect();
    let mut found: Vec<(usize, usize, u8)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if let Some((criterion, n)) = score_line(line)? {
            found.push((i, criterion, n));
        }
    }
    let last = &found[found.len().saturating_sub(4)..];
    let named: BTreeSet<usize> = last.iter().map(|&(_, c, _)| c).collect();
    // Only blank lines between them: one block, not scores picked from prose.
    let one_block =
        last.windows(2).all(|w| lines[w[0].0 + 1..w[1].0].iter().all(|l| l.trim().is_empty()));
    if last.len() < 4 || named.len() < 4 || !one_block {
        let missing: Vec<&str> =
            (0..4).filter(|c| !named.contains(c)).map(|c| CRITERIA[c]).collect();
        return Err(format!(
            "the judge's reply does not end with the four score lines (Accuracy, Completeness, Relevance, Clarity: 1 to 10){}: {:?}",
            if missing.is_empty() || last.is_empty() {
                String::new()
            } else {
                format!("; missing {}", missing.join(", "))
            },
            crate::llm::snippet(reply)
        ));
    }
    let score = |c: usize| last.iter().find(|&&(_, k, _)| k == c).map_or(0, |&(_, _, n)| n);
    let reasoning = lines[..last[0].0].join("\n").trim().to_string();
    Ok(JudgeVerdict { scores: Criteria::from_fn(score), reasoning })
}

/// One judging request: an answer, judged for the `repetition`-th time.
#[derive(Clone, Debug, PartialEq)]
pub struct JudgeItem {
    pub question_id: String,
    pub setting: ContextSetting,
    /// The model that answered.
    pub model: String,
    /// The answer's run (sample), from 1.
    pub run: u32,
    /// From 1.
    pub repetition: u32,
    /// How many times each answer is judged.
    pub repetitions: u32,
    /// The judge model (recorded in the line).
    pub judge: String,
    pub prompt: String,
    pub prompt_ntokens: usize,
    /// Of the judge's stability check: the seed its sample of answers was
    /// drawn with ([`super::stability`]); None for the judge's scores.
    pub stability_seed: Option<u64>,
}

/// The id a judgment is known by in the run log:
/// `question_id::setting::model::repetition` for the answer's first run
/// (the id of files written before runs), `…::model::run2::repetition`
/// and so on after it.
pub fn judgment_id(
    question_id: &str,
    setting: ContextSetting,
    model: &str,
    run: u32,
    repetition: u32,
) -> String {
    if run <= 1 {
        format!("{question_id}::{setting}::{model}::{repetition}")
    } else {
        format!("{question_id}::{setting}::{model}::run{run}::{repetition}")
    }
}

impl RunItem for JudgeItem {
    fn whole_replies_only(&self) -> bool {
        true
    }
    fn task_id(&self) -> String {
        judgment_id(&self.question_id, self.setting, &self.model, self.run, self.repetition)
    }
    fn prompt(&self) -> String {
        self.prompt.clone()
    }
    fn prompt_ntokens(&self) -> usize {
        self.prompt_ntokens
    }
    fn check_reply(&self, reply: &str) -> Result<(), String> {
        read_verdict(reply).map(|_| ())
    }
    fn output_line(&self, reply: &str, asked: &RequestParams) -> Result<String, String> {
        let v = read_verdict(reply)?;
        let line = JudgeLine {
            question_id: self.question_id.clone(),
            setting: self.setting,
            model: self.model.clone(),
            run: self.run,
            repetition: self.repetition,
            judge: self.judge.clone(),
            scores: v.scores,
            reasoning: v.reasoning,
            temperature: Some(asked.temperature),
            repetitions: Some(self.repetitions),
            stability_seed: self.stability_seed,
        };
        super::jsonl_line(&line)
    }
}

/// One line of a judgments file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgeLine {
    pub question_id: String,
    pub setting: ContextSetting,
    pub model: String,
    /// The answer's run, from 1; absent for the first.
    #[serde(default = "first_run", skip_serializing_if = "is_first_run")]
    pub run: u32,
    pub repetition: u32,
    pub judge: String,
    pub scores: Criteria<u8>,
    pub reasoning: String,
    /// The sampling temperature the reply was asked at (absent in files
    /// written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// How many times each answer is judged (absent in files written
    /// before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repetitions: Option<u32>,
    /// A judgment of the judge's stability check (Table VI), not a score:
    /// the seed its sample of answers was drawn with. Tables IV and V leave
    /// these lines out; Table VI is made of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stability_seed: Option<u64>,
}

impl JudgeLine {
    pub fn id(&self) -> String {
        judgment_id(&self.question_id, self.setting, &self.model, self.run, self.repetition)
    }
}

/// The judging requests for `answers` (each `repetitions` times), in
/// answer order then repetition, with `count_tokens` giving each prompt's
/// token count. An answer to a question `qa` does not hold is an error.
pub fn judge_items(
    qa: &[QaItem],
    answers: &[AnswerLine],
    repetitions: u32,
    judge: &str,
    template: &str,
    mut count_tokens: impl FnMut(&str) -> usize,
) -> Result<Vec<JudgeItem>, CoreqaError> {
    let by_id: HashMap<&str, &QaItem> = qa.iter().map(|q| (q.id.as_str(), q)).collect();
    let mut items = Vec::with_capacity(answers.len() * repetitions as usize);
    for a in answers {
        let q = by_id
            .get(a.question_id.as_str())
            .ok_or_else(|| CoreqaError::UnknownQuestion { id: a.question_id.clone() })?;
        let prompt = judge_prompt(template, q, &a.answer)?;
        let prompt_ntokens = count_tokens(&prompt);
        for repetition in 1..=repetitions {
            items.push(JudgeItem {
                question_id: a.question_id.clone(),
                setting: a.setting,
                model: a.model.clone(),
                run: a.run,
                repetition,
                repetitions,
                judge: judge.to_string(),
                prompt: prompt.clone(),
                prompt_ntokens,
                stability_seed: None,
            });
        }
    }
    Ok(items)
}

/// Read a judgments file (JSON Lines), leaving out a cut last line when
/// `resuming`.
pub fn read_judge_lines(
    text: &str,
    name: &str,
    resuming: bool,
) -> Result<Vec<JudgeLine>, CoreqaError> {
    super::read_lines(text, resuming, |e| {
        CoreqaError::Qa {
        path: name.to_string(),
        line: e.0,
        message: format!(
            "not a judgment line {{\"question_id\", \"setting\", \"model\", \"repetition\", \"judge\", \"scores\", \"reasoning\"}} ({})",
            e.1
        ),
    }
    })
}

/// A mean and the population standard deviation over repetitions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MeanStd {
    pub mean: f64,
    pub std: f64,
}

impl MeanStd {
    /// Of `values` (none: 0 ± 0); the deviation divides by n.
    pub fn of(values: &[f64]) -> MeanStd {
        if values.is_empty() {
            return MeanStd::default();
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
        MeanStd { mean, std: var.sqrt() }
    }

    /// "6.85 ± 0.04", as the paper's tables print a figure.
    pub fn label(&self) -> String {
        format!("{:.2} ± {:.2}", self.mean, self.std)
    }
}

/// One row of the judge's table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgeRow {
    pub model: String,
    pub setting: ContextSetting,
    /// The questions' language (`"all"` for a model and setting over every
    /// language; `"unknown"` when the QA file does not say).
    pub language: String,
    /// Questions with at least one judgment.
    pub questions: usize,
    pub repetitions: usize,
    /// The answers' runs (samples per question); with more than one, the
    /// deviation is over the runs' means (the paper's five runs at 0.2),
    /// each run's mean taken over its questions' repetition means.
    #[serde(default = "one")]
    pub runs: usize,
    pub criteria: Criteria<MeanStd>,
    /// The mean of the four criteria.
    pub overall: MeanStd,
    /// Mean smoothed BLEU of the answers against their references (0 to 1),
    /// when the answers were given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bleu: Option<f64>,
    /// With more than one run: each of the row's questions, its overall
    /// score's mean and deviation over its runs (the paper's spread per
    /// question); empty with one run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_question: Vec<QuestionSpread>,
}

/// The judge's table: a row per model, setting and language, and a row
/// `"all"` per model and setting when there is more than one language;
/// sorted by model, setting, language. `answers` (optional) gives BLEU.
pub fn summarize(qa: &[QaItem], judged: &[JudgeLine], answers: &[AnswerLine]) -> Vec<JudgeRow> {
    let language: HashMap<&str, &str> =
        qa.iter().map(|q| (q.id.as_str(), q.language.as_deref().unwrap_or("unknown"))).collect();
    let reference: HashMap<&str, &str> =
        qa.iter().map(|q| (q.id.as_str(), q.reference_answer.as_str())).collect();
    // (question, setting, model) -> the sum of its answers' BLEU, their
    // count: a question answered in several runs counts its runs' mean.
    let mut bleu: HashMap<(&str, ContextSetting, &str), (f64, usize)> = HashMap::new();
    for a in answers {
        let Some(r) = reference.get(a.question_id.as_str()) else { continue };
        let e = bleu.entry((a.question_id.as_str(), a.setting, a.model.as_str())).or_default();
        e.0 += crate::scoring::bleu::function_similarity(&a.answer, r);
        e.1 += 1;
    }
    // (model, setting, language) -> run -> repetition -> question -> scores
    type Group<'a> = BTreeMap<u32, BTreeMap<u32, BTreeMap<&'a str, Criteria<u8>>>>;
    let mut groups: BTreeMap<(&str, ContextSetting, &str), Group<'_>> = BTreeMap::new();
    let mut languages: BTreeMap<(&str, ContextSetting), BTreeSet<&str>> = BTreeMap::new();
    for j in judged {
        let lang = language.get(j.question_id.as_str()).copied().unwrap_or("unknown");
        languages.entry((j.model.as_str(), j.setting)).or_default().insert(lang);
        for l in [lang, "all"] {
            groups
                .entry((j.model.as_str(), j.setting, l))
                .or_default()
                .entry(j.run)
                .or_default()
                .entry(j.repetition)
                .or_default()
                .insert(j.question_id.as_str(), j.scores);
        }
    }
    let spreads = per_question(judged);
    let mut rows = Vec::new();
    for ((model, setting, lang), runs) in &groups {
        if *lang == "all" && languages.get(&(*model, *setting)).is_some_and(|l| l.len() < 2) {
            continue;
        }
        let per_rep = |f: &dyn Fn(&Criteria<u8>) -> f64| -> MeanStd {
            let means: Vec<f64> = if runs.len() > 1 {
                // Per run: its questions' means over their repetitions,
                // averaged.
                runs.values().map(|reps| mean_of_question_means(reps, f)).collect()
            } else {
                runs.values()
                    .flat_map(|reps| reps.values())
                    .map(|qs| qs.values().map(f).sum::<f64>() / qs.len() as f64)
                    .collect()
            };
            MeanStd::of(&means)
        };
        let questions: BTreeSet<&str> =
            runs.values().flat_map(|r| r.values()).flat_map(|qs| qs.keys().copied()).collect();
        let repetitions = runs.values().map(BTreeMap::len).max().unwrap_or(0);
        let b: Vec<f64> = questions
            .iter()
            .filter_map(|q| bleu.get(&(*q, *setting, *model)))
            .map(|(s, n)| s / *n as f64)
            .collect();
        rows.push(JudgeRow {
            model: model.to_string(),
            setting: *setting,
            language: lang.to_string(),
            questions: questions.len(),
            repetitions,
            runs: runs.len(),
            criteria: Criteria::from_fn(|c| per_rep(&|s| f64::from(s.get(c)))),
            overall: per_rep(&|s| s.overall()),
            bleu: (!b.is_empty()).then(|| b.iter().sum::<f64>() / b.len() as f64),
            per_question: if runs.len() > 1 {
                spreads
                    .iter()
                    .filter(|s| {
                        s.model == *model
                            && s.setting == *setting
                            && questions.contains(s.question_id.as_str())
                    })
                    .cloned()
                    .collect()
            } else {
                Vec::new()
            },
        });
    }
    rows
}

fn one() -> usize {
    1
}

/// The mean over questions of each question's mean over `reps` (one run's
/// repetition → question → scores), of the figure `f` reads.
fn mean_of_question_means(
    reps: &BTreeMap<u32, BTreeMap<&str, Criteria<u8>>>,
    f: &dyn Fn(&Criteria<u8>) -> f64,
) -> f64 {
    let mut per_question: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    for qs in reps.values() {
        for (q, s) in qs {
            let e = per_question.entry(q).or_default();
            e.0 += f(s);
            e.1 += 1;
        }
    }
    per_question.values().map(|(sum, n)| sum / *n as f64).sum::<f64>() / per_question.len() as f64
}

/// One question's overall score over the runs of its answers: per run the
/// mean over the repetitions, then the mean and population deviation of
/// those over the runs (the paper's spread per question).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QuestionSpread {
    pub question_id: String,
    pub model: String,
    pub setting: ContextSetting,
    pub runs: usize,
    pub overall: MeanStd,
}

/// The spread per question, model and setting (sorted so), over the runs
/// of `judged`.
pub fn per_question(judged: &[JudgeLine]) -> Vec<QuestionSpread> {
    // (question, model, setting) -> run -> (sum of overall, count)
    type Runs = BTreeMap<u32, (f64, usize)>;
    let mut by: BTreeMap<(&str, &str, ContextSetting), Runs> = BTreeMap::new();
    for j in judged {
        let e = by
            .entry((j.question_id.as_str(), j.model.as_str(), j.setting))
            .or_default()
            .entry(j.run)
            .or_default();
        e.0 += j.scores.overall();
        e.1 += 1;
    }
    by.into_iter()
        .map(|((q, model, setting), runs)| {
            let means: Vec<f64> = runs.values().map(|(s, n)| s / *n as f64).collect();
            QuestionSpread {
                question_id: q.to_string(),
                model: model.to_string(),
                setting,
                runs: means.len(),
                overall: MeanStd::of(&means),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qa(id: &str, lang: &str) -> QaItem {
        serde_json::from_str(&format!(
            r#"{{"id": "{id}", "repository": "a/b", "language": "{lang}", "question": "Why {{{{answer}}}}?", "reference_answer": "Because x."}}"#
        ))
        .unwrap()
    }

    #[test]
    fn the_prompt_shows_each_criterion_s_five_levels_in_the_levels_words() {
        for (c, name) in CRITERIA.iter().enumerate() {
            let line = super::super::levels::prompt_line(c);
            assert!(JUDGE_TEMPLATE.contains(&format!("\n  {line}\n")), "{name}: {line}");
        }
    }

    #[test]
    fn the_template_is_filled_in_one_pass() {
        let p = judge_prompt(JUDGE_TEMPLATE, &qa("q", "python"), "It is {{reference_answer}}.")
            .unwrap();
        assert!(p.contains("## Question\n\nWhy {{answer}}?\n\n## Reference answer\n\nBecause x.\n"));
        assert!(p.contains("## Candidate answer\n\nIt is {{reference_answer}}.\n"));
        assert!(p.contains("repository a/b."));
        let e = judge_prompt("{{answer}} {{nope}}", &qa("q", "python"), "a").unwrap_err();
        assert!(e.to_string().contains("unknown place {{nope}}"), "{e}");
        assert!(judge_prompt("no place", &qa("q", "python"), "a").is_err());
    }

    #[test]
    fn verdicts_need_the_four_final_score_lines() {
        let v = read_verdict(
            "The answer names the cause.\nAccuracy: it is right.\n\n**Accuracy**: 8/10\n- Completeness: 6\nRelevance: 9.\n**Clarity:** 7\n",
        )
        .unwrap();
        assert_eq!(v.scores, Criteria { accuracy: 8, completeness: 6, relevance: 9, clarity: 7 });
        assert_eq!(v.reasoning, "The answer names the cause.\nAccuracy: it is right.");
        // A score in the reasoning and three at the end: not guessed.
        let e = read_verdict("Accuracy: 5\nsome text\nCompleteness: 6\nRelevance: 9\nClarity: 7");
        assert!(e.unwrap_err().starts_with("the judge's reply does not end"));
        let e = read_verdict("I think it is good.\nCompleteness: 6\nRelevance: 9\nClarity: 7")
            .unwrap_err();
        assert!(e.contains("missing accuracy"), "{e}");
        assert!(read_verdict("Accuracy: 11\nCompleteness: 6\nRelevance: 9\nClarity: 7")
            .unwrap_err()
            .contains("not a score from 1 to 10"));
        assert!(read_verdict("").unwrap_err().starts_with("the judge's reply does not end"));
        // Two scores for one criterion (issue 80): never one of them picked.
        let e = read_verdict("Accuracy: 7\nAccuracy: 8\nRelevance: 9\nClarity: 7").unwrap_err();
        assert!(e.contains("missing completeness"), "{e}");
        assert!(read_verdict("Accuracy: 7 or 8\nCompleteness: 6\nRelevance: 9\nClarity: 7")
            .unwrap_err()
            .contains("not a score from 1 to 10"));
        assert!(read_verdict("Accuracy: 0\nCompleteness: 6\nRelevance: 9\nClarity: 7")
            .unwrap_err()
            .contains("not a score from 1 to 10"));
        assert_eq!(
            Criteria { accuracy: 8, completeness: 6, relevance: 9, clarity: 7 }.overall(),
            7.5
        );
    }

    #[test]
    fn the_table_averages_questions_then_repetitions() {
        let qa = [qa("q1", "python"), qa("q2", "go")];
        let line = |q: &str, rep: u32, a: u8| JudgeLine {
            repetitions: None,
            stability_seed: None,
            temperature: None,
            run: 1,
            question_id: q.into(),
            setting: ContextSetting::None,
            model: "m".into(),
            repetition: rep,
            judge: "j".into(),
            scores: Criteria { accuracy: a, completeness: 4, relevance: 4, clarity: 4 },
            reasoning: String::new(),
        };
        let judged = [line("q1", 1, 10), line("q2", 1, 6), line("q1", 2, 8), line("q2", 2, 4)];
        let rows = summarize(&qa, &judged, &[]);
        let langs: Vec<&str> = rows.iter().map(|r| r.language.as_str()).collect();
        assert_eq!(langs, ["all", "go", "python"]);
        // all: repetition means 8 and 6 -> 7 ± 1 (population deviation).
        assert_eq!(rows[0].criteria.accuracy, MeanStd { mean: 7.0, std: 1.0 });
        assert_eq!(rows[0].questions, 2);
        assert_eq!(rows[0].repetitions, 2);
        assert_eq!(rows[2].criteria.accuracy, MeanStd { mean: 9.0, std: 1.0 });
        assert_eq!(rows[2].overall, MeanStd { mean: 5.25, std: 0.25 });
        assert_eq!(rows[0].bleu, None);
        assert_eq!(rows[0].runs, 1);
    }

    #[test]
    fn with_several_runs_the_spread_is_over_the_runs() {
        let qa = [qa("q1", "python"), qa("q2", "python")];
        let line = |q: &str, run: u32, rep: u32, a: u8| JudgeLine {
            repetitions: None,
            stability_seed: None,
            temperature: None,
            run,
            question_id: q.into(),
            setting: ContextSetting::None,
            model: "m".into(),
            repetition: rep,
            judge: "j".into(),
            scores: Criteria { accuracy: a, completeness: a, relevance: a, clarity: a },
            reasoning: String::new(),
        };
        // Run 1: q1 (8, 6) -> 7, q2 5: run mean 6. Run 2: q1 9, q2 (3, 3)
        // -> 3: run mean 6. Run 3: q1 10, q2 8: run mean 9.
        let judged = [
            line("q1", 1, 1, 8),
            line("q1", 1, 2, 6),
            line("q2", 1, 1, 5),
            line("q1", 2, 1, 9),
            line("q2", 2, 1, 3),
            line("q2", 2, 2, 3),
            line("q1", 3, 1, 10),
            line("q2", 3, 1, 8),
        ];
        // BLEU: a question answered in two runs counts both (its reference
        // once, something else once: the mean of 1 and the other's).
        let answer = |q: &str, run: u32, text: &str| AnswerLine {
            runs: None,
            temperature: None,
            question_id: q.into(),
            setting: ContextSetting::None,
            model: "m".into(),
            run,
            answer: text.into(),
        };
        let answers = [answer("q1", 1, "Because x."), answer("q1", 2, "no idea at all here")];
        let other = crate::scoring::bleu::function_similarity("no idea at all here", "Because x.");
        let rows = summarize(&qa, &judged, &answers);
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        let want =
            (crate::scoring::bleu::function_similarity("Because x.", "Because x.") + other) / 2.0;
        assert_eq!(r.bleu, Some(want));
        assert_eq!((r.runs, r.repetitions, r.questions), (3, 2, 2));
        // Run means 6, 6, 9: mean 7, population deviation √2.
        assert_eq!(r.overall.mean, 7.0);
        assert!((r.overall.std - 2f64.sqrt()).abs() < 1e-12, "{:?}", r.overall);
        // Per question: q1 over runs 7, 9, 10; q2 5, 3, 8.
        let spread = per_question(&judged);
        let q1 = spread.iter().find(|s| s.question_id == "q1").unwrap();
        assert_eq!(q1.runs, 3);
        assert!((q1.overall.mean - 26.0 / 3.0).abs() < 1e-12);
        let q2 = spread.iter().find(|s| s.question_id == "q2").unwrap();
        assert!((q2.overall.mean - 16.0 / 3.0).abs() < 1e-12);
        // The row carries its questions' spreads (and its JSON does).
        assert_eq!(r.per_question, spread);
        let json = serde_json::to_value(r).unwrap();
        assert_eq!(json["per_question"][1]["question_id"], "q2", "{json}");
        assert_eq!(json["per_question"][1]["runs"], 3, "{json}");
        // One run: no spread per question, and none in the JSON.
        let once = summarize(&qa, &judged[..3], &answers);
        assert!(once[0].per_question.is_empty());
        assert!(serde_json::to_value(&once[0]).unwrap().get("per_question").is_none());
        // A line of the first run has no "run"; a later one has.
        let text = serde_json::to_string(&judged[0]).unwrap();
        assert!(!text.contains("\"run\""), "{text}");
        let text = serde_json::to_string(&judged[3]).unwrap();
        assert!(text.contains("\"run\":2"), "{text}");
        let back: JudgeLine = serde_json::from_str(&text).unwrap();
        assert_eq!((back.run, back.id()), (2, "q1::none::m::run2::1".to_string()));
    }
}

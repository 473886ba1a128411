//! A prompt's anatomy (`repoqa::prompt::anatomy`) adds up to the task's own token
//! fields for every task of the realistic corpus, in every comment mode, at
//! the official size: the bands before the needle to `needle_token_start`,
//! the needle to its span, all of the context's bands to
//! `code_context_ntokens`. (The demo in all modes and small sizes is in the
//! module's unit tests.)

use repoqa_testkit as common;

use repoqa::code::tokenize::Tokenizer;
use repoqa::input::dataset::Dataset;
use repoqa::prompt::anatomy::{anatomy, Part};
use repoqa::prompt::context::{task_specs, CommentMode, ContextBuilder, ContextOptions};

#[test]
fn bands_add_up_to_the_task_fields_on_the_realistic_corpus() {
    let path = common::corpus_path();
    let dataset =
        Dataset::from_bytes(&std::fs::read(&path).expect("read"), "corpus").expect("load");
    let tok = Tokenizer::from_file(&common::tokenizer_path()).expect("tokenizer");
    let specs = task_specs(&dataset, None);
    let mut checked = 0;
    for mode in CommentMode::ALL {
        let options = ContextOptions { comment_mode: *mode, ..ContextOptions::default() };
        let mut builder = ContextBuilder::new(&dataset, options, &tok);
        for spec in &specs {
            let placed = builder.build_placed(spec).expect("build");
            let t = &placed.task;
            let a = anatomy(t, placed.needle.clone(), &[], Some(&dataset), &tok).expect("anatomy");
            let before: usize =
                a.context_bands().take_while(|b| b.part != Part::Needle).map(|b| b.tokens).sum();
            let id = t.task_id();
            assert_eq!(before, t.needle_token_start, "{mode} {id}");
            assert_eq!(
                a.tokens_of(Part::Needle),
                t.needle_token_end - t.needle_token_start,
                "{id}"
            );
            let all: usize = a.context_bands().map(|b| b.tokens).sum();
            assert_eq!(all, t.code_context_ntokens, "{mode} {id}");
            checked += 1;
        }
    }
    println!("{checked} tasks: every band sum equals the task's fields");
}

/// A call-path task's anatomy (`api::callpath::anatomy`) over every task of
/// the realistic corpus at 16k: a marked band for each function of the gold
/// path (the source and the target of a no-path task), named, in the
/// context's order, each at the depth the task records (within a token's
/// rounding of the whole); the bands cover the prompt's bytes without a gap.
#[test]
fn call_path_anatomy_marks_every_path_function_on_the_realistic_corpus() {
    use repoqa::api::callpath::{anatomy as path_anatomy, CallPathPlan};
    let dataset =
        Dataset::from_bytes(&std::fs::read(common::corpus_path()).expect("read"), "corpus")
            .expect("load");
    let tok = Tokenizer::from_file(&common::tokenizer_path()).expect("tokenizer");
    let plan = CallPathPlan::new(16384);
    let repos = plan.check(&dataset).expect("plan");
    let built = plan.build(&dataset, &repos, &tok, |_, _| {}).expect("builds");
    assert!(built.tasks.len() > 100, "{} tasks", built.tasks.len());
    for t in &built.tasks {
        let id = t.id();
        let a = path_anatomy(&dataset, t, &tok).expect("anatomy");
        let marked: Vec<_> = a.bands.iter().filter(|b| b.part == Part::Needle).collect();
        let functions: Vec<&str> = if t.path.is_empty() {
            vec![t.source.name.as_str(), t.target.name.as_str()]
        } else {
            t.path.iter().map(String::as_str).collect()
        };
        assert_eq!(marked.len(), functions.len(), "{id}");
        let mut names: Vec<&str> =
            marked.iter().map(|b| b.name.as_deref().expect("named")).collect();
        let mut want = functions.clone();
        names.sort_unstable();
        want.sort_unstable();
        assert_eq!(names, want, "{id}");
        assert!(marked.windows(2).all(|w| w[0].bytes.end <= w[1].bytes.start), "{id}");
        // Bands tile the prompt.
        assert_eq!(a.bands[0].bytes.start, 0, "{id}");
        assert!(a.bands.windows(2).all(|w| w[0].bytes.end == w[1].bytes.start), "{id}");
        assert_eq!(a.bands.last().expect("bands").bytes.end, t.prompt().len(), "{id}");
        // Each function's depth, as the task records it: the share of the
        // context's tokens before it.
        let first = a.tokens_of(Part::Instruction);
        let ctx = a.context_bands().map(|b| b.tokens).sum::<usize>() as f64;
        for b in &marked {
            let name = b.name.as_deref().expect("named");
            let k = functions.iter().position(|f| *f == name).expect("a path function");
            let depth = (b.first_token - first) as f64 / ctx;
            assert!(
                (depth - t.depths[k]).abs() < 0.02,
                "{id}: {name} at {depth}, the task says {}",
                t.depths[k]
            );
        }
    }
}

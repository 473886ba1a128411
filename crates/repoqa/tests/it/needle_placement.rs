//! The needle's place in the prompt, as the builder put it
//! (`ContextBuilder::build_placed`), in all three comment modes, on the
//! demo and the realistic corpus: the range holds the needle as placed, the
//! tokens before it are `needle_token_start` and the tokens in it
//! `needle_token_end - needle_token_start`. The locator for tasks read back
//! without a placement (`context::locate_needle`) finds the same range.
//! Also printed: how many needles a search for the dataset's needle text
//! (what the task view did before) misses in each mode.

use repoqa_testkit as common;

use repoqa::code::tokenize::Tokenizer;
use repoqa::input::dataset::Dataset;
use repoqa::prompt::context::{
    locate_needle, placed_needle_text, task_specs, CommentMode, ContextBuilder, ContextOptions,
};

fn check(dataset: &Dataset, origin: &str, tok: &Tokenizer) {
    let specs = task_specs(dataset, None);
    for mode in CommentMode::ALL.iter().copied() {
        let options = ContextOptions { comment_mode: mode, ..ContextOptions::default() };
        let mut builder = ContextBuilder::new(dataset, options, tok);
        let mut raw_misses = 0;
        for spec in &specs {
            let placed = builder.build_placed(spec).unwrap();
            let (t, r) = (&placed.task, placed.needle.clone());
            let ctx = &t.code_context;
            let at = format!("{origin} {mode} {}", t.task_id());
            assert!(ctx.is_char_boundary(r.start) && ctx.is_char_boundary(r.end), "{at}");
            assert_eq!(
                tok.count(&ctx[..r.start]).unwrap(),
                t.needle_token_start,
                "{at}: tokens before"
            );
            assert_eq!(
                tok.count(&ctx[r.clone()]).unwrap(),
                t.needle_token_end - t.needle_token_start,
                "{at}: tokens of the needle"
            );
            assert_eq!(
                placed_needle_text(dataset, t, mode).as_deref(),
                Some(&ctx[r.clone()]),
                "{at}"
            );
            assert_eq!(locate_needle(dataset, t, mode), Some(r), "{at}: locator");
            let raw = placed_needle_text(dataset, t, CommentMode::None).unwrap();
            if !ctx.contains(&raw) {
                raw_misses += 1;
            }
        }
        println!(
            "{origin} {mode}: {} tasks placed and located; a search for the raw needle text misses {raw_misses}",
            specs.len()
        );
    }
}

#[test]
fn needles_are_where_the_builder_put_them() {
    let tok = Tokenizer::from_file(&common::tokenizer_path()).unwrap();
    let demo = Dataset::from_file(&common::root().join("public/demo/repoqa-demo.json")).unwrap();
    check(&demo, "demo", &tok);
    let corpus = Dataset::from_file(&common::corpus_path()).unwrap();
    check(&corpus, "corpus", &tok);
}

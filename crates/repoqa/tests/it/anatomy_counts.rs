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

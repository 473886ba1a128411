//! `repoqa`: the native command-line tool over the same core as the web app.
fn main() {
    eprintln!("repoqa: being written");
    std::process::exit(2);
}

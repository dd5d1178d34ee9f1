//! `mockup-cli`: Mockup without a window. Bad input prints a message naming it and exits
//! with status 2.

mod args;
mod scenes;
mod toi;

use args::UsageError;

fn usage() -> String {
    format!("usage:\n  {}\n  {}\n  {}\n  {}\n", toi::USAGE, scenes::INFO_USAGE, scenes::REPLAY_USAGE, scenes::GEN_USAGE)
}

fn main() {
    mockup_solver::memory::map_large_allocations();
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let result = match argv.first().map(String::as_str) {
        Some("toi") => toi::run(&argv[1..]),
        Some("info") => scenes::info(&argv[1..]),
        Some("replay") => scenes::replay(&argv[1..]),
        Some("gen-assets") => scenes::gen_assets(&argv[1..]),
        None | Some("help" | "--help" | "-h") => {
            print!("{}", usage());
            Ok(())
        }
        Some(other) => Err(UsageError(format!("unknown command {other:?}\n{}", usage()))),
    };
    if let Err(e) = result {
        eprintln!("mockup-cli: {e}");
        std::process::exit(2);
    }
}

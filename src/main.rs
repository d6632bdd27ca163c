//! parse → run → map the error to an exit code (a broken pipe is success).

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

use reconctl::cli::Cli;
use reconctl::context::Context;

fn main() -> ExitCode {
    // No panic reaches the user as a Rust backtrace: it is a bug in reconctl, said so, exit 1.
    std::panic::set_hook(Box::new(|info| {
        eprintln!(
            "error: BUG: reconctl panicked: {info}\nhint: every change reconctl makes is one guarded statement, so a job is either moved with its event or untouched; check with `reconctl jobs show`, and please report this"
        );
        std::process::exit(1);
    }));
    let matches = Cli::command().get_matches();
    let cli =
        Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.format(&mut Cli::command()).exit());
    // Sessions report `reconctl <command>` as their application_name.
    let ctx = Context::new(cli.globals.clone()).for_command(reconctl::cli::command_path(&matches));
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let result = runtime.block_on(reconctl::commands::run(&ctx, &cli));
    // Do not wait for background connection tasks.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    match result {
        Ok(exit) => ExitCode::from(exit.code()),
        Err(err) if err.code == "broken_pipe" => ExitCode::SUCCESS,
        Err(err) => {
            let err = ctx.explain(err);
            ctx.ui.error(&err);
            ExitCode::from(err.exit_code())
        }
    }
}

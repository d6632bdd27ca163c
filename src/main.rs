//! parse → run → map the outcome to an exit code (a broken pipe is success).

use std::process::ExitCode;

use clap::CommandFactory;

use reconctl::cli::{self, Cli};
use reconctl::context::Context;
use reconctl::error::{exit_code, Error};

fn main() -> ExitCode {
    // No panic reaches the user as a Rust backtrace: it is a bug in reconctl, said so, exit 1.
    // The hook only prints: the unwind is caught below, so every `Drop` on the way (a
    // sandbox's cluster, temporary directories) still runs.
    std::panic::set_hook(Box::new(|info| {
        eprintln!(
            "error: BUG: reconctl panicked: {info}\nhint: every change reconctl makes is one guarded statement, so a job is either moved with its event or untouched; check with `reconctl jobs show`, and please report this"
        );
    }));
    let (cli, command) = match cli::parse(std::env::args_os().collect()) {
        cli::Parsed::Run(cli, command) => (cli, command),
        cli::Parsed::Exit(code) => return ExitCode::from(code),
    };
    let settings = match cli.globals.settings(command) {
        Ok(s) => s,
        Err(err) => {
            let ui = reconctl::ui::Ui::new(cli.globals.output, cli.globals.color, false, 0);
            ui.error(&err);
            return ExitCode::from(exit_code(&Err(err)));
        }
    };
    let mut ctx = Context::new(settings);
    ctx.limits.counters_by_key = cli.command.reads_counters();
    // One thread: a command is a handful of statements on one or two sessions and a few HTTP
    // requests, I/O that one thread drives as well as two (what must run beside it has a
    // thread of its own: the archive's compressor, the progress bars, `sandbox`'s CMS). With
    // worker threads every answer from the server woke another thread first: measured
    // against the same build on two worker threads, 1M jobs, `psql -c 'SELECT 1'` run before
    // each, alternations of 25–30 pairs (five for `status -o json`, three for `check`, two
    // for `metrics`): `status -o json` 1.45–1.69× against 1.75–1.85×, `check` 1.77–1.87×
    // against 1.93–2.02×, `metrics` 2.34–2.37× against 2.37–2.45×; 8 context switches a run
    // instead of 32.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let err = Error::runtime(format!("cannot start the async runtime: {e}"));
            ctx.ui.error(&err);
            return ExitCode::from(exit_code(&Err(err)));
        }
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        runtime.block_on(async {
            let result = reconctl::commands::run(&ctx, &cli.command, Cli::command).await;
            ctx.close().await;
            result
        })
    }));
    // What is still running (a session in use by a task that did not finish) is not waited
    // for.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    let Ok(result) = result else {
        return ExitCode::from(1);
    };
    // A missing schema is said in terms of the target ("wrong database?").
    let result = result.map_err(|err| ctx.explain(err));
    if let Err(err) = &result {
        ctx.ui.error(err);
    }
    ExitCode::from(exit_code(&result))
}

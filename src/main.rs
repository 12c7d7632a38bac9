//! The `fulfilld` binary: parse the command line, set up logging, and hand over to the
//! library (`fulfilld::run` for `serve`, the admin path for everything else).

use std::process::ExitCode;
use std::sync::Arc;

use fulfilld::cli::{self, Cli, Command};
use fulfilld::config::LogFormat;

/// jemalloc, not glibc's malloc: under webhook load a quarter of the server's CPU went to
/// glibc's allocator; at 1,000 orders/s with three subscriptions to every kind jemalloc
/// delivers 1.3-1.5x as much in alternated runs. Resident memory at a million orders stays
/// under 512 MB (BENCHMARKS.md, delivery lag, 2026-11-28); mimalloc was as fast but took
/// 593 MB there.
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    fulfilld::memory::limit_arenas();
    let args: Cli = match fulfilld::stdio::parse_args() {
        Ok(args) => args,
        Err(code) => return code,
    };
    if !matches!(args.command, Command::Serve(_)) {
        init_logging(LogFormat::Text);
    }
    let result = match args.command {
        Command::Serve(serve) => serve_command(serve),
        Command::Backup(a) => fulfilld::ops::backup_command(a).map(print_json),
        Command::Restore(a) => fulfilld::ops::restore_command(a).map(print_json),
        Command::Check(a) => fulfilld::ops::check_command(a).and_then(|(report, ok)| {
            print_json(report);
            anyhow::ensure!(ok, "the check found inconsistencies");
            Ok(())
        }),
        other => admin_command(other),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            fulfilld::stdio::err(&format!("fulfilld: {e:#}"));
            ExitCode::FAILURE
        }
    }
}

/// Log lines on stderr, filtered by `RUST_LOG` (default `info`): text, or one JSON object
/// per line for journald and Loki.
fn init_logging(format: LogFormat) {
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .init(),
        LogFormat::Json => builder.json().with_current_span(false).init(),
    }
}

fn serve_command(args: cli::ServeArgs) -> anyhow::Result<()> {
    let config = Arc::new(args.into_config()?);
    init_logging(config.log_format);
    fulfilld::install_crypto_provider();
    let store = fulfilld::open_store(&config)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let signals = fulfilld::shutdown::os_signals()?;
        let listeners = fulfilld::Listeners::bind(&config).await?;
        fulfilld::run(config, store, listeners, signals).await
    })
}

fn admin_command(command: Command) -> anyhow::Result<()> {
    let (dir, req) = cli::admin_request(command)?.expect("serve is handled above");
    print_json(cli::run_admin(&dir, &req)?);
    Ok(())
}

fn print_json(v: serde_json::Value) {
    fulfilld::stdio::out(&serde_json::to_string_pretty(&v).unwrap_or_default());
}

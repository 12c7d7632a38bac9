//! The `fulfilld` binary: parse the command line, set up logging, and hand over to the
//! library (`fulfilld::run` for `serve`, the admin path for everything else).

use std::process::ExitCode;
use std::sync::Arc;

use fulfilld::cli::{self, Cli, Command};
use fulfilld::config::LogFormat;

fn main() -> ExitCode {
    fulfilld::memory::limit_arenas();
    let args: Cli = argh::from_env();
    let result = match args.command {
        Command::Serve(serve) => serve_command(serve),
        other => {
            init_logging(LogFormat::Text);
            admin_command(other)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fulfilld: {e:#}");
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
    let (dir, req) = cli::admin_request(command).expect("serve is handled above");
    let out = cli::run_admin(&dir, &req)?;
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}

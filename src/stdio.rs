//! Writing to stdout and stderr without panicking: `println!` panics when the reader
//! has gone (`fulfilld serve --help | head`), and a closed pipe is not an error for a
//! command-line tool. Also the argument parsing that prints help through it.

use std::io::Write;
use std::process::ExitCode;

/// Writes `text` and a newline to stdout; a closed or failing stdout is ignored.
pub fn out(text: &str) {
    let mut o = std::io::stdout().lock();
    let _ = writeln!(o, "{text}").and_then(|_| o.flush());
}

/// Writes `text` and a newline to stderr; a closed or failing stderr is ignored.
pub fn err(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// `argh::from_env` without its `println!`: help and errors go through [`out`] and
/// [`err`]. `Err` carries the exit code when there is nothing to run.
pub fn parse_args<T: argh::TopLevelCommand>() -> Result<T, ExitCode> {
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let cmd = args
        .first()
        .and_then(|a| std::path::Path::new(a).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "fulfilld".into());
    let rest: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    T::from_args(&[&cmd], &rest).map_err(|exit| match exit.status {
        Ok(()) => {
            out(exit.output.trim_end());
            ExitCode::SUCCESS
        }
        Err(()) => {
            err(&format!(
                "{}\nRun {cmd} --help for more information.",
                exit.output.trim_end()
            ));
            ExitCode::FAILURE
        }
    })
}

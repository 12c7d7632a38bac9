//! Outside programs a test feeds on standard input: the binary's one-shot commands, and
//! checkers (promtool, Python's standardwebhooks) that CI requires and a developer's
//! machine may lack.

use std::ffi::OsStr;
use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Starts `cmd` with all three streams piped, writes `stdin` and waits; its output, or the
/// error that kept it from starting.
pub fn run_with_stdin(cmd: &mut Command, stdin: &[u8]) -> std::io::Result<Output> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    Ok(child.wait_with_output().unwrap())
}

/// [`run_with_stdin`] for a checker CI installs: where it cannot start, `None` (saying so,
/// with `hint`) unless the environment variable `require` is set, as CI sets it; then a
/// panic.
pub fn run_checker(cmd: &mut Command, stdin: &[u8], require: &str, hint: &str) -> Option<Output> {
    let program = cmd.get_program().to_owned();
    let program: &OsStr = &program;
    match run_with_stdin(cmd, stdin) {
        Ok(out) => Some(out),
        Err(e) if std::env::var_os(require).is_none() => {
            eprintln!("{program:?} not run ({e}); {hint}");
            None
        }
        Err(e) => panic!("{program:?} is required here ({require} is set): {e}"),
    }
}

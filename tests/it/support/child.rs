//! The real `fulfilld` binary as a child process: `serve` on port 0 (for kill -9,
//! SIGTERM and restart tests) and one-shot admin subcommands with JSON output.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use fulfilld::clients::Credentials;
use serde_json::Value;

use super::https_client;

/// The real `fulfilld` binary as a child process.
pub struct ChildServer {
    pub child: Child,
    pub base: String,
    pub packing: String,
    pub dir: PathBuf,
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_fulfilld")
}

/// `fulfilld serve` on port 0 for both listeners with its data in `dir`, logging at warn.
pub fn serve_command(dir: &Path) -> Command {
    let mut c = Command::new(bin());
    c.args([
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--packing-listen",
        "127.0.0.1:0",
        "--data-dir",
    ])
    .arg(dir)
    .env("RUST_LOG", "warn");
    c
}

impl ChildServer {
    /// Starts `fulfilld serve` on port 0 and waits for its ready line.
    pub fn spawn(dir: &Path, extra: &[&str]) -> ChildServer {
        ChildServer::spawn_with_env(dir, extra, &[])
    }

    pub fn spawn_with_env(dir: &Path, extra: &[&str], env: &[(&str, &Path)]) -> ChildServer {
        let mut command = serve_command(dir);
        command
            .args(extra)
            .env("RUST_LOG", "warn")
            .envs(env.iter().map(|(k, v)| (*k, *v)));
        ChildServer::spawn_command(command, dir)
    }

    /// Runs `command` (a `fulfilld serve`, perhaps behind a wrapper) and waits for its
    /// ready line; `dir` is where this process finds the server's data dir.
    pub fn spawn_command(mut command: Command, dir: &Path) -> ChildServer {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn fulfilld");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let ready = lines
            .next()
            .expect("a ready line")
            .expect("stdout readable");
        let base = ready
            .split_whitespace()
            .find_map(|w| w.strip_prefix("fulfillment="))
            .unwrap_or_else(|| panic!("unexpected first line {ready:?}"))
            .to_string();
        let packing = ready
            .split_whitespace()
            .find_map(|w| w.strip_prefix("packing="))
            .unwrap_or_else(|| panic!("unexpected first line {ready:?}"))
            .to_string();
        ChildServer {
            child,
            base,
            packing,
            dir: dir.to_path_buf(),
        }
    }

    /// [`ChildServer::spawn`] off the runtime's worker threads, so that servers the
    /// test runs in process (a webhook receiver) keep answering while it starts.
    pub async fn start(dir: &Path, extra: &[String]) -> ChildServer {
        let (dir, extra) = (dir.to_path_buf(), extra.to_vec());
        tokio::task::spawn_blocking(move || {
            let a: Vec<&str> = extra.iter().map(String::as_str).collect();
            ChildServer::spawn(&dir, &a)
        })
        .await
        .expect("spawn task")
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn client(&self) -> reqwest::Client {
        https_client(&fulfilld::tls::self_signed_paths(&self.dir).0)
    }

    pub fn bootstrap(&self) -> Credentials {
        let text = std::fs::read_to_string(self.dir.join("bootstrap-credentials.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    pub fn kill9(mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reap");
    }

    pub fn terminate(mut self) -> std::process::ExitStatus {
        // SAFETY: plain kill(2) on our own child's pid.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        self.child.wait().expect("wait")
    }
}

/// A failing test must not leave its server running (it would hold the test's output
/// pipe and the data dir): kill whatever is still alive.
impl Drop for ChildServer {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs an admin subcommand of the real binary and parses its JSON output.
pub fn admin(args: &[&str]) -> (bool, Value) {
    let out = Command::new(bin())
        .args(args)
        .output()
        .expect("run fulfilld");
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.success(), v)
}

/// `fulfilld check` on a stopped server's data dir must pass.
pub fn assert_check_passes(dir: &Path) {
    let out = std::process::Command::new(bin())
        .args([
            "check",
            "--data-dir",
            dir.to_str().expect("utf-8 temp path"),
        ])
        .env("RUST_LOG", "warn")
        .output()
        .expect("run fulfilld check");
    assert!(
        out.status.success(),
        "check failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

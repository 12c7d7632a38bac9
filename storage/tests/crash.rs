//! The crash test: re-executes this binary as a writer process, SIGKILLs it mid-write and
//! checks that every acknowledged durable write (and its outbox event) survived. Its own
//! test binary, so no other test forks while it holds sled's file lock.

mod common;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use common::{event_keys, open, records_with_prefix, write_with_event};

/// Set in the child process: the database directory the writer should use.
const WRITER_DIR_ENV: &str = "STORAGE_CRASH_TEST_WRITER_DIR";
/// Set in the child process: a tag that makes this round's keys unique.
const WRITER_ROUND_ENV: &str = "STORAGE_CRASH_TEST_WRITER_ROUND";
const WRITER_THREADS: usize = 4;
const WRITER_TASKS: usize = 8;
const CRASH_TEST: &str = "acknowledged_writes_survive_sigkill";

/// Child mode: write forever, printing `ACK <key>` for each write only after its durable
/// wait returned: async tasks on a 2-worker tokio runtime (the server's shape) use
/// `durable().await`, plain threads use `durable_blocking()`. The parent kills the process.
fn run_writer(dir: &Path, round: &str) -> ! {
    fn ack(key: &str) {
        let mut out = std::io::stdout().lock();
        writeln!(out, "ACK {key}").unwrap();
        out.flush().unwrap();
    }
    let store = open(dir);
    let threads: Vec<_> = (0..WRITER_THREADS)
        .map(|t| {
            let store = store.clone();
            let round = round.to_string();
            std::thread::spawn(move || {
                for i in 0u64.. {
                    let key = format!("crash/{round}/thread{t}/{i:08}");
                    write_with_event(&store, &key, i);
                    store.durable_blocking().expect("durable commit");
                    ack(&key);
                }
            })
        })
        .collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    runtime.block_on(async {
        let tasks: Vec<_> = (0..WRITER_TASKS)
            .map(|t| {
                let store = store.clone();
                let round = round.to_string();
                tokio::spawn(async move {
                    for i in 0u64.. {
                        let key = format!("crash/{round}/task{t}/{i:08}");
                        write_with_event(&store, &key, i);
                        store.durable().await.expect("durable commit");
                        ack(&key);
                    }
                })
            })
            .collect();
        for t in tasks {
            let _ = t.await;
        }
    });
    for t in threads {
        let _ = t.join();
    }
    // Only reached if a writer panicked; its message is on stderr.
    std::process::exit(3);
}

/// Starts a writer process on `dir`, kills it with SIGKILL once `acks` writes have been
/// acknowledged, and returns every key it acknowledged before dying.
fn crash_round(dir: &Path, round: &str, acks: usize) -> Vec<String> {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([CRASH_TEST, "--exact", "--nocapture", "--test-threads=1"])
        .env(WRITER_DIR_ENV, dir)
        .env(WRITER_ROUND_ENV, round)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawning the writer process");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut acked = Vec::new();
    while acked.len() < acks {
        let line = lines
            .next()
            .unwrap_or_else(|| panic!("writer exited after {} acks", acked.len()))
            .unwrap();
        if let Some(key) = line.strip_prefix("ACK ") {
            acked.push(key.to_string());
        }
    }
    child.kill().expect("SIGKILL the writer");
    child.wait().unwrap();
    // Acknowledgements already in the pipe were made before the kill: they count too.
    for line in lines {
        let line = line.unwrap();
        if let Some(key) = line.strip_prefix("ACK ") {
            acked.push(key.to_string());
        }
    }
    acked
}

#[test]
fn acknowledged_writes_survive_sigkill() {
    if let Ok(dir) = std::env::var(WRITER_DIR_ENV) {
        let round = std::env::var(WRITER_ROUND_ENV).unwrap();
        run_writer(Path::new(&dir), &round);
    }

    let dir = tempfile::tempdir().unwrap();
    let mut acked = Vec::new();
    // Several rounds on one database: each kill lands at a different point, and each
    // restart has to recover what the previous crash left behind.
    for (round, acks) in [("a", 60), ("b", 200), ("c", 120)] {
        let got = crash_round(dir.path(), round, acks);
        assert!(got.len() >= acks);

        let store = open(dir.path());
        let records = records_with_prefix(&store, "crash/");
        for key in acked.iter().chain(&got) {
            assert!(records.contains_key(key), "acknowledged write {key} lost");
        }
        // Atomicity across the crash: no record without its event, no event without it.
        let events: BTreeSet<String> = event_keys(&store)
            .into_iter()
            .filter(|k| k.starts_with("crash/"))
            .collect();
        assert_eq!(events, records.keys().cloned().collect::<BTreeSet<_>>());
        acked.extend(got);
    }
    assert!(acked.len() >= 380);
    // Both kinds of waiter were acknowledged (and so checked) at least once.
    assert!(acked.iter().any(|k| k.contains("/task")));
    assert!(acked.iter().any(|k| k.contains("/thread")));
}

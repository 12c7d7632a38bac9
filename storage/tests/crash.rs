//! The crash test: re-executes this binary as a writer process, SIGKILLs it mid-write and
//! checks that every acknowledged write survived and that batches are atomic across
//! trees. Its own test binary, so no other test forks while it holds sled's file lock.

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use common::{event, open, records_with_prefix};
use storage::tables::{ApiKeys, Meta, Outbox};
use storage::{abort, Abort, Store};

/// Set in the child process: the database directory the writer should use.
const WRITER_DIR_ENV: &str = "STORAGE_CRASH_TEST_WRITER_DIR";
/// Set in the child process: a tag that makes this round's keys unique.
const WRITER_ROUND_ENV: &str = "STORAGE_CRASH_TEST_WRITER_ROUND";
const WRITER_THREADS: usize = 4;
const WRITER_TASKS: usize = 8;
const CRASH_TEST: &str = "acknowledged_writes_survive_sigkill";
/// `Meta` key counting committed writes; each record stores its count.
const COUNTER: &str = "count/crash";

/// One write over three trees: bumps the commit counter, stores record `key` holding the
/// new count, its index entry in `ApiKeys` and its outbox event. Every fifth write is
/// first attempted by a closure that writes the same way (under `crash-aborted/`) and
/// aborts: none of it may ever be seen, and it must not disturb the batch it ran in.
fn write_counted(store: &Store, key: &str, i: u64) {
    let write = |tx: &storage::Tx<'_>, key: &str| {
        let n = tx.get::<Meta>(&COUNTER.to_string())?.unwrap_or(0) + 1;
        tx.insert::<Meta>(&COUNTER.to_string(), &n)?;
        tx.insert::<Meta>(&key.to_string(), &n)?;
        tx.insert::<ApiKeys>(&key.as_bytes().to_vec(), &key.to_string())?;
        tx.emit(event("test.written", key))?;
        Ok::<_, storage::TxFail>(())
    };
    if i % 5 == 4 {
        let aborted = format!("crash-aborted/{}", &key["crash/".len()..]);
        let r = store.transact(|tx| {
            write(tx, &aborted)?;
            abort::<(), _>(())
        });
        assert!(matches!(r, Err(storage::TxError::Aborted(()))));
    }
    store
        .transact(|tx| Ok::<_, Abort<()>>(write(tx, key)?))
        .expect("commit");
}

/// Checks what a crash left: the survivors are exactly the first `count` commits (batches
/// are applied whole and in commit order), each with its index entry and exactly one
/// event, events in commit order, and nothing of an aborted closure. Returns the records.
fn check_recovered(store: &Store) -> BTreeMap<String, u64> {
    let count = store
        .get::<Meta>(&COUNTER.to_string())
        .unwrap()
        .unwrap_or(0);
    let records = records_with_prefix(store, "crash/");
    let mut counts: Vec<u64> = records.values().copied().collect();
    counts.sort_unstable();
    assert_eq!(
        counts,
        (1..=count).collect::<Vec<_>>(),
        "not a prefix of commits"
    );

    let index: BTreeMap<String, String> = store
        .scan_prefix::<ApiKeys>(b"crash")
        .map(|r| {
            let (k, v) = r.unwrap();
            (String::from_utf8(k).unwrap(), v)
        })
        .collect();
    assert!(index.iter().all(|(k, v)| k == v));
    assert_eq!(
        index.keys().collect::<Vec<_>>(),
        records.keys().collect::<Vec<_>>()
    );

    // Outbox order is sequence order; it must be commit order, one event per record.
    let events: Vec<String> = store
        .iter::<Outbox>()
        .map(|r| r.unwrap().1.data_json)
        .filter(|k| k.starts_with("crash"))
        .collect();
    let order: Vec<u64> = events
        .iter()
        .map(|k| {
            *records
                .get(k)
                .unwrap_or_else(|| panic!("event {k} has no record"))
        })
        .collect();
    assert_eq!(
        order,
        (1..=count).collect::<Vec<_>>(),
        "events out of commit order"
    );
    assert_eq!(
        store.scan_prefix::<Meta>(b"crash-aborted/").count(),
        0,
        "an aborted write survived"
    );
    records
}

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
                    write_counted(&store, &key, i);
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
                        write_counted(&store, &key, i);
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
        let records = check_recovered(&store);
        for key in acked.iter().chain(&got) {
            assert!(records.contains_key(key), "acknowledged write {key} lost");
        }
        acked.extend(got);
    }
    assert!(acked.len() >= 380);
    // Both kinds of waiter were acknowledged (and so checked) at least once.
    assert!(acked.iter().any(|k| k.contains("/task")));
    assert!(acked.iter().any(|k| k.contains("/thread")));
}

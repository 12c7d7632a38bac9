//! Durable-commit throughput: batched group commit with 64 concurrent writers versus the
//! baseline of one flush per commit. Each element is one acknowledged (flushed) transaction.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use storage::tables::Clients;
use storage::{Abort, ClientRecord, NewEvent, Store, StoreConfig, Tier};

const WRITERS: u64 = 64;

/// Unique record keys across every benchmark and sample.
static NEXT_KEY: AtomicU64 = AtomicU64::new(0);

/// One API write as the server does it: a small record and its outbox event, atomically.
fn commit_one(store: &Store) {
    let n = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
    let id = format!("c{n:012}");
    let record = ClientRecord {
        id: id.clone(),
        name: "bench client".into(),
        tier: Tier::Growth,
        secret_sha256: vec![7; 32],
        api_key_sha256: vec![9; 32],
        created_at_unix: 1_700_000_000,
    };
    let event = NewEvent {
        id: format!("evt_{n}"),
        kind: "client.created".into(),
        timestamp: "2025-01-01T00:00:00Z".into(),
        data_json: format!("{{\"id\":\"{id}\"}}"),
    };
    store
        .transact(|tx| {
            tx.insert::<Clients>(&id, &record)?;
            tx.emit(event.clone())?;
            Ok::<_, Abort<()>>(())
        })
        .expect("commit");
}

fn open_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path(), &StoreConfig::default()).expect("open store");
    (dir, store)
}

/// Splits `iters` commits over `WRITERS` writers.
fn share(iters: u64, writer: u64) -> u64 {
    iters / WRITERS + u64::from(writer < iters % WRITERS)
}

fn durable_commit(c: &mut Criterion) {
    let mut group = c.benchmark_group("durable_commit");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Elements(1));

    // Baseline: one writer, one fsync per commit (`flush` waits for its own batch of one).
    {
        let (_dir, store) = open_store();
        group.bench_function(BenchmarkId::new("flush_per_commit", 1), |b| {
            b.iter(|| {
                commit_one(&store);
                store.flush().expect("flush");
            })
        });
    }

    // The server's shape: request handlers are tasks on a multi-thread tokio runtime with
    // one worker per core (2 here); each commits inline and awaits its group flush.
    {
        let (_dir, store) = open_store();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .expect("runtime");
        group.bench_function(BenchmarkId::new("group_commit_tokio_tasks", WRITERS), |b| {
            b.iter_custom(|iters| {
                runtime.block_on(async {
                    let start = Instant::now();
                    let tasks: Vec<_> = (0..WRITERS)
                        .map(|w| {
                            let store = store.clone();
                            tokio::spawn(async move {
                                for _ in 0..share(iters, w) {
                                    commit_one(&store);
                                    store.durable().await.expect("durable");
                                }
                            })
                        })
                        .collect();
                    for t in tasks {
                        t.await.expect("writer task");
                    }
                    start.elapsed()
                })
            })
        });
    }

    // For comparison: the same load from 64 OS threads using the blocking wait.
    {
        let (_dir, store) = open_store();
        group.bench_function(BenchmarkId::new("group_commit_os_threads", WRITERS), |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                std::thread::scope(|s| {
                    for w in 0..WRITERS {
                        let store = &store;
                        s.spawn(move || {
                            for _ in 0..share(iters, w) {
                                commit_one(store);
                                store.durable_blocking().expect("durable");
                            }
                        });
                    }
                });
                start.elapsed()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, durable_commit);
criterion_main!(benches);

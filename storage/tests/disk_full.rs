//! A full disk, for real: sled's log writes fail under a file-size limit (RLIMIT_FSIZE,
//! EFBIG, which storage treats like ENOSPC). The writers get `Error::NoSpace`, never an
//! acknowledgement; reads keep working; everything acknowledged before survives a reopen
//! once the limit is lifted. Its own test binary with one test: the file-size limit is
//! per process.

mod common;

use common::{event, open};
use storage::tables::Meta;
use storage::{Abort, Error, Store, TxError};

/// One record with a 4 KiB outbox event, so the log grows quickly.
fn write(store: &Store, i: u64) -> Result<(), TxError<()>> {
    store.transact(|tx| {
        tx.insert::<Meta>(&format!("k{i:06}"), &i)?;
        tx.emit(event("test.written", "x".repeat(4096)))?;
        Ok::<_, Abort<()>>(())
    })
}

fn set_file_size_limit(bytes: libc::rlim_t) {
    let lim = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: plain setrlimit(2) with a valid struct.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_FSIZE, &lim) }, 0);
}

#[test]
fn a_full_disk_refuses_writes_keeps_reads_and_loses_nothing_acknowledged() {
    // SAFETY: ignoring SIGXFSZ makes an over-limit write fail with EFBIG instead of
    // killing the process.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut acked = Vec::new();
    for i in 0..50 {
        write(&store, i).unwrap();
        store.durable_blocking().unwrap();
        acked.push(i);
    }
    let log_len = std::fs::metadata(dir.path().join("db")).unwrap().len();
    set_file_size_limit(log_len + 256 * 1024);
    let mut failure = None;
    for i in 50..10_000 {
        let done = write(&store, i)
            .map_err(|e| match e {
                TxError::Storage(e) => e,
                TxError::Aborted(()) => unreachable!(),
            })
            .and_then(|()| store.durable_blocking());
        match done {
            Ok(()) => acked.push(i),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    let failure = failure.expect("the log outgrew the limit within 40 MB of writes");
    assert!(failure.is_no_space(), "{failure:?}");
    assert!(acked.len() > 50, "some writes fit under the limit");
    // Every later write and the health check say why; reads still answer.
    let again = write(&store, 99_999);
    assert!(
        matches!(again, Err(TxError::Storage(Error::NoSpace(_)))),
        "{again:?}"
    );
    assert!(store.check().unwrap_err().is_no_space());
    for i in &acked {
        assert_eq!(store.get::<Meta>(&format!("k{i:06}")).unwrap(), Some(*i));
    }
    set_file_size_limit(libc::RLIM_INFINITY);
    drop(store);
    let store = open(dir.path());
    for i in &acked {
        assert_eq!(
            store.get::<Meta>(&format!("k{i:06}")).unwrap(),
            Some(*i),
            "acknowledged write {i} survives"
        );
    }
    write(&store, 99_999).unwrap();
    store.durable_blocking().unwrap();
}

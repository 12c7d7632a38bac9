//! The index seal on a real sled: present only while no write has been committed since
//! it was written, across reopenings, and removed in the same batch as that write.

mod common;

use common::{open, temp_store};
use storage::tables::Meta;
use storage::{Abort, Store};

fn write(store: &Store, key: &str, value: u64) {
    store
        .transact(|tx| {
            tx.insert::<Meta>(&key.to_string(), &value)?;
            Ok::<_, Abort<()>>(())
        })
        .unwrap();
    store.flush().unwrap();
}

#[test]
fn a_seal_lasts_until_the_next_write_even_across_reopenings() {
    let (dir, store) = temp_store();
    assert_eq!(store.seal().unwrap(), None, "a new database has no seal");
    write(&store, "a", 1);
    store.write_seal(7).unwrap();
    assert_eq!(store.seal().unwrap(), Some(7));
    // Reads and aborted transactions change nothing.
    assert_eq!(store.get::<Meta>(&"a".to_string()).unwrap(), Some(1));
    let _ = store.transact(|_| Err::<(), _>(Abort::User(())));
    assert_eq!(store.seal().unwrap(), Some(7));
    drop(store);

    let store = open(dir.path());
    assert_eq!(
        store.seal().unwrap(),
        Some(7),
        "an open without writes keeps it"
    );
    drop(store);
    let store = open(dir.path());
    assert_eq!(store.seal().unwrap(), Some(7));
    write(&store, "b", 2);
    assert_eq!(
        store.seal().unwrap(),
        None,
        "the first write after a reopen removes it"
    );
    drop(store);
    let store = open(dir.path());
    assert_eq!(store.seal().unwrap(), None);
    assert_eq!(store.get::<Meta>(&"b".to_string()).unwrap(), Some(2));

    store.write_seal(8).unwrap();
    write(&store, "c", 3);
    assert_eq!(
        store.seal().unwrap(),
        None,
        "a write in the same process removes it"
    );
    store.write_seal(9).unwrap();
    store.write_seal(10).unwrap();
    assert_eq!(
        store.seal().unwrap(),
        Some(10),
        "a new seal replaces the old"
    );
}

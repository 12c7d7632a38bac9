//! What the benchmark examples share: packing a request as the server does, variants 0 and 1
//! raced on two threads.

use packing::{pack_racing, race_winner, PackRequest, PackSolution, Race};

/// The server's answer to `req` when two workers are idle: variants 0 and 1 raced.
pub fn pack_pair(req: &PackRequest) -> PackSolution {
    let race = Race::new();
    let (a, b) = std::thread::scope(|s| {
        let other = s.spawn(|| pack_racing(req, 1, &race).expect("pack"));
        let mine = pack_racing(req, 0, &race).expect("pack");
        (mine, other.join().expect("variant 1"))
    });
    race_winner(req, vec![a, b]).expect("pack")
}

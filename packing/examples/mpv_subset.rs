//! Long-budget MPV runs: packs chosen classes and sizes (instances 1-5, rotation allowed,
//! support required) on several threads and prints every instance, each result validated.
//! `cargo run -p packing --release --example mpv_subset -- --time-limit 60000 --threads 2
//! [--classes 1,2,3] [--sizes 50,100,200]`; `--time-limit 0` packs at default options and
//! `--quiet` prints only the totals; `--variants K` keeps the best of K portfolio variants
//! packed one after the other (times then add up over the variants); `--pair` races variants 0
//! and 1 on two threads, as the server does when its pool is idle (the time is then the longer
//! thread's); `--min-support S` lets
//! units rest on a share S of their base; `--digest` prints a hash of every placement (what a
//! change meant to keep the packings as they are must leave unchanged). The budget is deterministic work, not wall time, so the
//! counts do not depend on the machine's load; the times (median and p95 per instance) do.

use packing::{
    mpv, pack_portfolio, pack_racing, pack_variant, race_winner, validate, Orientation,
    PackRequest, PackSolution, Race,
};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// CPU time of this thread in ms (`CLOCK_THREAD_CPUTIME_ID`, exact to the microsecond, unlike
/// the scheduler statistics, which move only at ticks and context switches).
fn cpu_ms() -> Option<f64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6)
}

/// Variants 0 and 1 raced on two threads, as the server does on an idle pool; the time is the
/// longer of the two threads' CPU times.
fn pack_pair(req: &PackRequest) -> (PackSolution, Option<f64>) {
    let race = Race::new();
    let timed = |v: u32| {
        let c0 = cpu_ms();
        let entry = pack_racing(req, v, &race).expect("pack");
        (entry, c0.zip(cpu_ms()).map(|(a, b)| b - a))
    };
    let ((a, ca), (b, cb)) = std::thread::scope(|s| {
        let other = s.spawn(|| timed(1));
        let mine = timed(0);
        (mine, other.join().expect("variant 1"))
    });
    let cpu = ca.zip(cb).map(|(x, y)| x.max(y));
    (race_winner(req, vec![a, b]).expect("pack"), cpu)
}

fn list(args: &[String], flag: &str, default: &str) -> Vec<u64> {
    let raw = args
        .iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
        .unwrap_or(default);
    raw.split(',')
        .map(|s| s.trim().parse().expect("a comma-separated list of numbers"))
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let time_limit = list(&args, "--time-limit", "5000")[0];
    let threads = list(&args, "--threads", "1")[0].max(1) as usize;
    let classes = list(&args, "--classes", "1,2,3,4,5,6,7,8");
    let sizes = list(&args, "--sizes", "50,100,200");
    let quiet = args.iter().any(|a| a == "--quiet");
    let digest = args.iter().any(|a| a == "--digest");
    let variants = list(&args, "--variants", "1")[0].max(1) as u32;
    let pair = args.iter().any(|a| a == "--pair");
    let single = args
        .iter()
        .position(|a| a == "--variant")
        .map(|_| list(&args, "--variant", "0")[0] as u32);
    let min_support = args
        .iter()
        .position(|a| a == "--min-support")
        .and_then(|i| args.get(i + 1))
        .map_or(1.0, |s| s.parse::<f64>().expect("a share from 0.5 to 1"));
    let mut jobs = Vec::new();
    for &c in &classes {
        for &n in &sizes {
            for v in 1..=5u32 {
                jobs.push((c as u8, n as usize, v));
            }
        }
    }
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(c, n, v)) = jobs.get(i) else { break };
                let inst = mpv::instance(c, n, v);
                let mut req = inst.request(Orientation::Any);
                req.options.time_limit_ms = (time_limit > 0).then_some(time_limit);
                req.options.min_support = min_support;
                let (t, c0) = (Instant::now(), cpu_ms());
                let (sol, cpu) = if pair {
                    pack_pair(&req)
                } else {
                    let sol = match single {
                        Some(v) => pack_variant(&req, v).expect("pack"),
                        None => pack_portfolio(&req, variants).expect("pack"),
                    };
                    (sol, c0.zip(cpu_ms()).map(|(a, b)| b - a))
                };
                if let Err(e) = validate(&req, &sol) {
                    panic!("class {c} n {n} v {v}: invalid: {:?}", &e[..e.len().min(3)]);
                }
                let secs = t.elapsed().as_secs_f64();
                let got = sol.summary.total_packages;
                let lb = mpv::rotation_bound(&inst);
                if !quiet {
                    println!("class {c} n {n} v {v}: {got} packages (bound {lb}), {secs:.3} s");
                }
                let mut h = DefaultHasher::new();
                format!("{:?}", sol.packages).hash(&mut h);
                results
                    .lock()
                    .unwrap()
                    .push((c, got, n, secs, cpu, (i, h.finish())));
            });
        }
    });
    let results = results.into_inner().unwrap();
    for &c in &classes {
        let sum: usize = results
            .iter()
            .filter(|r| r.0 as u64 == c)
            .map(|r| r.1)
            .sum();
        println!("class {c} total: {sum}");
    }
    let mut times: Vec<f64> = results.iter().map(|r| r.3 * 1e3).collect();
    times.sort_by(f64::total_cmp);
    let at = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
    for &n in &sizes {
        let sum: usize = results
            .iter()
            .filter(|r| r.2 as u64 == n)
            .map(|r| r.1)
            .sum();
        println!("n {n} total: {sum}");
    }
    println!(
        "wall time per instance: median {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        at(0.5),
        at(0.95),
        at(1.0)
    );
    let mut cpu: Vec<f64> = results.iter().filter_map(|r| r.4).collect();
    cpu.sort_by(f64::total_cmp);
    if !cpu.is_empty() {
        let at = |p: f64| cpu[((cpu.len() - 1) as f64 * p).round() as usize];
        println!(
            "CPU time per instance: median {:.1} ms, p95 {:.1} ms, max {:.1} ms",
            at(0.5),
            at(0.95),
            at(1.0)
        );
    }
    if digest {
        let mut hashes: Vec<(usize, u64)> = results.iter().map(|r| r.5).collect();
        hashes.sort_unstable();
        let mut h = DefaultHasher::new();
        hashes.hash(&mut h);
        println!("digest of the placements: {:016x}", h.finish());
    }
    let total: usize = results.iter().map(|r| r.1).sum();
    println!(
        "all: {total} packages, time_limit_ms {time_limit}, {:.0} s",
        start.elapsed().as_secs_f64()
    );
}

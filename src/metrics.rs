//! The Prometheus metrics of the appliance: one registry, the counters and histograms that
//! the code updates where things happen, and the gauges that mirror stored state, set from
//! a [`Snapshot`] when `/metrics` is scraped. Rendered in the text exposition format 0.0.4.

use prometheus::{
    exponential_buckets, Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter,
    IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry, TextEncoder,
};

/// The text exposition format's content type.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

pub struct Metrics {
    registry: Registry,
    /// Answered requests by service, route template, method and status.
    pub requests: IntCounterVec,
    /// Time from the request's arrival to its answer, by service, route template and method.
    pub request_seconds: HistogramVec,
    /// Requests refused by the rate limiter, by tier.
    pub rate_limited: IntCounterVec,
    /// Writes per group-commit batch.
    pub commit_batch: Histogram,
    /// Time of each fdatasync of the log.
    pub fsync_seconds: Histogram,
    /// Time the engine took per packing, by source (`order`: an order, `optimize`: the
    /// packing API).
    pub packing_seconds: HistogramVec,
    /// Webhook delivery attempts by outcome (`delivered`, `retry`, `failed`).
    pub deliveries: IntCounterVec,
    /// Scheduled backups by result (`ok`, `failed`).
    backups: IntCounterVec,
    /// Unix time of the last successful backup, found at start or taken since (0: none).
    last_backup: IntGauge,
    orders_created: IntCounter,
    orders: IntGaugeVec,
    packing_backlog: IntGauge,
    delivery_queue: IntGauge,
    delivery_lag: prometheus::Gauge,
    database_bytes: IntGauge,
    filesystem_free: IntGauge,
    filesystem_size: IntGauge,
    /// 1 for how this process got its order index: `source` `snapshot`, or `rebuild`
    /// with the `reason` (see `index_snapshot::Rebuild`).
    index_load: IntGaugeVec,
    index_load_seconds: prometheus::Gauge,
}

/// Stored state read when `/metrics` is scraped.
#[derive(Debug, Default, Clone)]
pub struct Snapshot {
    /// Orders ever created.
    pub orders_created: u64,
    /// Orders by status name.
    pub orders_by_status: Vec<(&'static str, u64)>,
    /// Orders waiting to be packed.
    pub packing_backlog: u64,
    /// Webhook deliveries waiting for an attempt.
    pub delivery_queue: u64,
    /// Age in seconds of the oldest event not yet delivered (0 when none waits).
    pub delivery_lag_secs: f64,
    pub database_bytes: u64,
    /// Bytes available and in all on the data directory's file system.
    pub filesystem: Option<(u64, u64)>,
    /// Scheduled backups that succeeded and failed since start.
    pub backups_ok: u64,
    pub backups_failed: u64,
    /// Unix seconds of the last successful backup, found at start or taken since (0: none).
    pub last_backup_unix: i64,
}

impl Metrics {
    pub fn new() -> Metrics {
        let registry =
            Registry::new_custom(Some("fulfilld".into()), None).expect("a valid metric prefix");
        let latency = vec![
            0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
        ];
        let m = Metrics {
            requests: IntCounterVec::new(
                Opts::new("http_requests_total", "Answered HTTP requests."),
                &["service", "route", "method", "status"],
            )
            .expect("valid metric"),
            request_seconds: HistogramVec::new(
                HistogramOpts::new("http_request_duration_seconds", "Time to answer a request.")
                    .buckets(latency.clone()),
                &["service", "route", "method"],
            )
            .expect("valid metric"),
            rate_limited: IntCounterVec::new(
                Opts::new(
                    "rate_limited_total",
                    "Requests refused by the rate limiter.",
                ),
                &["tier"],
            )
            .expect("valid metric"),
            commit_batch: Histogram::with_opts(
                HistogramOpts::new(
                    "storage_commit_batch_writes",
                    "Writes applied per group-commit batch.",
                )
                .buckets(exponential_buckets(1.0, 4.0, 8).expect("valid buckets")),
            )
            .expect("valid metric"),
            fsync_seconds: Histogram::with_opts(
                HistogramOpts::new(
                    "storage_fsync_duration_seconds",
                    "Time of each fdatasync of the database log.",
                )
                .buckets(latency.clone()),
            )
            .expect("valid metric"),
            packing_seconds: HistogramVec::new(
                HistogramOpts::new("packing_duration_seconds", "Time the engine took to pack.")
                    .buckets(latency),
                &["source"],
            )
            .expect("valid metric"),
            deliveries: IntCounterVec::new(
                Opts::new(
                    "webhook_deliveries_total",
                    "Webhook delivery attempts by outcome.",
                ),
                &["outcome"],
            )
            .expect("valid metric"),
            backups: IntCounterVec::new(
                Opts::new("backups_total", "Backups by result."),
                &["result"],
            )
            .expect("valid metric"),
            last_backup: IntGauge::new(
                "last_backup_timestamp_seconds",
                "Unix time of the last successful backup (0: none since start).",
            )
            .expect("valid metric"),
            orders_created: IntCounter::new("orders_created_total", "Orders ever created.")
                .expect("valid metric"),
            orders: IntGaugeVec::new(Opts::new("orders", "Orders by status."), &["status"])
                .expect("valid metric"),
            packing_backlog: IntGauge::new("packing_backlog", "Orders waiting to be packed.")
                .expect("valid metric"),
            delivery_queue: IntGauge::new(
                "webhook_queue_depth",
                "Webhook deliveries waiting for an attempt.",
            )
            .expect("valid metric"),
            delivery_lag: prometheus::Gauge::new(
                "webhook_delivery_lag_seconds",
                "Age of the oldest webhook event not yet delivered.",
            )
            .expect("valid metric"),
            database_bytes: IntGauge::new("database_size_bytes", "Database size on disk.")
                .expect("valid metric"),
            filesystem_free: IntGauge::new(
                "data_filesystem_avail_bytes",
                "Bytes available on the data directory's file system.",
            )
            .expect("valid metric"),
            filesystem_size: IntGauge::new(
                "data_filesystem_size_bytes",
                "Size of the data directory's file system.",
            )
            .expect("valid metric"),
            index_load: IntGaugeVec::new(
                Opts::new(
                    "index_load_info",
                    "How the order index was loaded at start (1 for the way taken).",
                ),
                &["source", "reason"],
            )
            .expect("valid metric"),
            index_load_seconds: prometheus::Gauge::new(
                "index_load_seconds",
                "Time taken at start to load or rebuild the order index.",
            )
            .expect("valid metric"),
            registry,
        };
        let collectors: Vec<Box<dyn prometheus::core::Collector>> = vec![
            Box::new(m.requests.clone()),
            Box::new(m.request_seconds.clone()),
            Box::new(m.rate_limited.clone()),
            Box::new(m.commit_batch.clone()),
            Box::new(m.fsync_seconds.clone()),
            Box::new(m.packing_seconds.clone()),
            Box::new(m.deliveries.clone()),
            Box::new(m.backups.clone()),
            Box::new(m.last_backup.clone()),
            Box::new(m.orders_created.clone()),
            Box::new(m.orders.clone()),
            Box::new(m.packing_backlog.clone()),
            Box::new(m.delivery_queue.clone()),
            Box::new(m.delivery_lag.clone()),
            Box::new(m.database_bytes.clone()),
            Box::new(m.filesystem_free.clone()),
            Box::new(m.filesystem_size.clone()),
            Box::new(m.index_load.clone()),
            Box::new(m.index_load_seconds.clone()),
        ];
        // Every known label set exists from the start at zero, so that rates and
        // increases see the first event and dashboards show the series.
        for source in ["order", "optimize"] {
            m.packing_seconds.with_label_values(&[source]);
        }
        for outcome in ["delivered", "failed_attempt"] {
            m.deliveries.with_label_values(&[outcome]);
        }
        for result in ["ok", "failed"] {
            m.backups.with_label_values(&[result]);
        }
        for tier in storage::Tier::ALL {
            m.rate_limited.with_label_values(&[tier.as_str()]);
        }
        for c in collectors {
            m.registry
                .register(c)
                .expect("each metric is registered once");
        }
        // Process memory, CPU time and open files, under their standard `process_` names.
        prometheus::default_registry()
            .register(Box::new(
                prometheus::process_collector::ProcessCollector::for_self(),
            ))
            .ok();
        m
    }

    /// Records how the order index was loaded: from the snapshot (`rebuilt` is `None`) or
    /// rebuilt for the given reason, in `took`.
    pub fn index_loaded(&self, rebuilt: Option<&str>, took: std::time::Duration) {
        let labels = match rebuilt {
            None => ["snapshot", "none"],
            Some(reason) => ["rebuild", reason],
        };
        self.index_load.with_label_values(&labels).set(1);
        self.index_load_seconds.set(took.as_secs_f64());
    }

    /// The exposition of every metric, after setting the gauges from `snap`.
    pub fn render(&self, snap: &Snapshot) -> Vec<u8> {
        catch_up(&self.orders_created, snap.orders_created);
        catch_up(&self.backups.with_label_values(&["ok"]), snap.backups_ok);
        catch_up(
            &self.backups.with_label_values(&["failed"]),
            snap.backups_failed,
        );
        self.last_backup.set(snap.last_backup_unix);
        for (status, n) in &snap.orders_by_status {
            self.orders.with_label_values(&[status]).set(*n as i64);
        }
        self.packing_backlog.set(snap.packing_backlog as i64);
        self.delivery_queue.set(snap.delivery_queue as i64);
        self.delivery_lag.set(snap.delivery_lag_secs);
        self.database_bytes.set(snap.database_bytes as i64);
        if let Some((free, size)) = snap.filesystem {
            self.filesystem_free.set(free as i64);
            self.filesystem_size.set(size as i64);
        }
        let mut families = self.registry.gather();
        families.extend(prometheus::default_registry().gather());
        let mut out = Vec::with_capacity(16 * 1024);
        TextEncoder::new()
            .encode(&families, &mut out)
            .expect("metrics encode to a Vec");
        out
    }
}

/// Moves a counter that mirrors a stored count up to `total` (never down).
fn catch_up(counter: &IntCounter, total: u64) {
    let seen = counter.get();
    if total > seen {
        counter.inc_by(total - seen);
    }
}

/// Group-commit batches and fdatasyncs, as storage reports them.
impl storage::CommitObserver for Metrics {
    fn batch_applied(&self, writes: usize) {
        self.commit_batch.observe(writes as f64);
    }

    fn synced(&self, took: std::time::Duration) {
        self.fsync_seconds.observe(took.as_secs_f64());
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_sets_gauges_and_keeps_the_created_counter_monotonic() {
        let m = Metrics::new();
        m.requests
            .with_label_values(&["fulfillment", "/api/orders", "POST", "201"])
            .inc();
        let mut snap = Snapshot {
            orders_created: 7,
            orders_by_status: vec![("pending", 3), ("shipped", 4)],
            ..Snapshot::default()
        };
        let text = String::from_utf8(m.render(&snap)).unwrap();
        assert!(text.contains("fulfilld_orders_created_total 7"), "{text}");
        assert!(
            text.contains("fulfilld_orders{status=\"pending\"} 3"),
            "{text}"
        );
        assert!(text.contains(
            "fulfilld_http_requests_total{method=\"POST\",route=\"/api/orders\",service=\"fulfillment\",status=\"201\"} 1"
        ));
        assert!(
            text.contains("fulfilld_backups_total{result=\"ok\"} 0"),
            "{text}"
        );
        snap.backups_ok = 2;
        snap.backups_failed = 1;
        snap.last_backup_unix = 1_700_000_000;
        let text = String::from_utf8(m.render(&snap)).unwrap();
        assert!(
            text.contains("fulfilld_backups_total{result=\"ok\"} 2"),
            "{text}"
        );
        assert!(
            text.contains("fulfilld_backups_total{result=\"failed\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("fulfilld_last_backup_timestamp_seconds 1700000000"),
            "{text}"
        );
        snap.orders_created = 5;
        let text = String::from_utf8(m.render(&snap)).unwrap();
        assert!(text.contains("fulfilld_orders_created_total 7"), "{text}");
    }
}

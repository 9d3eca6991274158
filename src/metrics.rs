//! Prometheus metrics for `GET /metrics`. Job gauges are read from the store at scrape time,
//! so every process reports the shared queue, not just its own share.

use std::sync::LazyLock;

use prometheus::{
    Encoder, Gauge, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGaugeVec, Opts,
    Registry, TextEncoder,
};

pub struct Metrics {
    registry: Registry,
    pub webhooks: IntCounterVec,
    pub jobs: IntGaugeVec,
    pub job_seconds: HistogramVec,
    pub github_calls: IntCounterVec,
    pub github_rate_remaining: Gauge,
    pub llm_calls: IntCounter,
    pub llm_tokens: IntCounter,
    pub llm_cost_usd: Gauge,
    /// Web-search cache lookups by result (`hit` or `miss`).
    pub search_cache: IntCounterVec,
}

fn register<T: prometheus::core::Collector + Clone + 'static>(r: &Registry, m: T) -> T {
    r.register(Box::new(m.clone()))
        .expect("metric names are unique");
    m
}

pub static METRICS: LazyLock<Metrics> = LazyLock::new(|| {
    let r = Registry::new_custom(Some("uplift".into()), None).expect("valid prefix");
    Metrics {
        webhooks: register(
            &r,
            IntCounterVec::new(
                Opts::new("webhooks_total", "Webhook deliveries by event and result"),
                &["event", "result"],
            )
            .expect("valid metric"),
        ),
        jobs: register(
            &r,
            IntGaugeVec::new(
                Opts::new("jobs", "Jobs by kind and state"),
                &["kind", "state"],
            )
            .expect("valid metric"),
        ),
        job_seconds: register(
            &r,
            HistogramVec::new(
                HistogramOpts::new("job_duration_seconds", "Job durations by kind and result")
                    .buckets(vec![0.1, 1.0, 10.0, 60.0, 300.0, 900.0, 1800.0, 3600.0]),
                &["kind", "result"],
            )
            .expect("valid metric"),
        ),
        github_calls: register(
            &r,
            IntCounterVec::new(
                Opts::new(
                    "github_api_calls_total",
                    "GitHub API calls by method and status",
                ),
                &["method", "status"],
            )
            .expect("valid metric"),
        ),
        github_rate_remaining: register(
            &r,
            Gauge::new(
                "github_rate_limit_remaining",
                "x-ratelimit-remaining of the latest GitHub response",
            )
            .expect("valid metric"),
        ),
        llm_calls: register(
            &r,
            IntCounter::new("llm_calls_total", "LLM calls").expect("valid metric"),
        ),
        llm_tokens: register(
            &r,
            IntCounter::new("llm_tokens_total", "LLM tokens (prompt + completion)")
                .expect("valid metric"),
        ),
        llm_cost_usd: register(
            &r,
            Gauge::new("llm_cost_usd_total", "LLM spend in US dollars").expect("valid metric"),
        ),
        search_cache: register(
            &r,
            IntCounterVec::new(
                Opts::new("search_cache_total", "Web-search cache lookups"),
                &["result"],
            )
            .expect("valid metric"),
        ),
        registry: r,
    }
});

impl Metrics {
    /// Prometheus text exposition of every metric, with job gauges set from `counts`.
    pub fn render(&self, counts: &[(String, String, i64)]) -> String {
        self.jobs.reset();
        for (kind, state, n) in counts {
            self.jobs.with_label_values(&[kind, state]).set(*n);
        }
        let mut buf = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut buf)
            .expect("text encoding into a Vec cannot fail");
        String::from_utf8(buf).expect("Prometheus text is UTF-8")
    }
}

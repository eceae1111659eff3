//! Results of a run: the summary (a pure function of scenario and seed, as JSON) and the time
//! series (long format: series, entity, t_s, value). Metric names and definitions come from
//! `metrics::DEFINITIONS`.

use super::{AnyEndpoint, Simulation};
use crate::metrics::{jain_index, LogHistogram, Rfc3550Jitter, Stats, Trace, DEFINITIONS};
use crate::net::Proto;
use crate::spec::TransportSpec;
use crate::transport::mptcp::MptcpConn;
use crate::transport::quic::QuicPair;
use crate::transport::tcp::TcpConn;
use mptlab_engine::time::as_secs_f64;
use mptlab_engine::Time;
use serde_json::{json, Map, Value};

/// Per-link measurements kept by the simulation (the link itself only counts and queues).
pub struct LinkTrace {
    pub queue_pkts: Trace,
    pub queue_delay_ms: Trace,
    /// RFC 3550 jitter pooled over the data packets of every flow crossing the link.
    pub jitter: Rfc3550Jitter,
}

impl LinkTrace {
    pub fn new(every: Time, duration: Time) -> Self {
        Self { queue_pkts: Trace::new(every, duration), queue_delay_ms: Trace::new(every, duration), jitter: Rfc3550Jitter::new() }
    }
}

fn jitter_json(j: &Rfc3550Jitter) -> Value {
    if j.samples() == 0 {
        return Value::Null;
    }
    let h = j.histogram();
    json!({"mean": j.mean_ms(), "p50": ms(h.quantile(0.5)), "p95": ms(h.quantile(0.95)), "max": ms(h.max() as f64)})
}

/// The time series of a run in long format.
#[derive(Default)]
pub struct Columns {
    pub series: Vec<&'static str>,
    pub entity: Vec<String>,
    pub t_s: Vec<f64>,
    pub value: Vec<f64>,
}

impl Columns {
    pub(super) fn push(&mut self, series: &'static str, entity: &str, t: f64, v: f64) {
        self.series.push(series);
        self.entity.push(entity.to_string());
        self.t_s.push(t);
        self.value.push(v);
    }

    pub(super) fn push_trace(&mut self, series: &'static str, entity: &str, trace: &Trace) {
        let (ts, vs) = trace.points();
        for (t, v) in ts.iter().zip(vs) {
            self.push(series, entity, *t, *v);
        }
    }
}

/// The protocol as the scenario names it.
fn protocol_name(t: &TransportSpec) -> &'static str {
    match t {
        TransportSpec::Tcp(_) => "tcp",
        TransportSpec::Udp(_) => "udp",
        TransportSpec::Mptcp(_) => "mptcp",
        TransportSpec::Quic(q) if q.quic.multipath => "mpquic",
        TransportSpec::Quic(_) => "quic",
    }
}

pub(super) fn ms(ns: f64) -> f64 {
    ns / 1e6
}

fn finite(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else {
        Value::Null
    }
}

pub(super) fn quantiles_ms(h: &LogHistogram) -> Value {
    if h.count() == 0 {
        return Value::Null;
    }
    json!({
        "mean": ms(h.mean()), "p50": ms(h.quantile(0.5)), "p95": ms(h.quantile(0.95)),
        "p99": ms(h.quantile(0.99)), "max": ms(h.max() as f64), "count": h.count(),
    })
}

impl Simulation {
    fn bin_range(&self, start: Time, stop: Option<Time>) -> (usize, usize) {
        let iv = self.spec.metrics.interval;
        let end = stop.unwrap_or(self.spec.duration).min(self.spec.duration);
        ((start / iv) as usize, end.div_ceil(iv) as usize)
    }

    /// Mean goodput of each flow over its active bins, in Mbit/s.
    pub fn flow_goodput_stats(&self, f: usize) -> Stats {
        let flow = &self.flows[f];
        let (a, b) = self.bin_range(flow.start, flow.stop);
        let rates = flow.metrics.goodput.rates_bps();
        let b = b.min(rates.len());
        let mbps: Vec<f64> = rates[a.min(b)..b].iter().map(|r| r / 1e6).collect();
        Stats::from_samples(&mbps)
    }

    pub fn summary(&self, scenario: &Value) -> Value {
        let spec = &self.spec;
        let node = |i: u32| spec.nodes[i as usize].name.clone();
        let mut proto_sent = [0u64; 2];
        let mut proto_dropped = [0u64; 2];
        let mut flow_means = Vec::with_capacity(self.flows.len());
        let flows: Vec<Value> = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, flow)| {
                let fs = &spec.flows[i];
                let m = &flow.metrics;
                let goodput = self.flow_goodput_stats(i);
                flow_means.push(goodput.mean);
                proto_sent[flow.proto.index()] += m.data_packets_sent;
                proto_dropped[flow.proto.index()] += m.data_packets_dropped;
                let loss_pct =
                    if m.data_packets_sent > 0 { 100.0 * m.data_packets_dropped as f64 / m.data_packets_sent as f64 } else { 0.0 };
                let (cc, tcp) = match (&fs.transport, &flow.endpoint) {
                    (TransportSpec::Tcp(t), AnyEndpoint::Tcp(TcpConn { snd, rcv, .. })) => {
                        let srtt = m.srtt.points().1;
                        let srtt_mean = if srtt.is_empty() { Value::Null } else { json!(srtt.iter().sum::<f64>() / srtt.len() as f64) };
                        (
                            json!(t.cc.name()),
                            json!({
                                "retransmissions": snd.stats.retransmissions,
                                "rto_count": snd.stats.rto_count,
                                "fast_recoveries": snd.stats.fast_recoveries,
                                "tlp_probes": snd.stats.tlp_probes,
                                "tlp_recoveries": snd.stats.tlp_recoveries,
                                "srtt_ms_mean": srtt_mean,
                                "min_rtt_ms": ms(snd.rtt().min_rtt() as f64),
                                "final_cwnd_bytes": snd.cwnd(),
                                "receiver": rcv.stats,
                            }),
                        )
                    }
                    (TransportSpec::Quic(t), AnyEndpoint::Quic(QuicPair { cli, .. })) => {
                        let lost: u64 = cli.paths.iter().map(|p| p.stats.packets_lost).sum();
                        let ptos: u64 = cli.paths.iter().map(|p| p.stats.ptos).sum();
                        (json!(t.cc.name()), json!({"retransmissions": lost, "rto_count": ptos}))
                    }
                    (TransportSpec::Mptcp(t), AnyEndpoint::Mptcp(MptcpConn { snd, .. })) => {
                        let sum =
                            |g: fn(&crate::transport::tcp::SenderStats) -> u64| -> u64 { snd.subs.iter().map(|s| g(&s.snd.stats)).sum() };
                        (json!(t.cc.name()), json!({"retransmissions": sum(|s| s.retransmissions), "rto_count": sum(|s| s.rto_count)}))
                    }
                    _ => (Value::Null, Value::Null),
                };
                let jitter = jitter_json(&m.jitter);
                json!({
                    "name": fs.name, "group": fs.group, "protocol": protocol_name(&fs.transport), "cc": cc,
                    "src": node(fs.src), "dst": node(fs.dst),
                    "goodput_mbps": goodput,
                    "bytes_delivered": m.bytes_delivered,
                    "sent_packets": m.data_packets_sent,
                    "dropped_packets": m.data_packets_dropped,
                    "loss_pct": loss_pct,
                    "ack_packets_sent": m.ack_packets_sent,
                    "retransmissions": tcp.get("retransmissions").cloned().unwrap_or(Value::Null),
                    "rto_count": tcp.get("rto_count").cloned().unwrap_or(Value::Null),
                    "srtt_ms_mean": tcp.get("srtt_ms_mean").cloned().unwrap_or(Value::Null),
                    "tcp": tcp,
                    "jitter_ms": jitter,
                    "owd_ms": quantiles_ms(&m.owd),
                    "interarrival_ms": quantiles_ms(&m.interarrival),
                    "completion_time_s": m.completion.map(|t| as_secs_f64(t - flow.start)),
                    "app_blocked_ticks": m.blocked_ticks,
                    "mptcp": self.mptcp_summary(i),
                    "quic": self.quic_summary(i),
                })
            })
            .collect();

        let links: Vec<Value> = self
            .links
            .iter()
            .enumerate()
            .map(|(i, link)| {
                let ls = &spec.links[i];
                let c = &link.counters;
                let n = link.wire[0].bins().len();
                let total: Vec<f64> = (0..n)
                    .map(|k| {
                        let bytes = link.wire[0].bins()[k] + link.wire[1].bins()[k];
                        bytes as f64 * 8.0 / as_secs_f64(link.wire[0].bin_len(k)) / 1e6
                    })
                    .collect();
                let mut by_proto = Map::new();
                for p in Proto::ALL {
                    let bins = &link.wire[p.index()];
                    if bins.total_bytes() > 0 {
                        by_proto.insert(p.name().into(), json!({"bytes": bins.total_bytes(), "throughput_mbps": bins.summary(0)}));
                    }
                }
                let drops = c.queue_drops + c.channel_drops + c.down_drops;
                // Time-average capacity (0 while down), for links whose rate or state varies.
                let varies = ls.capacity.is_some() || spec.events.iter().any(|e| e.link as usize == i);
                let mean_rate_mbps = varies.then(|| link.mean_rate_bps(spec.duration) / 1e6);
                json!({
                    "name": ls.name, "from": node(ls.from), "to": node(ls.to),
                    "rate_mbps": ls.rate_bps as f64 / 1e6,
                    "throughput_mbps": Stats::from_samples(&total),
                    "bytes": c.transmitted_bytes, "packets": c.transmitted,
                    "offered_packets": c.offered,
                    "queue_drops": c.queue_drops, "channel_drops": c.channel_drops, "drops": drops,
                    "down_drops": c.down_drops, "mean_rate_mbps": mean_rate_mbps,
                    "drop_pct": if c.offered > 0 { 100.0 * drops as f64 / c.offered as f64 } else { 0.0 },
                    "queue_delay_ms": quantiles_ms(link.stats.delay_histogram()),
                    "queue_pkts_mean": finite(link.stats.mean_len_packets(spec.duration)),
                    "queue_pkts_max": link.stats.max_len_packets(),
                    "jitter_ms": jitter_json(&self.link_traces[i].jitter),
                    "by_protocol": by_proto,
                })
            })
            .collect();

        let groups: Vec<Value> = spec
            .jain_groups
            .iter()
            .map(|(name, members)| {
                let xs: Vec<f64> = members.iter().map(|&f| flow_means[f as usize]).collect();
                let total: f64 = xs.iter().sum();
                json!({
                    "name": name, "flows": members.len(), "goodput_mbps_total": total,
                    "goodput_mbps_mean": if xs.is_empty() { 0.0 } else { total / xs.len() as f64 },
                    "jain": jain_index(&xs),
                })
            })
            .collect();

        let mut protocols = Map::new();
        for p in Proto::ALL {
            let (s, d) = (proto_sent[p.index()], proto_dropped[p.index()]);
            if s > 0 {
                protocols
                    .insert(p.name().into(), json!({"sent_packets": s, "dropped_packets": d, "loss_pct": 100.0 * d as f64 / s as f64}));
            }
        }
        let definitions: Map<String, Value> = DEFINITIONS.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
        json!({
            "seed": spec.seed,
            "duration_s": as_secs_f64(spec.duration),
            "scenario": scenario,
            "definitions": definitions,
            "flows": flows,
            "links": links,
            "groups": groups,
            "jain_all_flows": jain_index(&flow_means),
            "protocols": protocols,
            "engine": {
                "events": self.events_processed(),
                "packets_created": self.counts.created,
                "delivered_data_packets": self.counts.delivered_data,
            },
        })
    }

    pub fn timeseries(&self) -> Columns {
        let mut c = Columns::default();
        let iv = self.spec.metrics.interval;
        for (i, flow) in self.flows.iter().enumerate() {
            let name = &self.spec.flows[i].name;
            for (k, r) in flow.metrics.goodput.rates_bps().iter().enumerate() {
                c.push("goodput_mbps", name, as_secs_f64(k as Time * iv), r / 1e6);
            }
            c.push_trace("cwnd_bytes", name, &flow.metrics.cwnd);
            c.push_trace("srtt_ms", name, &flow.metrics.srtt);
        }
        self.mptcp_timeseries(&mut c);
        for (i, link) in self.links.iter().enumerate() {
            let name = &self.spec.links[i].name;
            let n = link.wire[0].bins().len();
            // Which protocols crossed the link, and their series names: once per link, not per
            // bin (summing every bin inside the bin loop made this quadratic in run length).
            let protos: Vec<(Proto, String)> = Proto::ALL
                .into_iter()
                .filter(|p| link.wire[p.index()].total_bytes() > 0)
                .map(|p| (p, format!("{name}:{}", p.name())))
                .collect();
            for k in 0..n {
                let secs = as_secs_f64(link.wire[0].bin_len(k));
                let t = as_secs_f64(k as Time * iv);
                let total = link.wire[0].bins()[k] + link.wire[1].bins()[k];
                c.push("link_mbps", name, t, total as f64 * 8.0 / secs / 1e6);
                for (p, series) in &protos {
                    let b = link.wire[p.index()].bins()[k];
                    c.push("link_mbps", series, t, b as f64 * 8.0 / secs / 1e6);
                }
            }
            let tr = &self.link_traces[i];
            c.push_trace("queue_delay_ms", name, &tr.queue_delay_ms);
            c.push_trace("queue_pkts", name, &tr.queue_pkts);
        }
        c
    }
}

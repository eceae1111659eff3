//! Results of a run: the summary (a pure function of scenario and seed; typed in `results`,
//! assembled here from the simulation's measurements, each transport filling its own part) and
//! the time series (long format: series, entity, t_s, value). Metric names and definitions come
//! from `metrics::DEFINITIONS`.

use super::Simulation;
use crate::metrics::report::{finite, pct};
use crate::metrics::{active_bins, jain_index, LinkJitter, LogHistogram, RateMeter, Stats, Trace, DEFINITIONS};
use crate::net::Proto;
use crate::results::{
    EngineSummary, FlowSummary, GroupSummary, JitterSummary, LinkGroupSummary, LinkProtocolSummary, LinkSummary, OwdCdf, PathMeasures,
    ProtocolSummary, Quantiles, RunSummary,
};
use crate::spec::PathSpec;
use crate::transport::endpoint::{Endpoint, SummaryInput};
use mptlab_engine::time::as_secs_f64;
use mptlab_engine::Time;
use serde_json::Value;
use std::collections::BTreeMap;

/// Per-link measurements the simulation keeps for a detailed link (the link itself only counts
/// and queues).
pub struct LinkTrace {
    pub queue_pkts: Trace,
    pub queue_delay_ms: Trace,
    /// RFC 3550 jitter of the data packets crossing the link, merged and per subflow, for the
    /// link and per flow group (`metrics::link_jitter`), when the run asks for link jitter.
    pub jitter: Option<LinkJitter>,
}

impl LinkTrace {
    /// `jitter_groups`: the number of flow groups when the run asks for link jitter.
    pub fn new(every: Time, duration: Time, jitter_groups: Option<usize>) -> Self {
        Self {
            queue_pkts: Trace::new(every, duration),
            queue_delay_ms: Trace::new(every, duration),
            jitter: jitter_groups.map(|g| LinkJitter::new(g, every, duration)),
        }
    }
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

    pub(super) fn push_points(&mut self, series: &'static str, entity: &str, points: impl Iterator<Item = (f64, f64)>) {
        for (t, v) in points {
            self.push(series, entity, t, v);
        }
    }

    pub(super) fn push_trace(&mut self, series: &'static str, entity: &str, trace: &Trace) {
        let (ts, vs) = trace.points();
        for (t, v) in ts.iter().zip(vs) {
            self.push(series, entity, *t, *v);
        }
    }
}

impl Simulation {
    /// Distribution of flow `f`'s goodput over its active bins, in Mbit/s (streamed flows:
    /// exact mean/std/min/max, histogram percentiles).
    pub fn flow_goodput_stats(&self, f: usize) -> Stats {
        let flow = &self.flows[f];
        let bins = match &flow.metrics.goodput {
            RateMeter::Series(bins) => bins,
            RateMeter::Streaming(s) => return s.summary(0),
        };
        let (a, b) = active_bins(self.spec.metrics.interval, self.spec.duration, flow.start, flow.stop);
        let rates = bins.rates_bps();
        let b = b.min(rates.len());
        let mbps: Vec<f64> = rates[a.min(b)..b].iter().map(|r| r / 1e6).collect();
        Stats::from_samples(&mbps)
    }

    /// The summary as JSON (keys sorted): what summary.json holds.
    pub fn summary(&self, scenario: &Value) -> Value {
        self.run_summary(scenario).to_value()
    }

    /// The typed summary of the run (schema: `results`, docs/metrics.md).
    pub fn run_summary<'a>(&self, scenario: &'a Value) -> RunSummary<'a> {
        let spec = &self.spec;
        let flows: Vec<FlowSummary> = (0..self.flows.len()).map(|i| self.flow_summary(i)).collect();
        let groups =
            spec.jain_groups.iter().map(|(name, members)| GroupSummary::of(name, members.iter().map(|&f| &flows[f as usize]))).collect();
        let mut protocols = BTreeMap::new();
        for p in Proto::ALL {
            let of_p = || flows.iter().zip(&self.flows).filter(move |(_, fl)| fl.proto == p).map(|(f, _)| f);
            let sent: u64 = of_p().map(|f| f.sent_packets).sum();
            if sent > 0 {
                protocols.insert(p.name(), ProtocolSummary::new(sent, of_p().map(|f| f.dropped_packets).sum()));
            }
        }
        let means: Vec<f64> = flows.iter().map(|f| f.goodput_mbps.mean).collect();
        RunSummary {
            seed: spec.seed,
            duration_s: as_secs_f64(spec.duration),
            scenario,
            definitions: DEFINITIONS.iter().copied().collect(),
            jain_all_flows: jain_index(&means),
            links: (0..self.hops.len()).map(|i| self.link_summary(i)).collect(),
            flows,
            groups,
            protocols,
            tunnels: (0..self.tunnels.len()).map(|t| self.tunnel_summary(t)).collect(),
            wifi: (0..self.channels.len()).map(|c| self.wifi_summary(c)).collect(),
            data_owd_cdf_ms: self.pooled_owd(),
            engine: EngineSummary {
                events: self.events_processed(),
                packets_created: self.counts.created,
                delivered_data_packets: self.counts.delivered_data,
            },
        }
    }

    fn flow_summary(&self, i: usize) -> FlowSummary {
        let spec = &self.spec;
        let (fs, flow) = (&spec.flows[i], &self.flows[i]);
        let m = &flow.metrics;
        // Each transport fills its own part (transport/<name>/summary.rs).
        let input = SummaryInput {
            spec: &fs.transport,
            metrics: m,
            paths: self.path_measures(i, fs.transport.paths()),
            start: flow.start,
            end: spec.duration,
        };
        let transport = flow.endpoint.summary(&input);
        let cc = fs.transport.cc_name();
        FlowSummary {
            name: fs.name.clone(),
            group: fs.group.clone(),
            detailed: spec.metrics.flow_detailed(i),
            protocol: fs.transport.protocol_name(),
            cc,
            src: self.node_name(fs.src),
            dst: self.node_name(fs.dst),
            goodput_mbps: self.flow_goodput_stats(i),
            bytes_delivered: m.bytes_delivered,
            sent_packets: m.data_packets_sent,
            dropped_packets: m.data_packets_dropped,
            loss_pct: pct(m.data_packets_dropped, m.data_packets_sent),
            ack_packets_sent: m.ack_packets_sent,
            retransmissions: transport.retransmits.as_ref().map(|t| t.retransmissions),
            rto_count: transport.retransmits.as_ref().map(|t| t.rto_count),
            srtt_ms_mean: transport.retransmits.as_ref().and_then(|t| t.detail.as_ref()).and_then(|d| d.srtt_ms_mean),
            jitter_ms: m.delays.as_ref().and_then(|d| d.jitter.as_ref()).and_then(JitterSummary::of),
            owd_ms: m.delays.as_ref().and_then(|d| Quantiles::of_ns(&d.owd)),
            interarrival_ms: m.delays.as_ref().and_then(|d| Quantiles::of_ns(&d.interarrival)),
            completion_time_s: m.completion.map(|t| as_secs_f64(t - flow.start)),
            app_blocked_ticks: flow.blocked_ticks,
            transport,
        }
    }

    /// Every detailed flow's data-packet one-way delays, pooled (`data_owd_cdf_ms`).
    fn pooled_owd(&self) -> Option<OwdCdf> {
        let mut all = LogHistogram::new();
        for f in &self.flows {
            if let Some(d) = &f.metrics.delays {
                all.merge(&d.owd);
            }
        }
        (all.count() > 0).then(|| OwdCdf {
            count: all.count(),
            mean: all.mean() / 1e6,
            quantiles: (0..=100).map(|i| all.quantile(i as f64 / 100.0) / 1e6).collect(),
        })
    }

    fn link_summary(&self, i: usize) -> LinkSummary {
        let spec = &self.spec;
        let (ls, link) = (&spec.links[i], &self.hops[i]);
        let c = &link.counters();
        let wire = link.wire();
        let mut by_protocol = BTreeMap::new();
        for p in Proto::ALL {
            let bytes = wire.proto_bytes(p.index());
            if bytes > 0 {
                by_protocol.insert(p.name(), LinkProtocolSummary { bytes, throughput_mbps: wire.proto_summary(p.index()) });
            }
        }
        let drops = c.queue_drops + c.channel_drops + c.down_drops;
        let jitter = self.link_traces[i].as_ref().and_then(|t| t.jitter.as_ref());
        // Time-average capacity (0 while down), for links whose rate or state varies.
        let varies = ls.capacity.is_some() || spec.events.iter().any(|e| e.link as usize == i);
        LinkSummary {
            name: ls.name.clone(),
            from: self.node_name(ls.from),
            to: self.node_name(ls.to),
            detailed: spec.metrics.link_detailed(i),
            rate_mbps: ls.rate_bps as f64 / 1e6,
            throughput_mbps: wire.total_summary(),
            bytes: c.transmitted_bytes,
            packets: c.transmitted,
            offered_packets: c.offered,
            queue_drops: c.queue_drops,
            channel_drops: c.channel_drops,
            drops,
            down_drops: c.down_drops,
            mean_rate_mbps: varies.then(|| link.mean_rate_bps(spec.duration) / 1e6),
            drop_pct: pct(drops, c.offered),
            queue_delay_ms: Quantiles::of_ns(link.stats().delay_histogram())
                .or_else(|| Quantiles::of_running_ns(link.stats().delay_running())),
            queue_pkts_mean: finite(link.stats().mean_len_packets(spec.duration)),
            queue_pkts_max: link.stats().max_len_packets(),
            jitter_ms: jitter.and_then(|j| j.link.merged_samples.stats_ms()),
            subflow_jitter_ms: jitter.and_then(|j| j.link.subflow_samples.stats_ms()),
            by_protocol,
            by_group: self.link_group_summaries(i),
            mac: link.mac().copied(),
        }
    }

    /// `links[].by_group` of link `i`: each group that offered packets to it (None when the
    /// link does not count per group).
    fn link_group_summaries(&self, i: usize) -> Option<BTreeMap<String, LinkGroupSummary>> {
        let groups = self.hops[i].groups()?;
        let jitter = self.link_traces[i].as_ref().and_then(|t| t.jitter.as_ref());
        let mut out = BTreeMap::new();
        for (g, name) in self.group_names.iter().enumerate() {
            let c = groups.counts(g);
            if c.offered == 0 {
                continue;
            }
            let pair = jitter.map(|j| &j.groups[g]);
            out.insert(
                name.clone(),
                LinkGroupSummary {
                    offered_packets: c.offered,
                    packets: c.packets,
                    bytes: c.bytes,
                    drops: c.drops,
                    throughput_mbps: groups.wire(g).summary(0),
                    jitter_ms: pair.and_then(|p| p.merged_samples.stats_ms()),
                    subflow_jitter_ms: pair.and_then(|p| p.subflow_samples.stats_ms()),
                },
            );
        }
        Some(out)
    }

    fn node_name(&self, node: u32) -> String {
        self.spec.nodes[node as usize].name.clone()
    }

    /// Seconds flow `f` was active (start to stop or the end of the run).
    pub(super) fn active_secs(&self, f: usize) -> f64 {
        let flow = &self.flows[f];
        let end = flow.stop.unwrap_or(self.spec.duration).min(self.spec.duration);
        as_secs_f64(end.saturating_sub(flow.start)).max(1e-9)
    }

    /// What the simulation measured on the paths of multipath flow `f` (routes of `paths`).
    pub(super) fn path_measures(&self, f: usize, paths: &[PathSpec]) -> PathMeasures<'_> {
        let mp = self.flows[f].metrics.mp.as_deref();
        let link_name = |l: &u32| self.spec.links[*l as usize].name.clone();
        PathMeasures {
            routes: paths.iter().map(|p| p.fwd_route.iter().map(link_name).collect()).collect(),
            srtt_ms: mp.map_or(&[][..], |mp| &mp.srtt[..]),
            drops: mp.map_or(&[][..], |mp| &mp.path_drops[..]),
            active_secs: self.active_secs(f),
        }
    }

    pub fn timeseries(&self) -> Columns {
        let mut c = Columns::default();
        let iv = self.spec.metrics.interval;
        for (i, flow) in self.flows.iter().enumerate() {
            // Only detailed flows keep series.
            let Some(bins) = flow.metrics.goodput.bins() else { continue };
            let name = &self.spec.flows[i].name;
            for (k, r) in bins.rates_bps().iter().enumerate() {
                c.push("goodput_mbps", name, as_secs_f64(k as Time * iv), r / 1e6);
            }
            c.push_trace("cwnd_bytes", name, &flow.metrics.cwnd);
            c.push_trace("srtt_ms", name, &flow.metrics.srtt);
        }
        self.path_timeseries(&mut c);
        self.tunnel_timeseries(&mut c);
        self.wifi_timeseries(&mut c);
        for (i, link) in self.hops.iter().enumerate() {
            let (Some(wire), Some(tr)) = (link.wire().bins(), &self.link_traces[i]) else { continue };
            let name = &self.spec.links[i].name;
            let n = wire[0].bins().len();
            // Which protocols crossed the link, and their series names: once per link, not per
            // bin (summing every bin inside the bin loop made this quadratic in run length).
            let protos: Vec<(Proto, String)> =
                Proto::ALL.into_iter().filter(|p| wire[p.index()].total_bytes() > 0).map(|p| (p, format!("{name}:{}", p.name()))).collect();
            for k in 0..n {
                let secs = as_secs_f64(wire[0].bin_len(k));
                let t = as_secs_f64(k as Time * iv);
                let total = wire[0].bins()[k] + wire[1].bins()[k];
                c.push("link_mbps", name, t, total as f64 * 8.0 / secs / 1e6);
                for (p, series) in &protos {
                    let b = wire[p.index()].bins()[k];
                    c.push("link_mbps", series, t, b as f64 * 8.0 / secs / 1e6);
                }
            }
            c.push_trace("queue_delay_ms", name, &tr.queue_delay_ms);
            c.push_trace("queue_pkts", name, &tr.queue_pkts);
            self.link_group_timeseries(&mut c, i);
        }
        c
    }

    /// Link `i`'s per-group wire throughput (`link_group_mbps`) and its jitter series (mean J
    /// per trace interval with samples): `link_jitter_ms`, `link_subflow_jitter_ms` (entity
    /// `<link>`), `link_group_jitter_ms`, `link_group_subflow_jitter_ms` (`<link>:<group>`).
    fn link_group_timeseries(&self, c: &mut Columns, i: usize) {
        let name = &self.spec.links[i].name;
        let iv = self.spec.metrics.interval;
        let groups = self.hops[i].groups();
        let jitter = self.link_traces[i].as_ref().and_then(|t| t.jitter.as_ref());
        if let Some(j) = jitter {
            c.push_points("link_jitter_ms", name, j.link.merged_samples.series_ms());
            c.push_points("link_subflow_jitter_ms", name, j.link.subflow_samples.series_ms());
        }
        let Some(groups) = groups else { return };
        for (g, group) in self.group_names.iter().enumerate() {
            if groups.counts(g).offered == 0 {
                continue;
            }
            let entity = format!("{name}:{group}");
            let wire = groups.wire(g);
            for (k, &b) in wire.bins().iter().enumerate() {
                let secs = as_secs_f64(wire.bin_len(k));
                c.push("link_group_mbps", &entity, as_secs_f64(k as Time * iv), b as f64 * 8.0 / secs / 1e6);
            }
            if let Some(j) = jitter {
                c.push_points("link_group_jitter_ms", &entity, j.groups[g].merged_samples.series_ms());
                c.push_points("link_group_subflow_jitter_ms", &entity, j.groups[g].subflow_samples.series_ms());
            }
        }
    }
}

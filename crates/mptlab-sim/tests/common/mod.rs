//! Shared helpers of the whole-simulation tests (anchors, invariants, determinism).
//!
//! Scenarios are built as TOML text and loaded through `scenario::load`, the public path users
//! take, so every test also exercises validation and resolution.

#![allow(dead_code)]

use mptlab_sim::engine::time::SECOND;
use mptlab_sim::engine::Time;
use mptlab_sim::scenario::{self, Loaded};
use mptlab_sim::sim::Simulation;
use mptlab_sim::transport::tcp::TcpConn;
use mptlab_sim::transport::tcp::{TcpReceiver, TcpSender};
use mptlab_sim::transport::AnyEndpoint;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Load a scenario (panics with the validation message if it is invalid: a test bug).
pub fn load(toml: &str, seed: Option<u64>) -> Loaded {
    match scenario::load(toml, &[], seed) {
        Ok(l) => l,
        Err(e) => panic!("invalid test scenario: {e}\n---\n{toml}"),
    }
}

/// Load and build a simulation; also returns the canonical scenario for `summary`.
pub fn build(toml: &str, seed: Option<u64>) -> (Simulation, serde_json::Value) {
    let l = load(toml, seed);
    (Simulation::new(l.spec), l.canonical)
}

/// Load, run to the end, return the simulation and its summary.
pub fn run(toml: &str, seed: Option<u64>) -> (Simulation, serde_json::Value) {
    let (mut sim, canonical) = build(toml, seed);
    sim.run_to_end();
    let summary = sim.summary(&canonical);
    (sim, summary)
}

/// Keep every TCP flow's controller state changes (`TcpSender::cc_state_changes`), off by
/// default since a long run's history grows without end; call before the run starts.
pub fn keep_cc_history(sim: &mut Simulation) {
    for f in &mut sim.flows {
        if let AnyEndpoint::Tcp(c) = &mut f.endpoint {
            c.snd.keep_cc_history();
        }
    }
}

/// `run`, keeping every TCP flow's controller state changes.
pub fn run_keeping_cc_history(toml: &str, seed: Option<u64>) -> (Simulation, serde_json::Value) {
    let (mut sim, canonical) = build(toml, seed);
    keep_cc_history(&mut sim);
    sim.run_to_end();
    let summary = sim.summary(&canonical);
    (sim, summary)
}

/// Index of the flow called `name` (after expansion: `bulk`, `bulk#3`).
pub fn flow_index(sim: &Simulation, name: &str) -> usize {
    sim.spec.flows.iter().position(|f| f.name == name).unwrap_or_else(|| panic!("no flow named {name}"))
}

/// Index of the link direction called `name` (`x` or `x.rev`).
pub fn link_index(sim: &Simulation, name: &str) -> usize {
    sim.spec.links.iter().position(|l| l.name == name).unwrap_or_else(|| panic!("no link named {name}"))
}

pub fn tcp(sim: &Simulation, f: usize) -> (&TcpSender, &TcpReceiver) {
    match &sim.flows[f].endpoint {
        AnyEndpoint::Tcp(TcpConn { snd, rcv, .. }) => (snd, rcv),
        _ => panic!("flow {f} is not TCP"),
    }
}

/// Goodput of flow `f` in bit/s over the whole bins [from, to) (seconds, interval 1 s assumed
/// by the caller's scenario): application bytes delivered in order, per second.
pub fn goodput_bps(sim: &Simulation, f: usize, from_s: u64, to_s: u64) -> f64 {
    let iv = sim.spec.metrics.interval;
    assert_eq!(iv, SECOND, "goodput_bps assumes 1 s bins");
    let bins = sim.flows[f].metrics.goodput.bins().expect("a detailed flow keeps its goodput series").bins();
    let to = (to_s as usize).min(bins.len());
    let bytes: u64 = bins[from_s as usize..to].iter().sum();
    bytes as f64 * 8.0 / (to - from_s as usize) as f64
}

/// Jain's index (Σx)² / (n·Σx²).
pub fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    s * s / (xs.len() as f64 * s2)
}

/// Map `f` over `items` on up to `threads` worker threads; results in input order.
pub fn par_map<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1).min(items.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                out.lock().unwrap()[i] = Some(r);
            });
        }
    });
    out.into_inner().unwrap().into_iter().map(|r| r.expect("every item mapped")).collect()
}

/// Worker threads for parallel seeds: the machine's parallelism (CI has 2 cores).
pub fn threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2)
}

pub fn secs(t: Time) -> f64 {
    t as f64 / SECOND as f64
}

/// Padhye's setting (anchors.rs, tcp_delack.rs): one NewReno bulk flow over a 10 Mbit/s,
/// 40 ms path with a 4-BDP drop-tail queue and Bernoulli loss `p`; `tcp` is the flow's inline
/// TCP option table (empty for the defaults).
pub fn padhye_path(p: f64, secs: u64, tcp: &str) -> String {
    let loss = format!("{{ model = \"bernoulli\", p = {p} }}");
    OneLink {
        secs,
        link: "path",
        rate: "10Mbps",
        delay: "40ms",
        limit: "4bdp",
        loss: &loss,
        flow: "bulk",
        cc: "newreno",
        flow_extra: "",
        tcp,
    }
    .toml()
}

/// One flow between hosts `src` and `dst` joined by one duplex link with a drop-tail queue: the
/// topology of most single-controller tests. Fields are TOML fragments; `loss` and `flow_extra`
/// are written only when non-empty, `tcp` is the flow's inline TCP option table.
pub struct OneLink<'a> {
    pub secs: u64,
    pub link: &'a str,
    pub rate: &'a str,
    pub delay: &'a str,
    pub limit: &'a str,
    /// e.g. `{ model = "bernoulli", p = 0.01 }`; the reverse (ACK) direction stays lossless.
    pub loss: &'a str,
    pub flow: &'a str,
    pub cc: &'a str,
    /// Extra flow keys, e.g. `cc_options = { hystart = false }`.
    pub flow_extra: &'a str,
    /// Contents of the flow's `tcp = { ... }` table.
    pub tcp: &'a str,
}

/// TCP buffers large enough that only the congestion controller limits the window.
pub const BIG_BUFFERS: &str = r#"send_buffer = "64MB", recv_buffer = "64MB""#;

impl OneLink<'_> {
    pub fn toml(&self) -> String {
        let mut t = format!(
            "[run]\nduration = \"{}s\"\n\n[nodes]\nhosts = [\"src\", \"dst\"]\n\n[links.{}]\nbetween = [\"src\", \"dst\"]\n\
             rate = \"{}\"\ndelay = \"{}\"\nqueue = {{ kind = \"droptail\", limit = \"{}\" }}\n",
            self.secs, self.link, self.rate, self.delay, self.limit
        );
        if !self.loss.is_empty() {
            t += &format!("loss = {}\nreverse = {{ loss = \"none\" }}\n", self.loss);
        }
        t += &format!(
            "\n[flows.{}]\nfrom = \"src\"\nto = \"dst\"\ncc = \"{}\"\napp = \"bulk\"\n{}\ntcp = {{ {} }}\n",
            self.flow, self.cc, self.flow_extra, self.tcp
        );
        t
    }
}

/// `src -> r1 == r2 -> dst`: 1 Gbit/s, 1 ms access links around one bottleneck, `count` flows
/// of one entry from src to dst: the topology of the fairness, AQM and Vegas tests.
pub struct Dumbbell<'a> {
    pub secs: u64,
    pub rate: &'a str,
    pub delay: &'a str,
    /// The bottleneck's queue table, e.g. `{ kind = "droptail", limit = "1bdp" }`.
    pub queue: &'a str,
    pub flow: &'a str,
    pub count: u32,
    pub cc: &'a str,
    /// Contents of the flow's `tcp = { ... }` table; none when empty.
    pub tcp: &'a str,
    /// Extra top-level tables, e.g. `[metrics]\ntrace_interval = "10ms"\n`.
    pub extra: &'a str,
}

impl Dumbbell<'_> {
    pub fn toml(&self) -> String {
        let mut t = format!(
            "[run]\nduration = \"{}s\"\n\n{}\n[nodes]\nhosts = [\"src\", \"dst\"]\nrouters = [\"r1\", \"r2\"]\n\n\
             [links.access_src]\nbetween = [\"src\", \"r1\"]\nrate = \"1Gbps\"\ndelay = \"1ms\"\n\n\
             [links.bottleneck]\nbetween = [\"r1\", \"r2\"]\nrate = \"{}\"\ndelay = \"{}\"\nqueue = {}\n\n\
             [links.access_dst]\nbetween = [\"r2\", \"dst\"]\nrate = \"1Gbps\"\ndelay = \"1ms\"\n\n\
             [flows.{}]\nfrom = \"src\"\nto = \"dst\"\ncc = \"{}\"\napp = \"bulk\"\n",
            self.secs, self.extra, self.rate, self.delay, self.queue, self.flow, self.cc
        );
        if self.count != 1 {
            t += &format!("count = {}\n", self.count);
        }
        if !self.tcp.is_empty() {
            t += &format!("tcp = {{ {} }}\n", self.tcp);
        }
        t
    }
}

/// Two disjoint paths between hosts `c` and `s` through routers `r1` and `r2`: access links
/// `p1` and `p2` (rate, one-way delay, a 1-BDP drop-tail queue) and 10 Gbit/s, 0 ms links on to
/// `s`; one flow `mp` of `protocol` with the extra keys `flow`.
pub fn two_path_scenario(protocol: &str, r1: &str, d1: &str, r2: &str, d2: &str, flow: &str, duration: &str) -> String {
    format!(
        r#"
[run]
duration = "{duration}"
[nodes]
hosts = ["c", "s"]
routers = ["r1", "r2"]
[links.p1]
between = ["c", "r1"]
rate = "{r1}"
delay = "{d1}"
queue = {{ kind = "droptail", limit = "1bdp" }}
[links.p1s]
between = ["r1", "s"]
rate = "10Gbps"
delay = "0ms"
queue = {{ kind = "droptail", limit = "1000p" }}
[links.p2]
between = ["c", "r2"]
rate = "{r2}"
delay = "{d2}"
queue = {{ kind = "droptail", limit = "1bdp" }}
[links.p2s]
between = ["r2", "s"]
rate = "10Gbps"
delay = "0ms"
queue = {{ kind = "droptail", limit = "1000p" }}
[flows.mp]
from = "c"
to = "s"
protocol = "{protocol}"
{flow}
"#
    )
}

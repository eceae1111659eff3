//! Invariants under random topologies, traffic and loss (DESIGN.md "Validation ladder", step 3).
//!
//! Each case is a random scenario written as TOML and loaded through `scenario::load`: a chain
//! (2–6 nodes, hosts at the ends, routers between) or a dumbbell (1–2 host pairs around two
//! routers, 4 or 6 nodes); every link with a random rate (1–1000 Mbit/s), delay (0–50 ms),
//! queue (drop-tail or CoDel, limits in packets, bytes, BDP multiples or time, down to one
//! packet) and channel loss (none, Bernoulli or Gilbert–Elliott, up to about 10 %, sometimes a
//! different one on the reverse direction); 1–6 flows, TCP (reno/newreno, SACK, delayed ACKs
//! and handshake each on or off, random MSS; bulk, CBR, Poisson or file) or UDP (CBR or
//! Poisson, random datagram size), with random start and stop times; 1–5 s.
//! The run is advanced in steps of random length (some of them targets in the past) and the
//! invariants are checked after every step.
//!
//! Properties:
//! - `random_networks_keep_the_invariants` (1000 cases): packets are conserved (engine:
//!   created = delivered + dropped + live; every live packet inside a link; per link: offered =
//!   queue drops + channel drops + delivered + inside; per flow: packets sent and dropped add
//!   up to the engine's counts), time never goes back across `advance` steps and lands exactly
//!   on the step's target, every TCP cwnd is at least one MSS at every step and in the cwnd
//!   trace, and TCP delivers every byte once and in order (see `check`).
//! - `file_transfers_complete_exactly_once` (256 cases): TCP file transfers with moderate loss
//!   over 600 s all complete, with exactly the file's bytes.
//! - `rtt_estimates_stay_physical` (256 cases): Karn's rule; no RTT sample exceeds what the
//!   path can produce.
//!
//! The counts keep the file at a few seconds in release mode (well under a minute). To fuzz
//! longer or elsewhere: `PROPTEST_CASES=20000 PROPTEST_RNG_SEED=$RANDOM cargo test --release -p
//! mptlab-sim --test invariants` (the default seed is fixed, `FUZZ_SEED`;
//! PROPTEST_CASES overrides every property's count here; `INV_DEBUG=1` prints how busy each
//! generated scenario was). Failures are shrunk and printed with the scenario TOML. Scheduling
//! an event in the past is a `debug_assert` in the engine (release builds clamp it), so a debug
//! build (`cargo test -p mptlab-sim --test invariants`, slower) checks that too.

mod common;

use common::*;
use mptlab_sim::cc::registry::{COMPOSITES, CONGESTION_CONTROLLERS};
use mptlab_sim::engine::time::{MICROSECOND, MILLISECOND, SECOND};
use mptlab_sim::engine::Time;
use mptlab_sim::scenario;
use mptlab_sim::sched::registry::SCHEDULERS;
use mptlab_sim::sim::Simulation;
use mptlab_sim::spec::{AppSpec, QueueLimit, QueueSpec, TransportSpec};
use mptlab_sim::transport::mptcp::MptcpConn;
use mptlab_sim::transport::quic::QuicPair;
use mptlab_sim::transport::tcp::TcpConn;
use mptlab_sim::transport::udp::UdpConn;
use mptlab_sim::transport::AnyEndpoint;
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::fmt::Write;
use std::sync::LazyLock;

// ----- random scenarios --------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Limit {
    Packets(u32),
    Bytes(u32),
    /// Hundredths of a BDP.
    Bdp(u32),
    /// Microseconds at link rate.
    Time(u32),
}

#[derive(Clone, Debug)]
enum Queue {
    DropTail(Limit),
    CoDel { limit: Limit, target_us: u32, interval_ms: u32 },
}

/// Probabilities in 1/10000.
#[derive(Clone, Debug)]
enum Loss {
    None,
    Bernoulli(u32),
    Ge { gb: u32, bg: u32, good: u32, bad: u32 },
}

#[derive(Clone, Debug)]
struct LinkP {
    rate_kbps: u64,
    delay_us: u64,
    queue: Queue,
    loss: Loss,
    reverse_loss: Option<Loss>,
}

#[derive(Clone, Debug)]
enum App {
    Bulk,
    Cbr { rate_kbps: u64, write: u32 },
    Poisson { rate_kbps: u64, message: u32 },
    File { size: u64 },
}

#[derive(Clone, Debug)]
enum Proto {
    Tcp {
        reno: bool,
        sack: bool,
        delack: bool,
        handshake: bool,
        mss: u32,
    },
    Udp {
        packet_size: u32,
    },
    /// Index into MP_CCS and MP_SCHEDULERS.
    Mptcp {
        cc: usize,
        sched: usize,
        sack: bool,
        delack: bool,
        handshake: bool,
        mss: u32,
        buf_kb: u32,
        opportunistic: bool,
    },
    /// QUIC or multipath QUIC; cc and sched index MP_CCS and MP_SCHEDULERS.
    Quic {
        multipath: bool,
        cc: usize,
        sched: usize,
        streams: u32,
        handshake: bool,
        payload: u32,
        window_kb: u32,
    },
}

/// Controllers and schedulers the fuzzer gives multipath flows: every registered one (the
/// registries' tables and the derived `<coupled>+<path>` composites), so a new algorithm is
/// fuzzed from its registry entry on.
static MP_CCS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let mut names: Vec<&'static str> = CONGESTION_CONTROLLERS.iter().map(|a| a.name).collect();
    names.extend(COMPOSITES.iter().copied());
    names
});
static MP_SCHEDULERS: LazyLock<Vec<&'static str>> = LazyLock::new(|| SCHEDULERS.iter().map(|a| a.name).collect());

#[derive(Clone, Debug)]
struct FlowP {
    src: usize,
    dst: usize,
    proto: Proto,
    app: App,
    start_ms: u64,
    stop_ms: Option<u64>,
}

#[derive(Clone, Debug)]
enum Topo {
    /// n nodes in a line; hosts at both ends.
    Chain(usize),
    /// k senders and k receivers around two routers.
    Dumbbell(usize),
    /// Two hosts joined through k routers in parallel: k disjoint paths for MPTCP.
    Parallel(usize),
    /// n Wi-Fi stations (all endpoints and relays) on one channel, 70 m apart on a line with a
    /// 100 m range (each hears only its neighbours: hidden terminals two apart), plus up to two
    /// stations at random spots within 70 m of the line (always connected); a retry limit and, sometimes, a station queue limit.
    Wifi { n: usize, extra: Vec<(u16, u16)>, retry_limit: u32, queue_limit: Option<u32> },
}

#[derive(Clone, Debug)]
struct ScenarioP {
    topo: Topo,
    links: Vec<LinkP>,
    flows: Vec<FlowP>,
    duration_ms: u64,
    seed: u64,
}

fn prob(x: u32) -> String {
    format!("{}.{:04}", x / 10000, x % 10000)
}

fn limit_str(l: &Limit) -> String {
    match l {
        Limit::Packets(n) => format!("{n}p"),
        Limit::Bytes(b) => format!("{b}B"),
        Limit::Bdp(h) => format!("{}.{:02}bdp", h / 100, h % 100),
        Limit::Time(us) => format!("{us}us"),
    }
}

fn loss_str(l: &Loss) -> String {
    match l {
        Loss::None => r#""none""#.into(),
        Loss::Bernoulli(p) => format!(r#"{{ model = "bernoulli", p = {} }}"#, prob(*p)),
        Loss::Ge { gb, bg, good, bad } => format!(
            r#"{{ model = "gilbert_elliott", p_good_to_bad = {}, p_bad_to_good = {}, loss_good = {}, loss_bad = {} }}"#,
            prob(*gb),
            prob(*bg),
            prob(*good),
            prob(*bad)
        ),
    }
}

impl ScenarioP {
    /// (hosts, routers, links as (a, b)).
    fn graph(&self) -> (Vec<String>, Vec<String>, Vec<(String, String)>) {
        match self.topo {
            Topo::Chain(n) => {
                let name = |i: usize| format!("n{i}");
                let hosts = vec![name(0), name(n - 1)];
                let routers = (1..n - 1).map(name).collect();
                let links = (0..n - 1).map(|i| (name(i), name(i + 1))).collect();
                (hosts, routers, links)
            }
            Topo::Dumbbell(k) => {
                let mut hosts = Vec::new();
                let mut links = Vec::new();
                for i in 0..k {
                    hosts.push(format!("s{i}"));
                    links.push((format!("s{i}"), "r1".to_string()));
                }
                links.push(("r1".into(), "r2".into()));
                for i in 0..k {
                    hosts.push(format!("d{i}"));
                    links.push(("r2".into(), format!("d{i}")));
                }
                (hosts, vec!["r1".into(), "r2".into()], links)
            }
            Topo::Wifi { n, ref extra, .. } => ((0..n + extra.len()).map(|i| format!("w{i}")).collect(), vec![], vec![]),
            Topo::Parallel(k) => {
                let routers: Vec<String> = (0..k).map(|i| format!("m{i}")).collect();
                let mut links = Vec::new();
                for r in &routers {
                    links.push(("a".to_string(), r.clone()));
                    links.push((r.clone(), "b".to_string()));
                }
                (vec!["a".into(), "b".into()], routers, links)
            }
        }
    }

    fn toml(&self) -> String {
        let (hosts, routers, links) = self.graph();
        let q = |v: &[String]| v.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(", ");
        let mut t = String::new();
        writeln!(t, "[run]\nduration = \"{}ms\"\nseed = {}\n", self.duration_ms, self.seed).unwrap();
        if let Topo::Wifi { n, extra, retry_limit, queue_limit } = &self.topo {
            let pos: Vec<String> = (0..*n)
                .map(|i| format!("[{}.0, 0.0]", 70 * i))
                .chain(extra.iter().map(|(x, y)| format!("[{}.0, {}.0]", x % (70 * (*n as u16 - 1) + 1), y % 61)))
                .collect();
            writeln!(
                t,
                "[wifi.air]\nstations = [{}]\npositions = [{}]\nrange = 100.0\nretry_limit = {retry_limit}",
                q(&hosts),
                pos.join(", ")
            )
            .unwrap();
            if let Some(ql) = queue_limit {
                writeln!(t, "queue_limit = {ql}").unwrap();
            }
            t.push('\n');
        } else {
            writeln!(t, "[nodes]\nhosts = [{}]\nrouters = [{}]\n", q(&hosts), q(&routers)).unwrap();
        }
        for (i, (a, b)) in links.iter().enumerate() {
            let l = &self.links[i % self.links.len()];
            let queue = match &l.queue {
                Queue::DropTail(lim) => format!(r#"{{ kind = "droptail", limit = "{}" }}"#, limit_str(lim)),
                Queue::CoDel { limit, target_us, interval_ms } => format!(
                    r#"{{ kind = "codel", limit = "{}", target = "{target_us}us", interval = "{interval_ms}ms" }}"#,
                    limit_str(limit)
                ),
            };
            writeln!(t, "[links.l{i}]\nbetween = [\"{a}\", \"{b}\"]\nrate = \"{}kbps\"\ndelay = \"{}us\"", l.rate_kbps, l.delay_us)
                .unwrap();
            writeln!(t, "queue = {queue}\nloss = {}", loss_str(&l.loss)).unwrap();
            if let Some(rl) = &l.reverse_loss {
                writeln!(t, "reverse = {{ loss = {} }}", loss_str(rl)).unwrap();
            }
            t.push('\n');
        }
        for (i, f) in self.flows.iter().enumerate() {
            let src = f.src % hosts.len();
            let mut dst = f.dst % hosts.len();
            if dst == src {
                dst = (dst + 1) % hosts.len();
            }
            writeln!(t, "[flows.f{i}]\nfrom = \"{}\"\nto = \"{}\"", hosts[src], hosts[dst]).unwrap();
            let start = f.start_ms.min(self.duration_ms - 1);
            writeln!(t, "start = \"{start}ms\"").unwrap();
            if let Some(stop) = f.stop_ms {
                writeln!(t, "stop = \"{}ms\"", start + 1 + stop).unwrap();
            }
            let udp = matches!(f.proto, Proto::Udp { .. });
            let app = match &f.app {
                App::Bulk if udp => r#"{ kind = "cbr", rate = "1Mbps" }"#.into(),
                App::File { .. } if udp => r#"{ kind = "poisson", rate = "1Mbps" }"#.into(),
                App::Bulk => r#""bulk""#.into(),
                App::File { size } => format!(r#"{{ kind = "file", size = "{size}B" }}"#),
                App::Cbr { rate_kbps, .. } if udp => format!(r#"{{ kind = "cbr", rate = "{rate_kbps}kbps" }}"#),
                App::Cbr { rate_kbps, write } => format!(r#"{{ kind = "cbr", rate = "{rate_kbps}kbps", write_size = "{write}B" }}"#),
                App::Poisson { rate_kbps, message } => {
                    format!(r#"{{ kind = "poisson", rate = "{rate_kbps}kbps", message_size = "{message}B" }}"#)
                }
            };
            writeln!(t, "app = {app}").unwrap();
            match &f.proto {
                Proto::Tcp { reno, sack, delack, handshake, mss } => {
                    writeln!(t, "protocol = \"tcp\"\ncc = \"{}\"", if *reno { "reno" } else { "newreno" }).unwrap();
                    writeln!(
                        t,
                        "tcp = {{ sack = {sack}, handshake = {handshake}, mss = \"{mss}B\", delayed_ack = {{ enabled = {delack} }} }}"
                    )
                    .unwrap();
                }
                Proto::Udp { packet_size } => writeln!(t, "protocol = \"udp\"\npacket_size = \"{packet_size}B\"").unwrap(),
                Proto::Mptcp { cc, sched, sack, delack, handshake, mss, buf_kb, opportunistic } => {
                    writeln!(t, "protocol = \"mptcp\"\ncc = \"{}\"\nscheduler = \"{}\"", MP_CCS[*cc], MP_SCHEDULERS[*sched]).unwrap();
                    writeln!(
                        t,
                        "tcp = {{ sack = {sack}, handshake = {handshake}, mss = \"{mss}B\", delayed_ack = {{ enabled = {delack} }} }}"
                    )
                    .unwrap();
                    let buf = (*buf_kb as u64 * 1000).max(*mss as u64);
                    writeln!(t, "mptcp = {{ recv_buffer = \"{buf}B\", opportunistic_retransmit = {opportunistic} }}").unwrap();
                }
                Proto::Quic { multipath, cc, sched, streams, handshake, payload, window_kb } => {
                    writeln!(t, "protocol = \"{}\"\ncc = \"{}\"", if *multipath { "mpquic" } else { "quic" }, MP_CCS[*cc]).unwrap();
                    if *multipath {
                        writeln!(t, "scheduler = \"{}\"", MP_SCHEDULERS[*sched]).unwrap();
                    }
                    let w = *window_kb as u64 * 1000;
                    writeln!(
                        t,
                        "quic = {{ streams = {streams}, handshake = {handshake}, max_udp_payload = \"{payload}B\", max_data = \"{w}B\", max_stream_data = \"{w}B\" }}"
                    )
                    .unwrap();
                }
            }
            t.push('\n');
        }
        t
    }
}

fn limit_strategy() -> impl Strategy<Value = Limit> {
    prop_oneof![
        2 => (1u32..=8).prop_map(Limit::Packets),
        2 => (1u32..=300).prop_map(Limit::Packets),
        1 => (1500u32..=600_000).prop_map(Limit::Bytes),
        2 => (1u32..=400).prop_map(Limit::Bdp),
        1 => (100u32..=200_000).prop_map(Limit::Time),
    ]
}

fn queue_strategy() -> impl Strategy<Value = Queue> {
    prop_oneof![
        3 => limit_strategy().prop_map(Queue::DropTail),
        2 => (limit_strategy(), 500u32..=20_000, 10u32..=200)
            .prop_map(|(limit, target_us, interval_ms)| Queue::CoDel { limit, target_us, interval_ms }),
    ]
}

/// Mean loss up to about 10 %.
fn loss_strategy() -> impl Strategy<Value = Loss> {
    prop_oneof![
        4 => Just(Loss::None),
        2 => (0u32..=1000).prop_map(Loss::Bernoulli),
        1 => (0u32..=300, 2000u32..=10_000, 0u32..=100, 0u32..=10_000)
            .prop_map(|(gb, bg, good, bad)| Loss::Ge { gb, bg, good, bad }),
    ]
}

/// Log-uniform rate in [1, 1000] Mbit/s, in kbit/s.
fn rate_strategy() -> impl Strategy<Value = u64> {
    (0.0f64..3.0).prop_map(|e| (1000.0 * 10f64.powf(e)).round() as u64)
}

fn link_strategy() -> impl Strategy<Value = LinkP> {
    (rate_strategy(), 0u64..=50_000, queue_strategy(), loss_strategy(), proptest::option::weighted(0.2, loss_strategy()))
        .prop_map(|(rate_kbps, delay_us, queue, loss, reverse_loss)| LinkP { rate_kbps, delay_us, queue, loss, reverse_loss })
}

fn app_strategy() -> impl Strategy<Value = App> {
    prop_oneof![
        2 => Just(App::Bulk),
        2 => ((100u64..=200_000), 1u32..=20_000).prop_map(|(rate_kbps, write)| App::Cbr { rate_kbps, write }),
        2 => ((100u64..=200_000), 1u32..=20_000).prop_map(|(rate_kbps, message)| App::Poisson { rate_kbps, message }),
        3 => (1u64..=3_000_000).prop_map(|size| App::File { size }),
    ]
}

fn proto_strategy() -> impl Strategy<Value = Proto> {
    prop_oneof![
        3 => (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), prop_oneof![Just(1460u32), 100u32..=1460])
            .prop_map(|(reno, sack, delack, handshake, mss)| Proto::Tcp { reno, sack, delack, handshake, mss }),
        1 => (29u32..=1500).prop_map(|packet_size| Proto::Udp { packet_size }),
        2 => mptcp_strategy(),
        2 => quic_strategy(),
    ]
}

fn quic_strategy() -> impl Strategy<Value = Proto> {
    (
        any::<bool>(),
        0..MP_CCS.len(),
        0..MP_SCHEDULERS.len(),
        1u32..=4,
        any::<bool>(),
        prop_oneof![Just(1472u32), 1200u32..=1472],
        prop_oneof![Just(16_000u32), 2u32..=500],
    )
        .prop_map(|(multipath, cc, sched, streams, handshake, payload, window_kb)| Proto::Quic {
            multipath,
            cc,
            sched,
            streams,
            handshake,
            payload,
            window_kb,
        })
}

fn mptcp_strategy() -> impl Strategy<Value = Proto> {
    (
        0..MP_CCS.len(),
        0..MP_SCHEDULERS.len(),
        (any::<bool>(), any::<bool>(), any::<bool>()),
        prop_oneof![Just(1432u32), 100u32..=1432],
        prop_oneof![Just(6000u32), 2u32..=500],
        any::<bool>(),
    )
        .prop_map(|(cc, sched, (sack, delack, handshake), mss, buf_kb, opportunistic)| Proto::Mptcp {
            cc,
            sched,
            sack,
            delack,
            handshake,
            mss,
            buf_kb,
            opportunistic,
        })
}

fn flow_strategy() -> impl Strategy<Value = FlowP> {
    (
        0usize..4,
        0usize..4,
        proto_strategy(),
        app_strategy(),
        prop_oneof![3 => Just(0u64), 1 => 0u64..3000],
        proptest::option::weighted(0.3, 0u64..4000),
    )
        .prop_map(|(src, dst, proto, app, start_ms, stop_ms)| FlowP { src, dst, proto, app, start_ms, stop_ms })
}

fn wired_topo_strategy() -> impl Strategy<Value = Topo> {
    prop_oneof![(2usize..=6).prop_map(Topo::Chain), (1usize..=2).prop_map(Topo::Dumbbell), (1usize..=3).prop_map(Topo::Parallel)]
}

fn topo_strategy() -> impl Strategy<Value = Topo> {
    prop_oneof![
        9 => wired_topo_strategy(),
        2 => (2usize..=5, proptest::collection::vec(any::<(u16, u16)>(), 0..=2), 1u32..=7, proptest::option::weighted(0.3, 1u32..=50))
            .prop_map(|(n, extra, retry_limit, queue_limit)| Topo::Wifi { n, extra, retry_limit, queue_limit }),
    ]
}

fn scenario_strategy() -> impl Strategy<Value = ScenarioP> {
    (
        topo_strategy(),
        proptest::collection::vec(link_strategy(), 5),
        proptest::collection::vec(flow_strategy(), 1..=6),
        1000u64..=5000,
        any::<u64>(),
    )
        .prop_map(|(topo, links, flows, duration_ms, seed)| ScenarioP { topo, links, flows, duration_ms, seed: seed >> 1 })
}

/// Step lengths in ns; a negative entry asks for a target that far in the past.
fn steps_strategy() -> impl Strategy<Value = Vec<i64>> {
    proptest::collection::vec(
        prop_oneof![
            4 => 1i64..=(700 * MILLISECOND as i64),
            2 => 1i64..=(2 * MILLISECOND as i64),
            1 => 1i64..=1000,
            1 => -(100 * MILLISECOND as i64)..=-1,
        ],
        1..=40,
    )
}

// ----- invariant checks --------------------------------------------------------------------

/// What a flow had delivered at the previous check (for monotonicity).
#[derive(Clone, Copy, Default)]
struct Prev {
    rcv_nxt: u64,
    snd_una: u64,
    delivered: u64,
}

fn check(sim: &Simulation, prev: &mut [Prev], toml: &str) -> Result<(), TestCaseError> {
    let now = sim.now();
    let c = sim.counts;
    let live = sim.packets_live() as u64;
    prop_assert_eq!(c.created, c.delivered + c.dropped + live, "packet conservation at t={} ns\n{}", now, toml);
    // Every live packet is inside exactly one link (queued, being sent or propagating).
    let inside: usize = sim.hops.iter().map(|l| l.packets_inside()).sum();
    prop_assert_eq!(inside as u64, live, "live packets not all inside links at t={}", now);
    let mut link_drops = 0;
    for (i, l) in sim.hops.iter().enumerate() {
        let k = l.counters();
        prop_assert_eq!(
            k.offered,
            k.queue_drops + k.channel_drops + k.delivered + l.packets_inside() as u64,
            "link {} conservation at t={}",
            sim.spec.links[i].name.as_str(),
            now
        );
        link_drops += k.queue_drops + k.channel_drops;
    }
    prop_assert_eq!(link_drops, c.dropped, "link drops vs engine drops");
    let (mut sent, mut dropped) = (0, 0);
    for (f, flow) in sim.flows.iter().enumerate() {
        let m = &flow.metrics;
        sent += m.data_packets_sent + m.ack_packets_sent;
        dropped += m.data_packets_dropped + m.ack_packets_dropped;
        prop_assert_eq!(m.goodput.total_bytes(), m.bytes_delivered, "flow {} goodput bins vs bytes delivered", f);
        let fs = &sim.spec.flows[f];
        match (&flow.endpoint, &fs.transport) {
            (AnyEndpoint::Tcp(TcpConn { snd, rcv, .. }), TransportSpec::Tcp(t)) => {
                let mss = t.config.mss as u64;
                prop_assert!(snd.cwnd() >= mss, "flow {} cwnd {} < MSS {} at t={}\n{}", f, snd.cwnd(), mss, now, toml);
                // Exactly once, in order: the receiver hands the application exactly the bytes
                // [0, rcv_nxt), each once (its count equals the in-order edge), ...
                let rn = rcv.rcv_nxt();
                prop_assert_eq!(rcv.stats.bytes_delivered, rn, "flow {} receiver delivered count != rcv_nxt", f);
                prop_assert_eq!(m.bytes_delivered, rn, "flow {} application bytes != rcv_nxt", f);
                // ... only bytes the sender has sent, and the sender never believes more is
                // acknowledged than the receiver holds.
                prop_assert!(snd.snd_una() <= rn, "flow {} snd_una {} > rcv_nxt {}", f, snd.snd_una(), rn);
                prop_assert!(rn <= snd.snd_nxt(), "flow {} rcv_nxt {} > snd_nxt {}", f, rn, snd.snd_nxt());
                if let AppSpec::File { size } = fs.app {
                    prop_assert!(snd.snd_nxt() <= size, "flow {} sent {} bytes of a {}-byte file", f, snd.snd_nxt(), size);
                    if m.completion.is_some() {
                        prop_assert_eq!(rn, size, "flow {} completed with {} of {} bytes", f, rn, size);
                    } else {
                        prop_assert!(rn < size, "flow {} has the whole file but no completion time", f);
                    }
                }
                // The in-order edge and the cumulative ACK never move back.
                let p = &mut prev[f];
                prop_assert!(rn >= p.rcv_nxt && snd.snd_una() >= p.snd_una, "flow {} went back", f);
                p.rcv_nxt = rn;
                p.snd_una = snd.snd_una();
            }
            (AnyEndpoint::Udp(UdpConn { next_seq, rcv, .. }), TransportSpec::Udp(_)) => {
                prop_assert_eq!(*next_seq, m.data_packets_sent);
                prop_assert!(rcv.datagrams + m.data_packets_dropped <= m.data_packets_sent, "flow {} UDP received + dropped > sent", f);
                prop_assert_eq!(rcv.reordered, 0, "flow {}: UDP reordered on a single FIFO path", f);
                prop_assert_eq!(rcv.bytes, m.bytes_delivered);
            }
            (AnyEndpoint::Mptcp(MptcpConn { snd, rcv, .. }), TransportSpec::Mptcp(t)) => {
                let mss = t.config.mss as u64;
                // Data level: exactly once, in order, only what was sent.
                let dack = rcv.data_ack();
                prop_assert_eq!(rcv.stats.bytes_delivered, dack, "flow {} MPTCP delivered count != DATA_ACK", f);
                prop_assert_eq!(m.bytes_delivered, dack, "flow {} application bytes != DATA_ACK", f);
                prop_assert!(snd.data_una() <= dack, "flow {} data_una {} > DATA_ACK {}", f, snd.data_una(), dack);
                prop_assert!(dack <= snd.data_nxt(), "flow {} DATA_ACK {} > data_nxt {}", f, dack, snd.data_nxt());
                if let AppSpec::File { size } = fs.app {
                    prop_assert!(snd.data_nxt() <= size, "flow {} sent {} bytes of a {}-byte file", f, snd.data_nxt(), size);
                    if m.completion.is_some() {
                        prop_assert_eq!(dack, size, "flow {} completed with {} of {} bytes", f, dack, size);
                    } else {
                        prop_assert!(dack < size, "flow {} has the whole file but no completion time", f);
                    }
                }
                // Subflow level: windows of at least one MSS, acknowledgments only of what the
                // subflow's receiver holds.
                for (i, sub) in snd.subs.iter().enumerate() {
                    prop_assert!(sub.snd.cwnd() >= mss, "flow {} subflow {} cwnd {} < MSS at t={}\n{}", f, i, sub.snd.cwnd(), now, toml);
                    let rn = rcv.subs[i].rcv.rcv_nxt();
                    prop_assert!(
                        sub.snd.snd_una() <= rn && rn <= sub.snd.snd_nxt(),
                        "flow {} subflow {} una {} rcv_nxt {} nxt {}",
                        f,
                        i,
                        sub.snd.snd_una(),
                        rn,
                        sub.snd.snd_nxt()
                    );
                }
                let p = &mut prev[f];
                prop_assert!(dack >= p.rcv_nxt && snd.data_una() >= p.snd_una, "flow {} went back", f);
                p.rcv_nxt = dack;
                p.snd_una = snd.data_una();
            }
            (AnyEndpoint::Quic(QuicPair { cli, srv, .. }), TransportSpec::Quic(_)) => {
                // Stream level: each stream delivers in order exactly once, only what the client
                // wrote, and the client never believes more acknowledged than the server holds.
                let mut total = 0;
                for s in cli.send.streams() {
                    let got = srv.recv.stream(s.id()).map_or(0, |r| r.delivered());
                    prop_assert!(
                        got <= s.sent().max(got.min(s.written())) && got <= s.written(),
                        "flow {} stream {} delivered {} of {} written",
                        f,
                        s.id(),
                        got,
                        s.written()
                    );
                    let acked_prefix = s.acked().first().map_or(0, |(lo, hi)| if lo == 0 { hi } else { 0 });
                    prop_assert!(acked_prefix <= got, "flow {} stream {} acked {} > delivered {}", f, s.id(), acked_prefix, got);
                    total += got;
                }
                prop_assert_eq!(srv.recv.stats.bytes_delivered, total, "flow {} QUIC delivered count != sum over streams", f);
                prop_assert_eq!(m.bytes_delivered, total, "flow {} application bytes != stream deliveries", f);
                if let AppSpec::File { size } = fs.app {
                    let written: u64 = cli.send.streams().iter().map(|s| s.written()).sum();
                    prop_assert!(written <= size, "flow {} wrote {} bytes of a {}-byte file", f, written, size);
                    if m.completion.is_some() {
                        prop_assert_eq!(total, size, "flow {} completed with {} of {} bytes", f, total, size);
                    } else {
                        prop_assert!(total < size, "flow {} has the whole file but no completion time", f);
                    }
                }
                for (i, p) in cli.paths.iter().enumerate() {
                    prop_assert!(
                        p.cc.window() >= p.cc.minimum_window(),
                        "flow {} path {} window {} below kMinimumWindow",
                        f,
                        i,
                        p.cc.window()
                    );
                }
                let p = &mut prev[f];
                prop_assert!(total >= p.rcv_nxt, "flow {} went back", f);
                p.rcv_nxt = total;
            }
            _ => prop_assert!(false, "flow {} transport does not match its spec", f),
        }
        let p = &mut prev[f];
        prop_assert!(m.bytes_delivered >= p.delivered, "flow {} delivered count went back", f);
        p.delivered = m.bytes_delivered;
    }
    prop_assert_eq!(sent, c.created, "packets sent by endpoints vs created");
    prop_assert_eq!(dropped, c.dropped, "packets dropped per flow vs engine");
    Ok(())
}

/// Run `sc` in the given steps, checking after each one; then check the end state.
fn run_checked(sc: &ScenarioP, steps: &[i64]) -> Result<Simulation, TestCaseError> {
    let toml = sc.toml();
    let loaded = scenario::load(&toml, &[], None).map_err(|e| TestCaseError::fail(format!("generated scenario rejected: {e}\n{toml}")))?;
    let mut sim = Simulation::new(loaded.spec);
    let mut prev = vec![Prev::default(); sim.flows.len()];
    let end = sim.duration();
    let mut k = 0;
    check(&sim, &mut prev, &toml)?;
    while !sim.is_done() {
        let before = sim.now();
        // Tiny steps exercise the stepping; after a few thousand, move on in 50 ms strides.
        let step = if k < 3000 { steps[k % steps.len()] } else { (50 * MILLISECOND) as i64 };
        k += 1;
        let target: Time = if step < 0 { before.saturating_sub(step.unsigned_abs()) } else { before + step as Time };
        sim.advance(target);
        let now = sim.now();
        prop_assert!(now >= before, "time went back: {} -> {}", before, now);
        prop_assert_eq!(now, target.max(before).min(end), "advance({}) from {} stopped at {}", target, before, now);
        check(&sim, &mut prev, &toml)?;
    }
    // INV_DEBUG=1 prints one line per case (how busy the generated scenarios are).
    if std::env::var_os("INV_DEBUG").is_some() {
        let tcp_flows = sim.flows.iter().filter(|f| matches!(f.endpoint, AnyEndpoint::Tcp(_))).count();
        let rtos: u64 =
            sim.flows.iter().map(|f| if let AnyEndpoint::Tcp(TcpConn { snd, .. }) = &f.endpoint { snd.stats.rto_count } else { 0 }).sum();
        let frs: u64 = sim
            .flows
            .iter()
            .map(|f| if let AnyEndpoint::Tcp(TcpConn { snd, .. }) = &f.endpoint { snd.stats.fast_recoveries } else { 0 })
            .sum();
        eprintln!(
            "DBG flows {} tcp {} created {} dropped {} live_end {} rtos {} frs {} steps {}",
            sim.flows.len(),
            tcp_flows,
            sim.counts.created,
            sim.counts.dropped,
            sim.packets_live(),
            rtos,
            frs,
            k
        );
    }
    // Every cwnd sample of the traces holds at least one MSS too.
    for (f, flow) in sim.flows.iter().enumerate() {
        if let TransportSpec::Tcp(t) = &sim.spec.flows[f].transport {
            for &w in flow.metrics.cwnd.points().1 {
                prop_assert!(w >= t.config.mss as f64, "flow {} traced cwnd {} < MSS", f, w);
            }
        }
    }
    Ok(sim)
}

/// The seed `make test` fuzzes with: the same cases on every machine, so a test run is
/// reproducible. A random seed once found a TCP case no other run had (an RTT sample above
/// `rtt_bound`, README → Validation); explore new seeds with PROPTEST_RNG_SEED.
const FUZZ_SEED: u64 = 0x6d70_746c_6162;

fn cases(n: u32) -> Config {
    // PROPTEST_CASES and PROPTEST_RNG_SEED (read by Config::default) override `n` and the seed.
    let env = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok());
    let seed = if std::env::var("PROPTEST_RNG_SEED").is_ok() {
        Config::default().rng_seed
    } else {
        proptest::test_runner::RngSeed::Fixed(FUZZ_SEED)
    };
    Config { cases: env.unwrap_or(n), failure_persistence: None, rng_seed: seed, ..Config::default() }
}

proptest! {
    #![proptest_config(cases(1000))]

    /// Packets are conserved (globally, per link and per flow), time never goes back, every
    /// TCP window is at least one MSS, and TCP hands each byte to the application once, in
    /// order, and only bytes that were sent.
    #[test]
    fn random_networks_keep_the_invariants(sc in scenario_strategy(), steps in steps_strategy()) {
        run_checked(&sc, &steps)?;
    }
}

// ----- file transfers complete ---------------------------------------------------------------

/// TCP file transfers over random topologies with moderate random loss (at most two lossy links,
/// each under about 5 %), random queues (at least 2 packets) and random TCP options. With 600
/// simulated seconds for at most 200 kB per flow, every transfer must complete (the chance that
/// RTO backoff alone eats 600 s is below 1e-8 per loss episode), with exactly the file's bytes.
fn completion_strategy() -> impl Strategy<Value = ScenarioP> {
    let link = (
        rate_strategy(),
        0u64..=50_000,
        prop_oneof![(2u32..=300).prop_map(Limit::Packets), (3000u32..=600_000).prop_map(Limit::Bytes), (25u32..=400).prop_map(Limit::Bdp)],
        any::<bool>(),
        prop_oneof![
            3 => Just(Loss::None),
            1 => (0u32..=500).prop_map(Loss::Bernoulli),
            1 => (0u32..=200, 5000u32..=10_000, 0u32..=50, 0u32..=5000)
                .prop_map(|(gb, bg, good, bad)| Loss::Ge { gb, bg, good, bad }),
        ],
    )
        .prop_map(|(rate_kbps, delay_us, limit, codel, loss)| LinkP {
            rate_kbps,
            delay_us,
            queue: if codel { Queue::CoDel { limit, target_us: 5000, interval_ms: 100 } } else { Queue::DropTail(limit) },
            loss,
            reverse_loss: None,
        });
    let flow = (
        0usize..4,
        0usize..4,
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), prop_oneof![Just(1460u32), 100u32..=1460]),
        1u64..=200_000,
        0u64..2000,
    )
        .prop_map(|(src, dst, (reno, sack, delack, handshake, mss), size, start_ms)| FlowP {
            src,
            dst,
            proto: Proto::Tcp { reno, sack, delack, handshake, mss },
            app: App::File { size },
            start_ms,
            stop_ms: None,
        });
    (topo_strategy(), proptest::collection::vec(link, 5), proptest::collection::vec(flow, 1..=4), any::<u64>()).prop_map(
        |(topo, mut links, flows, seed)| {
            // At most two lossy links in the whole network.
            let mut lossy = 0;
            for l in &mut links {
                if !matches!(l.loss, Loss::None) {
                    lossy += 1;
                    if lossy > 2 {
                        l.loss = Loss::None;
                    }
                }
            }
            ScenarioP { topo, links, flows, duration_ms: 600_000, seed: seed >> 1 }
        },
    )
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn file_transfers_complete_exactly_once(sc in completion_strategy()) {
        let sim = run_checked(&sc, &[(10 * SECOND) as i64])?;
        let toml = sc.toml();
        for (f, flow) in sim.flows.iter().enumerate() {
            let AppSpec::File { size } = sim.spec.flows[f].app else { unreachable!() };
            let (snd, rcv) = tcp(&sim, f);
            prop_assert!(
                flow.metrics.completion.is_some(),
                "flow {} did not complete in 600 s: {} of {} bytes (snd_una {}, snd_nxt {}, rto {} ns, {} RTOs, {} retransmissions, srtt {:?})\n{}",
                f, rcv.rcv_nxt(), size, snd.snd_una(), snd.snd_nxt(), snd.rtt().rto(), snd.stats.rto_count, snd.stats.retransmissions,
                snd.rtt().srtt(), toml
            );
            prop_assert_eq!(flow.metrics.bytes_delivered, size);
            prop_assert_eq!(rcv.rcv_nxt(), size);
        }
    }
}

/// MPTCP file transfers over 2–3 disjoint paths with moderate random loss (at most two lossy
/// links, each under about 5 %), random controllers, schedulers, receive buffers and TCP
/// options: every transfer completes within 600 s with exactly the file's bytes, once, in order
/// (the data-level invariants of `check` hold all along).
fn mptcp_completion_strategy() -> impl Strategy<Value = ScenarioP> {
    file_transfers_over_parallel_paths(mptcp_strategy(), 2..=3)
}

/// File transfers of 1–3 flows drawn from `proto` between the two hosts of a `Parallel(k)`
/// topology (k from `paths`), on the lossy links of `completion_strategy`.
fn file_transfers_over_parallel_paths(
    proto: impl Strategy<Value = Proto>,
    paths: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = ScenarioP> {
    (completion_strategy(), paths, proptest::collection::vec((proto, 1u64..=300_000, 0u64..2000), 1..=3)).prop_map(|(base, k, flows)| {
        let flows = flows
            .into_iter()
            .map(|(proto, size, start_ms)| FlowP { src: 0, dst: 1, proto, app: App::File { size }, start_ms, stop_ms: None })
            .collect();
        ScenarioP { topo: Topo::Parallel(k), flows, ..base }
    })
}

proptest! {
    #![proptest_config(cases(128))]

    #[test]
    fn mptcp_file_transfers_complete_exactly_once(sc in mptcp_completion_strategy()) {
        let sim = run_checked(&sc, &[(10 * SECOND) as i64])?;
        let toml = sc.toml();
        for (f, flow) in sim.flows.iter().enumerate() {
            let AppSpec::File { size } = sim.spec.flows[f].app else { unreachable!() };
            let AnyEndpoint::Mptcp(MptcpConn { snd, rcv, .. }) = &flow.endpoint else { unreachable!() };
            prop_assert!(
                flow.metrics.completion.is_some(),
                "flow {} did not complete in 600 s: {} of {} bytes (data_una {}, data_nxt {})\n{}",
                f, rcv.data_ack(), size, snd.data_una(), snd.data_nxt(), toml
            );
            prop_assert_eq!(flow.metrics.bytes_delivered, size);
            prop_assert_eq!(rcv.data_ack(), size);
            prop_assert_eq!(rcv.stats.bytes_delivered, size);
        }
    }
}

/// QUIC and multipath QUIC file transfers over 1–3 disjoint paths with moderate random loss,
/// random controllers, schedulers, stream counts, packet sizes and flow-control windows: every
/// transfer completes with exactly the file's bytes, once, in order per stream.
fn quic_completion_strategy() -> impl Strategy<Value = ScenarioP> {
    file_transfers_over_parallel_paths(quic_strategy(), 1..=3)
}

proptest! {
    #![proptest_config(cases(128))]

    #[test]
    fn quic_file_transfers_complete_exactly_once(sc in quic_completion_strategy()) {
        let sim = run_checked(&sc, &[(10 * SECOND) as i64])?;
        let toml = sc.toml();
        for (f, flow) in sim.flows.iter().enumerate() {
            let AppSpec::File { size } = sim.spec.flows[f].app else { unreachable!() };
            let AnyEndpoint::Quic(QuicPair { cli, srv, .. }) = &flow.endpoint else { unreachable!() };
            prop_assert!(
                flow.metrics.completion.is_some(),
                "flow {} did not complete: {} of {} bytes; paths {:?}\n{}",
                f, srv.recv.stats.bytes_delivered, size, cli.paths.iter().map(|p| (p.state, p.stats)).collect::<Vec<_>>(), toml
            );
            prop_assert_eq!(flow.metrics.bytes_delivered, size);
            prop_assert_eq!(srv.recv.stats.bytes_delivered, size);
        }
    }
}

// ----- RTT samples are physical -----------------------------------------------------------------

/// Largest RTT a never-retransmitted segment can see on flow `f`'s path in the scenarios of
/// `one_way_tcp_strategy`: on the forward route propagation, a full queue (limit plus two
/// packets of at most 1500 B) and serialisation on every link; on the reverse route, which
/// carries only ACKs (40 B), propagation and a queue of a few ACKs per flow; plus the
/// receiver's delayed-ACK timer.
fn rtt_bound(sim: &Simulation, f: usize) -> Time {
    use mptlab_sim::engine::time::serialization_time;
    let fs = &sim.spec.flows[f];
    let mut b: Time = 0;
    for &l in &fs.fwd_route {
        let ls = &sim.spec.links[l as usize];
        let limit_bytes = match ls.queue {
            QueueSpec::DropTail { limit } | QueueSpec::CoDel { limit, .. } | QueueSpec::Red { limit, .. } => match limit {
                QueueLimit::Packets(n) => n * 1500,
                QueueLimit::Bytes(n) => n,
            },
        };
        b += ls.delay + serialization_time(limit_bytes + 2 * 1500, ls.rate_bps);
    }
    for &l in &fs.rev_route {
        let ls = &sim.spec.links[l as usize];
        b += ls.delay + serialization_time(40 * 4 * sim.flows.len() as u64, ls.rate_bps);
    }
    let TransportSpec::Tcp(t) = &fs.transport else { unreachable!() };
    b + t.config.delayed_ack.timeout + MICROSECOND
}

/// Scenarios where ACKs are never lost: TCP flows only, all in the same direction (hosts[0] to
/// the last host), no random loss on any reverse direction (data may be lost on the forward
/// one). ACKs (40 B) then cannot overflow a reverse queue either, since they arrive no faster
/// than the data they acknowledge leaves the slowest forward link.
fn one_way_tcp_strategy() -> impl Strategy<Value = ScenarioP> {
    (
        wired_topo_strategy(),
        proptest::collection::vec(link_strategy(), 5),
        proptest::collection::vec(flow_strategy(), 1..=3),
        1000u64..=5000,
        any::<u64>(),
    )
        .prop_map(|(topo, mut links, mut flows, duration_ms, seed)| {
            for l in &mut links {
                l.reverse_loss = Some(Loss::None);
            }
            let last = match topo {
                Topo::Chain(_) | Topo::Parallel(_) => 1,
                Topo::Dumbbell(k) => k,
                Topo::Wifi { .. } => unreachable!("wired topologies only"),
            };
            for f in &mut flows {
                f.src = 0;
                f.dst = last;
                if let Proto::Udp { .. } | Proto::Mptcp { .. } | Proto::Quic { .. } = f.proto {
                    f.proto = Proto::Tcp { reno: false, sack: false, delack: true, handshake: true, mss: 1460 };
                }
            }
            ScenarioP { topo, links, flows, duration_ms, seed: seed >> 1 }
        })
}

proptest! {
    #![proptest_config(cases(256))]

    /// Karn's rule (RFC 6298 §3): no RTT sample from an ACK for retransmitted data. With ACKs
    /// never lost, every sample, and hence SRTT, is then bounded by what the path can produce:
    /// propagation, full queues and serialisation both ways, plus the delayed-ACK timer.
    #[test]
    fn rtt_estimates_stay_physical(sc in one_way_tcp_strategy()) {
        let toml = sc.toml();
        let loaded = scenario::load(&toml, &[], None).map_err(|e| TestCaseError::fail(format!("{e}")))?;
        let mut sim = Simulation::new(loaded.spec);
        let mut t = 0;
        while !sim.is_done() {
            t += 10 * MILLISECOND;
            sim.advance(t);
            for f in 0..sim.flows.len() {
                let (snd, _) = tcp(&sim, f);
                let bound = rtt_bound(&sim, f);
                let r = snd.rtt();
                prop_assert!(
                    r.latest() <= bound && r.srtt().unwrap_or(0) <= bound,
                    "flow {} at {} ms: latest RTT sample {} ms, SRTT {:?} ms, physical bound {} ms (sack {}, {} retransmissions)\n{}",
                    f, t / MILLISECOND, r.latest() as f64 / 1e6, r.srtt().map(|s| s as f64 / 1e6), bound as f64 / 1e6,
                    matches!(&sim.spec.flows[f].transport, TransportSpec::Tcp(t) if t.config.sack), snd.stats.retransmissions, toml
                );
            }
        }
    }
}

#[test]
fn generated_scenarios_are_valid() {
    // A smoke test of the generator itself: a few fixed scenarios load.
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    for _ in 0..200 {
        let sc = scenario_strategy().new_tree(&mut runner).unwrap().current();
        let toml = sc.toml();
        if let Err(e) = scenario::load(&toml, &[], None) {
            panic!("{e}\n{toml}");
        }
    }
}

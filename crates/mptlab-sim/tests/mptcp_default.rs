//! The `default` scheduler's kernel model (Linux 6.18 `mptcp_subflow_get_send` and push path,
//! `sched/linger.rs`) over a whole transfer: Linux's `simult_flows.sh` unbalanced case, 16 MiB
//! over 10 and 3 Mbit/s paths.

mod common;

use common::*;
use mptlab_sim::sim::Simulation;
use mptlab_sim::transport::mptcp::MptcpConn;
use mptlab_sim::transport::mptcp::MptcpSender;
use mptlab_sim::transport::AnyEndpoint;

const SIZE: u64 = 16 << 20;
const STEP: u64 = 2_000_000; // 2 ms sampling

fn sender(sim: &Simulation) -> &MptcpSender {
    match &sim.flows[0].endpoint {
        AnyEndpoint::Mptcp(MptcpConn { snd, .. }) => snd,
        _ => panic!("not MPTCP"),
    }
}

/// What one transfer shows near its end.
#[derive(Debug)]
struct Ending {
    /// Completion time of the 16 MiB (s).
    done: f64,
    /// When the fast subflow last held data (written, not acknowledged) (s).
    fast_idle_from: f64,
    /// At that moment: bytes queued on the slow subflow and not yet sent, and all it held.
    slow_unsent: u64,
    slow_held: u64,
    /// Largest send buffer (bytes of truesize) the slow subflow reached.
    slow_sndbuf: u64,
}

/// 10 Mbit/s (path 0) and 3 Mbit/s (path 1), no propagation delay, 100 ms of queue (the
/// selftest's netem-style links), cubic, `sched` as the scheduler line(s).
fn transfer(sched: &str) -> Ending {
    let flow = format!("cc = \"cubic\"\n{sched}\napp = {{ kind = \"file\", size = \"{SIZE}B\" }}");
    let toml = two_path_scenario("mptcp", "10Mbps", "0ms", "3Mbps", "0ms", &flow, "30s").replace(r#"limit = "1bdp""#, r#"limit = "100ms""#);
    let (mut sim, _) = build(&toml, None);
    let mut samples: Vec<(u64, u64, u64, u64)> = Vec::new();
    let mut slow_sndbuf = 0;
    while sim.flows[0].metrics.completion.is_none() && !sim.is_done() {
        let t = sim.now() + STEP;
        sim.advance(t);
        let snd = sender(&sim);
        let held = |k: usize| snd.subs[k].snd.write_end().saturating_sub(snd.subs[k].snd.snd_una());
        samples.push((sim.now(), held(0), snd.subs[1].snd.queued(), held(1)));
        slow_sndbuf = slow_sndbuf.max(snd.subflow_sndbuf(1));
    }
    let done = sim.flows[0].metrics.completion.expect("16 MiB completes") as f64 / 1e9;
    let snd = sender(&sim);
    assert!(snd.subs[0].stats.bytes_scheduled > snd.subs[1].stats.bytes_scheduled, "path 0 is the 10 Mbit/s one");
    let last_busy = samples.iter().rposition(|s| s.1 > 0).expect("the fast subflow carried data");
    let idle = samples.get(last_busy + 1).copied().unwrap_or(*samples.last().unwrap());
    Ending { done, fast_idle_from: idle.0 as f64 / 1e9, slow_unsent: idle.2, slow_held: idle.3, slow_sndbuf }
}

/// The kernel's pathology on unbalanced paths (issue 17 §5), as far as the kernel model shows
/// it: near the end the fast subflow has nothing left while the slow one still holds data the
/// push path gave it by linger time, so the transfer ends after MinRTT's and after the earlier
/// window-limited model's, which both keep the slow subflow's share to what its window sends at
/// once. Measured: 10.907 s against 10.824 s (+0.8 %), the slow subflow holding 27 KB when the
/// fast one runs dry 75 ms before the end. Linux 6.18 on this machine took 11.22–11.58 s in
/// network namespaces; most of that gap is the first second (the kernel's subflows leave slow
/// start early), not the scheduler (docs/schedulers.md, "default").
#[test]
fn default_leaves_data_queued_on_the_slow_subflow_while_the_fast_one_idles() {
    let cases = ["scheduler = \"default\"", "scheduler = \"minrtt\"", "scheduler = \"default\"\nscheduler_options = { kernel = false }"];
    let out = par_map(&cases, threads(), |s| transfer(s));
    for (c, e) in cases.iter().zip(&out) {
        println!(
            "{}: done {:.3} s; fast subflow idle from {:.3} s ({:.0} ms); slow subflow then held {} B, {} B not yet sent; slow sndbuf up to {} B",
            c.replace('\n', " "),
            e.done,
            e.fast_idle_from,
            (e.done - e.fast_idle_from) * 1e3,
            e.slow_held,
            e.slow_unsent,
            e.slow_sndbuf
        );
    }
    let (kernel, minrtt, window) = (&out[0], &out[1], &out[2]);
    let seg = 1432u64;
    // When the fast subflow runs dry the slow one still holds at least ten segments, and the
    // fast one idles at least as long as ten segments take at 3 Mbit/s.
    assert!(kernel.slow_held >= 10 * seg, "{kernel:?}");
    assert!(kernel.done - kernel.fast_idle_from >= (10 * seg) as f64 * 8.0 / 3e6, "{kernel:?}");
    // MinRTT and the window model leave at most what the window sends at once.
    for other in [minrtt, window] {
        assert!(other.slow_held < kernel.slow_held, "{other:?} vs kernel {kernel:?}");
    }
    // The slow subflow's send buffer grew with its window beyond the 46 080 B of ten segments.
    assert!(kernel.slow_sndbuf > 46_080, "{kernel:?}");
    assert!(kernel.done > minrtt.done, "kernel {kernel:?} vs minrtt {minrtt:?}");
    assert!(kernel.done > window.done, "kernel {kernel:?} vs window model {window:?}");
    println!("kernel model / minrtt completion: {:.4}", kernel.done / minrtt.done);
}

/// Linux's connection-level send buffer (`__mptcp_sync_sndbuf`: `tcp_wmem[0]` + the subflows'
/// `sk_sndbuf`) bounds the data sent and not yet DATA_ACKed, and on these paths it is what
/// binds: data on the fast path waits for its DATA_ACK behind data still queued on the slow
/// one.
#[test]
fn default_holds_unacknowledged_data_to_the_sum_of_the_subflow_send_buffers() {
    let flow = format!("cc = \"cubic\"\nscheduler = \"default\"\napp = {{ kind = \"file\", size = \"{SIZE}B\" }}");
    let toml = two_path_scenario("mptcp", "10Mbps", "0ms", "3Mbps", "0ms", &flow, "30s").replace(r#"limit = "1bdp""#, r#"limit = "100ms""#);
    let (mut sim, _) = build(&toml, None);
    let (mut at_limit, mut samples) = (0, 0);
    while sim.flows[0].metrics.completion.is_none() && !sim.is_done() {
        let t = sim.now() + STEP;
        sim.advance(t);
        let snd = sender(&sim);
        let limit = 4096 + snd.subflow_sndbuf(0) + snd.subflow_sndbuf(1);
        let unacked = snd.data_nxt() - snd.data_una();
        assert!(unacked <= limit, "at {} ns: {unacked} B unacknowledged > {limit} B", sim.now());
        samples += 1;
        at_limit += (unacked + 1432 > limit) as u32;
    }
    println!("{at_limit} of {samples} samples within one segment of the limit");
    // Measured: 2 833 of 5 454 samples (52 %); it must bind for a good part of the transfer.
    assert!(at_limit * 3 > samples, "the limit binds in over a third of the samples: {at_limit} of {samples}");
}

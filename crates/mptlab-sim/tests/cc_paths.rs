//! Congestion controllers side by side on a path: the behaviours the seed studies' conclusions
//! rest on (BBR's loss-blindness in shallow buffers, CUBIC's bufferbloat, BBR v1's share against
//! CUBIC as buffers grow, fairness among equals, RTT unfairness). Each test prints its numbers;
//! run with `cargo test --release -p mptlab-sim --test cc_paths -- --nocapture`.
//! Single-controller checks (utilisation, state machines) live in `cc_<name>.rs`.

mod common;

use common::{flow_index, goodput_bps, jain, par_map, run, threads};

const MSS_GOODPUT: f64 = 1460.0 / 1500.0;

/// One bottleneck `rate_mbps` with one-way delay `delay_ms` (hosts linked directly), a drop-tail
/// buffer of `buffer_bdp` BDPs, optional i.i.d. loss, and the given flows (name, cc, one-way
/// extra delay on a private access link in ms).
fn dumbbell(rate_mbps: u64, delay_ms: u64, buffer_bdp: f64, loss: f64, flows: &[(&str, &str, u64)], secs: u64) -> String {
    let mut t = format!(
        "[run]\nduration = \"{secs}s\"\n[nodes]\nrouters = [\"r1\", \"r2\"]\nhosts = [{hosts}]\n\
         [links.bottleneck]\nbetween = [\"r1\", \"r2\"]\nrate = \"{rate_mbps}Mbps\"\ndelay = \"{delay_ms}ms\"\n\
         queue = {{ kind = \"droptail\", limit = \"{buffer_bdp}bdp\" }}\n",
        hosts = flows.iter().map(|(n, _, _)| format!("\"s_{n}\", \"d_{n}\"")).collect::<Vec<_>>().join(", "),
    );
    if loss > 0.0 {
        t += &format!("loss = {{ model = \"bernoulli\", p = {loss} }}\nreverse = {{ loss = \"none\" }}\n");
    }
    for (n, cc, extra_ms) in flows {
        t += &format!(
            "[links.a_{n}]\nbetween = [\"s_{n}\", \"r1\"]\nrate = \"10Gbps\"\ndelay = \"{extra_ms}ms\"\n\
             [links.b_{n}]\nbetween = [\"r2\", \"d_{n}\"]\nrate = \"10Gbps\"\ndelay = \"0ms\"\n\
             [flows.{n}]\nfrom = \"s_{n}\"\nto = \"d_{n}\"\ncc = \"{cc}\"\napp = \"bulk\"\n\
             [flows.{n}.tcp]\nsend_buffer = \"64MB\"\nrecv_buffer = \"64MB\"\n"
        );
    }
    t
}

/// Mean goodput (bit/s) of the named flows over [from, to) s, in the order given.
fn goodputs(toml: &str, names: &[&str], from: u64, to: u64) -> (Vec<f64>, serde_json::Value) {
    let (sim, summary) = run(toml, Some(1));
    (names.iter().map(|n| goodput_bps(&sim, flow_index(&sim, n), from, to)).collect(), summary)
}

fn link<'a>(summary: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    summary["links"].as_array().unwrap().iter().find(|l| l["name"] == name).expect("link exists")
}

#[test]
fn bbr_keeps_the_queue_short_where_cubic_fills_a_deep_buffer() {
    // 100 Mbit/s, 20 ms RTprop (10 ms each way on the bottleneck), 4-BDP buffer, 30 s.
    let delays: Vec<(String, f64, f64)> = par_map(&["bbr", "cubic"], threads(), |cc| {
        let (_, s) = goodputs(&dumbbell(100, 10, 4.0, 0.0, &[("f", cc, 0)], 30), &["f"], 5, 30);
        let l = link(&s, "bottleneck");
        (cc.to_string(), l["queue_delay_ms"]["mean"].as_f64().unwrap(), l["throughput_mbps"]["mean"].as_f64().unwrap())
    });
    println!("100 Mbit/s, RTprop 20 ms, 4-BDP drop-tail (80 ms of buffer), 30 s");
    for (cc, d, tput) in &delays {
        println!("  {cc:6} mean queueing delay {d:7.2} ms, link throughput {tput:6.2} Mbit/s");
    }
    let (bbr, cubic) = (delays[0].1, delays[1].1);
    assert!(bbr < 20.0, "BBR's mean queueing delay {bbr:.1} ms must stay below one RTprop (20 ms)");
    assert!(cubic > 40.0, "CUBIC's mean queueing delay {cubic:.1} ms should fill most of the 80 ms buffer");
}

/// Ware et al., "Modeling BBR's Interactions with Loss-Based Congestion Control", IMC 2019,
/// eqs. (9)–(11): with queue capacity q = X·BDP packets, N BBR flows, link c packets/s, base RTT
/// l s and d s of competition after convergence, the loss-based flows' share is
/// p = max(0, 1/2 − 1/(2X) − 4N/q), BBR spends (q/c + 0.2 + l)·d/10 s in PROBE_RTT, and BBR's
/// fraction of the link is (1 − p)·(d − probe_time)/d. The model assumes deep buffers (q ≫ BDP);
/// below about 2 BDP it only says "BBR takes nearly everything".
fn ware_bbr_fraction(x: f64, n_bbr: f64, rate_bps: f64, base_rtt_s: f64, d_s: f64) -> f64 {
    let c = rate_bps / (1500.0 * 8.0);
    let q = x * c * base_rtt_s;
    let p = (0.5 - 1.0 / (2.0 * x) - 4.0 * n_bbr / q).max(0.0);
    let probe_time = ((q / c + 0.2 + base_rtt_s) * d_s / 10.0).min(d_s);
    (1.0 - p) * (d_s - probe_time) / d_s
}

#[test]
fn bbr_share_against_cubic_falls_as_the_buffer_grows_as_ware_et_al_predict() {
    // One BBR v1 and one CUBIC flow, 10 Mbit/s, 40 ms RTprop: Ware et al.'s Fig. 8(a) setting.
    let (rate, base_rtt, secs, warmup) = (10e6, 0.040, 240u64, 40u64);
    let buffers = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0];
    let shares = par_map(&buffers, threads(), |x| {
        let toml = dumbbell(10, 20, *x, 0.0, &[("bbr", "bbr", 0), ("cubic", "cubic", 0)], secs);
        let (g, _) = goodputs(&toml, &["bbr", "cubic"], warmup, secs);
        g[0] / (g[0] + g[1])
    });
    println!("BBR v1 vs CUBIC, 10 Mbit/s, RTprop 40 ms, {secs} s (share measured after {warmup} s)");
    println!("  buffer (BDP)  BBR share measured  Ware et al. model  model/measured");
    let mut model = vec![];
    for (x, s) in buffers.iter().zip(&shares) {
        let m = ware_bbr_fraction(*x, 1.0, rate, base_rtt, (secs - warmup) as f64);
        model.push(m);
        println!("  {x:12.1}  {s:18.3}  {m:17.3}  {:14.2}", m / s);
    }
    // Direction: BBR's share falls from shallow to deep buffers, as the model predicts.
    assert!(shares[0] > shares[5] + 0.5, "BBR's share should fall markedly from 0.5 to 16 BDP: {shares:?}");
    for w in shares.windows(2) {
        assert!(w[1] <= w[0] + 0.05, "BBR's share should not grow with the buffer: {shares:?}");
    }
    // Magnitude where BBR is not yet window-limited (≤ 1 BDP): the model's "nearly everything".
    for i in 0..2 {
        assert!((shares[i] - model[i]).abs() < 0.1, "at {} BDP: {:.3} vs model {:.3}", buffers[i], shares[i], model[i]);
    }
    // Magnitude in deep buffers (≥ 2 BDP): within a factor 1.6 of the model either way. The
    // measured share stays below the model (by 1.16–1.36× with Linux's RTO formula, the
    // default); 1.6 is that largest gap plus a margin, not a property of the model. It fails
    // for what the sweep measured with RFC 6298's RTO formula (`tcp.rto = "rfc6298"`: 0.36,
    // 0.19, 0.11 at 4, 8, 16 BDP, 1.7–4.6× below), where CUBIC's spurious timeouts in fast
    // recovery (RTO barely above SRTT on a jitter-free queue) empty its queue and with it BBR's
    // min-RTT estimate and in-flight cap (docs/congestion-control.md, "Side-by-side behaviour").
    for i in 2..buffers.len() {
        let (s, m) = (shares[i], model[i]);
        assert!(s >= m / 1.6 && s <= m * 1.6, "at {} BDP: {s:.3} vs model {m:.3}, outside a factor 1.6", buffers[i]);
    }
}

#[test]
fn with_random_loss_in_a_shallow_buffer_bbr_keeps_utilisation_while_loss_based_control_collapses() {
    // 100 Mbit/s, 40 ms RTprop, 0.5-BDP buffer, 1% i.i.d. loss on the data direction.
    let ccs = ["bbr", "bbr2", "cubic", "reno"];
    let util = par_map(&ccs, threads(), |cc| {
        let (g, _) = goodputs(&dumbbell(100, 20, 0.5, 0.01, &[("f", cc, 0)], 60), &["f"], 10, 60);
        g[0] / (100e6 * MSS_GOODPUT)
    });
    println!("100 Mbit/s, RTprop 40 ms, 0.5-BDP buffer, 1% random loss, 60 s: utilisation");
    for (cc, u) in ccs.iter().zip(&util) {
        println!("  {cc:6} {:6.1}%", u * 100.0);
    }
    let [bbr, bbr2, cubic, reno] = [util[0], util[1], util[2], util[3]];
    assert!(bbr > 0.8, "BBR v1 ignores random loss: {bbr:.3}");
    assert!(cubic < 0.4 && reno < 0.4, "loss-based controllers collapse: cubic {cubic:.3}, reno {reno:.3}");
    assert!(bbr2 > cubic.max(reno) && bbr2 < bbr, "BBRv2 sits between: {bbr2:.3}");
}

#[test]
fn two_flows_of_the_same_controller_share_fairly() {
    let ccs = ["reno", "cubic", "bbr", "bbr2", "vegas"];
    let j = par_map(&ccs, threads(), |cc| {
        let toml = dumbbell(50, 10, 1.0, 0.0, &[("a", cc, 0), ("b", cc, 0)], 60);
        let (g, _) = goodputs(&toml, &["a", "b"], 10, 60);
        (jain(&g), g)
    });
    println!("two flows, same controller, 50 Mbit/s, RTprop 20 ms, 1-BDP buffer, 60 s");
    for (cc, (ji, g)) in ccs.iter().zip(&j) {
        println!("  {cc:6} Jain {ji:.4}  ({:.2} / {:.2} Mbit/s)", g[0] / 1e6, g[1] / 1e6);
        assert!(*ji >= 0.95, "{cc}: Jain {ji:.4}");
    }
}

#[test]
fn rtt_unfairness_favours_the_short_rtt_flow_for_loss_based_controllers() {
    // RTprop 20 ms vs 80 ms (the long flow's access link adds 30 ms each way).
    let ccs = ["reno", "cubic", "bbr", "bbr2"];
    let ratios = par_map(&ccs, threads(), |cc| {
        let toml = dumbbell(50, 10, 1.0, 0.0, &[("short", cc, 0), ("long", cc, 30)], 120);
        let (g, _) = goodputs(&toml, &["short", "long"], 20, 120);
        g[0] / g[1]
    });
    println!("RTT unfairness: goodput of the 20 ms flow / the 80 ms flow, 50 Mbit/s, 1-BDP buffer (BDP of the longest path, 80 ms), 120 s");
    for (cc, r) in ccs.iter().zip(&ratios) {
        println!("  {cc:6} {r:6.2}");
    }
    // Reno's throughput ∝ 1/RTT (Mathis): the short flow wins clearly. CUBIC grows its window
    // in real time, which makes it far fairer (the CUBIC paper: throughput ratio ≈ (RTT ratio)^¼),
    // but the short flow still gets more: assert the direction (> 1) and that it is fairer than
    // Reno. (With RFC 6298's RTO formula CUBIC measured 0.99: spurious timeouts in fast
    // recovery.) The seed changes nothing here (no random element); the direction also held
    // with the long flow starting 0.3 or 1 s later and with 0.5- and 2-BDP buffers (1.04–1.55)
    // when this was written. BBR is reported, not asserted (v1 is known to favour long-RTT
    // flows, whose larger in-flight cap holds more of the queue).
    let (reno, cubic) = (ratios[0], ratios[1]);
    assert!(reno > 1.5, "reno: {reno:.2}");
    assert!(cubic > 1.0 && cubic < reno, "cubic: {cubic:.2} (reno {reno:.2})");
}

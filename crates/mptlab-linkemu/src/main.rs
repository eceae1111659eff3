//! mptlab-linkemu: the user-space delay and loss of one emulated link, for mptlab's emulation
//! backend (issue 24) on kernels without netem.
//!
//! An emulated link A–B gets a "link namespace" L between its ends:
//! `nodeA --vethA-- L --vethB-- nodeB`. This program runs in L and bridges L's two veth ends at
//! layer 2 with AF_PACKET raw sockets (sock.rs). Each direction (ab: received on `--if-a`, sent out
//! of `--if-b`; ba the reverse) draws loss for every frame when it arrives (loss.rs, the
//! simulator's Bernoulli and Gilbert–Elliott models with this program's own seeded draws), holds
//! the survivors for a constant delay (fifo.rs) and sends each out of the other interface when it
//! is due (forward.rs). Rate and queue are the kernel's: a tbf qdisc on L's egress veth, set up by
//! the caller. So a frame crosses L as delay → tbf queue → serialisation.
//!
//! How this differs from the simulator's link (crates/mptlab-sim/src/net/):
//! - Order of queue and delay. The simulator queues, serialises, then propagates (queue → rate →
//!   delay); here the delay comes first. For one link with a constant delay the two give every
//!   frame the same departure times shifted by the delay — the queue sees the same arrival
//!   process, only later — so per-link results differ by that constant shift only.
//! - Where loss happens. The simulator's channel loss strikes after transmission: a lost packet
//!   has used the link's rate. Here a lost frame is dropped before the tbf queue and never uses
//!   the queue or the rate, so on a loaded lossy link the emulated queue is a little shorter
//!   (less queueing delay, fewer queue drops) than the simulated one.
//! - The emulator's own error: frames leave some µs to tens of µs after their due time (the
//!   stats' `late_*`); due = the kernel's receive timestamp in L + the delay.
//! - Every frame counts, including ARP and IPv6 neighbour discovery, for loss and statistics.
//!
//! Runs until SIGTERM or SIGINT, writing `--stats FILE` (JSON, atomically) every second and once
//! more on exit. Exit codes: 0 after a signal, 2 for bad arguments or a missing interface, 1 for
//! any other failure (no permission for raw sockets, a forwarding thread that died).

mod args;
mod fifo;
mod forward;
mod loss;
mod sock;
mod stats;

use forward::Direction;
use sock::{OpenError, PacketSocket};
use stats::{DirStats, Report};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The last published numbers of both directions, with the receive-buffer drops of each
/// receiving socket (accumulated in `rx_drops`: reading them resets the kernel's counters).
fn snapshot(a: &PacketSocket, b: &PacketSocket, ab: &Mutex<DirStats>, ba: &Mutex<DirStats>, rx_drops: &mut [u64; 2]) -> Report {
    rx_drops[0] += a.take_rx_drops();
    rx_drops[1] += b.take_rx_drops();
    Report { ab: ab.lock().unwrap().report(rx_drops[0]), ba: ba.lock().unwrap().report(rx_drops[1]) }
}

fn main() -> ExitCode {
    let args = match args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) if e.is_empty() => {
            println!("{}", args::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e} (mptlab-linkemu --help for the usage)");
            return ExitCode::from(2);
        }
    };
    let open = |name: &str| {
        PacketSocket::open(name).map(Arc::new).map_err(|e| match e {
            OpenError::NoSuchInterface(n) => (2, format!("no interface named {n:?} in this network namespace")),
            OpenError::Os(m) => (1, m),
        })
    };
    let (a, b) = match open(&args.if_a).and_then(|a| Ok((a, open(&args.if_b)?))) {
        Ok(pair) => pair,
        Err((code, msg)) => {
            eprintln!("error: {msg}");
            return ExitCode::from(code);
        }
    };

    // Signals are taken synchronously by this thread (sigtimedwait); block them before the
    // forwarding threads start so they inherit the mask and are never interrupted.
    // SAFETY: sigset operations on a local set; pthread_sigmask on the calling thread.
    let signals = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    };

    let stop = Arc::new(AtomicBool::new(false));
    let ab_stats = Arc::new(Mutex::new(DirStats::default()));
    let ba_stats = Arc::new(Mutex::new(DirStats::default()));
    let directions = [
        (a.clone(), b.clone(), args.delay_ab_ns, args.loss_ab, 0, ab_stats.clone(), "ab"),
        (b.clone(), a.clone(), args.delay_ba_ns, args.loss_ba, 1, ba_stats.clone(), "ba"),
    ];
    let threads: Vec<_> = directions
        .into_iter()
        .map(|(rx, tx, delay, spec, index, stats, name)| {
            let dir = Direction {
                rx,
                tx,
                fifo: fifo::DelayFifo::new(delay, forward::FIFO_BYTES),
                loss: loss::Loss::new(spec, loss::direction_rng(args.seed, index)),
                shared: stats,
                local: DirStats::default(),
                stop: stop.clone(),
                rt_priority: args.rt_priority,
            };
            std::thread::Builder::new().name(format!("linkemu-{name}")).spawn(move || dir.run()).expect("spawn a forwarding thread")
        })
        .collect();

    let write = |report: &Report| {
        if let Some(path) = &args.stats {
            if let Err(e) = stats::write_atomically(path, report) {
                eprintln!("mptlab-linkemu: writing {}: {e}", path.display());
            }
        }
    };
    let one_second = libc::timespec { tv_sec: 1, tv_nsec: 0 };
    let mut failed = false;
    let mut rx_drops = [0; 2];
    loop {
        // SAFETY: a valid signal set and timeout; the siginfo is not needed.
        let sig = unsafe { libc::sigtimedwait(&signals, std::ptr::null_mut(), &one_second) };
        if sig == libc::SIGTERM || sig == libc::SIGINT {
            break;
        }
        if threads.iter().any(|t| t.is_finished()) {
            eprintln!("mptlab-linkemu: a forwarding thread stopped");
            failed = true;
            break;
        }
        write(&snapshot(&a, &b, &ab_stats, &ba_stats, &mut rx_drops));
    }
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        failed |= t.join().is_err();
    }
    write(&snapshot(&a, &b, &ab_stats, &ba_stats, &mut rx_drops));
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

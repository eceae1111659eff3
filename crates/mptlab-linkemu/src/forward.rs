//! The forwarding loop of one direction: receive on one interface, decide loss, hold for the
//! delay, send out of the other interface.
//!
//! One thread per direction. It sleeps in ppoll(2) on the receiving socket with a timeout that
//! ends SPIN_NS before the oldest held frame is due (timer slack set to 1 ns with
//! PR_SET_TIMERSLACK, prctl(2), so the hrtimer fires on time instead of up to 50 µs late), then
//! spins on CLOCK_MONOTONIC for the rest, still draining arrivals, and sends the frame the moment it
//! is due. Arrival time is the kernel's receive timestamp (CLOCK_REALTIME) mapped onto
//! CLOCK_MONOTONIC by the offset between the two clocks read together right after the receive.
//!
//! The threads run SCHED_FIFO (sched(7)) unless told not to: on this two-core machine, busy
//! with other people's compilers, ordinary threads sent frames 0.75–3.5 ms late (p99 of the
//! namespace ping test), real-time ones 25–100 µs late, because they preempt the compilers. The spin is short
//! and bounded, and the kernel's RT throttling (sched_rt_runtime_us, 95%) keeps the rest of the
//! machine alive even if traffic kept a thread spinning.
//!
//! The thread counts into its own `DirStats` and copies them to the shared one every
//! PUBLISH_NS with `try_lock`, never waiting: the main thread that reads the shared copy is an
//! ordinary thread, and a real-time thread blocked on a lock it holds while preempted would wait
//! as long as the preemption lasts (a futex mutex has no priority inheritance). The last copy,
//! on stop, is taken with a blocking lock, so the final stats are complete.

use crate::fifo::DelayFifo;
use crate::loss::Loss;
use crate::sock::{PacketSocket, Sent};
use crate::stats::DirStats;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Wake this long before a frame is due and spin for the rest: the ppoll wake-up latency of a
/// SCHED_FIFO thread is some 5–20 µs here.
const SPIN_NS: u64 = 40_000;
/// Longest sleep with nothing held, so a stop request is seen within this time.
const IDLE_NS: u64 = 100_000_000;
/// Frames received per wake-up before due frames are looked at again.
const RX_BATCH: usize = 64;
/// How often the thread's counters are copied to the shared stats.
const PUBLISH_NS: u64 = 100_000_000;
/// Memory bound of one delay line: 64 MB is 0.5 s at 1 Gbit/s.
pub const FIFO_BYTES: usize = 64 << 20;

fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid out-pointer.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

pub fn mono_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC)
}

pub struct Direction {
    pub rx: Arc<PacketSocket>,
    pub tx: Arc<PacketSocket>,
    pub fifo: DelayFifo,
    pub loss: Loss,
    /// The copy the main thread reads; this thread counts into `local`.
    pub shared: Arc<Mutex<DirStats>>,
    pub local: DirStats,
    pub stop: Arc<AtomicBool>,
    /// SCHED_FIFO priority (1..=99), or 0 for ordinary scheduling.
    pub rt_priority: u8,
}

impl Direction {
    pub fn run(mut self) {
        // SAFETY: prctl with integer arguments only affects this thread.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
        if self.rt_priority > 0 {
            let param = libc::sched_param { sched_priority: self.rt_priority.into() };
            // SAFETY: sets the policy of the calling thread only; `param` outlives the call.
            let rc = unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &param) };
            if rc != 0 {
                eprintln!(
                    "mptlab-linkemu: SCHED_FIFO refused ({}); forwarding with ordinary scheduling",
                    std::io::Error::from_raw_os_error(rc)
                );
            }
        }
        let mut buf = vec![0u8; 65_536];
        let mut reported_rx_error = false;
        let mut published = 0;
        while !self.stop.load(Ordering::Relaxed) {
            if mono_ns() >= published + PUBLISH_NS {
                if let Ok(mut shared) = self.shared.try_lock() {
                    shared.clone_from(&self.local);
                    published = mono_ns();
                }
            }
            self.send_due(&mut buf);
            let timeout_ns = match self.fifo.head_due() {
                Some(due) => due.saturating_sub(mono_ns() + SPIN_NS),
                None => IDLE_NS,
            };
            if timeout_ns > 0 && !self.wait_readable(timeout_ns) {
                continue;
            }
            if let Err(e) = self.receive(&mut buf, RX_BATCH) {
                // ENETDOWN while the interface is down, say: report once, retry gently.
                if !reported_rx_error {
                    eprintln!("mptlab-linkemu: receive on {}: {e}", self.rx.name);
                    reported_rx_error = true;
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
        self.shared.lock().unwrap().clone_from(&self.local);
    }

    /// Sleep until the receiving socket is readable or `timeout_ns` passes; true if readable.
    fn wait_readable(&self, timeout_ns: u64) -> bool {
        let mut pfd = libc::pollfd { fd: self.rx.raw_fd(), events: libc::POLLIN, revents: 0 };
        let ts =
            libc::timespec { tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t, tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long };
        // SAFETY: one valid pollfd, a valid timeout, no signal mask change.
        let n = unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
        n > 0
    }

    /// Send every frame due within SPIN_NS, spinning (and receiving) until each is due.
    fn send_due(&mut self, buf: &mut [u8]) {
        while let Some(due) = self.fifo.head_due() {
            if due > mono_ns() + SPIN_NS {
                return;
            }
            let mut now = mono_ns();
            while now < due {
                // Arrivals during the spin keep their kernel timestamps; errors wait for the
                // main loop.
                let _ = self.receive(buf, 1);
                std::hint::spin_loop();
                now = mono_ns();
            }
            let held = self.fifo.pop_due(now).expect("the head is due");
            let sent = self.tx.send(&held.frame);
            let s = &mut self.local;
            match sent {
                Sent::Ok => {
                    s.frames_out += 1;
                    s.late.record(now - held.due_ns);
                }
                Sent::Dropped => s.send_drops += 1,
                Sent::Error(e) => {
                    if s.send_errors == 0 {
                        // A frame larger than the MTU is an aggregate: offloads left on.
                        let hint = if e.raw_os_error() == Some(libc::EMSGSIZE) {
                            " (GRO/TSO/GSO on? ethtool -K <if> gro off tso off gso off)"
                        } else {
                            ""
                        };
                        eprintln!("mptlab-linkemu: send of a {}-byte frame on {}: {e}{hint}", held.frame.len(), self.tx.name);
                    }
                    s.send_errors += 1;
                }
            }
            s.queued = self.fifo.len() as u64;
            self.fifo.recycle(held.frame);
        }
    }

    /// Receive up to `max` waiting frames: count, decide loss, hold the survivors.
    fn receive(&mut self, buf: &mut [u8], max: usize) -> std::io::Result<()> {
        for _ in 0..max {
            let Some((len, stamp)) = self.rx.recv(buf)? else { return Ok(()) };
            let (mono, real) = (mono_ns(), clock_ns(libc::CLOCK_REALTIME));
            // How long the frame sat in the socket before we read it.
            let lag = stamp.map_or(0, |t| real.saturating_sub(t));
            let arrival = mono.saturating_sub(lag);
            let s = &mut self.local;
            s.frames_in += 1;
            if stamp.is_some() {
                s.rx_lag.record(lag);
            }
            if len > buf.len() {
                // Larger than any frame a veth without GRO carries; cannot be forwarded whole.
                s.send_errors += 1;
            } else if self.loss.lose() {
                s.lost += 1;
            } else if self.fifo.push(arrival, &buf[..len]).is_none() {
                s.fifo_drops += 1;
            }
            s.queued = self.fifo.len() as u64;
        }
        Ok(())
    }
}

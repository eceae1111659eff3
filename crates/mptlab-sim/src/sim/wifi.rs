//! Wi-Fi channels at run time: one shared medium per `[wifi.<name>]` (`net::dcf::spatial`:
//! stations hear and decode each other within the channel's range), driven by
//! one lazily re-armed event per channel (`Ev::Wifi`). A packet whose next hop is a Wi-Fi
//! direction is handed to the sending station's queue as a frame (its id is the packet handle,
//! its receiver the direction's far station); the medium reports each frame delivered to its
//! receiver (the packet then continues on its route) or dropped at the retry limit (the packet
//! is lost, as on a channel loss). Per-direction accounting is the hop's (`net::wifi`).

use super::{arm, Ev, Simulation};
use crate::net::dcf::{DcfConfig, Frame, Output, SpatialMedium, STREAM_DCF};
use crate::net::{WifiPort, WifiSpec};
use crate::results::{StationSummary, WifiSummary};
use crate::spec::LinkId;
use mptlab_engine::timer::Fired;
use mptlab_engine::{Handle, LazyTimer, RngStream, StreamId, Time};

/// Stream kind of a channel's stations: station i of channel `name` draws from
/// (seed, STREAM_DCF, hash of `name#i`), so channels never share a stream.
pub struct Channel {
    medium: SpatialMedium,
    timer: LazyTimer,
    queue_limit: Option<u64>,
    /// Per `metrics.interval` bin: frames that left the MAC (delivered or dropped at the retry
    /// limit), and those dropped (`wifi_frames`, `wifi_drops` time series).
    frames: Vec<u64>,
    drops: Vec<u64>,
}

impl Channel {
    pub fn new(spec: &WifiSpec, seed: u64, interval: Time, duration: Time) -> Self {
        let cfg = DcfConfig::of(spec);
        let rngs =
            (0..spec.stations.len()).map(|i| RngStream::new(seed, StreamId::named(STREAM_DCF, &format!("{}#{i}", spec.name)))).collect();
        let bins = duration.div_ceil(interval.max(1)) as usize;
        Self {
            medium: SpatialMedium::with_rngs(cfg, spec.hearing(), rngs),
            timer: LazyTimer::default(),
            queue_limit: spec.queue_limit,
            frames: vec![0; bins],
            drops: vec![0; bins],
        }
    }

    pub fn medium(&self) -> &SpatialMedium {
        &self.medium
    }
}

impl Simulation {
    /// Hand packet `h` (of `size` bytes) to Wi-Fi direction `l`'s sending station.
    pub(super) fn wifi_offer(&mut self, now: Time, l: LinkId, port: WifiPort, h: Handle, size: u32) {
        // The medium's events due now run first (their frames may continue elsewhere).
        self.run_channel(now, port.channel as usize);
        let w = self.hops[l as usize].as_wifi_mut().expect("a Wi-Fi direction");
        let ch = &mut self.channels[port.channel as usize];
        let accepted = ch.queue_limit.is_none_or(|q| (ch.medium.queue_len(port.src as usize) as u64) < q);
        w.on_offer(size, accepted);
        if !accepted {
            self.drop_packet(h);
            return self.arm_channel(port.channel as usize);
        }
        ch.medium.enqueue(now, port.src as usize, Frame { id: h.0 as u64, bytes: size, dst: port.dst as usize });
        self.arm_channel(port.channel as usize);
    }

    fn arm_channel(&mut self, c: usize) {
        let ch = &mut self.channels[c];
        arm(&mut self.queue, &mut ch.timer, ch.medium.next_event(), |generation| Ev::Wifi { channel: c as u32, generation });
    }

    /// Channel `c`'s medium has an event due.
    pub(super) fn on_wifi(&mut self, now: Time, c: u32, generation: u32) {
        let c = c as usize;
        match self.channels[c].timer.on_event(now, generation) {
            Fired::Stale => return,
            Fired::Rearm { at, generation } => {
                self.queue.schedule(at, Ev::Wifi { channel: c as u32, generation });
                return;
            }
            Fired::Expired => {}
        }
        self.run_channel(now, c);
        self.arm_channel(c);
    }

    /// Run channel `c`'s medium up to `now` and pass on the frames it delivered or dropped.
    fn run_channel(&mut self, now: Time, c: usize) {
        let mut out = std::mem::take(&mut self.wifi_out);
        self.channels[c].medium.advance(now, &mut out);
        for o in out.drain(..) {
            let (frame, delivered, at, attempts) = match o {
                Output::Delivered { frame, at, attempts, .. } => (frame, true, at, attempts),
                Output::Dropped { frame, at, attempts, .. } => (frame, false, at, attempts),
            };
            let bin = ((at / self.spec.metrics.interval.max(1)) as usize).min(self.channels[c].frames.len().saturating_sub(1));
            if let Some(n) = self.channels[c].frames.get_mut(bin) {
                *n += 1;
                self.channels[c].drops[bin] += !delivered as u64;
            }
            let h = Handle(frame.id as u32);
            let p = self.packets.get_mut(h);
            let l = self.routes.hop(p.route, p.hop).expect("a packet on a Wi-Fi hop");
            let (size, proto) = (p.size, p.proto);
            let w = self.hops[l as usize].as_wifi_mut().expect("a Wi-Fi direction");
            if delivered {
                w.on_delivered(at, size, proto, attempts);
                p.hop += 1;
                self.forward(now, h);
            } else {
                w.on_dropped(at, size, proto, attempts);
                self.drop_packet(h);
            }
        }
        self.wifi_out = out;
    }
}

impl Simulation {
    /// `wifi[c]` of the summary: per-station MAC counters and the measured collision probability.
    pub(super) fn wifi_summary(&self, c: usize) -> WifiSummary {
        let (spec, medium) = (&self.spec.wifi[c], &self.channels[c].medium);
        let stations: Vec<StationSummary> = (0..medium.stations())
            .map(|i| {
                let k = medium.counters(i);
                StationSummary {
                    name: self.spec.nodes[spec.stations[i] as usize].name.clone(),
                    frames: k.enqueued,
                    attempts: k.attempts,
                    successes: k.successes,
                    failures: k.failures,
                    retry_drops: k.drops,
                    collision_probability: k.collision_probability(),
                    queued: medium.queue_len(i) as u64,
                }
            })
            .collect();
        let attempts: u64 = stations.iter().map(|s| s.attempts).sum();
        let failures: u64 = stations.iter().map(|s| s.failures).sum();
        WifiSummary {
            name: spec.name.clone(),
            collision_probability: if attempts == 0 { 0.0 } else { failures as f64 / attempts as f64 },
            attempts,
            retry_drops: stations.iter().map(|s| s.retry_drops).sum(),
            stations,
        }
    }
}

impl Simulation {
    /// Per channel and interval: `wifi_frames` (frames that left the MAC) and `wifi_drops`
    /// (frames dropped at the retry limit), entity the channel's name; their ratio is the
    /// per-hop MAC delivery rate over time (seed 004's "data packet delivery rate").
    pub(super) fn wifi_timeseries(&self, c: &mut super::results::Columns) {
        let iv = self.spec.metrics.interval;
        for (ch, spec) in self.channels.iter().zip(&self.spec.wifi) {
            for (k, (&f, &d)) in ch.frames.iter().zip(&ch.drops).enumerate() {
                let t = mptlab_engine::time::as_secs_f64(k as Time * iv);
                c.push("wifi_frames", &spec.name, t, f as f64);
                c.push("wifi_drops", &spec.name, t, d as f64);
            }
        }
    }
}

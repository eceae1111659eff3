//! The parallel engine: a run split by its `partition::Plan` into partitions, each a
//! `Simulation` of the flows and links it owns, advanced window by window on several threads.
//!
//! Each window `(T, T + plan.window]` has two phases. First every device partition processes
//! its events of the window, then every core partition (shared links) processes its own. In
//! between, at a barrier, packets change partition:
//! - a device partition hands a packet to a core *late*, when it enters the core's link
//!   (`LATE` entry): the core processes that time in its phase of the same window;
//! - a core hands a packet to a device partition *early*, when the packet enters the last core
//!   link (`EARLY` entry): the link knows its arrival (`Link::last_accepted`), at least the
//!   link's delay later, so in a later window. The core keeps its copy in the link (a shell)
//!   for the link's own accounting and frees it on arrival (`GONE` entry, or a `Remote` route end).
//!
//! A core's *exit* links (every packet of which it hands over) schedule no arrival events: what
//! has arrived is drained when the link next takes a packet, and at the end.
//!
//! Packets stay home: the device partition that owns a packet's flow keeps its handle while a
//! core carries a copy, and takes the copy back under it, so bodies (QUIC frames, SACK blocks)
//! never move. A core that drops a packet tells its owner, which counts it for the flow.
//!
//! Determinism: a partition takes the packets handed to it when its phase starts, in order of
//! time and then of route id (stable over source partition and sending order), and schedules
//! them then. What a partition computes does not depend on which thread runs it, nor on how
//! many threads there are, nor on how the run is stepped. It does depend on the plan (the number
//! of device partitions is a scenario key): events at equal times can be ordered differently
//! from the sequential engine, whose order is insertion order. Without such ties the two agree.
//!
//! Merging (`Partitioned::finish`): the partitions' flows, links and traces go back into one
//! `Simulation` in global order, with the packet and event counts summed, so the results code
//! sees one run.

use super::build::build;
use super::flow::Flow;
use super::results::LinkTrace;
use super::{count_drop, Ev, PacketCounts, RouteEnd, Simulation};
use crate::net::{Hop, Packet, RouteTable};
use crate::partition::Plan;
use crate::spec::RunSpec;
use mptlab_engine::{Handle, Time};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Route entries of a partition (`RouteTable` holds link ids below these): the link is local
/// and the packet is handed over when it enters it (the low bits are the local link id).
pub(super) const EARLY: u32 = 1 << 31;
/// The link is another partition's: hand the packet over now.
const LATE: u32 = u32::MAX - 1;
/// The link is another partition's, which already has the packet: free this copy.
const GONE: u32 = u32::MAX;

/// One partition's view of the plan, while it is built.
pub(super) struct Ownership<'a> {
    pub plan: &'a Plan,
    pub me: u16,
    /// Local id of each link this partition owns, by global id.
    local: Vec<u32>,
}

impl<'a> Ownership<'a> {
    pub fn new(plan: &'a Plan, me: u16) -> Self {
        let mut next = 0;
        let local = plan
            .link_owner
            .iter()
            .map(|&o| {
                next += (o == me) as u32;
                next.wrapping_sub(1)
            })
            .collect();
        Ownership { plan, me, local }
    }

    /// `route` of flow `flow` as this partition's route entries, with the partition each
    /// position hands to (unused where nothing is handed over).
    pub fn encode(&self, flow: usize, route: &[u32]) -> (Vec<u32>, Vec<u16>) {
        let (plan, me) = (self.plan, self.me);
        let owners: Vec<u16> = plan.owners(flow, route).collect();
        let mut entries = Vec::with_capacity(route.len());
        for (i, &owner) in owners[..route.len()].iter().enumerate() {
            let (prev, next) = (if i == 0 { plan.flow_owner[flow] } else { owners[i - 1] }, owners[i + 1]);
            let entry = if owner == me {
                let l = self.local[route[i] as usize];
                if next != me && !plan.is_late(me, next) {
                    l | EARLY
                } else {
                    l
                }
            } else if prev == me && plan.is_late(me, owner) {
                LATE
            } else {
                GONE
            };
            entries.push(entry);
        }
        let to = (0..route.len()).map(|i| if entries[i] == LATE { owners[i] } else { owners[i + 1] }).collect();
        (entries, to)
    }
}

/// A packet handed to another partition, or the news that a core dropped it.
///
/// A packet's body (QUIC frames, SACK blocks) never moves: both ends of a flow are in one
/// device partition, which keeps the packet's handle (its *home*) while a core carries it, and
/// takes it back under that handle, body and all. A core remembers each packet's home
/// (`PartState::homes`).
#[derive(Clone, Copy)]
pub(super) struct Handover {
    at: Time,
    dropped: bool,
    home: u32,
    packet: Packet,
}

/// What a partition owns (by global id), what it hands over, and its packets elsewhere.
pub(super) struct PartState {
    pub me: u16,
    /// Global flow id of each local flow, global link id of each local link.
    pub flow_ids: Vec<u32>,
    pub link_ids: Vec<u32>,
    /// Packets to hand over at the next barrier, by destination partition, in the order they
    /// were sent (posting swaps each vector into its mailbox).
    handovers: Vec<Vec<Handover>>,
    /// Packets handed to this partition, being sorted (a reused buffer).
    inbox: Vec<Handover>,
    /// The inbox's sort keys: (time, route id, position) (a reused buffer).
    order: Vec<(Time, u32, u32)>,
    /// A core: the home handle of each packet it holds, by its handle here.
    homes: Vec<u32>,
    /// A core: copies of packets handed over ahead of their arrival, still in its links.
    pub shells: usize,
    /// A device partition: packets of its own that a core is carrying (their homes are kept).
    pub away: usize,
    /// By local link: a core's *exit* link, whose every packet is handed over ahead of its
    /// arrival. Its arrivals need no events: they are drained when the link next takes a
    /// packet (and at the end), which frees the copies and reports the channel's losses.
    exits: Vec<bool>,
}

impl PartState {
    pub fn new(me: u16, parts: usize, flow_ids: Vec<u32>, link_ids: Vec<u32>, routes: &RouteTable) -> Self {
        let handovers = (0..parts).map(|_| Vec::new()).collect();
        // A link every route entry of which hands over early (and none forwards here).
        let (mut early, mut local) = (vec![false; link_ids.len()], vec![false; link_ids.len()]);
        for &e in routes.entries().iter().filter(|&&e| e < LATE) {
            let l = (e & !EARLY) as usize;
            if e & EARLY != 0 {
                early[l] = true;
            } else {
                local[l] = true;
            }
        }
        let exits = early.iter().zip(&local).map(|(&e, &l)| e && !l).collect();
        PartState { me, flow_ids, link_ids, handovers, inbox: Vec::new(), order: Vec::new(), homes: Vec::new(), shells: 0, away: 0, exits }
    }

    fn part_mut(sim: &mut Simulation) -> &mut PartState {
        sim.part.as_mut().expect("only a partition of a parallel run hands packets over")
    }
}

impl Simulation {
    /// The global id of local link `l`.
    pub(super) fn link_id(&self, l: usize) -> usize {
        self.part.as_ref().map_or(l, |p| p.link_ids[l] as usize)
    }

    /// A packet at a route entry of a parallel run's partition (`EARLY`, `LATE`, `GONE`).
    #[inline(never)]
    pub(super) fn cross(&mut self, now: Time, h: Handle, code: u32) {
        let p = *self.packets.get(h);
        match code {
            GONE => self.drop_shell(h),
            LATE => {
                // A device partition's own packet: it stays here, away, until it comes back.
                let to = self.routes.to(p.route, p.hop);
                let st = PartState::part_mut(self);
                st.away += 1;
                st.handovers[to as usize].push(Handover { at: now, dropped: false, home: h.0, packet: p });
            }
            _ => {
                let l = code & !EARLY;
                let exit = PartState::part_mut(self).exits[l as usize];
                if exit {
                    self.drain_exit(now, l);
                }
                if !self.offer(now, l, h, p.size, p.proto, p.group, !exit) {
                    return;
                }
                let Hop::PointToPoint(link) = &self.hops[l as usize] else { unreachable!("a plan hands over only from links") };
                let (arrival, lost) = link.last_accepted();
                if !lost {
                    let to = self.routes.to(p.route, p.hop);
                    let st = PartState::part_mut(self);
                    st.shells += 1;
                    let home = st.homes[h.0 as usize];
                    st.handovers[to as usize].push(Handover { at: arrival, dropped: false, home, packet: Packet { hop: p.hop + 1, ..p } });
                }
            }
        }
    }

    /// Pop what has arrived at the far end of exit link `l` by `now`.
    fn drain_exit(&mut self, now: Time, l: u32) {
        loop {
            let packets = &self.packets;
            let Some(a) = self.hops[l as usize].pop_arrival(now, |h| packets.get(h).group) else { break };
            if a.lost {
                self.drop_packet(a.handle);
            } else {
                self.drop_shell(a.handle);
            }
        }
    }

    /// Drain every exit link up to `now` (the end of the run).
    fn drain_exits(&mut self, now: Time) {
        for l in 0..self.hops.len() {
            if self.part.as_ref().is_some_and(|p| p.exits[l]) {
                self.drain_exit(now, l as u32);
            }
        }
    }

    /// Free a core's copy of a packet it handed over ahead of its arrival.
    pub(super) fn drop_shell(&mut self, h: Handle) {
        self.packets.remove(h);
        PartState::part_mut(self).shells -= 1;
    }

    /// A core dropped packet `p` (handle `h`): tell its owner, which counts it for its flow.
    pub(super) fn notify_drop(&mut self, h: Handle, p: Packet, owner: u16) {
        let st = PartState::part_mut(self);
        let home = st.homes[h.0 as usize];
        st.handovers[owner as usize].push(Handover { at: 0, dropped: true, home, packet: p });
    }

    /// Take what another partition handed over.
    fn take_over(&mut self, hv: Handover) {
        if !self.route_ends_owned(hv.packet.route) {
            // A core: the packet enters here at its time; remember its home.
            let h = self.packets.insert(hv.packet);
            let st = PartState::part_mut(self);
            if st.homes.len() <= h.0 as usize {
                st.homes.resize(h.0 as usize + 1, 0);
            }
            st.homes[h.0 as usize] = hv.home;
            self.queue.schedule(hv.at, Ev::Import(h.0));
            return;
        }
        // The owner: its packet comes back under its home handle.
        let h = Handle(hv.home);
        PartState::part_mut(self).away -= 1;
        if hv.dropped {
            let p = *self.packets.remove(h);
            let RouteEnd::Flow { flow, path, .. } = self.route_ends[p.route as usize] else { unreachable!("the owner's route end") };
            count_drop(&mut self.flows[flow as usize].metrics, path, p.is_data());
        } else {
            *self.packets.get_mut(h) = hv.packet;
            self.queue.schedule(hv.at, Ev::Import(h.0));
        }
    }

    /// Does this partition own the flow of `route`?
    fn route_ends_owned(&self, route: u32) -> bool {
        matches!(self.route_ends[route as usize], RouteEnd::Flow { .. })
    }
}

/// A run on the parallel engine.
pub struct Partitioned {
    plan: Plan,
    /// Boxed: two threads' partitions must not share a cache line (their hot counters are
    /// written on every packet).
    #[allow(clippy::vec_box)]
    parts: Vec<Box<Simulation>>,
    threads: usize,
    /// Handovers between partitions; they outlive an `advance` (the last phase's wait for the
    /// next window).
    mail: Mailboxes,
    /// Where the threads' time went, and the windows run so far.
    times: PhaseTimes,
    windows: u64,
    /// Every event due at or before `now` has been processed (once `started`).
    now: Time,
    started: bool,
    duration: Time,
}

impl Partitioned {
    /// Build the partitions of `spec` (whose plan the scenario loader checked), to run on up
    /// to `threads` threads (the results do not depend on it).
    pub fn new(spec: RunSpec, threads: usize) -> Self {
        let plan = Plan::new(&spec).expect("the scenario loader checks the partition plan");
        let spec = Arc::new(spec);
        let parts = (0..plan.parts).map(|me| Box::new(build(Arc::clone(&spec), Some(&Ownership::new(&plan, me as u16))))).collect();
        let duration = spec.duration;
        let mail = Mailboxes::new(plan.parts);
        Partitioned {
            plan,
            parts,
            threads: threads.clamp(1, 64),
            mail,
            times: PhaseTimes::default(),
            windows: 0,
            now: 0,
            started: false,
            duration,
        }
    }

    pub fn now(&self) -> Time {
        self.now
    }

    pub fn duration(&self) -> Time {
        self.duration
    }

    pub fn is_done(&self) -> bool {
        self.started && self.now >= self.duration
    }

    pub fn spec(&self) -> &RunSpec {
        &self.parts[0].spec
    }

    /// Where the threads' time went so far, and how many windows ran.
    pub fn phase_times(&self) -> (PhaseTimes, u64) {
        (self.times, self.windows)
    }

    pub fn events_processed(&self) -> u64 {
        self.parts.iter().map(|p| p.events_processed()).sum()
    }

    pub fn delivered_data(&self) -> u64 {
        self.parts.iter().map(|p| p.counts.delivered_data).sum()
    }

    /// The packet counts of all partitions.
    pub fn counts(&self) -> PacketCounts {
        self.parts.iter().fold(PacketCounts::default(), |a, p| a.plus(&p.counts))
    }

    /// Packets held anywhere in the network, those being handed over included.
    pub fn packets_live(&self) -> usize {
        let moving = |hv: &&Handover| !hv.dropped;
        let posted: usize = self.mail.boxes.iter().map(|b| b.lock().expect("no thread panicked").iter().filter(moving).count()).sum();
        let unposted: usize =
            self.parts.iter().filter_map(|p| p.part.as_ref()).flat_map(|s| &s.handovers).map(|v| v.iter().filter(moving).count()).sum();
        self.parts.iter().map(|p| p.packets_live()).sum::<usize>() + posted + unposted
    }

    /// Run until simulated time `until` (capped at the run's duration).
    pub fn advance(&mut self, until: Time) {
        let until = until.min(self.duration);
        if self.started && self.now >= until {
            return;
        }
        let windows = Windows { window: self.plan.window, next: if self.started { Some(self.now) } else { None }, until };
        let ends: Vec<Time> = windows.collect();
        let threads = self.threads.min(self.plan.devices.max(self.plan.parts - self.plan.devices));
        let phases = Phases::new(&mut self.parts, self.plan.devices, threads, &self.mail);
        if threads == 1 {
            for &end in &ends {
                phases.run_window(end, &mut self.times);
            }
        } else {
            let per_thread: Vec<PhaseTimes> = std::thread::scope(|s| {
                let threads: Vec<_> = (0..threads)
                    .map(|_| {
                        s.spawn(|| {
                            let mut times = PhaseTimes::default();
                            for &end in &ends {
                                phases.run_window(end, &mut times);
                            }
                            times
                        })
                    })
                    .collect();
                threads.into_iter().map(|t| t.join().expect("a partition's thread panicked")).collect()
            });
            for t in &per_thread {
                self.times.add(t);
            }
        }
        self.windows += ends.len() as u64;
        if let Some(&end) = ends.last() {
            self.now = end;
            self.started = true;
        }
        for p in &mut self.parts {
            p.settle();
        }
    }

    /// The finished run as one `Simulation`, for its results (see the module comment).
    pub fn finish(mut self) -> Simulation {
        // What arrived at the cores' exit links by the end, and the drops the cores reported
        // since the last window, still count.
        for p in &mut self.parts[self.plan.devices..] {
            p.drain_exits(self.duration);
            self.mail.post(p);
        }
        let cores = self.plan.devices..self.plan.parts;
        for p in &mut self.parts[..self.plan.devices] {
            self.mail.collect(p, cores.clone());
        }
        let live = self.packets_live();
        let spec = Arc::clone(&self.parts[0].spec);
        let mut flows: Vec<Option<Flow>> = (0..spec.flows.len()).map(|_| None).collect();
        let mut hops: Vec<Option<Hop>> = (0..spec.links.len()).map(|_| None).collect();
        let mut traces: Vec<Option<Box<LinkTrace>>> = (0..spec.links.len()).map(|_| None).collect();
        let (mut counts, mut events) = (PacketCounts::default(), 0);
        let mut base = None;
        for mut p in self.parts {
            let st = p.part.take().expect("a partition");
            for (f, flow) in st.flow_ids.iter().zip(p.flows.drain(..)) {
                flows[*f as usize] = Some(flow);
            }
            for ((l, hop), trace) in st.link_ids.iter().zip(p.hops.drain(..)).zip(p.link_traces.drain(..)) {
                (hops[*l as usize], traces[*l as usize]) = (Some(hop), trace);
            }
            counts = counts.plus(&p.counts);
            events += p.events_processed();
            base.get_or_insert(p);
        }
        let mut sim = *base.expect("a plan has partitions");
        sim.flows = flows.into_iter().map(|f| f.expect("every flow has an owner")).collect();
        sim.hops = hops.into_iter().map(|h| h.expect("every link has an owner")).collect();
        sim.link_traces = traces;
        sim.counts = counts;
        sim.merged_events = events - sim.queue.events_processed();
        sim.merged_live = live - sim.packets.live();
        sim.sampled_flows = (0..spec.flows.len() as u32).filter(|&f| spec.metrics.flow_detailed(f as usize)).collect();
        sim
    }
}

/// The ends of the windows from the last one processed (`next`: None before the first) to
/// `until`: the first window also holds time 0.
struct Windows {
    window: Time,
    next: Option<Time>,
    until: Time,
}

impl Iterator for Windows {
    type Item = Time;

    fn next(&mut self) -> Option<Time> {
        let end = match self.next {
            None => self.window.min(self.until),
            Some(t) if t >= self.until => return None,
            Some(t) => (t + self.window).min(self.until),
        };
        self.next = Some(end);
        Some(end)
    }
}

/// The partitions of one advance, shared by its threads. In each phase of a window (device
/// partitions, then core partitions) the threads claim the phase's partitions one at a time;
/// a claimed partition first takes the packets handed to it in the other phase, then runs to
/// the window's end, then posts what it hands over. A barrier ends each phase. Which thread runs
/// a partition does not change what it computes.
///
/// One barrier per phase is enough for the mailboxes: a box is posted to after a phase of its
/// source's kind and emptied during the next phase, which ends with a barrier before the source
/// posts again.
struct Phases<'a> {
    /// Device partitions, then core partitions.
    parts: Vec<Mutex<&'a mut Simulation>>,
    devices: usize,
    mail: &'a Mailboxes,
    barrier: SpinBarrier,
    /// The next partition of the current phase to claim (reset by the barrier).
    next: AtomicUsize,
}

impl<'a> Phases<'a> {
    fn new(parts: &'a mut [Box<Simulation>], devices: usize, threads: usize, mail: &'a Mailboxes) -> Self {
        let parts = parts.iter_mut().map(|p| Mutex::new(&mut **p)).collect();
        Phases { parts, devices, mail, barrier: SpinBarrier::new(threads), next: AtomicUsize::new(0) }
    }

    /// One window; adds this thread's working and waiting time per phase to `times`.
    fn run_window(&self, end: Time, times: &mut PhaseTimes) {
        let n = self.parts.len();
        for (k, (range, senders)) in [(0..self.devices, self.devices..n), (self.devices..n, 0..self.devices)].into_iter().enumerate() {
            let start = std::time::Instant::now();
            loop {
                let i = range.start + self.next.fetch_add(1, Ordering::Relaxed);
                if i >= range.end {
                    break;
                }
                let mut p = self.parts[i].lock().expect("no thread panicked");
                self.mail.collect(&mut p, senders.clone());
                p.run_until(end);
                self.mail.post(&mut p);
            }
            let done = std::time::Instant::now();
            self.barrier.wait(|| self.next.store(0, Ordering::Relaxed));
            times.busy_s[k] += (done - start).as_secs_f64();
            times.wait_s[k] += done.elapsed().as_secs_f64();
        }
    }
}

/// Where a parallel run's threads spent their time, summed over threads, per phase (device
/// partitions, then cores): working on partitions, or waiting at the barrier that ends the phase.
#[derive(Clone, Copy, Debug, Default)]
pub struct PhaseTimes {
    pub busy_s: [f64; 2],
    pub wait_s: [f64; 2],
}

impl PhaseTimes {
    fn add(&mut self, o: &PhaseTimes) {
        for k in 0..2 {
            self.busy_s[k] += o.busy_s[k];
            self.wait_s[k] += o.wait_s[k];
        }
    }
}

/// One box per (source, destination) pair of partitions: a source writes only its own boxes,
/// after its phase; a destination reads its boxes after the barrier that ends that phase.
struct Mailboxes {
    parts: usize,
    boxes: Vec<Mutex<Vec<Handover>>>,
}

impl Mailboxes {
    fn new(parts: usize) -> Self {
        Mailboxes { parts, boxes: (0..parts * parts).map(|_| Mutex::new(Vec::new())).collect() }
    }

    fn post(&self, p: &mut Simulation) {
        let st = p.part.as_mut().expect("a partition");
        let src = st.me as usize;
        for (dst, out) in st.handovers.iter_mut().enumerate().filter(|(_, v)| !v.is_empty()) {
            // Between phases the reader has emptied the box: swap the whole vector in, and keep
            // the box's empty buffer for the next window. (At the end of a run it may not be.)
            let mut b = self.boxes[src * self.parts + dst].lock().expect("no thread panicked");
            if b.is_empty() {
                std::mem::swap(&mut *b, out);
            } else {
                b.append(out);
            }
        }
    }

    /// Take the packets handed to `p` by `sources`, in order of time and then of route id:
    /// packets due at the same time enter in flow order, as they tend to in the sequential
    /// engine, rather than all of one partition's before the next's (which, at a full
    /// drop-tail queue, would systematically drop the later partitions' packets).
    fn collect(&self, p: &mut Simulation, sources: std::ops::Range<usize>) {
        let dst = p.part.as_ref().expect("a partition").me as usize;
        let mut inbox = std::mem::take(&mut p.part.as_mut().expect("a partition").inbox);
        for src in sources {
            // Drained, not taken: the box keeps its buffer for the next window.
            inbox.extend(self.boxes[src * self.parts + dst].lock().expect("no thread panicked").drain(..));
        }
        // Sorted as small keys, not as the 80-byte handovers; the index breaks ties, so equal
        // keys keep source order, then sending order (a stable sort's order, on unique keys).
        let mut order = std::mem::take(&mut p.part.as_mut().expect("a partition").order);
        order.extend(inbox.iter().enumerate().map(|(i, hv)| (hv.at, hv.packet.route, i as u32)));
        order.sort_unstable();
        for &(_, _, i) in &order {
            p.take_over(inbox[i as usize]);
        }
        order.clear();
        inbox.clear();
        let st = p.part.as_mut().expect("a partition");
        (st.inbox, st.order) = (inbox, order);
    }
}

/// A barrier for threads that each have a core to themselves: they spin (then yield, if the
/// machine is busier than that) instead of sleeping, since a window lasts microseconds.
struct SpinBarrier {
    threads: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
}

impl SpinBarrier {
    fn new(threads: usize) -> Self {
        SpinBarrier { threads, arrived: AtomicUsize::new(0), generation: AtomicUsize::new(0) }
    }

    /// Wait for every thread; the last to arrive runs `last` before it releases the others.
    fn wait(&self, last: impl FnOnce()) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            last();
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == generation {
            spins += 1;
            if spins < 1 << 12 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

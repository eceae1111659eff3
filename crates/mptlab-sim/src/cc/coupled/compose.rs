//! A coupled controller, alone (`lia`) or composed with a per-path controller (`lia+cubic`).
//!
//! Source of the composition: seed 001 (Łuczak, Ignaciuk, Morawski 2023,
//! `../shared/seeds/001_fba625d6a51c507c.txt`) pairs an MPTCP-level and a path-level controller:
//!
//! > "The reference design of MPTCP does not follow the single-responsibility programming
//! > pattern. The SPTCP CC algorithms used at the path level are tailored to the application
//! > needs or link specifics [...] The idea explored in this work is allowing the applied
//! > algorithms to be responsible for one task only. In the experiments, we modified the kernel
//! > and allowed for the selection of an arbitrary CC algorithm for each link autonomously and
//! > independently of the MPTCP controller." (§1.4)
//!
//! > "At the MPTCP level, four CC algorithms, LIA, OLIA, BALIA, and wVegas, were evaluated,
//! > whereas at the path level, Reno, Cubic, and BBR were considered, which gives 12 protocol
//! > pairs." (§3)
//!
//! The seed does not say how the two windows combine (its kernel patch is not published).
//! Our choice, documented in `docs/congestion-control.md`: a subflow runs BOTH controllers,
//! every hook goes to both, and the subflow may send only while both windows allow:
//!
//! - `window()` = min(coupled window, path window);
//! - `pacing_rate()`, `send_quantum()`, `uses_prr()` and `exits_recovery_on_partial_ack()` are
//!   the path controller's (BBR still paces and runs its own recovery; `lia+reno` and
//!   `lia+newreno` differ in how recovery ends without SACK, as `reno` and `newreno` do);
//! - `ssthresh()` is that of the controller whose window is the smaller (the one that limits;
//!   the coupled one on a tie), so PRR in the transport reduces toward the limiting target;
//! - an ACK tells each controller that the sender was cwnd-limited only if it was and that
//!   controller's window is the limiting one (≤ the other): RFC 7661's rule that a window which
//!   did not limit sending must not grow. Without it the window that does not limit would grow
//!   without bound (LIA's under BBR, which leaves few losses to halve it), and its coupling
//!   terms would describe a window the subflow never uses. On a tie both grow;
//! - the view the subflow publishes for its peers is the coupled controller's with cwnd =
//!   `window()` and ssthresh = `ssthresh()`: the window the subflow's rate follows. The coupled
//!   controller's own terms use its own window (the variable it updates);
//! - `state_name()` is the path controller's (BBR's modes, CUBIC's states).
//!
//! `cc_options` of a composite are the path controller's (`lia+cubic` takes CUBIC's options);
//! the coupled controllers' defaults apply (wVegas's options only for `wvegas` alone).
//! Alone, a coupled controller is `Coupled` without a path controller: every hook is its own.

use super::{Balia, CoupledAlgo, Lia, Olia, SubflowCcView, Wvegas, WvegasConfig};
use crate::cc::options::OptValue;
use crate::cc::registry::{self, COUPLED, PATH_CONTROLLERS};
use crate::cc::{AckEvent, AnyCc, CcConfig, CcParams, CongestionControl, LossEvent, Options};
use mptlab_engine::Time;

/// The coupled algorithm and its options.
#[derive(Clone, Debug, PartialEq)]
pub enum AlgoConfig {
    Lia,
    Olia,
    Balia,
    Wvegas(WvegasConfig),
}

impl AlgoConfig {
    fn default_for(name: &str) -> Option<Self> {
        Some(match name {
            "lia" => AlgoConfig::Lia,
            "olia" => AlgoConfig::Olia,
            "balia" => AlgoConfig::Balia,
            "wvegas" => AlgoConfig::Wvegas(WvegasConfig::default()),
            _ => return None,
        })
    }

    pub fn build(&self, p: CcParams) -> CoupledAlgo {
        match self {
            AlgoConfig::Lia => CoupledAlgo::Lia(Lia::new(p)),
            AlgoConfig::Olia => CoupledAlgo::Olia(Olia::new(p)),
            AlgoConfig::Balia => CoupledAlgo::Balia(Balia::new(p)),
            AlgoConfig::Wvegas(c) => CoupledAlgo::Wvegas(Wvegas::new(p, c)),
        }
    }
}

/// A coupled controller's configuration: `lia`, ..., or a composite `lia+cubic`, ...
#[derive(Clone, Debug, PartialEq)]
pub struct CoupledConfig {
    /// The canonical registry name (`registry::COUPLED` or `registry::COMPOSITES`).
    name: &'static str,
    algo: AlgoConfig,
    /// The per-path controller of a composite.
    path: Option<Box<CcConfig>>,
}

impl CoupledConfig {
    /// The default configuration of a canonical name: a coupled controller (`lia`) or a
    /// composite (`lia+cubic`).
    pub fn default_for(name: &str) -> Option<Self> {
        if let Some((coupled, path)) = name.split_once('+') {
            let name = registry::composite(coupled, path)?;
            debug_assert!(COUPLED.contains(&coupled) && PATH_CONTROLLERS.contains(&path));
            let path = CcConfig::default_for(path)?;
            return Some(CoupledConfig { name, algo: AlgoConfig::default_for(coupled)?, path: Some(Box::new(path)) });
        }
        let name = COUPLED.iter().copied().find(|n| *n == name)?;
        Some(CoupledConfig { name, algo: AlgoConfig::default_for(name)?, path: None })
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    pub fn algo(&self) -> &AlgoConfig {
        &self.algo
    }

    /// The per-path controller of a composite.
    pub fn path(&self) -> Option<&CcConfig> {
        self.path.as_deref()
    }

    /// A composite takes its path controller's options; `wvegas` alone its own.
    pub fn option_names(&self) -> &'static [&'static str] {
        match (&self.path, &self.algo) {
            (Some(p), _) => p.option_names(),
            (None, AlgoConfig::Wvegas(_)) => <WvegasConfig as Options>::NAMES,
            (None, _) => &[],
        }
    }

    pub fn set(&mut self, key: &str, value: OptValue) -> Result<(), String> {
        match (&mut self.path, &mut self.algo) {
            (Some(p), _) => p.set(key, value),
            (None, AlgoConfig::Wvegas(c)) => c.set(key, value),
            (None, _) => Err(format!("`{}` has no options", self.name)),
        }
    }

    pub fn build(&self, p: CcParams) -> AnyCc {
        AnyCc::Coupled(Box::new(Coupled::new(self.algo.build(p), self.path.as_ref().map(|c| c.build(p)))))
    }
}

/// A subflow's controller: a coupled algorithm, alone or with a per-path controller.
pub struct Coupled {
    coupled: CoupledAlgo,
    path: Option<AnyCc>,
}

impl Coupled {
    pub fn new(coupled: CoupledAlgo, path: Option<AnyCc>) -> Self {
        Coupled { coupled, path }
    }

    pub fn coupled(&self) -> &CoupledAlgo {
        &self.coupled
    }

    /// The per-path controller of a composite.
    pub fn path(&self) -> Option<&AnyCc> {
        self.path.as_ref()
    }

    /// Whether the coupled window is the one that limits (alone, or ≤ the path window).
    fn coupled_limits(&self) -> bool {
        self.path.as_ref().is_none_or(|p| self.coupled.window() <= p.window())
    }
}

impl CongestionControl for Coupled {
    fn reads_rate_samples(&self) -> bool {
        self.coupled.reads_rate_samples() || self.path.as_ref().is_some_and(|p| p.reads_rate_samples())
    }
    fn counts_rounds(&self) -> bool {
        self.coupled.counts_rounds() || self.path.as_ref().is_some_and(|p| p.counts_rounds())
    }
    fn on_packet_sent(&mut self, now: Time, bytes: u32, in_flight: u64) {
        self.coupled.on_packet_sent(now, bytes, in_flight);
        if let Some(p) = self.path.as_mut() {
            p.on_packet_sent(now, bytes, in_flight);
        }
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        let Some(path) = self.path.as_mut() else { return self.coupled.on_ack(ev) };
        let (cw, pw) = (self.coupled.window(), path.window());
        self.coupled.on_ack(&AckEvent { cwnd_limited: ev.cwnd_limited && cw <= pw, ..*ev });
        path.on_ack(&AckEvent { cwnd_limited: ev.cwnd_limited && pw <= cw, ..*ev });
    }

    fn on_congestion_event(&mut self, ev: &LossEvent) {
        self.coupled.on_congestion_event(ev);
        if let Some(p) = self.path.as_mut() {
            p.on_congestion_event(ev);
        }
    }

    fn on_recovery_exit(&mut self, now: Time) {
        self.coupled.on_recovery_exit(now);
        if let Some(p) = self.path.as_mut() {
            p.on_recovery_exit(now);
        }
    }

    fn on_rto(&mut self, ev: &LossEvent) {
        self.coupled.on_rto(ev);
        if let Some(p) = self.path.as_mut() {
            p.on_rto(ev);
        }
    }

    fn window(&self) -> u64 {
        match &self.path {
            Some(p) => self.coupled.window().min(p.window()),
            None => self.coupled.window(),
        }
    }

    fn ssthresh(&self) -> u64 {
        match &self.path {
            Some(p) if !self.coupled_limits() => p.ssthresh(),
            _ => self.coupled.ssthresh(),
        }
    }

    fn pacing_rate(&self) -> Option<u64> {
        self.path.as_ref().and_then(|p| p.pacing_rate())
    }

    fn exits_recovery_on_partial_ack(&self) -> bool {
        self.path.as_ref().is_some_and(|p| p.exits_recovery_on_partial_ack())
    }

    fn send_quantum(&self) -> Option<u64> {
        self.path.as_ref().and_then(|p| p.send_quantum())
    }

    fn uses_prr(&self) -> bool {
        self.path.as_ref().is_none_or(|p| p.uses_prr())
    }

    fn state_name(&self) -> &'static str {
        match &self.path {
            Some(p) => p.state_name(),
            None => self.coupled.state_name(),
        }
    }

    fn coupled_view(&self) -> Option<SubflowCcView> {
        let v = self.coupled.coupled_view()?;
        Some(SubflowCcView { cwnd: self.window(), ssthresh: self.ssthresh(), ..v })
    }

    fn couple(&mut self, views: &[SubflowCcView], me: usize) {
        self.coupled.couple(views, me);
        if let Some(p) = self.path.as_mut() {
            p.couple(views, me);
        }
    }
}

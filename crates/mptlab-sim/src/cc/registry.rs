//! The one registry of congestion controller names. Scenario validation, `mptlab list`, the fuzz
//! harness and the simulation builder all read it, so a name is known everywhere or nowhere.
//!
//! The registry is written once, as one entry per controller in the `controllers!` invocation in
//! `cc/mod.rs`. The macro (below) generates from those entries the `mod` line, the table
//! `CONGESTION_CONTROLLERS`, the static-dispatch enum `AnyCc` with its delegations, the factory
//! `CcConfig` (default per name, options by name, validation, build, serialisation) and the
//! composite names `<coupled>+<path>` (the cross product of the `coupled` and `path` groups).
//! Scheduler names have their own registry, `sched/registry.rs`, of the same shape.

use serde::Serialize;

/// One entry of a registry: a canonical name, its aliases, one line on what it is and its source.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct AlgoInfo {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub summary: &'static str,
    pub source: &'static str,
}

pub use super::{COMPOSITES, COMPOSITE_NOTE, CONGESTION_CONTROLLERS, COUPLED, PATH_CONTROLLERS};

/// Resolve a user-given name (case-insensitive, aliases allowed) to its canonical name. A
/// composite `<coupled>+<path>` resolves part by part ("LIA+bbr1" → "lia+bbr").
pub fn resolve(registry: &[AlgoInfo], name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    if let Some((coupled, path)) = lower.split_once('+') {
        let (coupled, path) = (resolve(registry, coupled)?, resolve(registry, path)?);
        return composite(coupled, path);
    }
    registry.iter().find(|a| a.name == lower || a.aliases.contains(&lower.as_str())).map(|a| a.name)
}

/// The canonical composite name of a coupled and a per-path controller (canonical names).
pub fn composite(coupled: &str, path: &str) -> Option<&'static str> {
    COMPOSITES.iter().copied().find(|c| c.split_once('+') == Some((coupled, path)))
}

/// Canonical names, for error messages ("valid: ..."); for a registry with coupled controllers,
/// followed by `COMPOSITE_NOTE` (a pattern, not a name) instead of the 24 composites.
pub fn names(registry: &[AlgoInfo]) -> Vec<&'static str> {
    let mut v: Vec<_> = registry.iter().map(|a| a.name).collect();
    if registry.iter().any(|a| COUPLED.contains(&a.name)) {
        v.push(COMPOSITE_NOTE);
    }
    v
}

/// Declares every congestion controller (invoked once, in `cc/mod.rs`). Three groups, in the
/// order of `CONGESTION_CONTROLLERS`: `path` (controllers that also compose under a coupled one),
/// `coupled` (the coupled multipath family of `cc/coupled/`, which builds them) and `other`.
/// A `path` or `other` entry reads
///
/// ```text
/// mod cubic: "cubic" ["alias", ...] Cubic(cubic::CubicConfig) => Cubic(cubic::Cubic)
///     = |p, c| cubic::Cubic::new(p, c), "summary", "source";
/// ```
///
/// that is: the module to declare (optional: two names may share one), the canonical name and
/// aliases, the `CcConfig` variant with its options type (an `Options`, omitted for a controller
/// without options), the `AnyCc` variant with the controller's type, how to build it from
/// `p: CcParams` (and `c: &Config`), the one-line summary and the source.
macro_rules! controllers {
    (
        path { $($(mod $pm:ident:)? $pname:literal [$($palias:literal),*] $pcv:ident $(($pcfg:ty))? => $pdv:ident($pty:ty)
            = |$pp:ident $(, $pc:ident)?| $pnew:expr, $psum:literal, $psrc:literal;)* }
        coupled { $($kname:literal [$($kalias:literal),*], $ksum:literal, $ksrc:literal;)* }
        other { $($(mod $om:ident:)? $oname:literal [$($oalias:literal),*] $ocv:ident $(($ocfg:ty))? => $odv:ident($oty:ty)
            = |$op:ident $(, $oc:ident)?| $onew:expr, $osum:literal, $osrc:literal;)* }
    ) => {
        /// Every controller, in the order `mptlab list` shows them.
        pub const CONGESTION_CONTROLLERS: &[$crate::cc::registry::AlgoInfo] = &[
            $($crate::cc::registry::AlgoInfo { name: $pname, aliases: &[$($palias),*], summary: $psum, source: $psrc },)*
            $($crate::cc::registry::AlgoInfo { name: $kname, aliases: &[$($kalias),*], summary: $ksum, source: $ksrc },)*
            $($crate::cc::registry::AlgoInfo { name: $oname, aliases: &[$($oalias),*], summary: $osum, source: $osrc },)*
        ];
        /// Coupled multipath controllers: besides running alone, each composes with a per-path
        /// controller as `<coupled>+<path>` (`cc/coupled/compose.rs`: the subflow sends while
        /// both windows allow). The composite names are in `COMPOSITES`, not in the table.
        pub const COUPLED: &[&str] = &[$($kname),*];
        /// Per-path controllers a coupled one composes with.
        pub const PATH_CONTROLLERS: &[&str] = &[$($pname),*];
        /// Every `<coupled>+<path>` name: COUPLED × PATH_CONTROLLERS, in that order.
        pub const COMPOSITES: &[&str] = $crate::cc::registry::controllers!(@cross [] [$($kname),*] [$($pname),*]);
        /// How `names` lists the composites (error messages stay one line).
        pub const COMPOSITE_NOTE: &str = $crate::cc::registry::controllers!(@note [$($kname),*] [$($pname),*]);

        $crate::cc::registry::controllers!(@code
            $([$($pm)?] $pcv [$($pcfg)?] $pdv [$pty] [$pp $($pc)?] [$pnew] $pname)*
            $([$($om)?] $ocv [$($ocfg)?] $odv [$oty] [$op $($oc)?] [$onew] $oname)*
        );
    };

    // The composite names, coupled name by coupled name.
    (@cross [$($acc:expr),*] [] [$($p:literal),*]) => { &[$($acc),*] };
    (@cross [$($acc:expr),*] [$k:literal $(, $ks:literal)*] [$($p:literal),*]) => {
        $crate::cc::registry::controllers!(@cross [$($acc,)* $(concat!($k, "+", $p)),*] [$($ks),*] [$($p),*])
    };
    (@note [$k:literal $(, $ks:literal)*] [$p:literal $(, $ps:literal)*]) => {
        concat!("<", $k, $("|", $ks,)* ">+<", $p, $("|", $ps,)* ">")
    };

    // `$some` if the optional part of an entry is present, else `$none`.
    (@or [] [$($none:tt)*]) => { $($none)* };
    (@or [$($some:tt)+] [$($none:tt)*]) => { $($some)+ };

    // `$e` for every `AnyCc` variant, the controller bound to `$c`.
    (@each $s:expr, [$($dv:ident)*], $c:ident => $e:expr) => {
        match $s {
            $(AnyCc::$dv($c) => $e,)*
            AnyCc::Coupled($c) => $e,
        }
    };

    (@code $([$($m:ident)?] $cv:ident [$($cfg:ty)?] $dv:ident [$ty:ty] [$p:ident $($c:ident)?] [$new:expr] $name:literal)*) => {
        $($(pub mod $m;)?)*

        /// Static dispatch over every controller (the per-packet path never goes through `dyn`).
        pub enum AnyCc {
            $($dv($ty),)*
            /// A coupled multipath controller (LIA, OLIA, BALIA, wVegas), alone or composed with a
            /// per-path controller (which is itself an `AnyCc`: boxed).
            Coupled(Box<coupled::Coupled>),
        }

        // `on_packet_sent`, `window`, `ssthresh`, `pacing_rate` and `state_name` run for every
        // segment sent or acknowledged (the send loop, PRR, an MPTCP scheduler's path views);
        // with `#[inline]` alone they stayed calls of 10 to 19 instructions each (a million per
        // 3 s of W3). Forced inline (the first three), W1-W4 ran 0.8-1.9 % fewer instructions.
        impl CongestionControl for AnyCc {
            #[inline(always)]
            fn on_packet_sent(&mut self, now: Time, bytes: u32, in_flight: u64) {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.on_packet_sent(now, bytes, in_flight))
            }
            #[inline]
            fn on_ack(&mut self, ev: &AckEvent) {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.on_ack(ev))
            }
            fn on_congestion_event(&mut self, ev: &LossEvent) {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.on_congestion_event(ev))
            }
            fn on_recovery_exit(&mut self, now: Time) {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.on_recovery_exit(now))
            }
            fn on_rto(&mut self, ev: &LossEvent) {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.on_rto(ev))
            }
            #[inline(always)]
            fn window(&self) -> u64 {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.window())
            }
            #[inline(always)]
            fn ssthresh(&self) -> u64 {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.ssthresh())
            }
            #[inline(always)]
            fn pacing_rate(&self) -> Option<u64> {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.pacing_rate())
            }
            fn exits_recovery_on_partial_ack(&self) -> bool {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.exits_recovery_on_partial_ack())
            }
            fn send_quantum(&self) -> Option<u64> {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.send_quantum())
            }
            #[inline(always)]
            fn state_name(&self) -> &'static str {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.state_name())
            }
            fn uses_prr(&self) -> bool {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.uses_prr())
            }
            fn coupled_view(&self) -> Option<SubflowCcView> {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.coupled_view())
            }
            fn couple(&mut self, views: &[SubflowCcView], me: usize) {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.couple(views, me))
            }
            #[inline]
            fn packet_size(&self) -> Option<u32> {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.packet_size())
            }
            fn reads_rate_samples(&self) -> bool {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.reads_rate_samples())
            }
            fn counts_rounds(&self) -> bool {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.counts_rounds())
            }
            fn cap_round(&mut self, now: Time, packets: u32) {
                $crate::cc::registry::controllers!(@each self, [$($dv)*], c => c.cap_round(now, packets))
            }
        }

        /// Serialises like the scenario keys it came from: `{"cc": name, "cc_options": {...}}`,
        /// the options table present only for controllers that have options (`config.rs`).
        #[derive(Clone, Debug, PartialEq)]
        pub enum CcConfig {
            $($cv $(($cfg))?,)*
            /// A coupled multipath controller (`lia`, `olia`, `balia`, `wvegas`), or one composed
            /// with a per-path controller (`lia+cubic`, ...: `cc_options` are the path controller's).
            Coupled(coupled::CoupledConfig),
        }

        impl CcConfig {
            /// The default configuration of a canonical registry name (a composite `lia+cubic`
            /// included).
            pub fn default_for(name: &str) -> Option<Self> {
                match name {
                    $($name => Some(CcConfig::$cv $((<$cfg as Default>::default()))?),)*
                    _ => coupled::CoupledConfig::default_for(name).map(CcConfig::Coupled),
                }
            }

            pub fn name(&self) -> &'static str {
                match self {
                    $(CcConfig::$cv { .. } => $name,)*
                    CcConfig::Coupled(c) => c.name(),
                }
            }

            /// Option names this controller accepts.
            pub fn option_names(&self) -> &'static [&'static str] {
                match self {
                    $(CcConfig::$cv { .. } => $crate::cc::registry::controllers!(@or [$(<$cfg as Options>::NAMES)?] [&[]]),)*
                    CcConfig::Coupled(c) => c.option_names(),
                }
            }

            /// Set one option; the error is the reason only (the caller knows the key path).
            pub fn set(&mut self, key: &str, value: OptValue) -> Result<(), String> {
                if !self.option_names().contains(&key) {
                    return Err(format!("unknown option for `{}`", self.name()));
                }
                match self {
                    $(CcConfig::$cv $(($c))? => $crate::cc::registry::controllers!(@or [$(Options::set($c, key, value))?] [unreachable!("no options")]),)*
                    CcConfig::Coupled(c) => c.set(key, value),
                }
            }

            /// Constraints between the options once all are set; the error is the reason only.
            pub fn check(&self) -> Result<(), String> {
                match self {
                    $(CcConfig::$cv $(($c))? => $crate::cc::registry::controllers!(@or [$(Options::check($c))?] [Ok(())]),)*
                    CcConfig::Coupled(_) => Ok(()),
                }
            }

            pub fn build(&self, params: CcParams) -> AnyCc {
                match self {
                    $(CcConfig::$cv $(($c))? => {
                        let $p = params;
                        AnyCc::$dv($new)
                    })*
                    CcConfig::Coupled(c) => c.build(params),
                }
            }

            /// The `cc_options` entry, for controllers that have options (a composite: its path
            /// controller's).
            fn serialize_options<M: serde::ser::SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
                match self {
                    $(CcConfig::$cv $(($c))? => $crate::cc::registry::controllers!(@or [$(m.serialize_entry("cc_options", $c))?] [Ok(())]),)*
                    CcConfig::Coupled(c) => config::serialize_coupled_options(c, m),
                }
            }
        }
    };
}
pub(crate) use controllers;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composites_are_derived_as_coupled_times_path_in_registry_order() {
        assert_eq!(COMPOSITES.len(), COUPLED.len() * PATH_CONTROLLERS.len());
        assert_eq!(COMPOSITES.first(), Some(&"lia+reno"));
        assert_eq!(COMPOSITES.last(), Some(&"wvegas+vegas"));
        // The pattern error messages show (scenario errors quote it).
        assert_eq!(COMPOSITE_NOTE, "<lia|olia|balia|wvegas>+<reno|newreno|cubic|bbr|bbr2|vegas>");
    }

    #[test]
    fn the_table_lists_path_then_coupled_then_other_controllers_once_each() {
        let names: Vec<_> = CONGESTION_CONTROLLERS.iter().map(|a| a.name).collect();
        assert_eq!(
            names,
            [
                "reno",
                "newreno",
                "cubic",
                "bbr",
                "bbr2",
                "vegas",
                "lia",
                "olia",
                "balia",
                "wvegas",
                "blp-adaptive",
                "ccid2",
                "ccid5",
                "newreno5"
            ]
        );
        assert_eq!(resolve(CONGESTION_CONTROLLERS, "BBR3"), Some("bbr2"));
        assert_eq!(resolve(CONGESTION_CONTROLLERS, "adaptive"), Some("blp-adaptive"));
    }

    #[test]
    fn an_entry_serialises_as_mptlab_list_reads_it() {
        let v = serde_json::to_value(CONGESTION_CONTROLLERS[3]).unwrap();
        assert_eq!(v["name"], "bbr");
        assert_eq!(v["aliases"], serde_json::json!(["bbr1"]));
        assert!(v["summary"].as_str().is_some_and(|s| !s.is_empty()) && v["source"].as_str().is_some_and(|s| !s.is_empty()));
    }
}

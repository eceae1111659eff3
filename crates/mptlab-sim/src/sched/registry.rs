//! The one registry of scheduler names, as `cc/registry.rs` for controllers: scenario
//! validation, `mptlab list` and the connection builders all read `SCHEDULERS`.
//!
//! The registry is written once, as one entry per scheduler in the `schedulers!` invocation in
//! `sched/mod.rs`. The macro (below) generates from those entries the `mod` line, the table
//! `SCHEDULERS`, the static-dispatch enum `AnyScheduler` with its delegation and name, and the
//! factory `SchedConfig` (default per name, options by name, build, serialisation).

pub use super::SCHEDULERS;

/// Declares every scheduler (invoked once, in `sched/mod.rs`), in the order of `SCHEDULERS`. An
/// entry reads
///
/// ```text
/// mod ecf: "ecf" ["alias", ...] Ecf(ecf::EcfConfig) => Ecf(ecf::Ecf) = |seed, c| ecf::Ecf::new(c),
///     "summary", "source";
/// ```
///
/// that is: the module to declare (optional), the canonical name and aliases, the `SchedConfig`
/// variant with its options type (an `Options`, omitted for a scheduler without options), the
/// `AnyScheduler` variant with the scheduler's type, how to build it from the seed of its own
/// random stream (`_` when it draws none) and `c: &Config`, the one-line summary and the source.
macro_rules! schedulers {
    // `$some` if the optional part of an entry is present, else `$none`.
    (@or [] [$($none:tt)*]) => { $($none)* };
    (@or [$($some:tt)+] [$($none:tt)*]) => { $($some)+ };

    ($($(mod $m:ident:)? $name:literal [$($alias:literal),*] $cv:ident $(($cfg:ty))? => $dv:ident($ty:ty)
        = |$seed:tt $(, $c:ident)?| $new:expr, $summary:literal, $source:literal;)*) => {
        $($(pub mod $m;)?)*

        /// Multipath packet schedulers, in the order `mptlab list` shows them.
        pub const SCHEDULERS: &[$crate::cc::registry::AlgoInfo] = &[
            $($crate::cc::registry::AlgoInfo { name: $name, aliases: &[$($alias),*], summary: $summary, source: $source },)*
        ];

        /// Static dispatch over every scheduler (the connection asks once per chunk).
        #[derive(Clone, Debug)]
        pub enum AnyScheduler {
            $($dv($ty),)*
        }

        impl Scheduler for AnyScheduler {
            #[inline]
            fn select(&mut self, conn: &ConnView, paths: &[PathView]) -> Decision {
                match self {
                    $(AnyScheduler::$dv(s) => s.select(conn, paths),)*
                }
            }
            #[inline]
            fn wake_at(&self) -> Option<mptlab_engine::Time> {
                match self {
                    $(AnyScheduler::$dv(s) => s.wake_at(),)*
                }
            }
            #[inline]
            fn take_window_cap(&mut self) -> Option<$crate::sched::WindowCap> {
                match self {
                    $(AnyScheduler::$dv(s) => s.take_window_cap(),)*
                }
            }
            fn has_period_hooks(&self) -> bool {
                match self {
                    $(AnyScheduler::$dv(s) => s.has_period_hooks(),)*
                }
            }
        }

        impl AnyScheduler {
            /// The registry name of the scheduler (as `SchedConfig::name`).
            pub fn name(&self) -> &'static str {
                match self {
                    $(AnyScheduler::$dv(_) => $name,)*
                }
            }
        }

        /// Serialises like the scenario keys it came from: `{"scheduler": name,
        /// "scheduler_options": {...}}`, the options table present only for schedulers that have
        /// options (`config.rs`).
        #[derive(Clone, Debug, PartialEq)]
        pub enum SchedConfig {
            $($cv $(($cfg))?,)*
        }

        impl SchedConfig {
            /// The default configuration of a canonical registry name.
            pub fn default_for(name: &str) -> Option<Self> {
                match name {
                    $($name => Some(SchedConfig::$cv $((<$cfg as Default>::default()))?),)*
                    _ => None,
                }
            }

            pub fn name(&self) -> &'static str {
                match self {
                    $(SchedConfig::$cv { .. } => $name,)*
                }
            }

            /// Option names this scheduler accepts.
            pub fn option_names(&self) -> &'static [&'static str] {
                match self {
                    $(SchedConfig::$cv { .. } => $crate::sched::registry::schedulers!(@or [$(<$cfg as Options>::NAMES)?] [&[]]),)*
                }
            }

            /// Set one option; the error is the reason only (the caller knows the key path).
            pub fn set(&mut self, key: &str, value: OptValue) -> Result<(), String> {
                if !self.option_names().contains(&key) {
                    return Err(format!("unknown option for `{}`", self.name()));
                }
                match self {
                    $(SchedConfig::$cv $(($c))? => $crate::sched::registry::schedulers!(@or [$(Options::set($c, key, value))?] [unreachable!("no options")]),)*
                }
            }

            /// A fresh scheduler whose random draws (BLP's `randomized` blocking, Peekaboo's
            /// exploration) come from its own stream seeded with `seed`: same seed, same
            /// decisions. The others ignore the seed.
            pub fn build_seeded(&self, seed: u64) -> AnyScheduler {
                match self {
                    $(SchedConfig::$cv $(($c))? => {
                        let $seed = seed;
                        AnyScheduler::$dv($new)
                    })*
                }
            }

            /// The `scheduler_options` entry, for schedulers that have options.
            fn serialize_options<M: serde::ser::SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
                match self {
                    $(SchedConfig::$cv $(($c))? => $crate::sched::registry::schedulers!(@or [$(m.serialize_entry("scheduler_options", $c))?] [Ok(())]),)*
                }
            }
        }
    };
}
pub(crate) use schedulers;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::registry::resolve;
    use crate::sched::{AnyScheduler, SchedConfig};

    #[test]
    fn every_entry_builds_its_own_variant_under_its_name() {
        let names: Vec<_> = SCHEDULERS.iter().map(|a| a.name).collect();
        assert_eq!(names, ["minrtt", "default", "roundrobin", "redundant", "blest", "ecf", "cpf", "otias", "blp", "peekaboo", "lossaware"]);
        for name in names {
            let cfg = SchedConfig::default_for(name).unwrap();
            assert_eq!((cfg.name(), cfg.build_seeded(7).name()), (name, name));
        }
        assert!(matches!(SchedConfig::default_for("default").unwrap().build(), AnyScheduler::Linger(_)));
        assert_eq!(resolve(SCHEDULERS, "blocking-probability"), Some("blp"));
    }

    #[test]
    fn only_schedulers_with_options_serialise_an_options_table() {
        for a in SCHEDULERS {
            let cfg = SchedConfig::default_for(a.name).unwrap();
            let v = serde_json::to_value(&cfg).unwrap();
            assert_eq!(v.get("scheduler_options").is_some(), !cfg.option_names().is_empty(), "{}", a.name);
        }
    }
}

//! `CcConfig`: a controller's registry name plus its typed options (STYLE: "config is the
//! factory; names map to configs"). The scenario layer builds one per TCP flow from `cc` and
//! `cc_options`; `build` turns it into the statically dispatched controller.

use super::options::OptValue;
use super::reno::{Recovery, Reno};
use super::{adaptive, bbr, bbr2, coupled, cubic, vegas};
use super::{AnyCc, CcParams};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// A controller's options: their names (for error messages and docs) and how to set one.
pub trait Options {
    const NAMES: &'static [&'static str];
    fn set(&mut self, key: &str, value: OptValue) -> Result<(), String>;
    /// Constraints between options, checked once all are set (each `set` checks one value).
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Serialises like the scenario keys it came from: `{"cc": name, "cc_options": {...}}`, the
/// options table present only for controllers that have options. Flattened into a flow's
/// canonical echo, which therefore reads back as a valid scenario.
#[derive(Clone, Debug, PartialEq)]
pub enum CcConfig {
    Reno,
    NewReno,
    Cubic(cubic::CubicConfig),
    Bbr(bbr::BbrConfig),
    Bbr2(bbr2::Bbr2Config),
    Vegas(vegas::VegasConfig),
    /// A coupled multipath controller (`lia`, `olia`, `balia`, `wvegas`), or one composed with a
    /// per-path controller (`lia+cubic`, ...: `cc_options` are the path controller's).
    Coupled(coupled::CoupledConfig),
    /// seed 002's reward/penalty controller.
    Adaptive(adaptive::AdaptiveConfig),
}

impl Serialize for CcConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("cc", self.name())?;
        self.serialize_options(&mut m)?;
        m.end()
    }
}

impl CcConfig {
    /// The default configuration of a canonical registry name (a composite `lia+cubic`
    /// included).
    pub fn default_for(name: &str) -> Option<Self> {
        Some(match name {
            "reno" => CcConfig::Reno,
            "newreno" => CcConfig::NewReno,
            "cubic" => CcConfig::Cubic(Default::default()),
            "bbr" => CcConfig::Bbr(Default::default()),
            "bbr2" => CcConfig::Bbr2(Default::default()),
            "vegas" => CcConfig::Vegas(Default::default()),
            "blp-adaptive" => CcConfig::Adaptive(Default::default()),
            _ => return coupled::CoupledConfig::default_for(name).map(CcConfig::Coupled),
        })
    }

    /// The `cc_options` entry, for controllers that have options (a composite: its path
    /// controller's).
    fn serialize_options<M: SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
        match self {
            CcConfig::Reno | CcConfig::NewReno => Ok(()),
            CcConfig::Cubic(c) => m.serialize_entry("cc_options", c),
            CcConfig::Bbr(c) => m.serialize_entry("cc_options", c),
            CcConfig::Bbr2(c) => m.serialize_entry("cc_options", c),
            CcConfig::Vegas(c) => m.serialize_entry("cc_options", c),
            CcConfig::Adaptive(c) => m.serialize_entry("cc_options", c),
            CcConfig::Coupled(c) => match (c.path(), c.algo()) {
                (Some(path), _) => path.serialize_options(m),
                (None, coupled::AlgoConfig::Wvegas(w)) => m.serialize_entry("cc_options", w),
                (None, _) => Ok(()),
            },
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            CcConfig::Reno => "reno",
            CcConfig::NewReno => "newreno",
            CcConfig::Cubic(_) => "cubic",
            CcConfig::Bbr(_) => "bbr",
            CcConfig::Bbr2(_) => "bbr2",
            CcConfig::Vegas(_) => "vegas",
            CcConfig::Coupled(c) => c.name(),
            CcConfig::Adaptive(_) => "blp-adaptive",
        }
    }

    /// Option names this controller accepts.
    pub fn option_names(&self) -> &'static [&'static str] {
        match self {
            CcConfig::Reno | CcConfig::NewReno => &[],
            CcConfig::Cubic(_) => <cubic::CubicConfig as Options>::NAMES,
            CcConfig::Bbr(_) => <bbr::BbrConfig as Options>::NAMES,
            CcConfig::Bbr2(_) => <bbr2::Bbr2Config as Options>::NAMES,
            CcConfig::Vegas(_) => <vegas::VegasConfig as Options>::NAMES,
            CcConfig::Coupled(c) => c.option_names(),
            CcConfig::Adaptive(_) => <adaptive::AdaptiveConfig as Options>::NAMES,
        }
    }

    /// Set one option; the error is the reason only (the caller knows the key path).
    pub fn set(&mut self, key: &str, value: OptValue) -> Result<(), String> {
        if !self.option_names().contains(&key) {
            return Err(format!("unknown option for `{}`", self.name()));
        }
        match self {
            CcConfig::Reno | CcConfig::NewReno => unreachable!("no options"),
            CcConfig::Cubic(c) => c.set(key, value),
            CcConfig::Bbr(c) => c.set(key, value),
            CcConfig::Bbr2(c) => c.set(key, value),
            CcConfig::Vegas(c) => c.set(key, value),
            CcConfig::Coupled(c) => c.set(key, value),
            CcConfig::Adaptive(c) => c.set(key, value),
        }
    }

    /// Constraints between the options once all are set; the error is the reason only.
    pub fn check(&self) -> Result<(), String> {
        match self {
            CcConfig::Vegas(c) => c.check(),
            _ => Ok(()),
        }
    }

    pub fn build(&self, p: CcParams) -> AnyCc {
        match self {
            CcConfig::Reno => AnyCc::Reno(Reno::new(p, Recovery::Reno)),
            CcConfig::NewReno => AnyCc::Reno(Reno::new(p, Recovery::NewReno)),
            CcConfig::Cubic(c) => AnyCc::Cubic(cubic::Cubic::new(p, c)),
            CcConfig::Bbr(c) => AnyCc::Bbr(Box::new(bbr::Bbr::new(p, c))),
            CcConfig::Bbr2(c) => AnyCc::Bbr2(Box::new(bbr2::Bbr2::new(p, c))),
            CcConfig::Vegas(c) => AnyCc::Vegas(vegas::Vegas::new(p, c)),
            CcConfig::Coupled(c) => c.build(p),
            CcConfig::Adaptive(c) => AnyCc::Adaptive(adaptive::Adaptive::new(p, c)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::registry::{COMPOSITES, CONGESTION_CONTROLLERS};

    #[test]
    fn every_registry_name_has_a_config_that_builds() {
        for name in CONGESTION_CONTROLLERS.iter().map(|a| a.name).chain(COMPOSITES.iter().copied()) {
            let cfg = CcConfig::default_for(name).unwrap_or_else(|| panic!("{name} has no config"));
            assert_eq!(cfg.name(), name);
            let _ = cfg.build(CcParams { mss: 1460, initial_cwnd_segments: 10 });
        }
    }

    #[test]
    fn unknown_options_are_rejected() {
        let mut c = CcConfig::default_for("reno").unwrap();
        assert!(c.set("beta", OptValue::Num(0.5)).is_err());
    }
}

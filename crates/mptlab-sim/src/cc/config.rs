//! `CcConfig`: a controller's registry name plus its typed options (STYLE: "config is the
//! factory; names map to configs"). The scenario layer builds one per TCP flow from `cc` and
//! `cc_options`; `build` turns it into the statically dispatched controller. The enum and its
//! per-controller methods are generated from the registry (`controllers!` in `cc/mod.rs`); here
//! are the options trait every config implements and the serialisation.

use super::options::OptValue;
use super::{coupled, CcConfig};
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

impl Serialize for CcConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("cc", self.name())?;
        self.serialize_options(&mut m)?;
        m.end()
    }
}

/// A coupled controller's `cc_options`: a composite's are its path controller's, `wvegas` alone
/// has its own, the others none.
pub(super) fn serialize_coupled_options<M: SerializeMap>(c: &coupled::CoupledConfig, m: &mut M) -> Result<(), M::Error> {
    match (c.path(), c.algo()) {
        (Some(path), _) => path.serialize_options(m),
        (None, coupled::AlgoConfig::Wvegas(w)) => m.serialize_entry("cc_options", w),
        (None, _) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::registry::{COMPOSITES, CONGESTION_CONTROLLERS};
    use crate::cc::CcParams;

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

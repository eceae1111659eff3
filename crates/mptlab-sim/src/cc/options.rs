//! Typed controller options from a scenario's `cc_options` table. Each controller's config lists
//! its option names and applies values one by one; an error names the reason and the scenario
//! layer adds the key path and the valid names.

/// An option value as written in the scenario.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OptValue<'a> {
    Bool(bool),
    Num(f64),
    /// A string (BLP's `model`: a name or a file path).
    Str(&'a str),
}

impl<'a> OptValue<'a> {
    pub fn boolean(self) -> Result<bool, String> {
        match self {
            OptValue::Bool(b) => Ok(b),
            _ => Err("expected true or false".into()),
        }
    }

    /// A number in [lo, hi].
    pub fn number(self, lo: f64, hi: f64) -> Result<f64, String> {
        match self {
            OptValue::Num(x) if x >= lo && x <= hi => Ok(x),
            OptValue::Num(x) => Err(format!("{x} is out of range [{lo}, {hi}]")),
            _ => Err("expected a number".into()),
        }
    }

    /// A string.
    pub fn string(self) -> Result<&'a str, String> {
        match self {
            OptValue::Str(s) => Ok(s),
            _ => Err("expected a string".into()),
        }
    }
}

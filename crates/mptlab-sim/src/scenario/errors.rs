//! `ScenarioError`: one validation failure, named by the full dotted key path of the offending
//! value, with a short reason and, when the valid values form a finite set, the choices.

use std::fmt;

/// Result type of every scenario-layer function.
pub type Result<T> = std::result::Result<T, ScenarioError>;

/// One validation failure. Display: `"{key}: {reason}"`, plus `" (valid: a, b, c)"` when
/// `choices` is non-empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Full dotted path of the offending key, e.g. `flows.bulk.cc`, `nodes.hosts[1]`, or
    /// `<file>` for TOML syntax errors.
    pub key: String,
    pub reason: String,
    /// The valid values, when there is a finite set of them.
    pub choices: Vec<String>,
}

impl ScenarioError {
    pub fn new(key: impl Into<String>, reason: impl Into<String>) -> Self {
        ScenarioError { key: key.into(), reason: reason.into(), choices: Vec::new() }
    }

    pub fn with_choices<S: AsRef<str>>(mut self, choices: impl IntoIterator<Item = S>) -> Self {
        self.choices = choices.into_iter().map(|s| s.as_ref().to_string()).collect();
        self
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.reason)?;
        if !self.choices.is_empty() {
            write!(f, " (valid: {})", self.choices.join(", "))?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

/// Shorthand for `Err(ScenarioError::new(key, reason))`.
pub fn fail<T>(key: impl Into<String>, reason: impl Into<String>) -> Result<T> {
    Err(ScenarioError::new(key, reason))
}

/// `path.key`, or `key` at the top level.
pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// `path[index]`.
pub fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

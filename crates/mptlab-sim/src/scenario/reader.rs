//! A cursor over one TOML table that knows its own key path: rejects unknown keys (listing the
//! valid ones), reports missing required keys, and reads typed values (names, counts,
//! probabilities, unit strings) with errors that carry the full dotted key.

use super::errors::{fail, index, join, Result, ScenarioError};
use super::units::{self, Dur, Limit, Rate, Size};
use toml::{Table, Value};

/// One table of the scenario, at `path`, whose keys have been checked against a fixed list.
pub struct Tbl<'a> {
    pub path: String,
    map: Option<&'a Table>,
}

/// The TOML type of a value, for "expected X, got Y" messages.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Integer(_) => "integer",
        Value::Float(_) => "float",
        Value::Boolean(_) => "boolean",
        Value::Datetime(_) => "datetime",
        Value::Array(_) => "array",
        Value::Table(_) => "table",
    }
}

fn expected<T>(key: &str, what: &str, v: &Value) -> Result<T> {
    fail(key, format!("expected {what}, got {}", type_name(v)))
}

impl<'a> Tbl<'a> {
    /// `v` must be a table whose keys are all in `allowed`.
    pub fn new(path: &str, v: &'a Value, allowed: &[&str]) -> Result<Self> {
        match v {
            Value::Table(map) => Self::of(path, map, allowed),
            other => expected(path, "a table", other),
        }
    }

    /// A table whose keys are all in `allowed`.
    pub fn of(path: &str, map: &'a Table, allowed: &[&str]) -> Result<Self> {
        // Table iteration is in key order, so the first unknown key reported is deterministic.
        if let Some(k) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
            let mut choices = allowed.to_vec();
            choices.sort_unstable();
            return Err(ScenarioError::new(join(path, k), "unknown key").with_choices(choices));
        }
        Ok(Tbl { path: path.to_string(), map: Some(map) })
    }

    /// A table with no keys (a string shorthand such as `app = "bulk"`).
    pub fn empty(path: &str) -> Self {
        Tbl { path: path.to_string(), map: None }
    }

    pub fn key(&self, k: &str) -> String {
        join(&self.path, k)
    }

    pub fn get(&self, k: &str) -> Option<&'a Value> {
        self.map.and_then(|m| m.get(k))
    }

    pub fn has(&self, k: &str) -> bool {
        self.get(k).is_some()
    }

    pub fn req(&self, k: &str) -> Result<&'a Value> {
        self.get(k).ok_or_else(|| ScenarioError::new(self.key(k), "required key is missing"))
    }

    /// Read an optional key with `f(key_path, value)`.
    pub fn opt<T>(&self, k: &str, f: impl FnOnce(&str, &'a Value) -> Result<T>) -> Result<Option<T>> {
        self.get(k).map(|v| f(&self.key(k), v)).transpose()
    }

    /// Read an optional key, or use `default`.
    pub fn or<T>(&self, k: &str, default: T, f: impl FnOnce(&str, &'a Value) -> Result<T>) -> Result<T> {
        Ok(self.opt(k, f)?.unwrap_or(default))
    }

    /// Read a required key.
    pub fn must<T>(&self, k: &str, f: impl FnOnce(&str, &'a Value) -> Result<T>) -> Result<T> {
        let v = self.req(k)?;
        f(&self.key(k), v)
    }
}

/// A table's sub-tables (`[links.x]`, `[flows.y]`), in key order, each checked as a name.
pub fn named_tables<'a>(path: &str, v: &'a Value) -> Result<Vec<(&'a str, &'a Value)>> {
    let map = match v {
        Value::Table(m) => m,
        other => return expected(path, "a table", other),
    };
    map.iter()
        .map(|(k, v)| {
            let key = join(path, k);
            check_name(&key, k)?;
            Ok((k.as_str(), v))
        })
        .collect()
}

/// User-chosen names (nodes, groups, links, flows) are non-empty and use letters, digits, `_`
/// and `-`: `.` separates key paths and `#` numbers group members and expanded flows.
pub fn check_name(key: &str, name: &str) -> Result<()> {
    let ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(())
    } else {
        fail(key, format!("invalid name `{name}`: use letters, digits, `_` and `-` only"))
    }
}

pub fn string<'a>(key: &str, v: &'a Value) -> Result<&'a str> {
    match v {
        Value::String(s) => Ok(s),
        other => expected(key, "a string", other),
    }
}

pub fn boolean(key: &str, v: &Value) -> Result<bool> {
    match v {
        Value::Boolean(b) => Ok(*b),
        other => expected(key, "true or false", other),
    }
}

/// An integer in `[min, max]`.
pub fn int(key: &str, v: &Value, min: i64, max: i64) -> Result<i64> {
    match v {
        Value::Integer(n) if *n < min => fail(key, format!("must be at least {min}, got {n}")),
        Value::Integer(n) if *n > max => fail(key, format!("must be at most {max}, got {n}")),
        Value::Integer(n) => Ok(*n),
        other => expected(key, "an integer", other),
    }
}

/// A probability in `[0, 1]`, or in `[0, 1)` when `below_one`.
pub fn probability(key: &str, v: &Value, below_one: bool) -> Result<f64> {
    let p = match v {
        Value::Float(f) => *f,
        Value::Integer(n) => *n as f64,
        other => return expected(key, "a probability (number)", other),
    };
    let range = if below_one { "[0, 1)" } else { "[0, 1]" };
    if !(0.0..=1.0).contains(&p) || (below_one && p >= 1.0) {
        return fail(key, format!("probability must be in {range}, got {p}"));
    }
    Ok(p)
}

/// One of a fixed set of names (`what` names the kind in the error, which lists the set).
pub fn one_of(key: &str, v: &Value, what: &str, set: &[&'static str]) -> Result<&'static str> {
    let s = string(key, v)?;
    set.iter().find(|x| **x == s).copied().ok_or_else(|| ScenarioError::new(key, format!("unknown {what} `{s}`")).with_choices(set))
}

/// A node or entry name given as a string.
pub fn name<'a>(key: &str, v: &'a Value) -> Result<&'a str> {
    string(key, v)
}

/// An array of strings; element errors are keyed `key[i]`.
pub fn strings<'a>(key: &str, v: &'a Value) -> Result<Vec<&'a str>> {
    match v {
        Value::Array(items) => items.iter().enumerate().map(|(i, x)| string(&index(key, i), x)).collect(),
        other => expected(key, "an array of strings", other),
    }
}

fn unit_string<'a>(key: &str, v: &'a Value, what: &str, example: &str) -> Result<&'a str> {
    match v {
        Value::String(s) => Ok(s),
        Value::Integer(_) | Value::Float(_) => fail(key, format!("a {what} needs a unit, as a string such as \"{example}\"")),
        other => expected(key, &format!("a {what} string such as \"{example}\""), other),
    }
}

/// A rate > 0.
pub fn rate(key: &str, v: &Value) -> Result<Rate> {
    let r = units::parse_rate(key, unit_string(key, v, "rate", "100Mbps")?)?;
    if r.0 == 0 {
        return fail(key, "rate must be > 0");
    }
    Ok(r)
}

/// A time >= 0.
pub fn time(key: &str, v: &Value) -> Result<Dur> {
    units::parse_time(key, unit_string(key, v, "time", "10ms")?)
}

/// A time > 0.
pub fn time_pos(key: &str, v: &Value) -> Result<Dur> {
    let t = time(key, v)?;
    if t.0 == 0 {
        return fail(key, "time must be > 0");
    }
    Ok(t)
}

/// A size > 0.
pub fn size(key: &str, v: &Value) -> Result<Size> {
    let s = units::parse_size(key, unit_string(key, v, "size", "1500B")?)?;
    if s.0 == 0 {
        return fail(key, "size must be > 0");
    }
    Ok(s)
}

/// A queue limit > 0.
pub fn limit(key: &str, v: &Value) -> Result<Limit> {
    let l = units::parse_limit(key, unit_string(key, v, "queue limit", "1bdp")?)?;
    let zero = match l {
        Limit::Packets(n) | Limit::Bytes(n) | Limit::Time(n) => n == 0,
        Limit::Bdp(x) => !(x > 0.0 && x.is_finite()),
    };
    if zero {
        return fail(key, "queue limit must be > 0");
    }
    Ok(l)
}

/// A value that is either a string naming a kind (`app = "bulk"`) or a table with a tag key
/// naming it (`app = { kind = "cbr", rate = "1Mbps" }`). `kinds` lists each kind with the keys
/// it accepts besides the tag. Returns the kind and a table checked against those keys.
pub fn kinded<'a>(
    path: &str,
    v: &'a Value,
    tag: &str,
    default: Option<&'static str>,
    kinds: &[(&'static str, &[&str])],
) -> Result<(&'static str, Tbl<'a>)> {
    let names: Vec<&str> = kinds.iter().map(|(n, _)| *n).collect();
    let lookup = |key: &str, given: &str| {
        kinds
            .iter()
            .find(|(n, _)| *n == given)
            .ok_or_else(|| ScenarioError::new(key, format!("unknown {tag} `{given}`")).with_choices(&names))
    };
    match v {
        Value::String(s) => Ok((lookup(path, s)?.0, Tbl::empty(path))),
        Value::Table(map) => {
            let tag_key = join(path, tag);
            let (kind, params) = match map.get(tag) {
                Some(t) => *lookup(&tag_key, string(&tag_key, t)?)?,
                None => match default {
                    Some(d) => *lookup(&tag_key, d)?,
                    None => return Err(ScenarioError::new(tag_key, "required key is missing").with_choices(&names)),
                },
            };
            let mut allowed = vec![tag];
            allowed.extend_from_slice(params);
            // Name the kind in the message when a key belongs to another kind.
            Tbl::of(path, map, &allowed)
                .map_err(|mut e| {
                    e.reason = format!("unknown key for {tag} `{kind}`");
                    e
                })
                .map(|t| (kind, t))
        }
        other => expected(path, &format!("a table or a {tag} name"), other),
    }
}

//! `--set key.path=value` overrides: each value is read as a TOML value (`5`, `true`,
//! `["a", "b"]`, `{ kind = "codel" }`), or taken as a plain string when it is not one
//! (`30s`, `cubic`), and stored at the dotted key, creating missing tables. Validation runs
//! afterwards as for any scenario, so an override of an unknown key is rejected there.

use super::errors::{fail, Result};
use toml::{Table, Value};

/// Parse an override value: a TOML value if it is one, else a plain string (tests read only
/// the value).
#[cfg(test)]
fn parse_value(raw: &str) -> Value {
    read_value(raw).0
}

/// An override value (a TOML value if it is one, else a plain string), and how many top-level
/// values the text held (more than one: later lines held more TOML).
fn read_value(raw: &str) -> (Value, usize) {
    match toml::from_str::<Table>(&format!("v = {raw}")) {
        Ok(mut t) => {
            let n = t.len();
            (t.remove("v").unwrap_or_else(|| Value::String(raw.to_string())), n)
        }
        Err(_) => (Value::String(raw.trim().to_string()), 1),
    }
}

/// Apply each `(key, value)` in order. Refused, as they would be read differently from what
/// was typed: a value whose later lines hold more TOML (`5\nflows.x = 1`: all but the first
/// value were dropped; a multi-line array is one value and is fine), an integer beyond TOML's
/// 64 bits (it became a string), white space inside a key path (it was stripped).
pub fn apply(root: &mut Table, overrides: &[(String, String)]) -> Result<()> {
    for (key, raw) in overrides {
        let key = key.trim();
        let (value, values) = read_value(raw);
        if values > 1 {
            return fail(key, "the value holds more than one TOML value over several lines; give one value");
        }
        if looks_like_integer(raw) && value.is_str() {
            return fail(key, format!("integer `{}` is too large (TOML integers are 64-bit: at most {})", raw.trim(), i64::MAX));
        }
        set(root, key, value)?;
    }
    Ok(())
}

/// Digits with an optional sign and `_` separators, as a TOML integer is written.
fn looks_like_integer(raw: &str) -> bool {
    let t = raw.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit() || c == '_') && digits.chars().any(|c| c.is_ascii_digit())
}

fn set(root: &mut Table, key: &str, value: Value) -> Result<()> {
    let parts: Vec<&str> = key.split('.').map(str::trim).collect();
    if key.split('.').any(|p| p.contains(char::is_whitespace)) {
        return fail(key, "white space inside a key path (a key path is dot-separated names, e.g. flows.bulk.cc)");
    }
    if parts.iter().any(|p| p.is_empty()) {
        return fail(if key.is_empty() { "<override>" } else { key }, "override key must be a dotted path such as flows.bulk.cc");
    }
    let (last, parents) = parts.split_last().expect("split yields at least one part");
    let mut table = root;
    for (i, part) in parents.iter().enumerate() {
        let entry = table.entry(part.to_string()).or_insert_with(|| Value::Table(Table::new()));
        table = match entry {
            Value::Table(t) => t,
            _ => return fail(key, format!("cannot set inside `{}`: it is not a table", parts[..=i].join("."))),
        };
    }
    table.insert(last.to_string(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_read_differently_from_what_was_typed_are_refused() {
        let mut t: Table = toml::from_str("[run]\nduration = \"1s\"").unwrap();
        let one = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
        let big = apply(&mut t, &one("flows.bulk.count", "99999999999999999999"));
        let Err(e) = big else { panic!("accepted as {:?}", t["flows"]["bulk"]["count"]) };
        assert!(e.key == "flows.bulk.count" && e.reason.contains("too large"), "{e:?}");
        let e = apply(&mut t, &one("run.seed", "5\nflows.x = 1")).unwrap_err();
        assert!(e.key == "run.seed" && e.reason.contains("more than one TOML value"), "{e:?}");
        apply(&mut t, &one("flows.bulk.paths", "[[\"a\", \"b\"],\n [\"a\", \"c\"]]")).unwrap();
        let e = apply(&mut t, &one("flows. bulk.cc", "reno")).unwrap_err();
        assert!(e.reason.contains("white space"), "{e:?}");
        apply(&mut t, &one("run.seed", "-9_223_372_036_854_775_808")).unwrap();
        assert_eq!(t["run"]["seed"].as_integer(), Some(i64::MIN));
        apply(&mut t, &one("flows.bulk.cc", "1_000abc")).unwrap();
        assert_eq!(t["flows"]["bulk"]["cc"].as_str(), Some("1_000abc"), "not an integer: a string");
    }

    #[test]
    fn values_are_toml_or_plain_strings() {
        assert_eq!(parse_value("5"), Value::Integer(5));
        assert_eq!(parse_value("true"), Value::Boolean(true));
        assert_eq!(parse_value("\"x\""), Value::String("x".into()));
        assert_eq!(parse_value("30s"), Value::String("30s".into()));
        assert_eq!(parse_value("cubic"), Value::String("cubic".into()));
        assert!(matches!(parse_value("[\"a\", \"b\"]"), Value::Array(_)));
        assert!(matches!(parse_value("{ kind = \"codel\" }"), Value::Table(_)));
    }

    #[test]
    fn missing_tables_are_created() {
        let mut t = Table::new();
        apply(&mut t, &[("a.b.c".into(), "1".into())]).unwrap();
        assert_eq!(t["a"]["b"]["c"], Value::Integer(1));
    }

    #[test]
    fn setting_inside_a_value_fails() {
        let mut t: Table = toml::from_str("[run]\nduration = \"1s\"").unwrap();
        let e = apply(&mut t, &[("run.duration.x".into(), "1".into())]).unwrap_err();
        assert_eq!(e.key, "run.duration.x");
        assert!(e.reason.contains("not a table"));
        let e = apply(&mut t, &[("run..x".into(), "1".into())]).unwrap_err();
        assert!(e.reason.contains("dotted"));
    }
}

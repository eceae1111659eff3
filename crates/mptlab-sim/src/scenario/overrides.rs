//! `--set key.path=value` overrides: each value is read as a TOML value (`5`, `true`,
//! `["a", "b"]`, `{ kind = "codel" }`), or taken as a plain string when it is not one
//! (`30s`, `cubic`), and stored at the dotted key, creating missing tables. Validation runs
//! afterwards as for any scenario, so an override of an unknown key is rejected there.

use super::errors::{fail, Result};
use toml::{Table, Value};

/// Parse an override value: a TOML value if it is one, else a plain string.
pub fn parse_value(raw: &str) -> Value {
    match toml::from_str::<Table>(&format!("v = {raw}")) {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| Value::String(raw.to_string())),
        Err(_) => Value::String(raw.trim().to_string()),
    }
}

/// Apply each `(key, value)` in order.
pub fn apply(root: &mut Table, overrides: &[(String, String)]) -> Result<()> {
    for (key, raw) in overrides {
        set(root, key.trim(), parse_value(raw))?;
    }
    Ok(())
}

fn set(root: &mut Table, key: &str, value: Value) -> Result<()> {
    let parts: Vec<&str> = key.split('.').map(str::trim).collect();
    if parts.iter().any(|p| p.is_empty()) {
        return fail(
            if key.is_empty() { "<override>" } else { key },
            "override key must be a dotted path such as flows.bulk.cc",
        );
    }
    let (last, parents) = parts.split_last().expect("split yields at least one part");
    let mut table = root;
    for (i, part) in parents.iter().enumerate() {
        let entry = table
            .entry(part.to_string())
            .or_insert_with(|| Value::Table(Table::new()));
        table = match entry {
            Value::Table(t) => t,
            _ => {
                return fail(
                    key,
                    format!(
                        "cannot set inside `{}`: it is not a table",
                        parts[..=i].join(".")
                    ),
                )
            }
        };
    }
    table.insert(last.to_string(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_toml_or_plain_strings() {
        assert_eq!(parse_value("5"), Value::Integer(5));
        assert_eq!(parse_value("true"), Value::Boolean(true));
        assert_eq!(parse_value("\"x\""), Value::String("x".into()));
        assert_eq!(parse_value("30s"), Value::String("30s".into()));
        assert_eq!(parse_value("cubic"), Value::String("cubic".into()));
        assert!(matches!(parse_value("[\"a\", \"b\"]"), Value::Array(_)));
        assert!(matches!(
            parse_value("{ kind = \"codel\" }"),
            Value::Table(_)
        ));
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

//! Unit-carrying quantities of the scenario format: parsing `"2.5Mbps"`, `"10ms"`, `"1500B"`,
//! `"1bdp"` into exact integers, and formatting them back in one canonical spelling (the largest
//! unit that divides the value exactly) so equal values always print alike.
//!
//! Decimals are exact: the number is read as a decimal fraction and must give a whole number of
//! base units (bit/s, ns, bytes), so `"1.5ns"` is an error rather than a silent rounding.

use super::errors::{Result, ScenarioError};
use serde::Serialize;

/// Rate units (SI, ×1000) with their value in bit/s.
pub const RATE_UNITS: &[(&str, u128)] = &[("bps", 1), ("kbps", 1_000), ("Kbps", 1_000), ("Mbps", 1_000_000), ("Gbps", 1_000_000_000)];

/// Time units with their value in ns.
pub const TIME_UNITS: &[(&str, u128)] = &[("ns", 1), ("us", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000), ("min", 60_000_000_000)];

/// Size units (SI ×1000 and binary ×1024) with their value in bytes.
pub const SIZE_UNITS: &[(&str, u128)] = &[
    ("B", 1),
    ("KB", 1_000),
    ("kB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
];

/// Queue-limit units besides sizes and times: packets and bandwidth-delay products.
pub const PACKET_UNITS: &[&str] = &["p", "pkt"];
pub const BDP_UNIT: &str = "bdp";

/// Units used when printing canonical values, largest first.
const RATE_OUT: &[(&str, u64)] = &[("Gbps", 1_000_000_000), ("Mbps", 1_000_000), ("kbps", 1_000), ("bps", 1)];
const TIME_OUT: &[(&str, u64)] = &[("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000), ("ns", 1)];
const SIZE_OUT: &[(&str, u64)] =
    &[("GiB", 1 << 30), ("GB", 1_000_000_000), ("MiB", 1 << 20), ("MB", 1_000_000), ("KiB", 1 << 10), ("KB", 1_000), ("B", 1)];

/// A rate in bit/s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate(pub u64);
/// A time or duration in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dur(pub u64);
/// A size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size(pub u64);

/// A queue limit as written, before BDP resolution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
    /// A multiple of the link direction's bandwidth-delay product.
    Bdp(f64),
    /// The bytes the link direction sends in this time (rate × time).
    Time(u64),
}

/// A non-negative decimal number as written: `mantissa / 10^scale`.
struct Decimal {
    mantissa: u128,
    scale: u32,
}

/// Split `"2.5 Mbps"` into the decimal and the unit. Errors name the problem; the caller's
/// `units` are offered as choices when the unit is missing.
fn split<'a>(key: &str, s: &'a str, what: &str, units: &[&str]) -> Result<(Decimal, &'a str)> {
    let s = s.trim();
    let bad = || ScenarioError::new(key, format!("`{s}` is not a {what}: expected a number followed by a unit")).with_choices(units);
    let body = match s.strip_prefix('-') {
        Some(_) => return Err(ScenarioError::new(key, format!("`{s}` must not be negative"))),
        None => s.strip_prefix('+').unwrap_or(s),
    };
    let end = body.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(body.len());
    let (num, unit) = (&body[..end], body[end..].trim());
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if int.is_empty() && frac.is_empty() || frac.contains('.') {
        return Err(bad());
    }
    if unit.is_empty() {
        return Err(ScenarioError::new(key, format!("`{s}` is missing a unit")).with_choices(units));
    }
    let digits = format!("{int}{frac}");
    let digits = digits.trim_start_matches('0');
    if digits.len() > 30 {
        return Err(ScenarioError::new(key, format!("`{s}` is too large")));
    }
    let mantissa = if digits.is_empty() { 0 } else { digits.parse::<u128>().map_err(|_| bad())? };
    Ok((Decimal { mantissa, scale: frac.len() as u32 }, unit))
}

/// Scale a decimal by a unit multiplier into a whole number of base units.
fn whole(key: &str, s: &str, d: &Decimal, mult: u128, base: &str) -> Result<u64> {
    let too_large = || ScenarioError::new(key, format!("`{}` is too large", s.trim()));
    let num = d.mantissa.checked_mul(mult).ok_or_else(too_large)?;
    let den = 10u128.checked_pow(d.scale).ok_or_else(too_large)?;
    if num % den != 0 {
        return Err(ScenarioError::new(key, format!("`{}` is not a whole number of {base}", s.trim())));
    }
    u64::try_from(num / den).map_err(|_| too_large())
}

fn names(table: &'static [(&'static str, u128)]) -> Vec<&'static str> {
    table.iter().map(|(n, _)| *n).collect()
}

fn parse_in(key: &str, s: &str, what: &str, table: &'static [(&'static str, u128)], base: &str) -> Result<u64> {
    let units = names(table);
    let (d, unit) = split(key, s, what, &units)?;
    match table.iter().find(|(n, _)| *n == unit) {
        Some((_, mult)) => whole(key, s, &d, *mult, base),
        None => Err(ScenarioError::new(key, format!("unknown {what} unit `{unit}`")).with_choices(units)),
    }
}

pub fn parse_rate(key: &str, s: &str) -> Result<Rate> {
    parse_in(key, s, "rate", RATE_UNITS, "bit/s").map(Rate)
}

/// A time, at most `bounds::MAX_TIME` (so sums of times cannot overflow).
pub fn parse_time(key: &str, s: &str) -> Result<Dur> {
    let d = parse_in(key, s, "time", TIME_UNITS, "ns").map(Dur)?;
    super::bounds::time(key, s, d)
}

pub fn parse_size(key: &str, s: &str) -> Result<Size> {
    parse_in(key, s, "size", SIZE_UNITS, "bytes").map(Size)
}

/// All units a queue limit accepts, for error choices.
pub fn limit_units() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = PACKET_UNITS.to_vec();
    v.push(BDP_UNIT);
    v.extend(names(SIZE_UNITS));
    v.extend(names(TIME_UNITS));
    v
}

/// A queue limit: `"<n>p"`/`"<n>pkt"`, a size, `"<x>bdp"` or a time.
pub fn parse_limit(key: &str, s: &str) -> Result<Limit> {
    let units = limit_units();
    let (d, unit) = split(key, s, "queue limit", &units)?;
    if PACKET_UNITS.contains(&unit) {
        return whole(key, s, &d, 1, "packets").map(Limit::Packets);
    }
    if unit == BDP_UNIT {
        return Ok(Limit::Bdp(d.mantissa as f64 / 10f64.powi(d.scale as i32)));
    }
    if let Some((_, mult)) = SIZE_UNITS.iter().find(|(n, _)| *n == unit) {
        return whole(key, s, &d, *mult, "bytes").map(Limit::Bytes);
    }
    if let Some((_, mult)) = TIME_UNITS.iter().find(|(n, _)| *n == unit) {
        let t = whole(key, s, &d, *mult, "ns")?;
        return super::bounds::time(key, s, Dur(t)).map(|t| Limit::Time(t.0));
    }
    Err(ScenarioError::new(key, format!("unknown queue limit unit `{unit}`")).with_choices(units))
}

/// `value` in the largest unit of `table` that divides it exactly; zero in `zero_unit`.
fn format_exact(value: u64, table: &[(&str, u64)], zero_unit: &str) -> String {
    if value == 0 {
        return format!("0{zero_unit}");
    }
    let (unit, mult) = table.iter().find(|(_, m)| value.is_multiple_of(*m)).unwrap_or(&table[table.len() - 1]);
    format!("{}{unit}", value / mult)
}

impl Rate {
    pub fn canonical(self) -> String {
        format_exact(self.0, RATE_OUT, "bps")
    }
}
impl Dur {
    pub fn canonical(self) -> String {
        format_exact(self.0, TIME_OUT, "s")
    }
}
impl Size {
    pub fn canonical(self) -> String {
        format_exact(self.0, SIZE_OUT, "B")
    }
}
impl Limit {
    pub fn canonical(self) -> String {
        match self {
            Limit::Packets(n) => format!("{n}p"),
            Limit::Bytes(b) => Size(b).canonical(),
            Limit::Bdp(x) => format!("{x}{BDP_UNIT}"),
            Limit::Time(t) => Dur(t).canonical(),
        }
    }
}

macro_rules! serialize_canonical {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_str(&self.canonical())
            }
        }
    )*};
}
serialize_canonical!(Rate, Dur, Size, Limit);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_exact() {
        assert_eq!(parse_rate("k", "2.5Mbps").unwrap(), Rate(2_500_000));
        assert_eq!(parse_rate("k", "938Mbps").unwrap(), Rate(938_000_000));
        assert_eq!(parse_rate("k", "10 Kbps").unwrap(), Rate(10_000));
        assert_eq!(parse_time("k", "0.1us").unwrap(), Dur(100));
        assert_eq!(parse_time("k", "2min").unwrap(), Dur(120_000_000_000));
        assert_eq!(parse_size("k", "6MiB").unwrap(), Size(6 << 20));
        assert_eq!(parse_size("k", "1.5KB").unwrap(), Size(1500));
        assert!(parse_time("k", "1.5ns").unwrap_err().reason.contains("whole"));
    }

    #[test]
    fn limits_dispatch_on_unit() {
        assert_eq!(parse_limit("k", "100p").unwrap(), Limit::Packets(100));
        assert_eq!(parse_limit("k", "100pkt").unwrap(), Limit::Packets(100));
        assert_eq!(parse_limit("k", "64KB").unwrap(), Limit::Bytes(64_000));
        assert_eq!(parse_limit("k", "0.5bdp").unwrap(), Limit::Bdp(0.5));
        assert_eq!(parse_limit("k", "100ms").unwrap(), Limit::Time(100_000_000));
        assert!(parse_limit("k", "3furlongs").unwrap_err().choices.contains(&"bdp".to_string()));
    }

    #[test]
    fn bad_spellings_name_the_problem() {
        let e = parse_rate("links.x.rate", "100Mbit").unwrap_err();
        assert_eq!(e.key, "links.x.rate");
        assert!(e.reason.contains("unit"));
        assert!(e.choices.contains(&"Mbps".to_string()));
        assert!(parse_rate("k", "-1Mbps").unwrap_err().reason.contains("negative"));
        assert!(parse_rate("k", "100").unwrap_err().reason.contains("missing a unit"));
        assert!(parse_rate("k", "Mbps").unwrap_err().reason.contains("not a rate"));
        assert!(parse_rate("k", "1.2.3Mbps").is_err());
        assert!(parse_rate("k", "99999999999999999999Gbps").unwrap_err().reason.contains("large"));
    }

    #[test]
    fn canonical_uses_the_largest_exact_unit() {
        assert_eq!(Rate(100_000_000).canonical(), "100Mbps");
        assert_eq!(Rate(2_500_000).canonical(), "2500kbps");
        assert_eq!(Dur(60_000_000_000).canonical(), "60s");
        assert_eq!(Dur(0).canonical(), "0s");
        assert_eq!(Size(0).canonical(), "0B");
        assert_eq!(Size(1460).canonical(), "1460B");
        assert_eq!(Size(6 << 20).canonical(), "6MiB");
        assert_eq!(Size(4_000_000).canonical(), "4MB");
        assert_eq!(Limit::Bdp(1.0).canonical(), "1bdp");
        assert_eq!(Limit::Bdp(0.25).canonical(), "0.25bdp");
    }
}

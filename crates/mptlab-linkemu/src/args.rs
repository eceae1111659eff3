//! The command line of `mptlab-linkemu` (no argument-parsing crate: seven options do not need one).

use crate::loss::LossSpec;
use std::path::PathBuf;

pub const USAGE: &str =
    "usage: mptlab-linkemu --if-a IF --if-b IF [--delay-ab NS] [--delay-ba NS] [--loss-ab JSON] [--loss-ba JSON] [--seed N] [--stats FILE] [--rt-priority P]
  ab = frames received on IF-a and sent out of IF-b; ba the reverse.
  delays in nanoseconds (default 0); loss as mptlab's resolved loss model (default {\"model\":\"none\"});
  seed for the loss draws (default 1); stats written as JSON every second and on SIGTERM/SIGINT;
  forwarding threads run SCHED_FIFO at priority P (default 10; 0 = ordinary scheduling).";

#[derive(Debug, PartialEq)]
pub struct Args {
    pub if_a: String,
    pub if_b: String,
    pub delay_ab_ns: u64,
    pub delay_ba_ns: u64,
    pub loss_ab: LossSpec,
    pub loss_ba: LossSpec,
    pub seed: u64,
    pub stats: Option<PathBuf>,
    /// SCHED_FIFO priority of the forwarding threads; 0 leaves them SCHED_OTHER.
    pub rt_priority: u8,
}

/// Parse the arguments after the program name; the error is one line naming the option.
pub fn parse<I: IntoIterator<Item = String>>(argv: I) -> Result<Args, String> {
    let (mut if_a, mut if_b, mut stats) = (None, None, None);
    let (mut delay_ab_ns, mut delay_ba_ns, mut seed, mut rt_priority) = (0, 0, 1, 10);
    let (mut loss_ab, mut loss_ba) = (LossSpec::None, LossSpec::None);
    let mut it = argv.into_iter();
    while let Some(opt) = it.next() {
        if opt == "-h" || opt == "--help" {
            return Err(String::new());
        }
        let value = it.next().ok_or_else(|| format!("{opt} needs a value"))?;
        let int = |v: &str| v.parse::<u64>().map_err(|_| format!("{opt} {v}: not a non-negative integer"));
        let loss = |v: &str| LossSpec::parse(v).map_err(|e| format!("{opt}: {e}"));
        match opt.as_str() {
            "--if-a" => if_a = Some(value),
            "--if-b" => if_b = Some(value),
            "--delay-ab" => delay_ab_ns = int(&value)?,
            "--delay-ba" => delay_ba_ns = int(&value)?,
            "--loss-ab" => loss_ab = loss(&value)?,
            "--loss-ba" => loss_ba = loss(&value)?,
            "--seed" => seed = int(&value)?,
            "--stats" => stats = Some(PathBuf::from(value)),
            "--rt-priority" => {
                rt_priority =
                    int(&value)?.try_into().ok().filter(|p| *p <= 99).ok_or_else(|| format!("{opt} {value}: not a priority in 0..=99"))?
            }
            _ => return Err(format!("unknown option {opt}")),
        }
    }
    let if_a = if_a.ok_or("--if-a is required")?;
    let if_b = if_b.ok_or("--if-b is required")?;
    if if_a == if_b {
        return Err(format!("--if-a and --if-b are both {if_a}; they must be two interfaces"));
    }
    // A day is far beyond any link; it also keeps arrival + delay from overflowing.
    for (name, d) in [("--delay-ab", delay_ab_ns), ("--delay-ba", delay_ba_ns)] {
        if d > 86_400_000_000_000 {
            return Err(format!("{name} {d} ns is more than a day"));
        }
    }
    Ok(Args { if_a, if_b, delay_ab_ns, delay_ba_ns, loss_ab, loss_ba, seed, stats, rt_priority })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Args, String> {
        parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn parses_a_full_command_line() {
        let a = p(&[
            "--if-a",
            "la",
            "--if-b",
            "lb",
            "--delay-ab",
            "10000000",
            "--delay-ba",
            "2000000",
            "--loss-ab",
            r#"{"model":"bernoulli","p":0.05}"#,
            "--seed",
            "9",
            "--stats",
            "/tmp/s.json",
        ])
        .unwrap();
        assert_eq!(
            a,
            Args {
                if_a: "la".into(),
                if_b: "lb".into(),
                delay_ab_ns: 10_000_000,
                delay_ba_ns: 2_000_000,
                loss_ab: LossSpec::Bernoulli { p: 0.05 },
                loss_ba: LossSpec::None,
                seed: 9,
                stats: Some("/tmp/s.json".into()),
                rt_priority: 10,
            }
        );
    }

    #[test]
    fn bad_command_lines_say_what_is_wrong() {
        assert_eq!(p(&["--if-a", "x"]).unwrap_err(), "--if-b is required");
        assert_eq!(p(&["--if-a", "x", "--if-b", "x"]).unwrap_err(), "--if-a and --if-b are both x; they must be two interfaces");
        assert_eq!(p(&["--if-a", "x", "--if-b", "y", "--delay-ab", "-1"]).unwrap_err(), "--delay-ab -1: not a non-negative integer");
        assert_eq!(p(&["--if-a", "x", "--if-b", "y", "--delay"]).unwrap_err(), "--delay needs a value");
        assert_eq!(p(&["--if-a", "x", "--if-b", "y", "--rate", "1"]).unwrap_err(), "unknown option --rate");
        assert_eq!(p(&["--if-a", "x", "--if-b", "y", "--rt-priority", "100"]).unwrap_err(), "--rt-priority 100: not a priority in 0..=99");
        assert_eq!(p(&["--if-a", "x", "--if-b", "y", "--rt-priority", "0"]).unwrap().rt_priority, 0);
        assert!(p(&["--if-a", "x", "--if-b", "y", "--loss-ba", "{}"]).unwrap_err().starts_with("--loss-ba: not a loss model"));
    }
}

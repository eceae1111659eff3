//! Command-line parsing for `mptlab-mpquic` (hand-written: two modes, a dozen flags, and every
//! mistake must end in one clear message and exit status 2, which the emulation backend maps to
//! "bad input" just as the simulator's scenario validation does).
//!
//! The names accepted for `--scheduler` and `--cc` are exactly those tquic 1.6.0 parses with
//! `MultipathAlgorithm::from_str` and `CongestionControlAlgorithm::from_str`
//! (`src/multipath_scheduler/multipath_scheduler.rs`, `src/congestion_control/congestion_control.rs`);
//! tquic has no Reno/NewReno, so those names are refused with the list of what it has.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

/// Multipath schedulers tquic 1.6.0 implements (`MultipathAlgorithm`).
pub const SCHEDULERS: [&str; 3] = ["minrtt", "redundant", "roundrobin"];
/// Congestion controllers tquic 1.6.0 implements (`CongestionControlAlgorithm`); `dummy` is its
/// static-window controller for experiments.
pub const CONTROLLERS: [&str; 5] = ["cubic", "bbr", "bbr3", "copa", "dummy"];

pub const USAGE: &str = "usage:
  mptlab-mpquic server --listen IP:PORT [--listen IP:PORT ...] --out FILE [--interval-ms 1000] [--once]
  mptlab-mpquic client --local IP [--local IP ...] --remote IP:PORT
                       --scheduler minrtt|redundant|roundrobin --cc cubic|bbr|bbr3|copa|dummy
                       (--bytes N | --duration-ms N) --out FILE";

#[derive(Debug, Clone, PartialEq)]
pub struct ServerArgs {
    pub listen: Vec<SocketAddr>,
    pub out: PathBuf,
    pub interval_ms: u64,
    /// Exit after the first connection has closed (tests; the emulation backend uses SIGTERM).
    pub once: bool,
}

/// How much the client sends on its one stream.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Amount {
    Bytes(u64),
    DurationMs(u64),
}

#[derive(Debug, Clone, PartialEq)]
pub struct ClientArgs {
    pub locals: Vec<IpAddr>,
    pub remote: SocketAddr,
    pub scheduler: String,
    pub cc: String,
    pub amount: Amount,
    pub out: PathBuf,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Server(ServerArgs),
    Client(ClientArgs),
}

/// Parse the arguments after the program name. `Err` carries the message to print before exiting 2.
pub fn parse(args: &[String]) -> Result<Command, String> {
    let (mode, rest) = args.split_first().ok_or("missing mode: server or client")?;
    let flags = pairs(rest)?;
    match mode.as_str() {
        "server" => parse_server(&flags).map(Command::Server),
        "client" => parse_client(&flags).map(Command::Client),
        other => Err(format!("unknown mode {other:?}: expected server or client")),
    }
}

/// Split `--flag value` pairs; `--once` is the only flag without a value.
fn pairs(rest: &[String]) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let mut it = rest.iter();
    while let Some(flag) = it.next() {
        if !flag.starts_with("--") {
            return Err(format!("unexpected argument {flag:?}"));
        }
        if flag == "--once" {
            out.push((flag.clone(), String::new()));
            continue;
        }
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        out.push((flag.clone(), value.clone()));
    }
    Ok(out)
}

fn check_known(flags: &[(String, String)], known: &[&str]) -> Result<(), String> {
    for (f, _) in flags {
        if !known.contains(&f.as_str()) {
            return Err(format!("unknown flag {f} (known: {})", known.join(", ")));
        }
    }
    Ok(())
}

fn all<'a>(flags: &'a [(String, String)], name: &str) -> Vec<&'a str> {
    flags.iter().filter(|(f, _)| f == name).map(|(_, v)| v.as_str()).collect()
}

fn one<'a>(flags: &'a [(String, String)], name: &str) -> Result<Option<&'a str>, String> {
    match all(flags, name).as_slice() {
        [] => Ok(None),
        [v] => Ok(Some(v)),
        _ => Err(format!("{name} given more than once")),
    }
}

fn required<'a>(flags: &'a [(String, String)], name: &str) -> Result<&'a str, String> {
    one(flags, name)?.ok_or_else(|| format!("missing {name}"))
}

fn positive(name: &str, v: &str) -> Result<u64, String> {
    match v.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{name} must be a positive integer, got {v:?}")),
    }
}

fn sock(name: &str, v: &str) -> Result<SocketAddr, String> {
    let a: SocketAddr = v.parse().map_err(|_| format!("{name} must be IP:PORT, got {v:?}"))?;
    if a.ip().is_unspecified() {
        return Err(format!("{name} must be a specific address, not {v:?} (paths are told apart by address)"));
    }
    Ok(a)
}

fn name_in(flag: &str, v: &str, known: &[&str]) -> Result<String, String> {
    let lower = v.to_ascii_lowercase();
    if known.contains(&lower.as_str()) {
        Ok(lower)
    } else {
        Err(format!("{flag} {v:?} is not one tquic 1.6.0 has (known: {})", known.join(", ")))
    }
}

fn parse_server(flags: &[(String, String)]) -> Result<ServerArgs, String> {
    check_known(flags, &["--listen", "--out", "--interval-ms", "--once"])?;
    let listen = all(flags, "--listen").into_iter().map(|v| sock("--listen", v)).collect::<Result<Vec<_>, _>>()?;
    if listen.is_empty() {
        return Err("missing --listen".into());
    }
    let interval_ms = match one(flags, "--interval-ms")? {
        Some(v) => positive("--interval-ms", v)?,
        None => 1000,
    };
    Ok(ServerArgs { listen, out: PathBuf::from(required(flags, "--out")?), interval_ms, once: one(flags, "--once")?.is_some() })
}

fn parse_client(flags: &[(String, String)]) -> Result<ClientArgs, String> {
    check_known(flags, &["--local", "--remote", "--scheduler", "--cc", "--bytes", "--duration-ms", "--out"])?;
    let locals = all(flags, "--local")
        .into_iter()
        .map(|v| v.parse::<IpAddr>().map_err(|_| format!("--local must be an IP address, got {v:?}")))
        .collect::<Result<Vec<_>, _>>()?;
    if locals.is_empty() {
        return Err("missing --local".into());
    }
    let remote = sock("--remote", required(flags, "--remote")?)?;
    for l in &locals {
        if l.is_ipv4() != remote.is_ipv4() {
            return Err(format!("--local {l} and --remote {remote} are of different address families"));
        }
    }
    let mut seen = locals.clone();
    seen.sort();
    seen.dedup();
    if seen.len() != locals.len() {
        return Err("--local addresses must be distinct (one path each)".into());
    }
    let amount = match (one(flags, "--bytes")?, one(flags, "--duration-ms")?) {
        (Some(b), None) => Amount::Bytes(positive("--bytes", b)?),
        (None, Some(d)) => Amount::DurationMs(positive("--duration-ms", d)?),
        _ => return Err("give exactly one of --bytes N and --duration-ms N".into()),
    };
    Ok(ClientArgs {
        locals,
        remote,
        scheduler: name_in("--scheduler", required(flags, "--scheduler")?, &SCHEDULERS)?,
        cc: name_in("--cc", required(flags, "--cc")?, &CONTROLLERS)?,
        amount,
        out: PathBuf::from(required(flags, "--out")?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn server_defaults_and_repeats() {
        let c = parse(&v("server --listen 10.0.0.1:4433 --listen 10.0.1.1:4433 --out s.json")).unwrap();
        let Command::Server(s) = c else { panic!("not a server") };
        assert_eq!(s.listen.len(), 2);
        assert_eq!(s.interval_ms, 1000);
        assert!(!s.once);
    }

    #[test]
    fn client_full() {
        let c = parse(&v(
            "client --local 127.0.0.1 --local 127.0.0.2 --remote 127.0.0.1:9 --scheduler MinRTT --cc bbr3 --bytes 8 --out c.json",
        ))
        .unwrap();
        let Command::Client(a) = c else { panic!("not a client") };
        assert_eq!(a.scheduler, "minrtt");
        assert_eq!(a.cc, "bbr3");
        assert_eq!(a.amount, Amount::Bytes(8));
        assert_eq!(a.locals.len(), 2);
    }

    #[test]
    fn errors_name_the_problem() {
        let base = "client --local 127.0.0.1 --remote 127.0.0.1:9 --scheduler minrtt --out c.json";
        let e = parse(&v(&format!("{base} --cc reno --bytes 1"))).unwrap_err();
        assert!(e.contains("reno") && e.contains("cubic, bbr, bbr3, copa, dummy"), "{e}");
        let e = parse(&v(&format!("{base} --cc cubic"))).unwrap_err();
        assert!(e.contains("exactly one of --bytes"), "{e}");
        let e = parse(&v(&format!("{base} --cc cubic --bytes 1 --duration-ms 5"))).unwrap_err();
        assert!(e.contains("exactly one of --bytes"), "{e}");
        let e = parse(&v(&format!("{base} --cc cubic --bytes 0"))).unwrap_err();
        assert!(e.contains("positive"), "{e}");
        let e = parse(&v("server --listen 0.0.0.0:1 --out x")).unwrap_err();
        assert!(e.contains("specific address"), "{e}");
        let e = parse(&v("server --listen 127.0.0.1:1 --out x --bogus 1")).unwrap_err();
        assert!(e.contains("unknown flag --bogus"), "{e}");
        let e = parse(&v("server --listen 127.0.0.1:1")).unwrap_err();
        assert_eq!(e, "missing --out");
        let e = parse(&v("relay")).unwrap_err();
        assert!(e.contains("unknown mode"), "{e}");
        let e = parse(&v(&format!("{base} --local 127.0.0.1 --cc cubic --bytes 1"))).unwrap_err();
        assert!(e.contains("distinct"), "{e}");
    }
}

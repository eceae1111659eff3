//! mptlab-mpquic: real multipath QUIC for mptlab's emulation backend (issue 24, item 2).
//!
//! A bulk client and a sink server on the `tquic` crate, version 1.6.0 (Tencent; its multipath
//! support follows draft-ietf-quic-multipath and is marked experimental upstream). tquic offers
//! the multipath schedulers MinRtt, Redundant and RoundRobin (`MultipathAlgorithm`) and the
//! congestion controllers CUBIC, BBR (v1), BBRv3, COPA and Dummy (a fixed window)
//! (`CongestionControlAlgorithm`); it has no Reno. The emulation backend starts one server per
//! flow in the receiving namespace and one client in the sending namespace, then reads both
//! JSON files.
//!
//!   mptlab-mpquic server --listen IP:PORT [--listen IP:PORT ...] --out FILE [--interval-ms 1000] [--once]
//!   mptlab-mpquic client --local IP [--local IP ...] --remote IP:PORT --scheduler S --cc C
//!                        (--bytes N | --duration-ms N) --out FILE
//!
//! Exit status: 0 success; 1 run-time failure (bind, handshake, delivery not confirmed);
//! 2 bad arguments. Warnings go to stderr; MPTLAB_MPQUIC_DEBUG=1 adds tquic's debug log.

mod args;
mod client;
mod io;
mod server;

/// The tquic version this binary was written against and pins in Cargo.toml.
pub const TQUIC_VERSION: &str = "1.6.0";

/// Minimal stderr logger: tquic logs through the `log` facade.
struct StderrLog(log::LevelFilter);

impl log::Log for StderrLog {
    fn enabled(&self, m: &log::Metadata) -> bool {
        m.level() <= self.0
    }
    fn log(&self, r: &log::Record) {
        if self.enabled(r.metadata()) {
            eprintln!("mptlab-mpquic {} {}: {}", r.level(), r.target(), r.args());
        }
    }
    fn flush(&self) {}
}

fn main() {
    let level = if std::env::var_os("MPTLAB_MPQUIC_DEBUG").is_some() { log::LevelFilter::Debug } else { log::LevelFilter::Warn };
    let logger: &'static StderrLog = Box::leak(Box::new(StderrLog(level)));
    if log::set_logger(logger).is_ok() {
        log::set_max_level(level);
    }

    let argv: Vec<String> = std::env::args().skip(1).collect();
    let cmd = match args::parse(&argv) {
        Ok(c) => c,
        Err(msg) => {
            eprintln!("mptlab-mpquic: {msg}\n{}", args::USAGE);
            std::process::exit(2);
        }
    };
    let code = match cmd {
        args::Command::Server(a) => match server::run(&a) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("mptlab-mpquic server: {e}");
                1
            }
        },
        args::Command::Client(a) => match client::run(&a) {
            Ok(true) => 0,
            Ok(false) => {
                eprintln!("mptlab-mpquic client: the server did not confirm delivery (see {})", a.out.display());
                1
            }
            Err(e) => {
                eprintln!("mptlab-mpquic client: {e}");
                1
            }
        },
    };
    std::process::exit(code);
}

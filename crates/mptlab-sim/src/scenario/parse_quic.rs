//! `protocol = "quic"` and `protocol = "mpquic"` flows: the congestion controller (per path),
//! the scheduler and paths (mpquic), and the `quic = { ... }` connection options
//! (`transport::quic::QuicConfig`), with mpquic's per-path `priorities` and `backup` (as mptcp's).

use super::errors::{fail, Result};
use super::parse_flow::{congestion_controller, path_prefs, paths, scheduler, PrefLists};
use super::raw::Transport;
use super::reader::{self as r, Tbl};
use crate::transport::quic::{QuicConfig, MAX_PATHS};
use toml::Value;

const QUIC: &[&str] = &[
    "max_udp_payload",
    "cid_len",
    "max_data",
    "max_stream_data",
    "send_buffer",
    "max_ack_delay",
    "ack_eliciting_threshold",
    "streams",
    "handshake",
    "failure_ptos",
    "pto_probe_packets",
    "path_open_delay",
    "priorities",
    "backup",
];

/// The scheduler of a multipath QUIC flow when none is given: MinRTT (the default of the
/// MPQUIC implementations the seeds use: picoquic, and the ns-3 module of seed 002).
pub const MPQUIC_SCHEDULER: &str = "minrtt";

pub fn quic_transport(t: &Tbl, multipath: bool) -> Result<Transport> {
    for (k, instead) in [("tcp", "quic"), ("packet_size", "quic.max_udp_payload")] {
        if t.has(k) {
            return fail(t.key(k), format!("not used by quic flows: set {instead}"));
        }
    }
    if multipath && t.has("path") {
        return fail(t.key("path"), "mpquic flows list their paths in `paths` (a list of node lists)");
    }
    let cc = congestion_controller(t)?;
    let scheduler = scheduler(t, MPQUIC_SCHEDULER)?;
    let paths = if multipath { paths(t, MAX_PATHS, "an mpquic flow")? } else { None };
    let none = (QuicConfig { multipath, ..QuicConfig::default() }, (None, None));
    let (quic, (priorities, backup)) = t.or("quic", none, |k, v| quic_opts(k, v, multipath))?;
    Ok(Transport::Quic { cc, scheduler, quic, paths, priorities, backup })
}

/// The `quic` table: the connection options, and for mpquic the per-path `priorities` and
/// `backup` lists (as `mptcp`'s).
fn quic_opts(key: &str, v: &Value, multipath: bool) -> Result<(QuicConfig, PrefLists)> {
    let t = Tbl::new(key, v, QUIC)?;
    for k in ["priorities", "backup"] {
        if !multipath && t.has(k) {
            return fail(t.key(k), "only for mpquic flows (one entry per path)");
        }
    }
    let lists = path_prefs(&t, MAX_PATHS)?;
    let def = QuicConfig { multipath, ..QuicConfig::default() };
    let small = |k: &str, v: &Value, lo: i64, hi: i64| r::int(k, v, lo, hi).map(|n| n as u32);
    let window = |k: &str, v: &Value| {
        let s = r::size(k, v)?;
        if s.0 < 1500 {
            return fail(k, "a flow-control window must hold at least one packet (1500 B)");
        }
        Ok(s.0)
    };
    let quic = QuicConfig {
        max_udp_payload: t.or("max_udp_payload", def.max_udp_payload, |k, v| {
            let s = r::size(k, v)?;
            if !(1200..=65_527).contains(&s.0) {
                return fail(k, "must be 1200 to 65527 bytes (RFC 9000 §18.2: at least 1200)");
            }
            Ok(s.0 as u32)
        })?,
        cid_len: t.or("cid_len", def.cid_len, |k, v| small(k, v, 0, 20))?,
        max_data: t.or("max_data", def.max_data, window)?,
        max_stream_data: t.or("max_stream_data", def.max_stream_data, window)?,
        send_buffer: t.or("send_buffer", def.send_buffer, |k, v| {
            let s = r::size(k, v)?;
            if s.0 < 1 {
                return fail(k, "a send buffer must hold at least one byte");
            }
            Ok(s.0)
        })?,
        max_ack_delay: t.or("max_ack_delay", def.max_ack_delay, |k, v| {
            let d = r::time(k, v)?;
            if d.0 >= 1 << 44 {
                return fail(k, "must be below 2^14 ms (RFC 9000 §18.2)");
            }
            Ok(d.0)
        })?,
        ack_eliciting_threshold: t.or("ack_eliciting_threshold", def.ack_eliciting_threshold, |k, v| small(k, v, 1, 1000))?,
        streams: t.or("streams", def.streams, |k, v| small(k, v, 1, 1024))?,
        handshake: t.or("handshake", def.handshake, r::boolean)?,
        failure_ptos: t.or("failure_ptos", def.failure_ptos, |k, v| small(k, v, 1, 100))?,
        pto_probe_packets: t.or("pto_probe_packets", def.pto_probe_packets as u32, |k, v| small(k, v, 1, 2))? as u8,
        path_open_delay: t.or("path_open_delay", def.path_open_delay, |k, v| r::time(k, v).map(|d| d.0))?,
        ..def
    };
    Ok((quic, lists))
}

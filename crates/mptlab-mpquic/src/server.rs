//! `mptlab-mpquic server`: a multipath-QUIC sink. It accepts connections on every `--listen`
//! address, reads every stream to its end, and records what the receiving application got:
//! bytes per interval (bins start at the connection's creation on this side, i.e. its first
//! Initial packet), total bytes, CLOCK_MONOTONIC times of establishment, first and last byte, and
//! tquic's per-path statistics. When a stream's FIN arrives the server closes the connection with
//! application error 0 ("done"), which tells the client everything was delivered.
//!
//! tquic 1.6.0 callbacks used (`TransportHandler` in `src/lib.rs`): `on_conn_created`,
//! `on_conn_established`, `on_stream_readable` (→ `Connection::stream_read` until `Done`),
//! `on_conn_closed` (the connection is still readable there, so its path stats are taken then).
//! The JSON file is rewritten atomically after every closed connection and on exit, including
//! SIGTERM/SIGINT (the flag is set by signal-hook and seen by the event loop within 50 ms).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use tquic::{Connection, Endpoint, TransportHandler};

use crate::args::ServerArgs;
use crate::io::{self, mono_now};

/// What one connection delivered.
struct ConnRecord {
    created: f64,
    established: Option<f64>,
    first_byte: Option<f64>,
    last_byte: Option<f64>,
    fin: bool,
    bytes: u64,
    /// Bytes delivered in [created + k·interval, created + (k+1)·interval).
    bins: Vec<u64>,
    paths: Vec<Value>,
    closed: Option<f64>,
    close: Value,
}

impl ConnRecord {
    fn to_json(&self) -> Value {
        json!({
            "created_mono": self.created,
            "established_mono": self.established,
            "first_byte_mono": self.first_byte,
            "last_byte_mono": self.last_byte,
            "closed_mono": self.closed,
            "fin_received": self.fin,
            "bytes": self.bytes,
            "interval_bytes": self.bins,
            "paths": self.paths,
            "close": self.close,
        })
    }
}

struct State {
    interval_s: f64,
    /// Open connections by tquic's endpoint index.
    open: BTreeMap<u64, ConnRecord>,
    finished: Vec<ConnRecord>,
}

impl State {
    fn record(&mut self, conn: &Connection) -> Option<&mut ConnRecord> {
        self.open.get_mut(&conn.index()?)
    }
}

struct Handler {
    state: Rc<RefCell<State>>,
    buf: Vec<u8>,
}

impl TransportHandler for Handler {
    fn on_conn_created(&mut self, conn: &mut Connection) {
        if let Some(idx) = conn.index() {
            let rec = ConnRecord {
                created: mono_now(),
                established: None,
                first_byte: None,
                last_byte: None,
                fin: false,
                bytes: 0,
                bins: Vec::new(),
                paths: Vec::new(),
                closed: None,
                close: Value::Null,
            };
            self.state.borrow_mut().open.insert(idx, rec);
        }
    }

    fn on_conn_established(&mut self, conn: &mut Connection) {
        if let Some(r) = self.state.borrow_mut().record(conn) {
            r.established = Some(mono_now());
        }
    }

    fn on_conn_closed(&mut self, conn: &mut Connection) {
        let paths = io::path_stats(conn);
        let close = io::close_reason(conn);
        let mut st = self.state.borrow_mut();
        if let Some(idx) = conn.index() {
            if let Some(mut r) = st.open.remove(&idx) {
                r.paths = paths;
                r.close = close;
                r.closed = Some(mono_now());
                st.finished.push(r);
            }
        }
    }

    fn on_stream_created(&mut self, _conn: &mut Connection, _stream_id: u64) {}

    fn on_stream_readable(&mut self, conn: &mut Connection, stream_id: u64) {
        let mut got = 0u64;
        let mut fin = false;
        loop {
            match conn.stream_read(stream_id, &mut self.buf) {
                Ok((n, f)) => {
                    got += n as u64;
                    if f {
                        fin = true;
                        break;
                    }
                }
                Err(tquic::Error::Done) => break,
                Err(e) => {
                    log::warn!("stream {stream_id} read: {e:?}");
                    break;
                }
            }
        }
        let now = mono_now();
        let mut st = self.state.borrow_mut();
        let interval_s = st.interval_s;
        if let Some(r) = st.record(conn) {
            if got > 0 {
                r.first_byte.get_or_insert(now);
                r.last_byte = Some(now);
                r.bytes += got;
                let bin = ((now - r.created) / interval_s).floor().max(0.0) as usize;
                if r.bins.len() <= bin {
                    r.bins.resize(bin + 1, 0);
                }
                r.bins[bin] += got;
            }
            r.fin |= fin;
        }
        drop(st);
        if fin {
            // Everything the client sent is here: close with application code 0.
            if let Err(e) = conn.close(true, 0, b"done") {
                log::warn!("close: {e:?}");
            }
        }
    }

    fn on_stream_writable(&mut self, _conn: &mut Connection, _stream_id: u64) {}

    fn on_stream_closed(&mut self, _conn: &mut Connection, _stream_id: u64) {}

    fn on_new_token(&mut self, _conn: &mut Connection, _token: Vec<u8>) {}
}

fn report(args: &ServerArgs, st: &State, open_paths: &BTreeMap<u64, Vec<Value>>) -> Value {
    let mut conns: Vec<Value> = st.finished.iter().map(ConnRecord::to_json).collect();
    for (idx, r) in &st.open {
        let mut v = r.to_json();
        v["paths"] = json!(open_paths.get(idx).cloned().unwrap_or_default());
        conns.push(v);
    }
    // The "primary" connection is the one whose first byte came first: its bins are the flow's.
    let all: Vec<&ConnRecord> = st.finished.iter().chain(st.open.values()).collect();
    let primary = all
        .iter()
        .filter(|r| r.first_byte.is_some())
        .min_by(|a, b| a.first_byte.partial_cmp(&b.first_byte).unwrap_or(std::cmp::Ordering::Equal));
    json!({
        "role": "server",
        "implementation": "tquic",
        "tquic_version": crate::TQUIC_VERSION,
        "listen": args.listen.iter().map(|a| a.to_string()).collect::<Vec<_>>(),
        "interval_s": st.interval_s,
        "total_bytes": all.iter().map(|r| r.bytes).sum::<u64>(),
        "bins_start_mono": primary.map(|r| r.created),
        "established_mono": primary.and_then(|r| r.established),
        "first_byte_mono": primary.and_then(|r| r.first_byte),
        "last_byte_mono": primary.and_then(|r| r.last_byte),
        "interval_bytes": primary.map(|r| r.bins.clone()).unwrap_or_default(),
        "connections": conns,
        "written_mono": mono_now(),
    })
}

/// Run the server until SIGTERM/SIGINT (or, with `--once`, until its first connection closed).
pub fn run(args: &ServerArgs) -> Result<(), String> {
    let term = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(sig, Arc::clone(&term)).map_err(|e| format!("signal handler: {e}"))?;
    }
    let config = io::base_config(io::server_tls()?)?;
    let mut socks = io::bind_all(&args.listen).map_err(|e| e.to_string())?;
    let mut poll = mio::Poll::new().map_err(|e| e.to_string())?;
    io::register(&poll, &mut socks).map_err(|e| e.to_string())?;
    let socks = io::Sockets::new(socks).map_err(|e| e.to_string())?;

    let state = Rc::new(RefCell::new(State { interval_s: args.interval_ms as f64 / 1000.0, open: BTreeMap::new(), finished: Vec::new() }));
    let handler = Handler { state: Rc::clone(&state), buf: vec![0u8; 1 << 16] };
    let mut ep = Endpoint::new(Box::new(config), true, Box::new(handler), Rc::new(io::Sender(Rc::clone(&socks))));

    let empty = BTreeMap::new();
    io::write_json_atomic(&args.out, &report(args, &state.borrow(), &empty)).map_err(|e| e.to_string())?;
    let mut written_finished = 0;
    let result = io::drive(&mut ep, &mut poll, &socks, |_| {
        let st = state.borrow();
        if st.finished.len() > written_finished {
            written_finished = st.finished.len();
            if let Err(e) = io::write_json_atomic(&args.out, &report(args, &st, &empty)) {
                log::warn!("{}: {e}", args.out.display());
            }
        }
        term.load(Ordering::Relaxed) || (args.once && !st.finished.is_empty())
    });

    // Exit (signal, --once or error): snapshot still-open connections' paths, then write.
    let mut open_paths = BTreeMap::new();
    let idxs: Vec<u64> = state.borrow().open.keys().copied().collect();
    for idx in idxs {
        if let Some(conn) = ep.conn_get_mut(idx) {
            open_paths.insert(idx, io::path_stats(conn));
        }
    }
    io::write_json_atomic(&args.out, &report(args, &state.borrow(), &open_paths)).map_err(|e| e.to_string())?;
    result.map_err(|e| e.to_string())
}

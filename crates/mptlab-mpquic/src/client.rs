//! `mptlab-mpquic client`: one multipath-QUIC connection that sends bulk data on one stream.
//!
//! Sequence (tquic 1.6.0 calls in brackets):
//! 1. Connect from the first `--local` address to `--remote` [`Endpoint::connect`], with
//!    multipath enabled [`Config::enable_multipath`], the chosen scheduler
//!    [`Config::set_multipath_algorithm`: MinRtt | Redundant | RoundRobin] and congestion
//!    controller [`Config::set_congestion_control_algorithm`: Cubic | Bbr | Bbr3 | Copa | Dummy],
//!    which tquic instantiates per path.
//! 2. On handshake completion [`TransportHandler::on_conn_established`]: open one more path from
//!    each further local address [`Connection::add_path(local, remote)`; tquic validates it with
//!    PATH_CHALLENGE and assigns a connection ID as the server issues them], and open a
//!    bidirectional stream [`Connection::stream_bidi_new`].
//! 3. Write `--bytes N` (then FIN), or write for `--duration-ms` from the handshake's completion
//!    (then FIN), whenever the stream has room [`Connection::stream_write`,
//!    `on_stream_writable`]; the scheduler spreads the stream's packets over the validated paths.
//! 4. The server closes the connection with application code 0 when it has read the FIN; that
//!    close [`on_conn_closed`, `Connection::peer_error`] is the proof of delivery. Per-path
//!    stats are read there [`Connection::paths_iter`, `get_path_stats`].
//!
//! Exit status: 0 when the server confirmed delivery, 1 otherwise (timeout, reset, refused); the
//! JSON is written in both cases, and on SIGTERM/SIGINT.

use std::cell::RefCell;
use std::net::SocketAddr;
use std::rc::Rc;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use serde_json::{json, Value};
use tquic::{CongestionControlAlgorithm, Connection, Endpoint, MultipathAlgorithm, TransportHandler};

use crate::args::{Amount, ClientArgs};
use crate::io::{self, mono_now};

/// Size of one `stream_write` call; tquic takes what fits and asks again via `on_stream_writable`.
const CHUNK: usize = 64 * 1024;

#[derive(Default)]
struct State {
    established: Option<f64>,
    stream: Option<u64>,
    written: u64,
    fin_sent: Option<f64>,
    closed: Option<f64>,
    delivered: bool,
    paths: Vec<Value>,
    close: Value,
    added_paths: Vec<Value>,
}

struct Handler {
    state: Rc<RefCell<State>>,
    extra_locals: Vec<SocketAddr>,
    remote: SocketAddr,
    amount: Amount,
    data: Bytes,
}

impl Handler {
    /// Write as much as the stream takes; add FIN once the byte count or the duration is reached.
    fn pump(&self, conn: &mut Connection) {
        let mut st = self.state.borrow_mut();
        let (Some(sid), None) = (st.stream, st.fin_sent) else { return };
        loop {
            let (len, last) = match self.amount {
                Amount::Bytes(n) => {
                    let left = n - st.written;
                    let len = left.min(CHUNK as u64) as usize;
                    (len, left == len as u64)
                }
                Amount::DurationMs(d) => {
                    let start = st.established.unwrap_or_else(mono_now);
                    if mono_now() - start >= d as f64 / 1000.0 {
                        (0, true)
                    } else {
                        (CHUNK, false)
                    }
                }
            };
            match conn.stream_write(sid, self.data.slice(..len), last) {
                Ok(n) => {
                    st.written += n as u64;
                    if last && n == len {
                        st.fin_sent = Some(mono_now());
                        let _ = conn.stream_want_write(sid, false);
                        return;
                    }
                    if n < len {
                        return; // stream full: wait for on_stream_writable
                    }
                }
                Err(tquic::Error::Done) => return,
                Err(e) => {
                    log::warn!("stream_write: {e:?}");
                    let _ = conn.close(true, 1, b"write failed");
                    return;
                }
            }
        }
    }
}

impl TransportHandler for Handler {
    fn on_conn_created(&mut self, _conn: &mut Connection) {}

    fn on_conn_established(&mut self, conn: &mut Connection) {
        let now = mono_now();
        let sid = {
            let mut st = self.state.borrow_mut();
            st.established = Some(now);
            for local in &self.extra_locals {
                let r = conn.add_path(*local, self.remote);
                st.added_paths.push(json!({
                    "local": local.to_string(),
                    "remote": self.remote.to_string(),
                    "result": match r { Ok(id) => format!("path {id}"), Err(e) => format!("error: {e:?}") },
                }));
            }
            match conn.stream_bidi_new(0, false) {
                Ok(sid) => {
                    st.stream = Some(sid);
                    Some(sid)
                }
                Err(e) => {
                    log::warn!("stream_bidi_new: {e:?}");
                    None
                }
            }
        };
        if sid.is_some() {
            self.pump(conn);
        } else {
            let _ = conn.close(true, 1, b"no stream");
        }
    }

    fn on_conn_closed(&mut self, conn: &mut Connection) {
        let paths = io::path_stats(conn);
        let close = io::close_reason(conn);
        let delivered = matches!(conn.peer_error(), Some(e) if e.is_app && e.error_code == 0);
        let mut st = self.state.borrow_mut();
        st.paths = paths;
        st.close = close;
        st.closed = Some(mono_now());
        st.delivered = delivered && st.fin_sent.is_some();
    }

    fn on_stream_created(&mut self, _conn: &mut Connection, _stream_id: u64) {}

    fn on_stream_readable(&mut self, conn: &mut Connection, stream_id: u64) {
        // The server sends nothing on the stream; drain whatever arrives so it cannot block.
        let mut buf = [0u8; 4096];
        while let Ok((_, false)) = conn.stream_read(stream_id, &mut buf) {}
    }

    fn on_stream_writable(&mut self, conn: &mut Connection, _stream_id: u64) {
        self.pump(conn);
    }

    fn on_stream_closed(&mut self, _conn: &mut Connection, _stream_id: u64) {}

    fn on_new_token(&mut self, _conn: &mut Connection, _token: Vec<u8>) {}
}

fn report(args: &ClientArgs, start: f64, st: &State, paths: Vec<Value>, socks: &io::Sockets) -> Value {
    let (mode, amount) = match args.amount {
        Amount::Bytes(n) => ("bytes", n),
        Amount::DurationMs(d) => ("duration_ms", d),
    };
    json!({
        "role": "client",
        "implementation": "tquic",
        "tquic_version": crate::TQUIC_VERSION,
        "scheduler": args.scheduler,
        "cc": args.cc,
        "multipath": true,
        "locals": socks.locals.iter().map(|a| a.to_string()).collect::<Vec<_>>(),
        "remote": args.remote.to_string(),
        "mode": mode,
        "amount": amount,
        "start_mono": start,
        "established_mono": st.established,
        "fin_sent_mono": st.fin_sent,
        "closed_mono": st.closed,
        "bytes_written": st.written,
        "delivered": st.delivered,
        "added_paths": st.added_paths,
        "paths": paths,
        "close": st.close,
        "send_errors": socks.send_errors.get(),
    })
}

/// Run the client; `Ok(true)` when the server confirmed delivery of everything written.
pub fn run(args: &ClientArgs) -> Result<bool, String> {
    let term = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(sig, Arc::clone(&term)).map_err(|e| format!("signal handler: {e}"))?;
    }
    let mut config = io::base_config(io::client_tls()?)?;
    // The names were checked against args::SCHEDULERS / CONTROLLERS, which are tquic's own names.
    let sched = MultipathAlgorithm::from_str(&args.scheduler).map_err(|e| format!("--scheduler: {e:?}"))?;
    let cc = CongestionControlAlgorithm::from_str(&args.cc).map_err(|e| format!("--cc: {e:?}"))?;
    config.set_multipath_algorithm(sched);
    config.set_congestion_control_algorithm(cc);

    let binds: Vec<SocketAddr> = args.locals.iter().map(|ip| SocketAddr::new(*ip, 0)).collect();
    let mut socks = io::bind_all(&binds).map_err(|e| e.to_string())?;
    let mut poll = mio::Poll::new().map_err(|e| e.to_string())?;
    io::register(&poll, &mut socks).map_err(|e| e.to_string())?;
    let socks = io::Sockets::new(socks).map_err(|e| e.to_string())?;

    let state = Rc::new(RefCell::new(State::default()));
    let handler = Handler {
        state: Rc::clone(&state),
        extra_locals: socks.locals[1..].to_vec(),
        remote: args.remote,
        amount: args.amount,
        data: Bytes::from(vec![b'm'; CHUNK]),
    };
    let mut ep = Endpoint::new(Box::new(config), false, Box::new(handler), Rc::new(io::Sender(Rc::clone(&socks))));
    let start = mono_now();
    let idx = ep.connect(socks.locals[0], args.remote, Some("mptlab.invalid"), None, None, None).map_err(|e| format!("connect: {e:?}"))?;

    let result = io::drive(&mut ep, &mut poll, &socks, |_| term.load(Ordering::Relaxed) || state.borrow().closed.is_some());
    // On a signal the connection is still open: take its path stats from the endpoint.
    let paths = match ep.conn_get_mut(idx) {
        Some(conn) if state.borrow().closed.is_none() => io::path_stats(conn),
        _ => state.borrow().paths.clone(),
    };
    let st = state.borrow();
    io::write_json_atomic(&args.out, &report(args, start, &st, paths, &socks)).map_err(|e| e.to_string())?;
    result.map_err(|e| e.to_string())?;
    Ok(st.delivered)
}

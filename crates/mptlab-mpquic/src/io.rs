//! The I/O around tquic's sans-IO `Endpoint`: UDP sockets (one per local address, so every
//! multipath QUIC path has its own 4-tuple), the packet sender tquic calls back, the event loop,
//! the clock used in the JSON outputs, TLS setup and atomic JSON files.
//!
//! tquic 1.6.0 API as used here (`src/endpoint.rs`, `src/lib.rs`):
//! - `Endpoint::new(config, is_server, handler, sender)`: the endpoint owns all connections;
//!   `handler: TransportHandler` receives connection/stream events, `sender: PacketSendHandler`
//!   is asked to put datagrams on the wire (`on_packets_send`, each with a `PacketInfo` naming
//!   the path's local `src` and remote `dst`; returning fewer than given makes tquic retry later).
//! - `Endpoint::recv(buf, &PacketInfo)` feeds one received datagram (src = peer, dst = our socket).
//! - `Endpoint::process_connections()` runs handshakes, fires the handler's callbacks and sends.
//! - `Endpoint::timeout()` / `on_timeout(now)`: the next timer deadline and firing it (loss
//!   detection, pacing, idle timeout).
//!
//! The time stamps written are CLOCK_MONOTONIC seconds: the clock is per boot, not per network
//! namespace, so client and server in different namespaces read the same clock.

use std::cell::Cell;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};

use mio::net::UdpSocket;
use mio::{Events, Interest, Poll, Token};
use serde_json::{json, Value};
use tquic::{Connection, Endpoint, PacketInfo, PacketSendHandler};

/// Longest sleep in the event loop, so SIGTERM and "done" are noticed promptly.
const MAX_WAIT: Duration = Duration::from_millis(50);
/// Datagrams read from one socket before the loop lets tquic process them (fairness across paths).
const RECV_BURST: usize = 512;
/// Requested socket buffers; the kernel caps them at net.core.{r,w}mem_max unless root forces them.
const SOCKET_BUFFER: libc::c_int = 8 << 20;

/// Seconds on CLOCK_MONOTONIC (the same clock in every network namespace of this boot).
pub fn mono_now() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Bind one non-blocking UDP socket per address, with large buffers (a bulk QUIC sender on a fast
/// path otherwise loses datagrams in its own socket, which is not the network we emulate).
pub fn bind_all(addrs: &[SocketAddr]) -> io::Result<Vec<UdpSocket>> {
    let mut out = Vec::new();
    for a in addrs {
        let s = UdpSocket::bind(*a).map_err(|e| io::Error::new(e.kind(), format!("bind {a}: {e}")))?;
        grow_buffers(&s);
        out.push(s);
    }
    Ok(out)
}

fn grow_buffers(s: &UdpSocket) {
    use std::os::fd::AsRawFd;
    let fd = s.as_raw_fd();
    for (force, plain) in [(libc::SO_RCVBUFFORCE, libc::SO_RCVBUF), (libc::SO_SNDBUFFORCE, libc::SO_SNDBUF)] {
        let v = SOCKET_BUFFER;
        let len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        let p = &v as *const libc::c_int as *const libc::c_void;
        // SAFETY: setsockopt reads `len` bytes from `p`, which points at a live c_int.
        let forced = unsafe { libc::setsockopt(fd, libc::SOL_SOCKET, force, p, len) } == 0;
        if !forced {
            // Not root: ask for what the sysctl cap allows. Failure only means smaller buffers.
            // SAFETY: as above.
            unsafe { libc::setsockopt(fd, libc::SOL_SOCKET, plain, p, len) };
        }
    }
}

/// The sockets shared by the event loop (reading) and tquic's send callback (writing).
pub struct Sockets {
    pub socks: Vec<UdpSocket>,
    pub locals: Vec<SocketAddr>,
    /// Datagrams the kernel refused with an error other than "would block" (counted, dropped).
    pub send_errors: Cell<u64>,
}

impl Sockets {
    pub fn new(socks: Vec<UdpSocket>) -> io::Result<Rc<Self>> {
        let locals = socks.iter().map(|s| s.local_addr()).collect::<io::Result<Vec<_>>>()?;
        Ok(Rc::new(Self { socks, locals, send_errors: Cell::new(0) }))
    }

    fn by_local(&self, a: &SocketAddr) -> Option<&UdpSocket> {
        self.locals.iter().position(|l| l == a).map(|i| &self.socks[i])
    }
}

/// tquic's `PacketSendHandler`: send each datagram from the socket bound to its path's local address.
pub struct Sender(pub Rc<Sockets>);

impl PacketSendHandler for Sender {
    fn on_packets_send(&self, pkts: &[(Vec<u8>, PacketInfo)]) -> tquic::Result<usize> {
        for (i, (buf, info)) in pkts.iter().enumerate() {
            let Some(sock) = self.0.by_local(&info.src) else {
                // A path whose local address we never bound (cannot happen: paths are created from
                // bound addresses); drop it like a network would.
                self.0.send_errors.set(self.0.send_errors.get() + 1);
                continue;
            };
            match sock.send_to(buf, info.dst) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(i),
                Err(_) => self.0.send_errors.set(self.0.send_errors.get() + 1),
            }
        }
        Ok(pkts.len())
    }
}

/// Run the endpoint until `done()` is true, reading every socket and firing tquic's timers.
pub fn drive(ep: &mut Endpoint, poll: &mut Poll, socks: &Sockets, mut done: impl FnMut(&mut Endpoint) -> bool) -> io::Result<()> {
    let mut events = Events::with_capacity(64);
    let mut buf = vec![0u8; 65536];
    let mut pending = vec![true; socks.socks.len()];
    loop {
        if let Err(e) = ep.process_connections() {
            log::warn!("process_connections: {e:?}");
        }
        if done(ep) {
            return Ok(());
        }
        let wait = if pending.iter().any(|p| *p) { Duration::ZERO } else { ep.timeout().unwrap_or(MAX_WAIT).min(MAX_WAIT) };
        match poll.poll(&mut events, Some(wait)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
        for ev in events.iter() {
            if let Some(p) = pending.get_mut(ev.token().0) {
                *p = true;
            }
        }
        for (i, sock) in socks.socks.iter().enumerate() {
            if !pending[i] {
                continue;
            }
            // mio is edge-triggered: a socket stays `pending` until a read says WouldBlock; after a
            // full burst it is read again on the next turn, once tquic has processed this one.
            pending[i] = true;
            for _ in 0..RECV_BURST {
                match sock.recv_from(&mut buf) {
                    Ok((n, from)) => {
                        let info = PacketInfo { src: from, dst: socks.locals[i], time: Instant::now() };
                        if let Err(e) = ep.recv(&mut buf[..n], &info) {
                            log::debug!("recv from {from}: {e:?}");
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        pending[i] = false;
                        break;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    // ICMP errors (e.g. port unreachable) surface here; tquic's timers handle them.
                    Err(e) => log::debug!("recv on {}: {e}", socks.locals[i]),
                }
            }
        }
        ep.on_timeout(Instant::now());
    }
}

/// Register every socket for reading, token = its index.
pub fn register(poll: &Poll, socks: &mut [UdpSocket]) -> io::Result<()> {
    for (i, s) in socks.iter_mut().enumerate() {
        poll.registry().register(s, Token(i), Interest::READABLE)?;
    }
    Ok(())
}

/// Per-path statistics as tquic exposes them (`Connection::paths_iter`, `get_path`,
/// `get_path_stats` → `tquic::PathStats`; RTTs in microseconds, windows in bytes).
/// `cwnd_bytes` is tquic's `final_cwnd`: the window at the last update, i.e. the current one;
/// the pacing rate is cwnd/srtt-derived bytes per second (tquic `cubic.rs`, `bbr.rs`).
pub fn path_stats(conn: &mut Connection) -> Vec<Value> {
    let mut tuples: Vec<_> = conn.paths_iter().collect();
    tuples.sort_by_key(|t| (t.local, t.remote));
    let mut out = Vec::new();
    for t in tuples {
        let (validated, active) = match conn.get_path(t.local, t.remote) {
            Ok(p) => (p.validated(), p.active()),
            Err(_) => continue,
        };
        let Ok(s) = conn.get_path_stats(t.local, t.remote) else { continue };
        out.push(json!({
            "local": t.local.to_string(),
            "remote": t.remote.to_string(),
            "validated": validated,
            "active": active,
            "sent_bytes": s.sent_bytes,
            "sent_packets": s.sent_count,
            "recv_bytes": s.recv_bytes,
            "recv_packets": s.recv_count,
            "lost_bytes": s.lost_bytes,
            "lost_packets": s.lost_count,
            "acked_bytes": s.acked_bytes,
            "acked_packets": s.acked_count,
            "loss_events": s.loss_event_count,
            "srtt_us": s.srtt,
            "min_rtt_us": s.min_rtt,
            "max_rtt_us": s.max_rtt,
            "rttvar_us": s.rttvar,
            "cwnd_bytes": s.final_cwnd,
            "init_cwnd_bytes": s.init_cwnd,
            "max_cwnd_bytes": s.max_cwnd,
            "in_slow_start": s.in_slow_start,
            "pacing_rate_bytes_per_s": s.pacing_rate,
        }));
    }
    out
}

/// Describe how a connection ended, from tquic's `local_error` / `peer_error`.
pub fn close_reason(conn: &Connection) -> Value {
    let err =
        |e: &tquic::error::ConnectionError| json!({"is_app": e.is_app, "code": e.error_code, "reason": String::from_utf8_lossy(&e.reason)});
    json!({
        "local_error": conn.local_error().map(err),
        "peer_error": conn.peer_error().map(err),
        "idle_timeout": conn.is_idle_timeout(),
        "handshake_timeout": conn.is_handshake_timeout(),
        "reset": conn.is_reset(),
    })
}

/// Write `value` to `path` atomically: a temporary file in the same directory, then rename.
pub fn write_json_atomic(path: &Path, value: &Value) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = std::path::PathBuf::from(tmp);
    {
        let mut f = std::fs::File::create(&tmp)?;
        serde_json::to_writer_pretty(&mut f, value)?;
        f.write_all(b"\n")?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

/// ALPN both sides offer; tquic needs one for the TLS handshake.
pub const ALPN: &[u8] = b"mptlab-bulk";

/// Server TLS: a fresh self-signed certificate (rcgen), handed to BoringSSL through files because
/// tquic's `TlsConfig::new_server_config` takes PEM file names; the files are removed at once.
pub fn server_tls() -> Result<tquic::TlsConfig, String> {
    let ck = rcgen::generate_simple_self_signed(vec!["mptlab.invalid".to_string()]).map_err(|e| format!("certificate generation: {e}"))?;
    let dir = std::env::temp_dir().join(format!("mptlab-mpquic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let cert = dir.join("cert.pem");
    let key = dir.join("key.pem");
    let result = (|| {
        std::fs::write(&cert, ck.cert.pem()).map_err(|e| e.to_string())?;
        std::fs::write(&key, ck.key_pair.serialize_pem()).map_err(|e| e.to_string())?;
        tquic::TlsConfig::new_server_config(
            cert.to_str().ok_or("temp path is not UTF-8")?,
            key.to_str().ok_or("temp path is not UTF-8")?,
            vec![ALPN.to_vec()],
            false,
        )
        .map_err(|e| format!("TLS server config: {e:?}"))
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Client TLS: the same ALPN, no certificate verification (the server's certificate is self-signed).
pub fn client_tls() -> Result<tquic::TlsConfig, String> {
    let mut tls = tquic::TlsConfig::new_client_config(vec![ALPN.to_vec()], false).map_err(|e| format!("TLS client config: {e:?}"))?;
    tls.set_verify(false);
    Ok(tls)
}

/// Transport settings both sides share: multipath on (draft-ietf-quic-multipath as tquic 1.6.0
/// implements it), enough connection IDs for one per path plus spares, and an idle timeout so a
/// vanished peer ends the run instead of hanging it.
pub fn base_config(tls: tquic::TlsConfig) -> Result<tquic::Config, String> {
    let mut c = tquic::Config::new().map_err(|e| format!("tquic config: {e:?}"))?;
    c.enable_multipath(true);
    c.set_active_connection_id_limit(8);
    c.set_max_idle_timeout(30_000);
    c.set_tls_config(tls);
    Ok(c)
}

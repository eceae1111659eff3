//! Parameters of a QUIC / multipath QUIC connection (both endpoints use the same values).

use super::wire;
use mptlab_engine::time::MILLISECOND;
use mptlab_engine::Time;
use serde::Serialize;

/// Paths per connection (path slots; the sim's timer and route numbering reserve this many).
pub const MAX_PATHS: usize = 8;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QuicConfig {
    /// Largest UDP payload a packet may have (RFC 9000 §14: max_udp_payload_size; 1472 B fills
    /// a 1500 B IPv4 MTU).
    pub max_udp_payload: u32,
    /// Connection ID length in bytes (§17.3.1; 8 is common).
    pub cid_len: u32,
    /// initial_max_data (§18.2): the receiver's connection-level window.
    pub max_data: u64,
    /// initial_max_stream_data_bidi_* (§18.2): the receiver's window per stream.
    pub max_stream_data: u64,
    /// The client's send buffer: bytes the application has written and the peer has not yet
    /// acknowledged (STREAM bytes in acknowledged frames, in or out of order, no longer count;
    /// as quinn's `send_window` counts `unacked_data`). A write takes what fits and the
    /// application blocks on the rest. Bulk (greedy) applications are not limited by it.
    pub send_buffer: u64,
    /// max_ack_delay (§18.2).
    pub max_ack_delay: Time,
    /// Ack-eliciting packets received before an ACK is sent at once (§13.2.2: 2).
    pub ack_eliciting_threshold: u32,
    /// Streams the application's data is spread over (stream IDs 0, 4, 8, … client-initiated
    /// bidirectional, §2.1).
    pub streams: u32,
    /// Model the 1-RTT handshake (Initial / Handshake flights, §7). Off: both ends start with
    /// keys and a confirmed handshake at the flow's start.
    pub handshake: bool,
    /// Bytes of the client's CRYPTO flight (ClientHello) and the server's (ServerHello,
    /// EncryptedExtensions, Certificate, CertificateVerify, Finished), and the client's
    /// Finished.
    pub client_hello: u32,
    pub server_flight: u32,
    pub client_finished: u32,
    /// Multipath (draft-ietf-quic-multipath-19): PATH_ACK frames, per-path packet number
    /// spaces, additional paths validated after the handshake is confirmed.
    pub multipath: bool,
    /// Consecutive PTOs after which a path is treated as potentially failed: not scheduled,
    /// its outstanding STREAM data queued again for the other paths (1 = at the first PTO).
    pub failure_ptos: u32,
    /// Ack-eliciting packets to send when the PTO expires (RFC 9002 §6.2.4: 1 or 2).
    pub pto_probe_packets: u8,
    /// Additional paths are validated this long after the handshake is confirmed.
    pub path_open_delay: Time,
}

impl QuicConfig {
    /// STREAM bytes that always fit one full 1-RTT packet: the UDP payload less the AEAD tag, a
    /// short header with the longest (4 B) packet number and a STREAM frame header with the
    /// longest fields (type, stream ID, 8 B offset, 2 B length; RFC 9000 §19.8). The default
    /// write of a QUIC application, so that each write leaves as one packet instead of a full
    /// packet and a runt (1431 B at the default 1472 B payload and 8 B connection IDs). A
    /// packet that also carries ACK frames can still split a write.
    pub fn one_packet_stream_bytes(&self) -> u32 {
        let stream_frame_header = 1 + wire::varint_len(self.streams as u64 * 4) + 8 + 2;
        self.max_udp_payload.saturating_sub(wire::AEAD_TAG_BYTES + wire::short_header_len(self.cid_len, 4) + stream_frame_header).max(1)
    }
}

impl Default for QuicConfig {
    fn default() -> Self {
        Self {
            max_udp_payload: 1472,
            cid_len: 8,
            max_data: 16 << 20,
            max_stream_data: 8 << 20,
            // 4 MiB, as TCP's and MPTCP's send buffer here (Linux tcp_wmem[2]): every protocol
            // buffers as much unacknowledged data per connection. quinn's default send_window
            // (8 × 1.25 MB stream window) is the same order.
            send_buffer: 4 << 20,
            max_ack_delay: 25 * MILLISECOND,
            ack_eliciting_threshold: 2,
            streams: 1,
            handshake: true,
            client_hello: 300,
            server_flight: 3000,
            client_finished: 52,
            multipath: false,
            failure_ptos: 2,
            pto_probe_packets: 2,
            path_open_delay: 0,
        }
    }
}

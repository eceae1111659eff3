//! QUIC packets as the simulator carries them: the frames of one packet, and the bytes they
//! take on the wire.
//!
//! Frames are kept as fields, not encoded; their sizes follow the encodings exactly:
//! - variable-length integers (RFC 9000 §16): 1, 2, 4 or 8 bytes;
//! - the 1-RTT short header (§17.3.1): 1 byte of flags, the Destination Connection ID
//!   (`QuicConfig::cid_len`, 8 B by default) and a packet number of 1–4 bytes, as short as
//!   §17.1 and Appendix A.2 allow: twice the distance to the largest acknowledged packet number;
//! - a long header for handshake packets (§17.2: flags, version, both connection ID lengths and
//!   IDs, token length, Length, packet number);
//! - the AEAD tag of AEAD_AES_128_GCM (RFC 9001 §5.3): 16 B;
//! - IPv4 + UDP headers: 28 B.
//!
//! Frame sizes (RFC 9000 §19; multipath frames per draft-ietf-quic-multipath-19 §4):
//! STREAM (type, stream ID, offset when non-zero, length, data), CRYPTO (type, offset, length,
//! data), ACK (type, largest, delay, range count, first range, gap/length pairs), PATH_ACK
//! (type 0x3e, path ID, then as ACK), MAX_DATA, MAX_STREAM_DATA, DATA_BLOCKED, PATH_CHALLENGE /
//! PATH_RESPONSE (type + 8 B), PATH_ABANDON (type 0x3e75, path ID, error code), HANDSHAKE_DONE,
//! PING, PADDING (1 B each).
//!
//! Interpretations: the ACK Delay field is encoded with the default ack_delay_exponent 3
//! (§18.2, delay in units of 8 µs); every STREAM frame carries its Length field (a frame that
//! ends the packet could omit it, §19.8 — implementations mostly do not).

use super::ack::AckFrame;
use super::streams::StreamFrame;
use crate::transport::segment::UDP_HEADER_BYTES;
use mptlab_engine::Time;
use smallvec::SmallVec;

/// AEAD_AES_128_GCM authentication tag (RFC 9001 §5.3).
pub const AEAD_TAG_BYTES: u32 = 16;
/// RFC 9000 §14.1: a client's Initial datagram, and path-validation datagrams (§8.2.1), are
/// padded to at least 1200 bytes of UDP payload.
pub const MIN_INITIAL_UDP_PAYLOAD: u32 = 1200;
/// PATH_CHALLENGE / PATH_RESPONSE: type + 8 bytes of data.
pub const PATH_CHALLENGE_BYTES: u32 = 9;
/// draft-ietf-quic-multipath-19 frame types.
pub const PATH_ACK_TYPE: u64 = 0x3e;
pub const PATH_ABANDON_TYPE: u64 = 0x3e75;

/// RFC 9000 §16: bytes of a variable-length integer.
#[inline]
pub const fn varint_len(v: u64) -> u32 {
    if v < 1 << 6 {
        1
    } else if v < 1 << 14 {
        2
    } else if v < 1 << 30 {
        4
    } else {
        8
    }
}

/// RFC 9000 §17.1 / Appendix A.2: bytes of the encoded packet number, enough to represent
/// twice the packets not yet acknowledged.
#[inline]
pub fn packet_number_len(pn: u64, largest_acked: Option<u64>) -> u32 {
    let unacked = match largest_acked {
        Some(l) if pn > l => pn - l,
        Some(_) => 1,
        None => pn + 1,
    };
    let bits = 64 - (2 * unacked).leading_zeros();
    bits.div_ceil(8).clamp(1, 4)
}

/// Short (1-RTT) header: flags, Destination Connection ID, packet number.
#[inline]
pub fn short_header_len(cid_len: u32, pn_len: u32) -> u32 {
    1 + cid_len + pn_len
}

/// Long header (§17.2) of an Initial or Handshake packet: flags, version, DCID length and DCID,
/// SCID length and SCID, token length (0, Initial only; counted for both), Length (2 B),
/// packet number.
#[inline]
pub fn long_header_len(cid_len: u32, pn_len: u32) -> u32 {
    1 + 4 + 1 + cid_len + 1 + cid_len + 1 + 2 + pn_len
}

/// A STREAM frame with its Length field; the Offset field only when non-zero (§19.8).
#[inline]
pub fn stream_frame_len(f: &StreamFrame) -> u32 {
    let offset = if f.offset > 0 { varint_len(f.offset) } else { 0 };
    1 + varint_len(f.stream) + offset + varint_len(f.len) + f.len as u32
}

/// Overhead of a STREAM frame for `stream` at `offset` carrying up to `len` bytes.
#[inline]
pub fn stream_overhead(stream: u64, offset: u64, len: u64) -> u32 {
    let off = if offset > 0 { varint_len(offset) } else { 0 };
    1 + varint_len(stream) + off + varint_len(len)
}

/// A CRYPTO frame (§19.6).
#[inline]
pub fn crypto_frame_len(f: &StreamFrame) -> u32 {
    1 + varint_len(f.offset) + varint_len(f.len) + f.len as u32
}

/// ACK Delay field value: microseconds / 2^ack_delay_exponent (default exponent 3, §18.2).
#[inline]
fn ack_delay_field(delay: Time) -> u64 {
    (delay / 1000) >> 3
}

/// An ACK (single path) or PATH_ACK (multipath) frame: the ranges, largest first, inclusive.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathAck {
    pub path_id: u32,
    pub frame: AckFrame,
}

impl PathAck {
    /// Encoded size (§19.3; PATH_ACK adds its type and the path ID in front).
    #[inline]
    pub fn len(&self, multipath: bool) -> u32 {
        let ranges = &self.frame.ranges;
        let Some(&(lo, hi)) = ranges.first() else { return 0 };
        let mut n = 1 + varint_len(hi) + varint_len(ack_delay_field(self.frame.ack_delay));
        n += varint_len(ranges.len() as u64 - 1) + varint_len(hi - lo);
        let mut prev_lo = lo;
        for &(lo, hi) in &ranges[1..] {
            // Gap: packets between this range and the previous one, minus one (§19.3.1).
            n += varint_len(prev_lo - hi - 2) + varint_len(hi - lo);
            prev_lo = lo;
        }
        if multipath {
            n += varint_len(PATH_ACK_TYPE) - 1 + varint_len(self.path_id as u64);
        }
        n
    }
}

/// Retransmittable frames of one packet: what it carried besides ACKs and padding. Kept in the
/// sent-packet record so that, when the packet is lost, each frame is queued again (§13.3).
/// A data packet carries one STREAM frame and nothing else almost always: the frames that are
/// rare in a transfer sit behind one pointer (`rare`) so that the record (one per packet in
/// flight, moved when sent and when acknowledged) stays small.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Frames {
    pub stream: SmallVec<[StreamFrame; 1]>,
    pub handshake_done: bool,
    pub path_challenge: bool,
    pub path_response: bool,
    pub ping: bool,
    pub rare: Option<Box<RareFrames>>,
}

/// The less frequent frames of a packet (see `Frames`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RareFrames {
    /// Handshake bytes (one CRYPTO stream per direction; see `conn.rs`).
    pub crypto: Option<StreamFrame>,
    pub max_data: Option<u64>,
    pub max_stream_data: SmallVec<[(u64, u64); 1]>,
    pub data_blocked: Option<u64>,
    /// PATH_ABANDON for this path ID.
    pub path_abandon: Option<u32>,
    /// (Path ID, Largest Acknowledged) of each ACK frame the packet carried. Not frames to
    /// resend: once the packet is acknowledged the peer has seen those ACKs (RFC 9000 §13.2.4).
    /// Recorded only in packets the sender tracks (ack-eliciting ones).
    pub ack_largest: SmallVec<[(u32, u64); 2]>,
}

impl RareFrames {
    fn is_ack_eliciting(&self) -> bool {
        self.crypto.is_some()
            || self.max_data.is_some()
            || !self.max_stream_data.is_empty()
            || self.data_blocked.is_some()
            || self.path_abandon.is_some()
    }
}

// By hand: SmallVec's derived clone goes through an iterator; the frames are Copy.
impl Clone for Frames {
    fn clone(&self) -> Self {
        let mut f = Frames::default();
        f.clone_from(self);
        f
    }

    #[inline]
    fn clone_from(&mut self, src: &Self) {
        self.stream.clear();
        match src.stream.as_slice() {
            // The usual data packet: one frame, without SmallVec's general copy; ACK-only
            // and control packets: none.
            [one] => self.stream.push(*one),
            [] => {}
            many => self.stream.extend_from_slice(many),
        }
        self.handshake_done = src.handshake_done;
        self.path_challenge = src.path_challenge;
        self.path_response = src.path_response;
        self.ping = src.ping;
        self.rare.clone_from(&src.rare);
    }
}

impl Frames {
    pub fn rare(&self) -> Option<&RareFrames> {
        self.rare.as_deref()
    }

    /// The rare frames, created empty if the packet had none.
    pub fn rare_mut(&mut self) -> &mut RareFrames {
        self.rare.get_or_insert_with(Box::default)
    }

    pub fn crypto(&self) -> Option<&StreamFrame> {
        self.rare().and_then(|r| r.crypto.as_ref())
    }

    /// RFC 9002 §2: everything here is ack-eliciting (ACK and PADDING are not kept here).
    pub fn is_ack_eliciting(&self) -> bool {
        !self.stream.is_empty()
            || self.handshake_done
            || self.path_challenge
            || self.path_response
            || self.ping
            || self.rare().is_some_and(RareFrames::is_ack_eliciting)
    }

    /// STREAM payload bytes carried.
    pub fn stream_bytes(&self) -> u64 {
        self.stream.iter().map(|f| f.len).sum()
    }
}

/// One QUIC packet in flight: header fields, frames, ACK frames, padding.
///
/// Layout (C order, cache-line aligned): a packet in flight is written when sent and read one
/// path delay later, long after it left the cache, so the fields every packet reads come first
/// and a data packet's are within the first two lines.
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct WirePacket {
    /// The Path ID (draft-ietf-quic-multipath-19 §2: it selects the connection ID and the
    /// packet number space); 0 for the initial path.
    pub path_id: u32,
    /// UDP payload bytes (headers, frames, padding and AEAD tag).
    pub udp_payload: u32,
    pub pn: u64,
    /// An Initial/Handshake packet (long header).
    pub long_header: bool,
    pub frames: Frames,
    acks: SmallVec<[PathAck; 2]>,
}

impl WirePacket {
    /// Clear everything but the frames (a packet being built assigns its frames whole).
    pub fn clear_header_and_acks(&mut self) {
        self.acks.clear();
        self.long_header = false;
        self.udp_payload = 0;
    }

    pub fn acks(&self) -> &[PathAck] {
        &self.acks
    }

    /// A cleared ACK frame to fill.
    pub fn push_ack(&mut self) -> &mut PathAck {
        self.acks.push(PathAck::default());
        self.acks.last_mut().expect("just pushed")
    }

    /// Drop the last ACK frame pushed (it did not fit).
    pub fn pop_ack(&mut self) {
        self.acks.pop();
    }

    pub fn is_ack_eliciting(&self) -> bool {
        self.frames.is_ack_eliciting()
    }

    /// Encoded size of every frame the packet carries (ACKs, control frames, CRYPTO, STREAM):
    /// its UDP payload without header, padding and AEAD tag.
    pub fn frames_len(&self, multipath: bool) -> u32 {
        let f = &self.frames;
        let acks = self.acks.iter().map(|a| a.len(multipath)).sum::<u32>();
        acks + control_frames_len(f, multipath)
            + f.crypto().map_or(0, crypto_frame_len)
            + f.stream.iter().map(stream_frame_len).sum::<u32>()
    }

    /// Bytes on the wire: UDP payload + IPv4/UDP headers.
    pub fn wire_size(&self) -> u32 {
        self.udp_payload + UDP_HEADER_BYTES
    }
}

/// Encoded size of the control frames in `f` (not STREAM, CRYPTO).
#[inline]
pub fn control_frames_len(f: &Frames, multipath: bool) -> u32 {
    let mut n = f.handshake_done as u32 + f.ping as u32;
    n += PATH_CHALLENGE_BYTES * (f.path_challenge as u32 + f.path_response as u32);
    let Some(r) = f.rare() else { return n };
    if let Some(m) = r.max_data {
        n += 1 + varint_len(m);
    }
    for &(id, m) in &r.max_stream_data {
        n += 1 + varint_len(id) + varint_len(m);
    }
    if let Some(m) = r.data_blocked {
        n += 1 + varint_len(m);
    }
    if let Some(id) = r.path_abandon {
        debug_assert!(multipath);
        n += varint_len(PATH_ABANDON_TYPE) + varint_len(id as u64) + 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_follow_rfc9000_section_16() {
        assert_eq!(varint_len(37), 1);
        assert_eq!(varint_len(63), 1);
        assert_eq!(varint_len(64), 2);
        assert_eq!(varint_len(15_293), 2);
        assert_eq!(varint_len(16_383), 2);
        assert_eq!(varint_len(16_384), 4);
        assert_eq!(varint_len(494_878_333), 4);
        assert_eq!(varint_len(151_288_809_941_952_652), 8);
    }

    #[test]
    fn packet_numbers_are_as_short_as_appendix_a2_allows() {
        // A.2's example: largest acked 0xabe8b3, sending 0xac5c02 → 29519 unacked → 16 bits.
        assert_eq!(packet_number_len(0xac5c02, Some(0xabe8b3)), 2);
        // ... and 0xace8fe needs 18 bits → 3 bytes.
        assert_eq!(packet_number_len(0xace8fe, Some(0xabe8b3)), 3);
        assert_eq!(packet_number_len(0, None), 1);
        assert_eq!(packet_number_len(200, Some(150)), 1);
    }

    #[test]
    fn ack_frame_sizes_count_every_field() {
        // One range [0, 10], delay 0: type, largest, delay, count, first range = 5 bytes.
        let a = PathAck { path_id: 0, frame: AckFrame { ranges: smallvec::smallvec![(0, 10)], ack_delay: 0 } };
        assert_eq!(a.len(false), 5);
        // PATH_ACK adds the path ID (type 0x3e is still one byte).
        assert_eq!(a.len(true), 6);
        // A second range adds a gap and a length.
        let b = PathAck { path_id: 1, frame: AckFrame { ranges: smallvec::smallvec![(20, 30), (0, 10)], ack_delay: 1_000_000 } };
        // delay 1 ms = 1000 µs >> 3 = 125 → 2 bytes.
        assert_eq!(b.len(false), 1 + 1 + 2 + 1 + 1 + 1 + 1);
    }

    #[test]
    fn stream_frames_omit_a_zero_offset() {
        let f = StreamFrame { stream: 0, offset: 0, len: 1000, fin: false };
        assert_eq!(stream_frame_len(&f), 1 + 1 + 2 + 1000);
        let g = StreamFrame { stream: 4, offset: 100_000, len: 1000, fin: true };
        assert_eq!(stream_frame_len(&g), 1 + 1 + 4 + 2 + 1000);
    }
}

//! PHY and MAC timing parameters of the 802.11 DCF medium (`super::Medium`).
//!
//! Sources: IEEE 802.11-2016 §17.4.4 (OFDM timing: slot 9 µs, SIFS 16 µs, 20 µs preamble plus
//! SIGNAL, 4 µs symbols, 16 SERVICE and 6 tail bits, N_DBPS = 216 at 54 Mbit/s, 96 at 24, 24 at
//! 6), §10.3.2.3 (DIFS = SIFS + 2·slot, EIFS = SIFS + ACK time at the lowest mandatory rate +
//! DIFS), and Bianchi, IEEE JSAC 18(3), 2000, Table II (the FHSS set of his Fig. 6).
//!
//! Interpretations:
//! - A frame's `bytes` is the MSDU handed to the MAC (for an IP network: the IP packet). The MAC
//!   adds `mac_overhead_bytes` (OFDM: MAC header 24 + FCS 4 + LLC/SNAP 8 = 36 B). With this, an
//!   IP/UDP packet carrying 1000 B of payload (1028 B) lasts 180 µs at 54 Mbit/s, the value the
//!   study notes (seed004 §8.3 A) and ns-3 use.
//! - The MAC ACK (14 B) goes at 24 Mbit/s: 28 µs (the notes' choice; the standard picks the
//!   highest basic rate not above the data rate, 24 Mbit/s with the usual basic set).
//! - ACK timeout (802.11a): SIFS + slot + PHY-RX-START delay (20 µs) = 45 µs, ns-3's value; a
//!   collider that sees no ACK preamble start by then declares failure.
//! - Bianchi's FHSS set: 1 Mbit/s for everything, PHY header 128 bits, MAC header 272 bits,
//!   ACK 112 bits + PHY header, propagation delay δ = 1 µs, slot 50 µs, SIFS 28 µs, DIFS 128 µs.
//!   Its EIFS and ACK timeout are not in the paper (Bianchi's rules use neither; the standard
//!   rules use the ACK timeout, and EIFS only with `DcfConfig::eifs_after_collision`):
//!   EIFS = SIFS + ACK + DIFS, ACK timeout = SIFS + slot + PHY header + 2δ (by analogy).
//! - RTS (20 B) and CTS (14 B) (802.11-2016 §9.3.1.2–9.3.1.3) go at the control rate of the ACK:
//!   OFDM 24 Mbit/s, ⌈(16 + 6 + 160)/96⌉ = 2 symbols → 28 µs for both; Bianchi's set: RTS 160
//!   bits, CTS 112 bits, plus the PHY header. The CTS timeout (§10.3.2.5: SIFS + slot +
//!   PHY-RX-START delay after the RTS) equals the ACK timeout (§10.3.2.9).

use crate::net::config::WifiPhy;
use mptlab_engine::Time;

const US: Time = 1_000;

/// How a frame's air time follows from its size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FrameTiming {
    /// OFDM (802.11a/g): 20 µs + 4 µs · ceil((16 + 6 + 8·(bytes + overhead)) / n_dbps).
    Ofdm { data_n_dbps: u32, ack_n_dbps: u32, mac_overhead_bytes: u32 },
    /// One bit rate for everything: (phy_header_bits + mac_header_bits + 8·bytes) / rate.
    Linear { rate_bps: u64, phy_header_bits: u32, mac_header_bits: u32, ack_bits: u32 },
}

/// PHY and MAC parameters of a DCF medium. Times in ns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhyParams {
    pub slot: Time,
    pub sifs: Time,
    pub difs: Time,
    /// Deferral after a frame heard with errors (`standard` rules with
    /// `DcfConfig::eifs_after_collision` only).
    pub eifs: Time,
    /// Time after its frame's end a sender waits for the ACK to start (`standard` rules only).
    pub ack_timeout: Time,
    /// Time after its RTS's end a sender waits for the CTS to start (`standard` rules only).
    pub cts_timeout: Time,
    /// One-way propagation delay δ between any two stations.
    pub prop_delay: Time,
    pub cw_min: u32,
    pub cw_max: u32,
    pub timing: FrameTiming,
}

fn ofdm_time(bits: u64, n_dbps: u32) -> Time {
    // 16 SERVICE + 6 tail bits; 20 µs preamble + SIGNAL; 4 µs per symbol.
    let symbols = (16 + 6 + bits).div_ceil(n_dbps as u64);
    20 * US + 4 * US * symbols
}

impl PhyParams {
    /// The parameter set a scenario's `phy` names (`ofdm54`; `fhss` with CW 31…1023).
    pub fn of(phy: WifiPhy) -> Self {
        match phy {
            WifiPhy::Ofdm54 => Self::ofdm_80211a_54(),
            WifiPhy::Fhss => Self::bianchi_fhss(31, 1023),
        }
    }

    /// The data rate: 4 µs OFDM symbols of `data_n_dbps` bits, or the single bit rate.
    pub fn data_rate_bps(&self) -> u64 {
        match self.timing {
            FrameTiming::Ofdm { data_n_dbps, .. } => data_n_dbps as u64 * 250_000,
            FrameTiming::Linear { rate_bps, .. } => rate_bps,
        }
    }

    /// 802.11a (OFDM, 5 GHz) at 54 Mbit/s, ACK at 24 Mbit/s, CW 15..1023.
    pub fn ofdm_80211a_54() -> Self {
        let slot = 9 * US;
        let sifs = 16 * US;
        let difs = sifs + 2 * slot;
        // EIFS: the ACK at the lowest mandatory rate (6 Mbit/s, N_DBPS 24): 44 µs.
        let ack_lowest = ofdm_time(14 * 8, 24);
        Self {
            slot,
            sifs,
            difs,
            eifs: sifs + ack_lowest + difs,
            ack_timeout: sifs + slot + 20 * US,
            cts_timeout: sifs + slot + 20 * US,
            prop_delay: 0,
            cw_min: 15,
            cw_max: 1023,
            timing: FrameTiming::Ofdm { data_n_dbps: 216, ack_n_dbps: 96, mac_overhead_bytes: 36 },
        }
    }

    /// Bianchi's FHSS set (JSAC 2000, Table II), with the given CWmin (W − 1) and CWmax
    /// (2^m·W − 1). His Fig. 6 uses (W, m) = (32, 3), (32, 5), (128, 3).
    pub fn bianchi_fhss(cw_min: u32, cw_max: u32) -> Self {
        let slot = 50 * US;
        let sifs = 28 * US;
        let difs = 128 * US;
        let prop_delay = US;
        let ack = (128 + 112) * US;
        Self {
            slot,
            sifs,
            difs,
            eifs: sifs + ack + difs,
            ack_timeout: sifs + slot + 128 * US + 2 * prop_delay,
            cts_timeout: sifs + slot + 128 * US + 2 * prop_delay,
            prop_delay,
            cw_min,
            cw_max,
            timing: FrameTiming::Linear { rate_bps: 1_000_000, phy_header_bits: 128, mac_header_bits: 272, ack_bits: 112 },
        }
    }

    /// Air time of a data frame carrying an MSDU of `bytes`.
    pub fn frame_time(&self, bytes: u32) -> Time {
        match self.timing {
            FrameTiming::Ofdm { data_n_dbps, mac_overhead_bytes, .. } => ofdm_time(8 * (bytes + mac_overhead_bytes) as u64, data_n_dbps),
            FrameTiming::Linear { rate_bps, phy_header_bits, mac_header_bits, .. } => {
                let bits = phy_header_bits as u64 + mac_header_bits as u64 + 8 * bytes as u64;
                bits * 1_000_000_000 / rate_bps
            }
        }
    }

    /// Air time of a MAC ACK (14 B).
    pub fn ack_time(&self) -> Time {
        match self.timing {
            FrameTiming::Ofdm { ack_n_dbps, .. } => ofdm_time(14 * 8, ack_n_dbps),
            FrameTiming::Linear { rate_bps, phy_header_bits, ack_bits, .. } => {
                (phy_header_bits as u64 + ack_bits as u64) * 1_000_000_000 / rate_bps
            }
        }
    }

    /// Air time of an RTS (20 B) at the control rate.
    pub fn rts_time(&self) -> Time {
        self.control_time(20, 160)
    }

    /// Air time of a CTS (14 B) at the control rate.
    pub fn cts_time(&self) -> Time {
        self.control_time(14, 112)
    }

    fn control_time(&self, bytes: u64, linear_bits: u64) -> Time {
        match self.timing {
            FrameTiming::Ofdm { ack_n_dbps, .. } => ofdm_time(8 * bytes, ack_n_dbps),
            FrameTiming::Linear { rate_bps, phy_header_bits, .. } => (phy_header_bits as u64 + linear_bits) * 1_000_000_000 / rate_bps,
        }
    }
}

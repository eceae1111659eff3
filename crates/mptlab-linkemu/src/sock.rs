//! One AF_PACKET raw socket per interface: whole Ethernet frames in and out (packet(7)).
//!
//! - Created with protocol 0 (receives nothing) and then bound to the interface with ETH_P_ALL,
//!   so no frame of another interface slips in before the bind (packet(7), "bind").
//! - PACKET_IGNORE_OUTGOING (Linux 4.20, include/uapi/linux/if_packet.h): frames this host sends
//!   on the interface — ours included — are not looped back to the socket.
//! - SO_RCVBUFFORCE / SO_SNDBUFFORCE (socket(7), root only) of 8 MB: bursts wait in the socket,
//!   not dropped there, and a frame handed to a full egress qdisc is dropped by the qdisc (send
//!   returns ENOBUFS: net_xmit_errno(NET_XMIT_DROP) in net/packet/af_packet.c), not held back by
//!   the socket's send buffer.
//! - SO_TIMESTAMPNS (socket(7)): the kernel stamps each frame when the interface receives it
//!   (CLOCK_REALTIME), so the delay counts from the true arrival, not from when this thread woke.
//! - No promiscuous mode: a veth delivers every frame to its peer whatever the destination MAC
//!   (drivers/net/veth.c does no MAC filtering; eth_type_trans only marks it PACKET_OTHERHOST),
//!   and packet sockets receive PACKET_OTHERHOST frames (net/packet/af_packet.c, packet_rcv drops
//!   only PACKET_LOOPBACK). The namespace tests bridge frames addressed to the far host's MAC.
//!
//! Socket option numbers are the asm-generic ones (x86-64, arm64), from the kernel's uapi headers.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

const PACKET_STATISTICS: libc::c_int = 6; // linux/if_packet.h
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;
const SO_SNDBUFFORCE: libc::c_int = 32; // asm-generic/socket.h
const SO_RCVBUFFORCE: libc::c_int = 33;
const SO_TIMESTAMPNS: libc::c_int = 35; // SO_TIMESTAMPNS_OLD: struct timespec with 64-bit time_t
const SCM_TIMESTAMPNS: libc::c_int = SO_TIMESTAMPNS;
const ETH_P_ALL: u16 = 0x0003; // linux/if_ether.h
const BUFFER_BYTES: libc::c_int = 8 << 20;

/// Why a socket could not be opened: a missing interface is the user's mistake (exit 2).
pub enum OpenError {
    NoSuchInterface(String),
    Os(String),
}

pub enum Sent {
    Ok,
    /// The egress qdisc or the socket's buffer refused the frame (ENOBUFS, EAGAIN).
    Dropped,
    Error(io::Error),
}

pub struct PacketSocket {
    fd: OwnedFd,
    pub name: String,
}

fn setsockopt_int(fd: RawFd, level: libc::c_int, opt: libc::c_int, value: libc::c_int) -> io::Result<()> {
    // SAFETY: `value` outlives the call and its size is passed.
    let rc =
        unsafe { libc::setsockopt(fd, level, opt, (&value as *const libc::c_int).cast(), size_of::<libc::c_int>() as libc::socklen_t) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

impl PacketSocket {
    pub fn open(name: &str) -> Result<Self, OpenError> {
        let os = |what: &str| OpenError::Os(format!("{name}: {what}: {}", io::Error::last_os_error()));
        let cname = CString::new(name).map_err(|_| OpenError::NoSuchInterface(name.to_string()))?;
        // SAFETY: a valid NUL-terminated string.
        let ifindex = unsafe { libc::if_nametoindex(cname.as_ptr()) };
        if ifindex == 0 {
            return Err(OpenError::NoSuchInterface(name.to_string()));
        }
        // SAFETY: plain syscall; the returned descriptor is owned below.
        let raw = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
        if raw < 0 {
            return Err(os("socket(AF_PACKET, SOCK_RAW) (needs CAP_NET_RAW)"));
        }
        // SAFETY: `raw` is a fresh descriptor nobody else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        setsockopt_int(raw, libc::SOL_PACKET, PACKET_IGNORE_OUTGOING, 1).map_err(|_| os("PACKET_IGNORE_OUTGOING"))?;
        for (force, plain) in [(SO_RCVBUFFORCE, libc::SO_RCVBUF), (SO_SNDBUFFORCE, libc::SO_SNDBUF)] {
            // Without root the FORCE variant fails; the plain one is capped by net.core.*mem_max.
            if setsockopt_int(raw, libc::SOL_SOCKET, force, BUFFER_BYTES).is_err() {
                setsockopt_int(raw, libc::SOL_SOCKET, plain, BUFFER_BYTES).map_err(|_| os("SO_RCVBUF/SO_SNDBUF"))?;
            }
        }
        setsockopt_int(raw, libc::SOL_SOCKET, SO_TIMESTAMPNS, 1).map_err(|_| os("SO_TIMESTAMPNS"))?;
        // SAFETY: sockaddr_ll is plain old data; all-zero is a valid starting value.
        let mut addr: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        addr.sll_family = libc::AF_PACKET as u16;
        addr.sll_protocol = ETH_P_ALL.to_be();
        addr.sll_ifindex = ifindex as i32;
        // SAFETY: `addr` is a valid sockaddr_ll and its size is passed.
        let rc = unsafe { libc::bind(raw, (&addr as *const libc::sockaddr_ll).cast(), size_of::<libc::sockaddr_ll>() as libc::socklen_t) };
        if rc != 0 {
            return Err(os("bind"));
        }
        Ok(Self { fd, name: name.to_string() })
    }

    /// Receive one frame without blocking: Ok(None) when nothing is waiting; otherwise the frame's
    /// length (its true length: a frame longer than `buf` is reported truncated by len > buf.len())
    /// and the kernel's receive time (CLOCK_REALTIME ns), if the kernel gave one.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<(usize, Option<u64>)>> {
        let mut iov = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
        let mut control = [0u64; 16]; // 128 bytes, 8-aligned: room for one timespec cmsg
                                      // SAFETY: msghdr is plain old data; the pointers set below outlive the call.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = size_of_val(&control);
        // MSG_TRUNC: return the frame's real length even when it did not fit (packet(7)).
        // SAFETY: `msg` points at live buffers of the sizes given.
        let n = unsafe { libc::recvmsg(self.fd.as_raw_fd(), &mut msg, libc::MSG_DONTWAIT | libc::MSG_TRUNC) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::EAGAIN) | Some(libc::EINTR) => Ok(None),
                _ => Err(e),
            };
        }
        let mut stamp = None;
        // SAFETY: the CMSG_* macros walk the control buffer the kernel filled, within msg_controllen.
        unsafe {
            let mut c = libc::CMSG_FIRSTHDR(&msg);
            while !c.is_null() {
                if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == SCM_TIMESTAMPNS {
                    let ts: libc::timespec = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast());
                    stamp = Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64);
                }
                c = libc::CMSG_NXTHDR(&msg, c);
            }
        }
        Ok(Some((n as usize, stamp)))
    }

    /// Send one whole frame out of the interface the socket is bound to, without blocking.
    pub fn send(&self, frame: &[u8]) -> Sent {
        // SAFETY: `frame` is a live buffer of the length given.
        let n = unsafe { libc::send(self.fd.as_raw_fd(), frame.as_ptr().cast(), frame.len(), libc::MSG_DONTWAIT) };
        if n >= 0 {
            return Sent::Ok;
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::ENOBUFS) | Some(libc::EAGAIN) => Sent::Dropped,
            _ => Sent::Error(e),
        }
    }

    /// Frames the kernel dropped because this socket's receive buffer was full, since the last
    /// call (PACKET_STATISTICS resets its counters when read: packet(7)).
    pub fn take_rx_drops(&self) -> u64 {
        // struct tpacket_stats { unsigned int tp_packets, tp_drops; }
        let mut st = [0u32; 2];
        let mut len = size_of_val(&st) as libc::socklen_t;
        // SAFETY: `st` is a writable buffer of `len` bytes.
        let rc = unsafe { libc::getsockopt(self.fd.as_raw_fd(), libc::SOL_PACKET, PACKET_STATISTICS, st.as_mut_ptr().cast(), &mut len) };
        if rc == 0 {
            u64::from(st[1])
        } else {
            0
        }
    }

    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

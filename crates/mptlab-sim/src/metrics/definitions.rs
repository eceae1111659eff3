//! The exact definition of every reported metric, by its name in summary.json. Printed by
//! `mptlab list` and written into summary.json, so a number is never separated from what it
//! means. Source: DESIGN.md "Metrics", RFC 3550 §6.4.1 (jitter), RFC 8289 (sojourn time), Jain,
//! Chiu & Hawe DEC-TR-301 (fairness). Distributions are reported as Stats
//! {mean, std (population), min, max, p50, p95 (linear interpolation), count}.

pub const DEFINITIONS: &[(&str, &str)] = &[
    (
        "goodput_mbps",
        "application goodput: bytes delivered in order to the receiving application per interval \
      (default 1 s; the last partial interval is normalised by its length), in Mbit/s \
      (10^6 bit/s); distribution over the interval samples of one flow",
    ),
    (
        "throughput_mbps",
        "link wire throughput: bytes (headers included) whose transmission onto the link ends in \
      the interval, per link direction and per protocol, in Mbit/s; distribution over interval \
      samples",
    ),
    (
        "jitter_ms",
        "RFC 3550 §6.4.1 interarrival jitter per flow and per path: for consecutive arrivals \
      D = (R_i - R_{i-1}) - (S_i - S_{i-1}) on simulated send (S) and arrival (R) times, \
      J += (|D| - J)/16, sampled after every arrival but the first; mean and distribution of \
      the J samples, in ms",
    ),
    (
        "link_jitter_ms",
        "link jitter of the merged stream: one RFC 3550 §6.4.1 estimator (as jitter_ms) over the \
      data packets of all flows crossing a detailed link direction, in their arrival order at \
      the far end, with S = the packet's send time at its sender and R = its arrival at the far \
      end of the link; Stats of the J samples (one per arrival but the first), in ms (summary \
      key links[].jitter_ms; per group, over the group's packets only: \
      links[].by_group.<group>.jitter_ms); series link_jitter_ms (entity <link>): mean of the \
      J samples of each trace interval that had one, stamped with the interval's start",
    ),
    (
        "subflow_jitter_ms",
        "per-subflow link jitter: one RFC 3550 §6.4.1 estimator per (flow, path, direction) \
      stream of data packets crossing a detailed link direction, S and R as link_jitter_ms; the \
      J samples of all streams are pooled, for the link (links[].subflow_jitter_ms) and per \
      group (links[].by_group.<group>.subflow_jitter_ms); Stats of the pooled samples, in ms; \
      series link_subflow_jitter_ms (entity <link>) as link_jitter_ms",
    ),
    (
        "link_group_jitter_ms",
        "series (entity <link>:<group>): per trace interval with samples, mean of the merged-stream \
      J samples of the group's data packets on the link (links[].by_group.<group>.jitter_ms), in ms",
    ),
    (
        "link_group_subflow_jitter_ms",
        "series (entity <link>:<group>): per trace interval with samples, mean of the pooled \
      per-subflow J samples of the group's streams on the link \
      (links[].by_group.<group>.subflow_jitter_ms), in ms",
    ),
    (
        "link_subflow_jitter_ms",
        "series (entity <link>): per trace interval with samples, mean of the pooled per-subflow J \
      samples of the link (links[].subflow_jitter_ms), in ms",
    ),
    (
        "by_group",
        "per flow group (a [flows.NAME] entry of the scenario) on a detailed link direction, for \
      each group that offered packets to it: offered_packets, packets (transmissions started, \
      channel losses included), bytes (wire bytes, headers included), drops (queue, channel and \
      down drops) and throughput_mbps (the group's wire bytes whose transmission ends in each \
      interval, in Mbit/s; Stats over the run's intervals), by the link's own rules, so sums \
      over groups equal the link's packets, bytes and drops; jitter_ms and subflow_jitter_ms as \
      link_jitter_ms and subflow_jitter_ms over the group's packets; null on an undetailed \
      link (summary key links[].by_group)",
    ),
    (
        "link_group_mbps",
        "series (entity <link>:<group>): a group's wire throughput on a detailed link per \
      interval, as links[].by_group.<group>.throughput_mbps; the groups' series sum to \
      link_mbps of the link",
    ),
    (
        "owd_ms",
        "one-way delay: arrival time at the receiver minus send time at the sender, per data \
      packet delivered, in ms; distribution over packets",
    ),
    (
        "interarrival_ms",
        "inter-packet arrival time: time between consecutive data packets arriving at the \
      receiver (all paths of a multipath flow together, duplicates included), in ms; \
      distribution over arrivals (seed 002's 'inter-packet arrival time')",
    ),
    (
        "loss_pct",
        "packet loss: packets dropped (at queues, on the channel or at a link that is down) over \
      packets sent, in percent, per protocol",
    ),
    (
        "retransmissions",
        "number of data packets sent more than once (fast retransmit, RTO or scheduler \
      reinjection), per flow",
    ),
    ("rto_count", "number of retransmission timer expiries, per flow (summed over its subflows or paths)"),
    (
        "jain",
        "Jain's fairness index J = (Σx)² / (n·Σx²) over the per-flow mean goodput x of a group of \
      n flows; null when undefined (no flow, or all zero)",
    ),
    (
        "queue_delay_ms",
        "queueing delay (sojourn time): time from enqueue to start of transmission, per packet \
      transmitted by a link, in ms; distribution over packets",
    ),
    (
        "drop_pct",
        "link drops (queue drops by tail drop or AQM, channel losses, and packets lost because the \
      link was down) over packets offered to the link, in percent, per link direction",
    ),
    (
        "queue_pkts_mean",
        "time-weighted mean queue length: area under the queue-length curve (packets waiting for \
      the transmitter) divided by the run duration, per link direction",
    ),
    (
        "channel_drops",
        "packets transmitted onto a link and lost on its channel (random or radio loss), per link \
      direction",
    ),
    (
        "down_drops",
        "packets lost because a link direction was down (scenario link events): offered while it \
      was down, or inside it (queued, being transmitted or propagating) when it went down",
    ),
    (
        "mean_rate_mbps",
        "time-average capacity of a link direction over the run, in Mbit/s, counting the time it \
      was down as 0; reported for directions with a capacity model or link events, else null",
    ),
    (
        "srtt_ms",
        "smoothed round-trip time per path (RFC 6298 SRTT) in ms; trace sampled at the first \
      update at or after each trace interval",
    ),
    (
        "cwnd_bytes",
        "congestion window per path in bytes; trace sampled at the first update at or after each \
      trace interval",
    ),
    (
        "completion_time_s",
        "download completion time of a file app: time from the request (or start of sending) to \
      the delivery of its last byte to the receiving application, in s",
    ),
    (
        "mptcp_path_delay_ms",
        "seed 001 eq. 1 path delay tau_i: SRTT of MPTCP subflow i (RFC 6298), sampled once per \
      trace interval k (default 100 ms) while the subflow has one; mean (tau_i,av) and maximum \
      (tau_i,max, key srtt_ms_max) over the samples of the run, in ms (summary key flows[].paths[].srtt_ms_mean / srtt_ms_max)",
    ),
    (
        "mptcp_protocol_delay_ms",
        "seed 001 eq. 1-4 protocol delay: T_over(k) = max_i T_i(k) (eq. 2), where T_i(k) is the \
      largest delay, among the chunks placed on path i, from hand-over to the MPTCP sender (the \
      write; the scheduler taking the chunk for a greedy source) to the first ACK received on \
      path i whose DATA_ACK covers it, over the ACKs of trace interval k; v_av and v_max are the \
      mean and maximum of T_over(k) over the run (eq. 3, 4); first_data_ack has the same for the \
      first DATA_ACK on any path; per_handover gives that delay over all hand-overs, in ms; \
      null (0 samples) for a flow not measured in detail (metrics.detail_flows) \
      (summary key flows[].mptcp.protocol_delay_ms)",
    ),
    (
        "mptcp_hol_degree_ms",
        "seed 001 eq. 7-9 head-of-line blocking degree: zeta(k) = T_over(k) - max_i tau_i(k), the \
      max over every subflow with an SRTT at sample k; zeta_av and zeta_max are its mean and \
      maximum over the run, in ms; negative_samples counts zeta(k) < 0 (the slowest path \
      acknowledged nothing in k, or its SRTT lags; eq. 11 clips at 0 only when averaging over \
      runs) (summary key flows[].mptcp.hol_degree_ms)",
    ),
    (
        "mptcp_hol_wait_ms",
        "reassembly wait measured directly (not seed 001's definition): per data chunk, time from \
      its arrival at the receiving host to its delivery to the application (waits in a \
      subflow's and in the data-level reassembly queue), in ms; distribution over chunks; null \
      for a flow not measured in detail (metrics.detail_flows) (summary key flows[].mptcp.hol_wait_ms)",
    ),
    (
        "mptcp_drop_rate_per_s",
        "seed 001 mean drop rate d_i: data packets of subflow i dropped in the network (queues, \
      channels, down links) per second of the flow's lifetime; drop_pct is eq. 12, dropped over \
      sent data segments of the subflow, in percent (summary key flows[].paths[].drop_rate_per_s and drop_pct)",
    ),
    (
        "mptcp_share",
        "per-path share of traffic: connection bytes the scheduler placed on subflow i (new data \
      and reinjections) over the bytes placed on all subflows; for QUIC, STREAM bytes sent on \
      path i over those sent on all paths (summary key flows[].paths[].share)",
    ),
    (
        "group_goodput_mbps",
        "distribution across the member flows of a group of their mean goodput (goodput_mbps), one \
      sample per flow, in Mbit/s (summary key groups[].goodput_mbps); goodput_mbps_total and \
      goodput_mbps_mean are its sum and mean",
    ),
    (
        "mptcp_window_stall_s",
        "receive-window stall time: total time during which the MPTCP sender had data but the \
      connection-level receive window (DATA_ACK + window) allowed no new data, in s (summary key flows[].mptcp.window_stall_s)",
    ),
];

/// The definition of metric `name`, if it is reported. Linear scan: for listings, not hot paths.
pub fn definition(name: &str) -> Option<&'static str> {
    DEFINITIONS.iter().find(|(n, _)| *n == name).map(|(_, d)| *d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_snake_case_and_definitions_are_single_lines() {
        for (i, (n, d)) in DEFINITIONS.iter().enumerate() {
            assert!(!n.is_empty() && n.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'), "{n}");
            assert!(!d.is_empty() && !d.contains('\n') && !d.contains("  "), "{n}: {d}");
            assert!(DEFINITIONS[i + 1..].iter().all(|(m, _)| m != n), "duplicate {n}");
        }
    }

    #[test]
    fn the_brief_s_metrics_are_all_defined() {
        for n in [
            "goodput_mbps",
            "throughput_mbps",
            "jitter_ms",
            "owd_ms",
            "loss_pct",
            "retransmissions",
            "rto_count",
            "jain",
            "queue_delay_ms",
            "completion_time_s",
        ] {
            assert!(definition(n).is_some(), "{n}");
        }
        assert!(definition("jitter_ms").unwrap().contains("(|D| - J)/16"));
        assert_eq!(definition("nope"), None);
    }
}

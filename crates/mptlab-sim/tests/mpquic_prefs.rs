//! Multipath QUIC path preferences from the scenario (`quic = { priorities, backup }`, as
//! mptcp's), whole runs: a backup path idles while the regular path works and carries the data
//! once that path is down; CPF follows the given priorities.

mod common;

use common::*;
use serde_json::Value;

fn two_paths(flow: &str, duration: &str) -> String {
    two_path_scenario("mpquic", "10Mbps", "10ms", "10Mbps", "10ms", flow, duration)
}

/// STREAM bytes the client sent on each path, in path order, with the first link of each path.
fn stream_bytes(summary: &Value) -> Vec<(String, u64)> {
    let paths = summary["flows"][0]["paths"].as_array().expect("per-path summary");
    paths.iter().map(|p| (p["route"][0].as_str().unwrap().to_string(), p["quic"]["stats"]["stream_bytes_sent"].as_u64().unwrap())).collect()
}

#[test]
fn a_backup_path_idles_until_the_regular_path_goes_down() {
    let flow = "app = \"bulk\"\nquic = { backup = [false, true] }";
    let (_, s) = run(&two_paths(flow, "10s"), None);
    let b = stream_bytes(&s);
    println!("backup on path 1: {b:?}");
    assert_eq!(b[1].0, "p2", "path 1 goes over p2");
    assert!(b[0].1 > 5_000_000, "the regular path carries the transfer: {b:?}");
    assert_eq!(b[1].1, 0, "the backup path carries no data while the regular one works: {b:?}");
    // p1 goes down at 5 s: the backup path takes over.
    let toml = two_paths(flow, "10s") + "\n[[events]]\nat = \"5s\"\nlink = \"p1\"\naction = \"down\"\n";
    let (_, s) = run(&toml, None);
    let b = stream_bytes(&s);
    println!("p1 down at 5 s: {b:?}");
    assert!(b[1].1 > 3_000_000, "the backup path carries the rest: {b:?}");
}

#[test]
fn cpf_fills_the_path_given_the_lowest_priority_first() {
    // A 4 Mbit/s stream fits in either 10 Mbit/s path: CPF keeps it on its first choice.
    let app = "scheduler = \"cpf\"\napp = { kind = \"cbr\", rate = \"4Mbps\" }";
    let (_, s) = run(&two_paths(app, "10s"), None);
    let default = stream_bytes(&s);
    let (_, s) = run(&two_paths(&format!("{app}\nquic = {{ priorities = [1, 0] }}"), "10s"), None);
    let swapped = stream_bytes(&s);
    println!("default priorities {default:?}, swapped {swapped:?}");
    assert!(default[0].1 > 20 * default[1].1, "path 0 first by default: {default:?}");
    assert!(swapped[1].1 > 20 * swapped[0].1, "path 1 first when given priority 0: {swapped:?}");
}

//! Run a scenario file and print its summary JSON (a debugging aid; `mptlab run` is the tool).
//! Usage: cargo run --release --example run_scenario -- scenarios/quickstart.toml [key=value ...]
//! (`seed=N` sets the seed; any other key=value is a scenario override like `mptlab run --set`).

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: run_scenario FILE [key=value ...]");
    let mut seed = None;
    let mut overrides = Vec::new();
    for kv in &args[2..] {
        let (k, v) = kv.split_once('=').expect("arguments after the file are key=value");
        if k == "seed" {
            seed = Some(v.parse().expect("seed must be an integer"));
        } else {
            overrides.push((k.to_string(), v.to_string()));
        }
    }
    let text = std::fs::read_to_string(path).expect("readable scenario file");
    let loaded = match mptlab_sim::scenario::load(&text, &overrides, seed) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let mut run = mptlab_sim::sim::Runner::new(loaded.spec);
    let t0 = std::time::Instant::now();
    run.run_to_end();
    let wall = t0.elapsed().as_secs_f64();
    if let Some((t, windows)) = run.phase_times() {
        eprintln!(
            "parallel: {windows} windows; thread seconds busy/waiting: devices {:.2}/{:.2}, cores {:.2}/{:.2}",
            t.busy_s[0], t.wait_s[0], t.busy_s[1], t.wait_s[1]
        );
    }
    let sim = run.sim();
    println!("{}", serde_json::to_string_pretty(&sim.summary(&loaded.canonical)).unwrap());
    #[cfg(feature = "event-profile")]
    eprint!("{}", sim.event_profile().table());
    eprintln!(
        "wall {wall:.3}s events {} delivered data packets {} ({:.2} M/s)",
        sim.events_processed(),
        sim.counts.delivered_data,
        sim.counts.delivered_data as f64 / wall / 1e6
    );
}

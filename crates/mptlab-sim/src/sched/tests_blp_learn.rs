//! BLP's learned threshold: the model evaluator on hand-written models with hand-computed
//! outputs, the feature windows on scripted views, and the wiring (options, BT set per window).

use super::blp::{Blp, BlpConfig, ModelChoice};
use super::blp_features::{FeatureWindow, FEATURE_NAMES};
use super::blp_model::{BlpModel, BUILTIN_JSON};
use super::{ConnView, PathView, SchedConfig, Scheduler};
use crate::cc::options::OptValue;
use mptlab_engine::time::{MILLISECOND as MS, SECOND};
use std::sync::Arc;

fn names() -> String {
    serde_json::to_string(&FEATURE_NAMES).unwrap()
}

/// K = 3, classes BT ∈ {1.5, 2, 4}. Forest: tree A splits throughput (feature 3) at 5 with
/// class counts [2,0,0] | [0,1,1]; tree B is one leaf [1,1,2]. Boosting: η = 0.5, init 0, one
/// stage splitting mean_delay (feature 4) at 50 into +1|−1 (class 0), 0 (class 1), −1|+1
/// (class 2). Logistic: d_k = 4·rf_k + 4·gb_k.
fn three_class_json() -> String {
    let split = |f: i64, t: f64, l: &str, r: &str| {
        format!(r#"{{"feature":[{f},-2,-2],"threshold":[{t},-2.0,-2.0],"left":[1,-1,-1],"right":[2,-1,-1],"value":[[0,0,0],{l},{r}]}}"#)
    };
    let gsplit = |l: f64, r: f64| {
        format!(r#"{{"feature":[4,-2,-2],"threshold":[50.0,-2,-2],"left":[1,-1,-1],"right":[2,-1,-1],"value":[[0],[{l}],[{r}]]}}"#)
    };
    let leaf = r#"{"feature":[-2],"threshold":[-2],"left":[-1],"right":[-1],"value":[[1,1,2]]}"#;
    let gleaf = r#"{"feature":[-2],"threshold":[-2],"left":[-1],"right":[-1],"value":[[0]]}"#;
    format!(
        r#"{{"format":"mptlab-blp-threshold/1","features":{},"classes":[1.5,2.0,4.0],
        "random_forest":{{"trees":[{},{}]}},
        "gradient_boosting":{{"learning_rate":0.5,"init":[0,0,0],"stages":[[{},{},{}]]}},
        "logistic":{{"coef":[[4,0,0,4,0,0],[0,4,0,0,4,0],[0,0,4,0,0,4]],"intercept":[0,0,0]}}}}"#,
        names(),
        split(3, 5.0, "[2,0,0]", "[0,1,1]"),
        leaf,
        gsplit(1.0, -1.0),
        gleaf,
        gsplit(-1.0, 1.0)
    )
}

fn x(throughput: f64, delay: f64) -> [f64; 9] {
    let mut v = [0.0; 9];
    v[3] = throughput;
    v[4] = delay;
    v
}

fn softmax(v: &[f64]) -> Vec<f64> {
    let m = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = v.iter().map(|a| (a - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|a| a / s).collect()
}

#[test]
fn stacked_model_matches_hand_computed_probabilities_and_classes() {
    let m = BlpModel::from_json(&three_class_json()).unwrap();
    // Low throughput, low delay: rf = [(1 + .25)/2, .125, .25], gb = softmax([.5, 0, −.5]).
    let rf = [0.625, 0.125, 0.25];
    let gb = softmax(&[0.5, 0.0, -0.5]);
    let mut got = [0.0; 3];
    m.forest_proba(&x(1.0, 10.0), &mut got);
    assert_eq!(got, rf);
    m.boosting_proba(&x(1.0, 10.0), &mut got);
    for (a, b) in got.iter().zip(&gb) {
        assert!((a - b).abs() < 1e-15);
    }
    let d: Vec<f64> = (0..3).map(|k| 4.0 * rf[k] + 4.0 * gb[k]).collect();
    let p = m.predict_proba(&x(1.0, 10.0));
    for (a, b) in p.iter().zip(softmax(&d)) {
        assert!((a - b).abs() < 1e-12, "{p:?}");
    }
    assert_eq!(m.predict(&x(1.0, 10.0)), 1.5);
    // High throughput, high delay: rf = [.125, .375, .5], gb = softmax([−.5, 0, .5]) → BT 4.
    assert_eq!(m.predict(&x(10.0, 100.0)), 4.0);
    // At the split value itself the walk goes left (x <= threshold).
    let mut left = [0.0; 3];
    m.forest_proba(&x(5.0, 10.0), &mut left);
    assert_eq!(left, rf);
}

#[test]
fn tree_compares_features_rounded_to_float32_as_sklearn_does() {
    // 0.1 as f32 is 0.100000001490116…, above the f64 threshold 0.1: sklearn goes right.
    let m = BlpModel::from_json(
        &three_class_json().replace(r#""threshold":[5,"#, r#""threshold":[0.1,"#).replace(r#""threshold":[5.0,"#, r#""threshold":[0.1,"#),
    )
    .unwrap();
    let mut p = [0.0; 3];
    m.forest_proba(&x(0.1, 10.0), &mut p);
    assert_eq!(p, [0.125, 0.375, 0.5]);
    m.forest_proba(&x(0.099_999_99, 10.0), &mut p);
    assert_eq!(p, [0.625, 0.125, 0.25]);
}

#[test]
fn binary_model_keeps_one_column_per_base_learner() {
    // K = 2: z = [rf_1, gb_1]; d = 10·rf_1 + 10·gb_1 − 10, class 1 (BT 3) iff d > 0.
    let text = format!(
        r#"{{"format":"mptlab-blp-threshold/1","features":{},"classes":[2.0,3.0],
        "random_forest":{{"trees":[{{"feature":[0,-2,-2],"threshold":[1.0,-2,-2],"left":[1,-1,-1],"right":[2,-1,-1],"value":[[0,0],[3,1],[0,5]]}}]}},
        "gradient_boosting":{{"learning_rate":1.0,"init":[0.0],"stages":[]}},
        "logistic":{{"coef":[[10,10]],"intercept":[-10]}}}}"#,
        names()
    );
    let m = BlpModel::from_json(&text).unwrap();
    // Left leaf: rf_1 = .25, gb_1 = σ(0) = .5: d = −2.5 → BT 2.
    assert_eq!(m.predict(&[0.5; 9]), 2.0);
    let p = m.predict_proba(&[0.5; 9]);
    let s = 1.0 / (1.0 + 2.5f64.exp());
    assert!((p[1] - s).abs() < 1e-15 && (p[0] - (1.0 - s)).abs() < 1e-15);
    // Right leaf: rf_1 = 1: d = 5 → BT 3.
    assert_eq!(m.predict(&[2.0; 9]), 3.0);
}

#[test]
fn malformed_models_are_rejected_with_the_reason() {
    let good = three_class_json();
    let cases = [
        (good.replace("lost_packets", "losses"), "features must be exactly"),
        (
            good.replace(
                r#""left":[1,-1,-1],"right":[2,-1,-1],"value":[[0,0,0]"#,
                r#""left":[1,-1,-1],"right":[7,-1,-1],"value":[[0,0,0]"#,
            ),
            "child out of range",
        ),
        (good.replace("[1.5,2.0,4.0]", "[2.0,1.5,4.0]"), "ascending"),
        (good.replace(r#""intercept":[0,0,0]"#, r#""intercept":[0,0]"#), "rows"),
        (good.replace("mptlab-blp-threshold/1", "pickle"), "format"),
        ("{".to_string(), "not a BLP threshold model"),
    ];
    for (text, want) in cases {
        let e = BlpModel::from_json(&text).unwrap_err();
        assert!(e.contains(want), "{e} lacks {want}");
    }
}

#[test]
fn builtin_model_parses_and_predicts_one_of_its_classes() {
    let m = BlpModel::from_json(BUILTIN_JSON).unwrap();
    for v in [0.0, 1.0, 100.0, 1e6] {
        let bt = m.predict(&[v; 9]);
        assert!(m.classes.contains(&bt));
    }
}

// ------------------------------------------------------------------------- features

fn view(id: usize, srtt_ms: u64, rttvar_ms: u64) -> PathView {
    PathView { id, usable: true, has_space: true, srtt: srtt_ms * MS, rttvar: rttvar_ms * MS, mss: 1000, ..Default::default() }
}

#[test]
fn feature_window_measures_rates_delay_and_ratios_over_one_interval() {
    let mut w = FeatureWindow::new(SECOND);
    let mut p = [view(0, 10, 2), view(1, 30, 6)];
    assert_eq!(w.observe(0, &p), None);
    // Half a second in: path 0 acked 500 kB of 600 kB sent, 4 segments (4 kB) lost and 3
    // retransmitted; path 1 acked 250 kB of 250 kB.
    p[0].bytes_sent = 600_000;
    p[0].bytes_acked = 500_000;
    p[0].packets_lost = 4;
    p[0].bytes_lost = 4_000;
    p[0].retransmissions = 3;
    p[1].bytes_sent = 250_000;
    p[1].bytes_acked = 250_000;
    assert_eq!(w.observe(SECOND / 2, &p), None);
    w.observe_lambda(1.0);
    w.observe_lambda(3.0);
    // The decision at 1 s closes the window (length 1 s) with the totals it sees.
    let f = w.observe(SECOND, &p).expect("window closes at 1 s");
    assert_eq!(f[0], 4.0); // lost packets per s
    assert_eq!(f[1], 4000.0); // bytes per s
    assert_eq!(f[2], 3.0); // retransmissions per s
    assert_eq!(f[3], 6.0); // 750 kB · 8 / 1 s = 6 Mbit/s
    assert_eq!(f[4], 20.0); // mean SRTT over 2 decisions × 2 paths, ms
    assert_eq!(f[5], 4.0); // mean RTTVAR, ms
    assert!((f[6] - 1000.0 * 1000.0 / 750_000.0).abs() < 1e-12); // ms per acked segment
    assert!((f[7] - 750_000.0 / 850_000.0).abs() < 1e-15);
    assert_eq!(f[8], 1.0); // variance of {1, 3}
                           // The next window starts from the closing decision's totals: nothing new, nothing acked.
    let f = w.observe(2 * SECOND, &p).unwrap();
    assert_eq!(&f[..4], &[0.0; 4]);
    assert_eq!(f[6], 1000.0);
    assert_eq!(f[7], 1.0);
    assert_eq!(f[8], 0.0);
}

#[test]
fn feature_window_ignores_paths_without_rtt_and_never_goes_negative() {
    let mut w = FeatureWindow::new(100 * MS);
    let mut p = [view(0, 0, 0), view(1, 40, 8)];
    p[0].bytes_acked = 10_000;
    w.observe(0, &p);
    p[0].bytes_acked = 0; // a restarted subflow
    let f = w.observe(100 * MS, &p).unwrap();
    assert_eq!(f[3], 0.0);
    assert_eq!(f[4], 40.0);
    assert_eq!(f[5], 8.0);
}

// ------------------------------------------------------------------------- wiring

fn conn(now: u64) -> ConnView {
    ConnView { now, unsent: u64::MAX / 2, window_space: 1 << 20, chunk: 1000, send_buffer: 1 << 20, ..Default::default() }
}

#[test]
fn blp_sets_the_threshold_the_model_predicts_at_the_end_of_each_window() {
    let model = Arc::new(BlpModel::from_json(&three_class_json()).unwrap());
    let cfg = BlpConfig { model: ModelChoice { name: "test".into(), model: Some(model) }, model_interval: 1.0, ..BlpConfig::default() };
    let mut s = Blp::new(&cfg, 1);
    let mut p = [view(0, 10, 1), view(1, 20, 1)];
    s.select(&conn(0), &p);
    assert_eq!(s.threshold(), 2.0, "the configured BT until a window closes");
    // 1 s at 1 Mbit/s, SRTTs 10 and 20 ms (mean delay 15 < 50): rf → class 0, gb → class 0.
    p[0].bytes_acked = 125_000;
    s.select(&conn(SECOND), &p);
    assert_eq!(s.threshold(), 1.5);
    // Then 10 Mbit/s at 100 ms delay: BT 4.
    let mut q = [view(0, 100, 1), view(1, 100, 1)];
    q[0].bytes_acked = 125_000 + 1_250_000;
    s.select(&conn(SECOND + 1), &q);
    s.select(&conn(2 * SECOND), &q);
    assert_eq!(s.threshold(), 4.0);
    let sum = s.summary();
    assert_eq!(sum.evaluations, 2);
    assert_eq!(sum.windows, 2);
    let chosen: Vec<(f64, u64)> = sum.thresholds_chosen.iter().map(|c| (c.threshold, c.windows)).collect();
    assert_eq!(chosen, vec![(1.5, 1), (4.0, 1)]);
    let v = serde_json::to_value(&sum).unwrap();
    assert_eq!(v["features_last"]["throughput"], 10.0);
    assert_eq!(v["features_mean"]["throughput"], 5.5);
    assert_eq!(v["model"], "test");
}

#[test]
fn blp_without_a_model_keeps_the_fixed_threshold_but_measures_features() {
    let mut s = Blp::new(&BlpConfig::fixed(), 1);
    let p = [view(0, 10, 1), view(1, 20, 1)];
    s.select(&conn(0), &p);
    s.select(&conn(3 * SECOND), &p);
    let sum = s.summary();
    assert_eq!((sum.threshold, sum.evaluations, sum.windows), (2.0, 0, 1));
    assert!(sum.thresholds_chosen.is_empty());
    assert_eq!(sum.features_last.unwrap().0[4], 15.0);
}

#[test]
fn blp_model_option_accepts_builtin_none_and_files_and_names_bad_files() {
    let mut c = SchedConfig::from_name("blp").unwrap();
    c.set("model", OptValue::Str("none")).unwrap();
    c.set("model_interval", OptValue::Num(0.5)).unwrap();
    let v = serde_json::to_value(&c).unwrap();
    assert_eq!(v["scheduler_options"]["model"], "none");
    assert_eq!(v["scheduler_options"]["model_interval"], 0.5);
    c.set("model", OptValue::Str("builtin")).unwrap();
    let e = c.set("model", OptValue::Str("/nonexistent/model.json")).unwrap_err();
    assert!(e.contains("/nonexistent/model.json") && e.contains("builtin"), "{e}");
    let dir = std::env::temp_dir().join(format!("mptlab-blp-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"format\": \"x\"}").unwrap();
    let e = c.set("model", OptValue::Str(bad.to_str().unwrap())).unwrap_err();
    assert!(e.contains("bad.json") && e.contains("not a BLP threshold model"), "{e}");
    let good = dir.join("good.json");
    std::fs::write(&good, three_class_json()).unwrap();
    c.set("model", OptValue::Str(good.to_str().unwrap())).unwrap();
    assert!(c.set("model", OptValue::Num(1.0)).is_err());
    assert!(c.set("model_interval", OptValue::Num(0.0)).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

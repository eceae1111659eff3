//! Thin PyO3 bindings: conversions and one-line delegations into mptlab-sim. No simulation
//! logic lives here. The GIL is released while the engine runs.

// PyO3 0.22's #[pyfunction] expansion converts a returned PyErr into itself, which newer
// clippy flags at every function returning PyResult (PyO3/pyo3#4828).
#![allow(clippy::useless_conversion)]

use mptlab_sim::cc::registry::CONGESTION_CONTROLLERS;
use mptlab_sim::engine::time::SECOND;
use mptlab_sim::metrics::DEFINITIONS;
use mptlab_sim::scenario::{self, Loaded};
use mptlab_sim::sched::blp_features::{Features, FEATURE_NAMES, N_FEATURES};
use mptlab_sim::sched::blp_model::BlpModel;
use mptlab_sim::sched::registry::SCHEDULERS;
use mptlab_sim::sim::Runner;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(_core, ScenarioError, PyValueError, "An invalid scenario: '<key.path>: <reason> (valid: ...)'.");

fn load(text: &str, overrides: Vec<(String, String)>, seed: Option<u64>) -> PyResult<Loaded> {
    scenario::load(text, &overrides, seed).map_err(|e| ScenarioError::new_err(e.to_string()))
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Validate a scenario; returns its canonical form as JSON.
#[pyfunction]
#[pyo3(signature = (text, overrides=vec![], seed=None))]
fn check(text: &str, overrides: Vec<(String, String)>, seed: Option<u64>) -> PyResult<String> {
    Ok(load(text, overrides, seed)?.canonical.to_string())
}

/// Sizes of the resolved run (groups and counts expanded): JSON {"nodes", "links", "flows"},
/// where "links" counts duplex links (each is two directions in the run).
#[pyfunction]
#[pyo3(signature = (text, overrides=vec![], seed=None))]
fn describe(text: &str, overrides: Vec<(String, String)>, seed: Option<u64>) -> PyResult<String> {
    let spec = load(text, overrides, seed)?.spec;
    Ok(serde_json::json!({"nodes": spec.nodes.len(), "links": spec.links.len() / 2, "flows": spec.flows.len()}).to_string())
}

/// The resolved run as JSON (`docs/resolve.md`): nodes, link directions, routes per flow and
/// path as link names, flows with their algorithms and transport parameters, run settings.
#[pyfunction]
#[pyo3(signature = (text, overrides=vec![], seed=None))]
fn resolve(text: &str, overrides: Vec<(String, String)>, seed: Option<u64>) -> PyResult<String> {
    let spec = load(text, overrides, seed)?.spec;
    Ok(serde_json::to_string(&scenario::export::export(&spec)).expect("the resolved run serialises to JSON"))
}

/// The registries of algorithms, scenario options and metric definitions, as JSON.
#[pyfunction]
fn registry() -> String {
    let metrics: Vec<_> = DEFINITIONS.iter().map(|(n, d)| serde_json::json!({"name": n, "definition": d})).collect();
    serde_json::json!({"congestion_controllers": CONGESTION_CONTROLLERS, "schedulers": SCHEDULERS, "scenario": scenario::catalogue(), "metrics": metrics})
        .to_string()
}

/// One run, advanced in steps so that Python can show progress.
#[pyclass]
struct Simulation {
    sim: Runner,
    canonical: serde_json::Value,
}

#[pymethods]
impl Simulation {
    #[new]
    #[pyo3(signature = (text, overrides=vec![], seed=None))]
    fn new(text: &str, overrides: Vec<(String, String)>, seed: Option<u64>) -> PyResult<Self> {
        let loaded = load(text, overrides, seed)?;
        Ok(Self { sim: Runner::new(loaded.spec), canonical: loaded.canonical })
    }

    #[getter]
    fn duration_s(&self) -> f64 {
        self.sim.duration() as f64 / SECOND as f64
    }

    #[getter]
    fn now_s(&self) -> f64 {
        self.sim.now() as f64 / SECOND as f64
    }

    #[getter]
    fn done(&self) -> bool {
        self.sim.is_done()
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.sim.seed()
    }

    #[getter]
    fn events_processed(&self) -> u64 {
        self.sim.events_processed()
    }

    #[getter]
    fn delivered_data_packets(&self) -> u64 {
        self.sim.delivered_data()
    }

    /// Simulate up to `until_s` seconds (capped at the duration), without the GIL.
    fn advance(&mut self, py: Python<'_>, until_s: f64) {
        let until = (until_s.max(0.0) * SECOND as f64) as u64;
        let sim = &mut self.sim;
        py.allow_threads(|| sim.advance(until));
    }

    fn summary_json(&self) -> String {
        self.sim.sim().run_summary(&self.canonical).to_json_string()
    }

    /// Long-format columns: series, entity, t_s, value.
    fn timeseries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.sim.sim().timeseries();
        let d = PyDict::new_bound(py);
        d.set_item("series", c.series)?;
        d.set_item("entity", c.entity)?;
        d.set_item("t_s", c.t_s)?;
        d.set_item("value", c.value)?;
        Ok(d)
    }
}

/// Parse a BLP threshold model and turn each row (the nine features) into an array.
fn blp_rows(model_json: &str, rows: &[Vec<f64>]) -> PyResult<(BlpModel, Vec<Features>)> {
    let model = BlpModel::from_json(model_json).map_err(PyValueError::new_err)?;
    let xs = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            Features::try_from(r.as_slice())
                .map_err(|_| PyValueError::new_err(format!("row {i} has {} values, expected {N_FEATURES}", r.len())))
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok((model, xs))
}

/// The BLP threshold model's predicted BT for each row (the Rust evaluator).
#[pyfunction]
fn blp_model_predict(model_json: &str, rows: Vec<Vec<f64>>) -> PyResult<Vec<f64>> {
    let (m, xs) = blp_rows(model_json, &rows)?;
    Ok(xs.iter().map(|x| m.predict(x)).collect())
}

/// The BLP threshold model's class probabilities for each row (in `classes` order).
#[pyfunction]
fn blp_model_predict_proba(model_json: &str, rows: Vec<Vec<f64>>) -> PyResult<Vec<Vec<f64>>> {
    let (m, xs) = blp_rows(model_json, &rows)?;
    Ok(xs.iter().map(|x| m.predict_proba(x)).collect())
}

/// The feature names the BLP threshold model takes, in order.
#[pyfunction]
fn blp_feature_names() -> Vec<&'static str> {
    FEATURE_NAMES.to_vec()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(registry, m)?)?;
    m.add_function(wrap_pyfunction!(blp_model_predict, m)?)?;
    m.add_function(wrap_pyfunction!(blp_model_predict_proba, m)?)?;
    m.add_function(wrap_pyfunction!(blp_feature_names, m)?)?;
    m.add_class::<Simulation>()?;
    m.add("ScenarioError", m.py().get_type_bound::<ScenarioError>())?;
    Ok(())
}

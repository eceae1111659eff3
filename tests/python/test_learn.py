"""BLP's blocking-threshold learner (seed 002 §III): the pipeline end to end on a small generated
data set, the Rust evaluator against scikit-learn, and the learned model inside runs."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from conftest import REPO, mptlab
from mptlab import _core
from mptlab.learn import dataset, export, train

MODEL = REPO / "crates" / "mptlab-sim" / "models" / "blp_threshold.json"


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """The CLI's quick preset, run once for the module."""
    out = tmp_path_factory.mktemp("learn")
    r = mptlab("learn", "blp-threshold", "--small", "--out", out, "-j", "2", "--quiet", timeout=120)
    assert r.returncode == 0, r.stderr
    return out


def test_small_pipeline_writes_dataset_model_and_report(small):
    assert sorted(p.name for p in small.iterdir()) == ["blp_threshold.json", "dataset.parquet", "report.json", "report.md"]
    df = pd.read_parquet(small / "dataset.parquet")
    assert list(dataset.FEATURES) == _core.blp_feature_names()
    assert set(dataset.FEATURES) <= set(df.columns)
    # One run per (condition, seed, candidate BT), all runs of a condition share its label.
    assert len(df) == df["condition"].nunique() * len(dataset.THRESHOLDS)
    assert (df.groupby("condition")["best_bt"].nunique() == 1).all()
    assert np.isfinite(df[list(dataset.FEATURES)].to_numpy()).all()
    report = json.loads((small / "report.json").read_text())
    assert set(report["class_counts_after_smote"]) == set(report["class_counts_before_smote"]) - {
        str(c) for c in report["dropped_classes"]
    }
    assert len(set(report["class_counts_after_smote"].values())) == 1, "SMOTE balances the classes"
    assert 0.0 <= report["cv_accuracy"] <= 1.0
    assert report["rust_vs_sklearn"]["class_agreement"] == 1.0
    assert report["rust_vs_sklearn"]["max_abs_proba_diff"] <= 1e-9
    assert "held-out conditions" in (small / "report.md").read_text()


def test_labels_are_the_fastest_threshold_with_ties_to_the_lower(small):
    df = pd.read_parquet(small / "dataset.parquet")
    for _, g in df.groupby(["condition", "seed"]):
        t = g["completion_time_s"].fillna(math.inf)
        best = g.loc[t == t.min(), "bt_run"].min()
        assert (g["best_bt"] == best).all()


def test_rust_and_sklearn_agree_on_held_out_samples(small):
    df = pd.read_parquet(small / "dataset.parquet")
    tr = train.train(df, n_iter=1, cv_folds=2, random_state=3)
    text = export.to_json(tr.model)
    X = tr.X_test
    assert len(X) > 0
    rust = np.array(_core.blp_model_predict(text, X.tolist()))
    sk = tr.model.predict(X) / train.MILLI
    assert (rust == sk).all()
    p_rust = np.array(_core.blp_model_predict_proba(text, X.tolist()))
    assert np.abs(p_rust - tr.model.predict_proba(X)).max() <= 1e-9
    # Also at the split thresholds themselves (x == threshold goes left in both).
    doc = json.loads(text)
    t0 = doc["random_forest"]["trees"][0]
    edge = np.tile(X[:1], (len(t0["feature"]), 1))
    for i, (f, thr) in enumerate(zip(t0["feature"], t0["threshold"])):
        if f >= 0:
            edge[i, f] = thr
    assert (np.array(_core.blp_model_predict(text, edge.tolist())) == tr.model.predict(edge) / train.MILLI).all()


def test_binary_problem_drops_one_column_per_base_learner_like_sklearn():
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 10, size=(80, len(dataset.FEATURES)))
    y = train.labels(np.where(X[:, 3] + rng.normal(0, 1, 80) > 5, 3.0, 1.5))
    model = train.stacked(0, 3).fit(X, y)
    text = export.to_json(model)
    assert len(json.loads(text)["logistic"]["coef"][0]) == 2
    agree = export.agreement(model, text, rng.uniform(0, 10, size=(50, len(dataset.FEATURES))))
    assert agree["class_agreement"] == 1.0 and agree["max_abs_proba_diff"] <= 1e-9


def test_invalid_model_json_and_rows_are_errors():
    with pytest.raises(ValueError, match="not a BLP threshold model"):
        _core.blp_model_predict("{}", [[0.0] * 9])
    text = MODEL.read_text()
    with pytest.raises(ValueError, match="expected 9"):
        _core.blp_model_predict(text, [[0.0] * 8])


def test_shipped_model_is_valid_and_names_the_command_that_made_it():
    doc = json.loads(MODEL.read_text())
    assert doc["format"] == "mptlab-blp-threshold/1"
    assert doc["trained"]["command"].startswith("mptlab learn blp-threshold")
    preds = _core.blp_model_predict(MODEL.read_text(), [[0.0] * 9, [1.0] * 9])
    assert set(preds) <= set(doc["classes"])


def _scenario(model: str) -> str:
    c = dataset.conditions(1, 0)[0]
    return dataset.scenario(c, 2.0, 2000, 1.0, 30.0).replace('model = "none"', f'model = "{model}"')


def test_builtin_model_sets_the_threshold_each_window_in_a_run():
    s = dataset.run_one(_scenario("builtin"), 1)
    blp = s["flows"][0]["mptcp"]["blp"]
    assert blp["model"] == "builtin" and blp["windows"] >= 1
    assert blp["evaluations"] == blp["windows"]
    assert sum(c["windows"] for c in blp["thresholds_chosen"]) == blp["evaluations"]
    assert blp["threshold"] in [c["threshold"] for c in blp["thresholds_chosen"]]
    assert set(blp["features_mean"]) == set(dataset.FEATURES)


def test_a_bad_model_file_is_reported_with_the_key_path(tmp_path):
    bad = tmp_path / "m.json"
    bad.write_text('{"format": "other"}')
    with pytest.raises(_core.ScenarioError, match=r"flows\.dl\.scheduler_options\.model: model file .*m\.json"):
        _core.Simulation(_scenario(str(bad)), [], 1)
    good = tmp_path / "good.json"
    good.write_text(MODEL.read_text())
    s = dataset.run_one(_scenario(str(good)), 1)
    assert s["flows"][0]["mptcp"]["blp"]["model"] == str(good)

"""Export a fitted stacked classifier to BLP's model JSON (`mptlab-blp-threshold/1`, no
pickle) and check that the Rust evaluator agrees with scikit-learn.

The format is documented in docs/schedulers.md and in the header of
crates/mptlab-sim/src/sched/blp_model.rs, which reads it: per tree sklearn's arrays
(`tree_.feature`, `threshold`, `children_left`, `children_right`, `value[:, 0, :]`), the
forest's trees, the boosting's learning rate, initial raw scores and per-stage per-class trees,
and the logistic regression's `coef_` and `intercept_` over the stacked probabilities.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier, StackingClassifier
from sklearn.linear_model import LogisticRegression

from mptlab import _core
from mptlab.learn.dataset import FEATURES
from mptlab.learn.train import MILLI

FORMAT = "mptlab-blp-threshold/1"


def _tree(est: Any) -> dict[str, Any]:
    t = est.tree_
    return {
        "feature": t.feature.tolist(),
        "threshold": t.threshold.tolist(),
        "left": t.children_left.tolist(),
        "right": t.children_right.tolist(),
        "value": t.value[:, 0, :].tolist(),
    }


def to_dict(model: StackingClassifier, trained: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON document of a fitted StackingClassifier([RF, GB] → LogisticRegression)."""
    rf, gb = model.estimators_
    lr = model.final_estimator_
    if not (isinstance(rf, RandomForestClassifier) and isinstance(gb, GradientBoostingClassifier)):
        raise TypeError("expected a random forest and a gradient boosting base learner, in that order")
    if not isinstance(lr, LogisticRegression) or list(model.stack_method_) != ["predict_proba"] * 2:
        raise TypeError("expected a logistic-regression meta-learner over predict_proba")
    if getattr(model, "passthrough", False):
        raise TypeError("passthrough stacking is not part of the format")
    probe = np.zeros((1, len(FEATURES)))
    init = gb._raw_predict_init(probe)[0]  # sklearn's prior raw scores (no public accessor)
    return {
        "format": FORMAT,
        "features": list(FEATURES),
        "classes": [float(c) / MILLI for c in model.classes_],
        "random_forest": {"trees": [_tree(t) for t in rf.estimators_]},
        "gradient_boosting": {
            "learning_rate": float(gb.learning_rate),
            "init": [float(v) for v in init],
            "stages": [[_tree(t) for t in stage] for stage in gb.estimators_],
        },
        "logistic": {"coef": lr.coef_.tolist(), "intercept": lr.intercept_.tolist()},
        "trained": trained or {},
    }


def to_json(model: StackingClassifier, trained: dict[str, Any] | None = None) -> str:
    """Compact JSON text (floats written with Python's shortest round-trip repr)."""
    return json.dumps(to_dict(model, trained), separators=(",", ":")) + "\n"


def agreement(model: StackingClassifier, model_json: str, X: np.ndarray) -> dict[str, Any]:
    """Compare sklearn with the Rust evaluator on rows X: the fraction of equal classes and the
    largest absolute probability difference."""
    if len(X) == 0:
        return {"rows": 0, "class_agreement": None, "max_abs_proba_diff": None}
    rows = np.asarray(X, dtype=np.float64).tolist()
    rust = np.array(_core.blp_model_predict(model_json, rows))
    rust_p = np.array(_core.blp_model_predict_proba(model_json, rows))
    sk = model.predict(X) / MILLI
    sk_p = model.predict_proba(X)
    return {
        "rows": len(rows),
        "class_agreement": float((rust == sk).mean()),
        "max_abs_proba_diff": float(np.abs(rust_p - sk_p).max()),
    }

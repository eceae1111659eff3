"""Train BLP's blocking-threshold classifier (seed 002 §III: SMOTE, then a stacked classifier
with random forest and gradient boosting as base learners and logistic regression as the
meta-learner, tuned with RandomizedSearchCV).

Order, as the paper lists it: the training set is balanced with SMOTE first, then the search
cross-validates the stacked classifier on the balanced set (so its CV score sees synthetic
samples; the held-out score, on whole conditions never seen in training, does not). Classes
with a single training sample cannot be interpolated by SMOTE and are dropped (reported).
scikit-learn treats float labels as a regression target, so the classes are BT in thousandths
(integers, `MILLI`); the export turns them back into BT values.
Everything is seeded by `random_state` and runs single-threaded inside each estimator, so a
given data set always gives the same model.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from imblearn.over_sampling import SMOTE
from scipy.stats import loguniform, randint
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier, StackingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupShuffleSplit, RandomizedSearchCV, StratifiedKFold

from mptlab.learn.dataset import FEATURES

#: Hyperparameters searched (the paper names the number of estimators, the maximum depth and
#: the learning rate); the meta-learner's regularisation is searched too.
#: The ranges are kept small enough that the shipped model JSON stays a few hundred kB.
PARAM_DISTRIBUTIONS: dict[str, Any] = {
    "rf__n_estimators": randint(10, 31),
    "rf__max_depth": randint(3, 7),
    "gb__n_estimators": randint(10, 31),
    "gb__max_depth": randint(2, 4),
    "gb__learning_rate": loguniform(0.03, 0.5),
    "final_estimator__C": loguniform(0.1, 10.0),
}


#: Class labels are round(BT · MILLI).
MILLI = 1000


def labels(bt: Any) -> np.ndarray:
    """Class labels (integers) of BT values."""
    return np.rint(np.asarray(bt, dtype=np.float64) * MILLI).astype(np.int64)


class TrainError(ValueError):
    """The data cannot train a classifier (too few samples or classes)."""


@dataclass
class Trained:
    """A fitted stacked classifier with what the report needs."""

    model: StackingClassifier
    cv_score: float
    best_params: dict[str, Any]
    counts_before: dict[float, int]
    counts_after: dict[float, int]
    dropped_classes: list[float]
    X_test: np.ndarray
    y_test: np.ndarray
    #: The held-out rows (the data set's index).
    test_index: pd.Index
    test_accuracy: float | None
    n_train: int
    extra: dict[str, Any] = field(default_factory=dict)


def stacked(random_state: int, cv_folds: int) -> StackingClassifier:
    """The paper's stacked classifier: RF and GB base learners, logistic regression on top."""
    return StackingClassifier(
        estimators=[
            ("rf", RandomForestClassifier(random_state=random_state, n_jobs=1)),
            ("gb", GradientBoostingClassifier(random_state=random_state)),
        ],
        final_estimator=LogisticRegression(max_iter=2000),
        stack_method="predict_proba",
        cv=StratifiedKFold(cv_folds, shuffle=True, random_state=random_state),
        n_jobs=1,
    )


def split(df: pd.DataFrame, test_fraction: float, random_state: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Hold out whole conditions (all their runs and seeds) for testing."""
    if test_fraction <= 0 or df["condition"].nunique() < 2:
        return df, df.iloc[0:0]
    gss = GroupShuffleSplit(n_splits=1, test_size=test_fraction, random_state=random_state)
    train_idx, test_idx = next(gss.split(df, groups=df["condition"]))
    return df.iloc[train_idx], df.iloc[test_idx]


def train(
    df: pd.DataFrame,
    n_iter: int = 10,
    cv_folds: int = 3,
    test_fraction: float = 0.25,
    random_state: int = 0,
    n_jobs: int = 1,
) -> Trained:
    """SMOTE on the training conditions, then RandomizedSearchCV over the stacked classifier."""
    train_df, test_df = split(df, test_fraction, random_state)
    X = train_df[list(FEATURES)].to_numpy(dtype=np.float64)
    y = labels(train_df["best_bt"])
    counts = Counter((y / MILLI).tolist())
    dropped = sorted(c for c, n in counts.items() if n < 2)
    keep = ~np.isin(y, labels(dropped))
    X, y = X[keep], y[keep]
    kept = Counter((y / MILLI).tolist())
    if len(kept) < 2:
        raise TrainError(
            f"the training conditions have {len(kept)} best threshold(s) with at least two samples "
            f"({dict(sorted(counts.items()))}); generate more conditions"
        )
    k = min(5, min(kept.values()) - 1)
    X_bal, y_bal = SMOTE(k_neighbors=k, random_state=random_state).fit_resample(X, y)
    folds = min(cv_folds, min(Counter(y_bal.tolist()).values()))
    search = RandomizedSearchCV(
        stacked(random_state, folds),
        PARAM_DISTRIBUTIONS,
        n_iter=n_iter,
        cv=StratifiedKFold(folds, shuffle=True, random_state=random_state),
        scoring="accuracy",
        random_state=random_state,
        n_jobs=n_jobs,
    )
    search.fit(X_bal, y_bal)
    model: StackingClassifier = search.best_estimator_
    X_test = test_df[list(FEATURES)].to_numpy(dtype=np.float64)
    y_test = labels(test_df["best_bt"])
    acc = float((model.predict(X_test) == y_test).mean()) if len(y_test) else None
    return Trained(
        model=model,
        cv_score=float(search.best_score_),
        best_params={k: _plain(v) for k, v in search.best_params_.items()},
        counts_before=dict(sorted(counts.items())),
        counts_after=dict(sorted(Counter((y_bal / MILLI).tolist()).items())),
        dropped_classes=dropped,
        X_test=X_test,
        y_test=y_test,
        test_index=test_df.index,
        test_accuracy=acc,
        n_train=len(y),
    )


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v

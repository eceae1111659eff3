"""`mptlab learn blp-threshold` end to end: generate the data set, train, export, check the
Rust evaluator against scikit-learn, and write OUT/dataset.parquet, OUT/blp_threshold.json,
OUT/report.json and OUT/report.md."""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from mptlab import _core
from mptlab.atomic import write_text
from mptlab.learn import dataset, export, train


@dataclass(frozen=True)
class Settings:
    """What a learner run does; `SMALL` is the quick preset (tests, `--small`)."""

    conditions: int = 400
    seeds: int = 2
    size_kb: int = 4000
    interval_s: float = 1.0
    n_iter: int = 10
    cv_folds: int = 3
    test_fraction: float = 0.25
    random_state: int = 0


SMALL = Settings(conditions=40, seeds=1, size_kb=1000, n_iter=2, cv_folds=2)


def run(
    out: Path,
    settings: Settings,
    workers: int = 1,
    command: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Run the pipeline into `out` and return the report (also written as JSON and Markdown)."""
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    df = dataset.generate(
        settings.conditions,
        seeds=settings.seeds,
        size_kb=settings.size_kb,
        interval_s=settings.interval_s,
        workers=workers,
        random_state=settings.random_state,
        progress=progress,
    )
    t_data = time.perf_counter() - t0
    df.to_parquet(out / "dataset.parquet", index=False)
    tr = train.train(
        df,
        n_iter=settings.n_iter,
        cv_folds=settings.cv_folds,
        test_fraction=settings.test_fraction,
        random_state=settings.random_state,
        n_jobs=workers,
    )
    t_train = time.perf_counter() - t0 - t_data
    majority = max(tr.counts_before, key=lambda c: tr.counts_before[c])
    test_labels = (tr.y_test / train.MILLI).tolist()
    provenance = {
        "command": command,
        "mptlab_version": _core.version(),
        "protocol": dataset.PROTOCOL,
        "settings": settings.__dict__,
        "thresholds": list(dataset.THRESHOLDS),
        "samples": int(len(df)),
        "cv_accuracy": tr.cv_score,
        "best_params": tr.best_params,
    }
    model_json = export.to_json(tr.model, provenance)
    write_text(out / "blp_threshold.json", model_json)
    agree = export.agreement(tr.model, model_json, tr.X_test)
    report: dict[str, Any] = {
        **provenance,
        "conditions_kept": int(df["condition"].nunique()),
        "runs": int(len(df)),
        "label_counts_by_condition": {
            str(k): v for k, v in sorted(Counter(df.groupby(["condition", "seed"])["best_bt"].first()).items())
        },
        "class_counts_before_smote": {str(k): v for k, v in tr.counts_before.items()},
        "class_counts_after_smote": {str(k): v for k, v in tr.counts_after.items()},
        "dropped_classes": tr.dropped_classes,
        "train_samples": tr.n_train,
        "test_samples": len(test_labels),
        "test_accuracy": tr.test_accuracy,
        "test_majority_baseline": (sum(1 for y in test_labels if y == majority) / len(test_labels)) if test_labels else None,
        "rust_vs_sklearn": agree,
        "held_out_slowdown": slowdown(df, tr),
        "model_bytes": len(model_json.encode()),
        "wall_s": {"dataset": round(t_data, 2), "train": round(t_train, 2), "total": round(time.perf_counter() - t0, 2)},
    }
    write_text(out / "report.json", json.dumps(report, indent=2) + "\n")
    write_text(out / "report.md", markdown(report))
    return report


def slowdown(df: Any, tr: train.Trained) -> dict[str, Any] | None:
    """On the held-out rows: the mean relative completion-time increase over the condition's
    best BT (its (condition, seed) run with that BT is in the data set) when BT is the model's
    prediction, the default fixed 2.0, or the most frequent label. Unfinished runs count as
    missing (excluded)."""
    if len(tr.test_index) == 0:
        return None
    test = df.loc[tr.test_index]
    ct = df.set_index(["condition", "seed", "bt_run"])["completion_time_s"]
    best = test.apply(lambda r: ct[(r["condition"], r["seed"], r["best_bt"])], axis=1)
    majority = df.groupby(["condition", "seed"])["best_bt"].first().mode().iloc[0]

    def mean_slowdown(bts: Any) -> float:
        t = [ct[(c, s, b)] for c, s, b in zip(test["condition"], test["seed"], bts)]
        return float(np.nanmean(np.asarray(t, dtype=float) / best.to_numpy(dtype=float) - 1.0))

    return {
        "model": mean_slowdown(tr.model.predict(tr.X_test) / train.MILLI),
        "fixed_2.0": mean_slowdown([2.0] * len(test)),
        "majority": mean_slowdown([majority] * len(test)),
    }


def markdown(r: dict[str, Any]) -> str:
    """A short human-readable report."""

    def counts(d: dict[str, int]) -> str:
        return ", ".join(f"BT {k}: {v}" for k, v in d.items())

    a = r["rust_vs_sklearn"]
    lines = [
        "# BLP blocking-threshold learner",
        "",
        f"- command: `{r['command']}`" if r["command"] else "- command: (library call)",
        f"- mptlab {r['mptlab_version']}, protocol {r['protocol']}, candidate BT {r['thresholds']}",
        f"- runs: {r['runs']} over {r['conditions_kept']} conditions; best BT per (condition, seed): "
        f"{counts(r['label_counts_by_condition'])}",
        f"- training samples before SMOTE: {counts(r['class_counts_before_smote'])}",
        f"- after SMOTE: {counts(r['class_counts_after_smote'])}"
        + (f"; dropped (one sample): {r['dropped_classes']}" if r["dropped_classes"] else ""),
        f"- RandomizedSearchCV best CV accuracy (on the SMOTE-balanced set): {r['cv_accuracy']:.4f}; "
        f"parameters {r['best_params']}",
        f"- held-out conditions: {r['test_samples']} samples, accuracy "
        + (f"{r['test_accuracy']:.4f} (always predicting the most frequent BT: {r['test_majority_baseline']:.4f})"
           if r["test_accuracy"] is not None else "n/a"),
        (f"- held-out mean completion-time increase over the best BT: model {r['held_out_slowdown']['model']:.4%}, "
         f"fixed BT 2.0 {r['held_out_slowdown']['fixed_2.0']:.4%}, the most frequent label "
         f"{r['held_out_slowdown']['majority']:.4%}" if r["held_out_slowdown"] else "- held-out slowdown: n/a"),
        f"- Rust evaluator vs scikit-learn on the held-out samples: class agreement {a['class_agreement']}, "
        f"largest probability difference {a['max_abs_proba_diff']}",
        f"- model JSON: {r['model_bytes']} bytes; wall time {r['wall_s']} s",
        "",
    ]
    return "\n".join(lines)

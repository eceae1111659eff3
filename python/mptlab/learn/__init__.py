"""Learners for mptlab's algorithms. `blp-threshold`: the blocking threshold of the BLP
scheduler (seed 002 §III) from simulated runs: `dataset` (conditions, runs, labels), `train`
(SMOTE, stacked RF + GB → logistic regression, RandomizedSearchCV), `export` (the JSON the
Rust scheduler loads; Rust vs scikit-learn agreement), `pipeline` (all of it, with a report).
"""

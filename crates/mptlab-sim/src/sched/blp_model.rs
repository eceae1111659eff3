//! BLP's learned blocking threshold: a stacked classifier (random forest and gradient boosting,
//! then logistic regression over their class probabilities) read from JSON and evaluated
//! exactly as scikit-learn evaluates it, so Rust and Python pick the same BT.
//!
//! Source: seed 002 (Das et al., ICC Workshops 2025), §III "Blocking Threshold Learning":
//! "a stacked classifier approach where random forest and gradient boosting are base learners
//! and logistic regression is the meta-learner". The model is trained by
//! `mptlab learn blp-threshold` (python/mptlab/learn/) and exported by its `export.py`.
//!
//! JSON format `mptlab-blp-threshold/1` (documented in docs/schedulers.md):
//!
//! ```text
//! { "format": "mptlab-blp-threshold/1",
//!   "features": [9 names, exactly blp_features::FEATURE_NAMES in that order],
//!   "classes": [BT values, ascending = sklearn's classes_],
//!   "random_forest": {"trees": [Tree, ...]},
//!   "gradient_boosting": {"learning_rate": η, "init": [raw score per class], "stages": [[Tree per class], ...]},
//!   "logistic": {"coef": [[...] per class], "intercept": [...]},
//!   "trained": {free-form provenance, ignored here} }
//! Tree = {"feature": [i], "threshold": [t], "left": [i], "right": [i], "value": [[v, ...]]}
//! ```
//!
//! Evaluation, as scikit-learn 1.x does it (K = number of classes):
//! - A tree walks from node 0; at an internal node x[feature] rounded to float32 (sklearn
//!   validates X as float32 for trees) and widened back is compared `<= threshold` (float64):
//!   true goes left. A leaf has `left == -1`.
//! - Random forest (`RandomForestClassifier.predict_proba`): each tree's leaf `value` is divided
//!   by its sum (a zero sum by 1), the per-tree vectors are summed in tree order and divided by
//!   the number of trees.
//! - Gradient boosting (`GradientBoostingClassifier.predict_proba`): raw = init, then for each
//!   stage and class k, raw[k] += η · value of that tree's leaf. K > 2: softmax(raw) (max
//!   subtracted first); K = 2: one tree per stage, p₁ = 1 / (1 + e^(−raw)), p = [1 − p₁, p₁].
//! - Stacking (`StackingClassifier`, `stack_method="predict_proba"`, no passthrough): z = the
//!   forest's probabilities followed by the boosting's. For K = 2 sklearn keeps only column 1 of
//!   each (it drops the first, redundant column), so z has 2 entries; otherwise 2K.
//! - Logistic regression: d = coef · z + intercept (K rows, or 1 row for K = 2). The class is
//!   argmax d (the first on ties) for K > 2, and classes[1] iff d > 0 for K = 2; probabilities
//!   are softmax(d), or [1 − σ(d), σ(d)].

use super::blp_features::{Features, FEATURE_NAMES, N_FEATURES};
use serde::Deserialize;
use std::sync::{Arc, OnceLock};

/// The format tag this reader accepts.
pub const FORMAT: &str = "mptlab-blp-threshold/1";

/// The model shipped with mptlab (`mptlab learn blp-threshold`, see docs/schedulers.md).
pub const BUILTIN_JSON: &str = include_str!("../../models/blp_threshold.json");

/// One decision tree in sklearn's array layout (`tree_.feature`, `threshold`,
/// `children_left`, `children_right`, `value[:, 0, :]`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Tree {
    pub feature: Vec<i64>,
    pub threshold: Vec<f64>,
    pub left: Vec<i64>,
    pub right: Vec<i64>,
    pub value: Vec<Vec<f64>>,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Forest {
    pub trees: Vec<Tree>,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Boosting {
    pub learning_rate: f64,
    pub init: Vec<f64>,
    pub stages: Vec<Vec<Tree>>,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Logistic {
    pub coef: Vec<Vec<f64>>,
    pub intercept: Vec<f64>,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BlpModel {
    pub format: String,
    pub features: Vec<String>,
    pub classes: Vec<f64>,
    pub random_forest: Forest,
    pub gradient_boosting: Boosting,
    pub logistic: Logistic,
    #[serde(default)]
    pub trained: serde_json::Value,
}

impl Tree {
    /// Check the layout: equal lengths, children after their parent (so every walk ends),
    /// features in range, leaf values of `width` entries.
    fn check(&self, width: usize, what: &str) -> Result<(), String> {
        let n = self.feature.len();
        if n == 0 {
            return Err(format!("{what}: empty tree"));
        }
        if [self.threshold.len(), self.left.len(), self.right.len(), self.value.len()].iter().any(|&l| l != n) {
            return Err(format!("{what}: feature, threshold, left, right and value differ in length"));
        }
        for i in 0..n {
            let (l, r) = (self.left[i], self.right[i]);
            if l == -1 {
                if r != -1 {
                    return Err(format!("{what}: node {i} has only one child"));
                }
                if self.value[i].len() != width {
                    return Err(format!("{what}: leaf {i} has {} values, expected {width}", self.value[i].len()));
                }
                if self.value[i].iter().any(|v| !v.is_finite()) {
                    return Err(format!("{what}: leaf {i} has a non-finite value"));
                }
                continue;
            }
            let ok = |c: i64| c > i as i64 && (c as usize) < n;
            if !ok(l) || !ok(r) {
                return Err(format!("{what}: node {i} has a child out of range"));
            }
            if !(0..N_FEATURES as i64).contains(&self.feature[i]) {
                return Err(format!("{what}: node {i} splits on feature {} (0..{N_FEATURES})", self.feature[i]));
            }
            if self.threshold[i].is_nan() {
                return Err(format!("{what}: node {i} has a NaN threshold"));
            }
        }
        Ok(())
    }

    /// The leaf value reached by `x` (float32-rounded features against float64 thresholds).
    #[inline]
    pub fn leaf(&self, x: &Features) -> &[f64] {
        let mut i = 0usize;
        while self.left[i] != -1 {
            let v = x[self.feature[i] as usize] as f32 as f64;
            i = if v <= self.threshold[i] { self.left[i] } else { self.right[i] } as usize;
        }
        &self.value[i]
    }
}

/// sklearn.utils.extmath.softmax on one row: subtract the max, exponentiate, divide by the sum.
fn softmax(v: &mut [f64]) {
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut sum = 0.0;
    for x in v.iter_mut() {
        *x = (*x - max).exp();
        sum += *x;
    }
    for x in v.iter_mut() {
        *x /= sum;
    }
}

fn expit(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl BlpModel {
    /// Parse and check a model; the error says what is wrong.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let m: BlpModel = serde_json::from_str(text).map_err(|e| format!("not a BLP threshold model: {e}"))?;
        m.check()?;
        Ok(m)
    }

    /// The shipped model, parsed once per process (an immutable constant).
    pub fn builtin() -> Arc<BlpModel> {
        static BUILTIN: OnceLock<Arc<BlpModel>> = OnceLock::new();
        BUILTIN.get_or_init(|| Arc::new(BlpModel::from_json(BUILTIN_JSON).expect("the shipped BLP model is valid (tested)"))).clone()
    }

    fn check(&self) -> Result<(), String> {
        if self.format != FORMAT {
            return Err(format!("format `{}` is not `{FORMAT}`", self.format));
        }
        if self.features.len() != N_FEATURES || self.features.iter().zip(FEATURE_NAMES).any(|(a, b)| a != b) {
            return Err(format!("features must be exactly {FEATURE_NAMES:?}, found {:?}", self.features));
        }
        let k = self.classes.len();
        if k < 2 {
            return Err("at least two classes (thresholds) are needed".into());
        }
        if self.classes.iter().any(|c| !c.is_finite() || *c < 0.0) || self.classes.windows(2).any(|w| w[0] >= w[1]) {
            return Err("classes must be finite, non-negative and strictly ascending".into());
        }
        // Columns per base learner in the stacked features, and rows of the per-class arrays.
        let per = if k == 2 { 1 } else { k };
        if self.random_forest.trees.is_empty() {
            return Err("random_forest has no trees".into());
        }
        for (i, t) in self.random_forest.trees.iter().enumerate() {
            t.check(k, &format!("random_forest.trees[{i}]"))?;
        }
        let gb = &self.gradient_boosting;
        if !gb.learning_rate.is_finite() || gb.learning_rate <= 0.0 {
            return Err("gradient_boosting.learning_rate must be positive".into());
        }
        if gb.init.len() != per || gb.init.iter().any(|v| !v.is_finite()) {
            return Err(format!("gradient_boosting.init must have {per} finite values"));
        }
        for (s, stage) in gb.stages.iter().enumerate() {
            if stage.len() != per {
                return Err(format!("gradient_boosting.stages[{s}] must have {per} trees"));
            }
            for (c, t) in stage.iter().enumerate() {
                t.check(1, &format!("gradient_boosting.stages[{s}][{c}]"))?;
            }
        }
        let lr = &self.logistic;
        if lr.coef.len() != per || lr.intercept.len() != per {
            return Err(format!("logistic.coef and logistic.intercept must have {per} rows"));
        }
        if lr.coef.iter().any(|row| row.len() != 2 * per) {
            return Err(format!("logistic.coef rows must have {} entries (2 base learners × {per})", 2 * per));
        }
        if lr.coef.iter().flatten().chain(&lr.intercept).any(|v| !v.is_finite()) {
            return Err("logistic.coef and logistic.intercept must be finite".into());
        }
        Ok(())
    }

    pub fn n_classes(&self) -> usize {
        self.classes.len()
    }

    /// The forest's class probabilities, written to `out` (K entries).
    pub fn forest_proba(&self, x: &Features, out: &mut [f64]) {
        out.iter_mut().for_each(|v| *v = 0.0);
        for t in &self.random_forest.trees {
            let leaf = t.leaf(x);
            let mut norm = 0.0;
            for v in leaf {
                norm += v;
            }
            if norm == 0.0 {
                norm = 1.0;
            }
            for (o, v) in out.iter_mut().zip(leaf) {
                *o += v / norm;
            }
        }
        let n = self.random_forest.trees.len() as f64;
        out.iter_mut().for_each(|v| *v /= n);
    }

    /// The boosting's class probabilities, written to `out` (K entries).
    pub fn boosting_proba(&self, x: &Features, out: &mut [f64]) {
        let gb = &self.gradient_boosting;
        let per = gb.init.len();
        let mut raw = gb.init.clone();
        for stage in &gb.stages {
            for (r, t) in raw.iter_mut().zip(stage).take(per) {
                *r += gb.learning_rate * t.leaf(x)[0];
            }
        }
        if self.n_classes() == 2 {
            let p1 = expit(raw[0]);
            out[0] = 1.0 - p1;
            out[1] = p1;
        } else {
            out.copy_from_slice(&raw);
            softmax(out);
        }
    }

    /// The meta-learner's decision values d = coef · z + intercept for stacked features z.
    fn decision(&self, x: &Features) -> Vec<f64> {
        let k = self.n_classes();
        let mut rf = vec![0.0; k];
        let mut gb = vec![0.0; k];
        self.forest_proba(x, &mut rf);
        self.boosting_proba(x, &mut gb);
        let z: Vec<f64> = if k == 2 { vec![rf[1], gb[1]] } else { rf.into_iter().chain(gb).collect() };
        let lr = &self.logistic;
        lr.coef
            .iter()
            .zip(&lr.intercept)
            .map(|(row, b)| {
                let mut d = 0.0;
                for (c, v) in row.iter().zip(&z) {
                    d += c * v;
                }
                d + b
            })
            .collect()
    }

    /// Class probabilities of the stacked classifier (K entries, in `classes` order).
    pub fn predict_proba(&self, x: &Features) -> Vec<f64> {
        let mut d = self.decision(x);
        if self.n_classes() == 2 {
            let p1 = expit(d[0]);
            vec![1.0 - p1, p1]
        } else {
            softmax(&mut d);
            d
        }
    }

    /// The predicted class index: sklearn's `predict` of the stacked classifier.
    pub fn predict_index(&self, x: &Features) -> usize {
        let d = self.decision(x);
        if self.n_classes() == 2 {
            return usize::from(d[0] > 0.0);
        }
        let mut best = 0;
        for (i, v) in d.iter().enumerate() {
            if *v > d[best] {
                best = i;
            }
        }
        best
    }

    /// The predicted blocking threshold BT.
    pub fn predict(&self, x: &Features) -> f64 {
        self.classes[self.predict_index(x)]
    }
}

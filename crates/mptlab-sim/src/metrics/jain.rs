//! Jain's fairness index of an allocation x_1..x_n (Jain, Chiu & Hawe, DEC-TR-301, 1984):
//!   J = (Σx)² / (n · Σx²),  1/n ≤ J ≤ 1, J = 1 iff all x_i are equal.
//! In mptlab x_i are per-flow (or per-protocol) mean goodputs of a group; seed 000 computes it
//! from the MPTCP and MPQUIC mean throughputs per link, and for "total" from each protocol's sum
//! over both links.
//!
//! Undefined cases return None (written as null in summary.json):
//! - empty input: there is no allocation to judge;
//! - all zeros: (Σx)²/(n·Σx²) is 0/0. Although 1.0 is the limit along equal allocations, a run
//!   that delivered nothing to anyone is a failed run, and reporting it as perfectly fair would
//!   rank it first in any "most fair pairing" sweep. None keeps it visible as "no data";
//! - any negative, NaN or infinite x_i: throughputs are finite and non-negative, so such an
//!   input is a bug upstream and must not turn into a plausible-looking index.

pub fn jain_index(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || xs.iter().any(|x| !x.is_finite() || *x < 0.0) {
        return None;
    }
    let sum: f64 = xs.iter().sum();
    let sum_sq: f64 = xs.iter().map(|x| x * x).sum();
    if sum_sq == 0.0 {
        return None;
    }
    // Equal inputs can round to a hair above 1; the index is at most 1 by Cauchy–Schwarz.
    Some((sum * sum / (xs.len() as f64 * sum_sq)).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_allocations_give_one() {
        assert_eq!(jain_index(&[5.0; 7]), Some(1.0));
        assert_eq!(jain_index(&[0.1, 0.1, 0.1]), Some(1.0));
        assert_eq!(jain_index(&[42.0]), Some(1.0));
    }

    #[test]
    fn one_non_zero_of_n_gives_one_over_n() {
        for n in 1..=12usize {
            let mut xs = vec![0.0; n];
            xs[n / 2] = 3.7;
            assert!((jain_index(&xs).unwrap() - 1.0 / n as f64).abs() < 1e-15, "n={n}");
        }
    }

    #[test]
    fn seed_000_table_2_bbr_bbr_symmetric_embb_is_reproduced() {
        // Mean throughputs (Mbit/s) from seed 000's text, MPTCP vs MPQUIC under BBR-BBR:
        // TN1: x = 289.89, y = 206.83: (496.72)² / (2·(84 036.2121 + 42 778.6489))
        //      = 246 730.7584 / 253 629.7220 = 0.97280 → Table 2 prints 0.9728.
        let tn1 = jain_index(&[289.89, 206.83]).unwrap();
        assert!((tn1 - 246_730.758_4 / 253_629.722).abs() < 1e-9);
        assert_eq!(format!("{tn1:.4}"), "0.9728");
        // TN2: 300.76 vs 195.97 → Table 2: 0.9574.
        assert_eq!(format!("{:.4}", jain_index(&[300.76, 195.97]).unwrap()), "0.9574");
        // Total: each protocol's sum over both links, 590.65 vs 402.80 → Table 2: 0.9655.
        assert_eq!(format!("{:.4}", jain_index(&[590.65, 402.80]).unwrap()), "0.9655");
    }

    #[test]
    fn index_is_scale_invariant_and_between_one_over_n_and_one() {
        let xs = [1.0, 2.0, 3.0, 10.0];
        let j = jain_index(&xs).unwrap();
        // (16)² / (4 · 114) = 256 / 456
        assert!((j - 256.0 / 456.0).abs() < 1e-15);
        let scaled: Vec<f64> = xs.iter().map(|x| x * 1e6).collect();
        assert!((jain_index(&scaled).unwrap() - j).abs() < 1e-15);
    }

    #[test]
    fn undefined_inputs_give_none() {
        assert_eq!(jain_index(&[]), None);
        assert_eq!(jain_index(&[0.0, 0.0, 0.0]), None);
        assert_eq!(jain_index(&[1.0, -1.0]), None);
        assert_eq!(jain_index(&[1.0, f64::NAN]), None);
        assert_eq!(jain_index(&[1.0, f64::INFINITY]), None);
    }
}

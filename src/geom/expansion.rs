//! The exact sign of `d · ((a − o) × (b − q))` in floating-point expansions (Shewchuk's
//! error-free sums and products), where big integers were the only exact way before. A ray
//! lying in the plane of a flat region has every edge orientation exactly 0, which no f64
//! filter can certify: 10 000 such rays across a plate of 20 000 triangles took 2.1 s in big
//! integers (a heap allocation for every operation), against 2.6 ms for rays across it.
//!
//! Every term is an exact product of three numbers on a common grid, so the sum's partials
//! stay exact as long as nothing underflows or overflows: [`det_sign`] answers only where
//! every coordinate's magnitude lies in [`LEAST`, `MOST`) (or is 0), and the caller's
//! integers decide the rest.

use super::DVec3;
use smallvec::SmallVec;

/// The least magnitude of a nonzero coordinate: every value is then a multiple of 2^-332, a
/// product of three of them a multiple of 2^-996, within the normal range.
const LEAST: f64 = 1.0 / (1u128 << 100) as f64 / (1u128 << 100) as f64 / (1u128 << 80) as f64;
/// The most: a product of three differences below 2^903, a sum of 96 below 2^910.
const MOST: f64 = (1u128 << 100) as f64 * (1u128 << 100) as f64 * (1u128 << 100) as f64;

/// The sign of `d · ((a − o) × (b − q))` exactly, or `None` where a coordinate's magnitude is
/// outside the range this arithmetic holds (or not finite).
pub fn det_sign(d: DVec3, (a, o): (DVec3, DVec3), (b, q): (DVec3, DVec3)) -> Option<i8> {
    let held = |v: DVec3| {
        v.to_array()
            .iter()
            .all(|&c| c == 0.0 || (LEAST..MOST).contains(&c.abs()))
    };
    if ![d, a, o, b, q].into_iter().all(held) {
        return None;
    }
    let u = [0, 1, 2].map(|k| two_sum(a[k], -o[k]));
    let v = [0, 1, 2].map(|k| two_sum(b[k], -q[k]));
    let mut terms: SmallVec<[f64; 96]> = SmallVec::new();
    // The six products d_i u_j v_k of the determinant, each part of u_j and v_k in turn.
    for (i, j, k, sign) in [
        (0, 1, 2, 1.0),
        (0, 2, 1, -1.0),
        (1, 2, 0, 1.0),
        (1, 0, 2, -1.0),
        (2, 0, 1, 1.0),
        (2, 1, 0, -1.0),
    ] {
        // Zeros skipped: a ray in an axis' plane, or coordinates on a grid, leave few terms.
        if d[i] == 0.0 {
            continue;
        }
        for x in [u[j].0, u[j].1].into_iter().filter(|&x| x != 0.0) {
            for y in [v[k].0, v[k].1].into_iter().filter(|&y| y != 0.0) {
                let (p1, p0) = two_product(sign * d[i], x);
                for p in [p1, p0] {
                    let (r1, r0) = two_product(p, y);
                    terms.extend([r1, r0].into_iter().filter(|&r| r != 0.0));
                }
            }
        }
    }
    Some(sum_sign(&terms))
}

/// The sign of the exact sum of `terms`: their partials kept nonoverlapping and in increasing
/// magnitude (Shewchuk's, as Python's `math.fsum`), the largest of which has the sum's sign.
fn sum_sign(terms: &[f64]) -> i8 {
    let mut partials: SmallVec<[f64; 32]> = SmallVec::new();
    for &t in terms {
        let mut x = t;
        let mut kept = 0;
        for j in 0..partials.len() {
            let (hi, lo) = two_sum(x, partials[j]);
            if lo != 0.0 {
                partials[kept] = lo;
                kept += 1;
            }
            x = hi;
        }
        partials.truncate(kept);
        partials.push(x);
    }
    match partials.iter().rev().find(|&&p| p != 0.0) {
        Some(&p) if p > 0.0 => 1,
        Some(_) => -1,
        None => 0,
    }
}

/// `a + b` as `hi + lo` exactly, `hi` the rounded sum (Knuth).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let hi = a + b;
    let bv = hi - a;
    let av = hi - bv;
    (hi, (a - av) + (b - bv))
}

/// `a · b` as `hi + lo` exactly, `hi` the rounded product (Dekker's split, Shewchuk's
/// `Two_Product`: no fused multiply-add, which a target without one would call in software).
fn two_product(a: f64, b: f64) -> (f64, f64) {
    let hi = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    let err = ((hi - ah * bh) - al * bh) - ah * bl;
    (hi, al * bl - err)
}

/// `a` as two halves of 26 bits each, `hi + lo == a`.
fn split(a: f64) -> (f64, f64) {
    let c = 134_217_729.0 * a; // 2^27 + 1
    let hi = c - (c - a);
    (hi, a - hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::integers::{big_sign, det, Integers};
    use crate::testing::lcg;

    fn exact(d: DVec3, (a, o): (DVec3, DVec3), (b, q): (DVec3, DVec3)) -> i8 {
        let ints = Integers::of(&[d, a, o, b, q]);
        big_sign(&det(&ints.v[0], &ints.diff(1, 2), &ints.diff(3, 4)))
    }

    /// Against big integers: random vectors at one scale and spread over many (where the
    /// differences lose their low bits), integer grids in a plane (exactly 0), and the same
    /// moved an ulp off it; out of the range held, no answer.
    #[test]
    fn signs_equal_big_integers() {
        let mut r = lcg(7);
        let mut zeros = 0;
        for n in 0..20_000 {
            let scale = |r: &mut dyn FnMut() -> f64| match n % 3 {
                0 => 1.0,
                1 => 2f64.powi((r() * 120.0) as i32 - 60),
                _ => 1e6,
            };
            let v = |r: &mut dyn FnMut() -> f64| {
                let s = scale(r);
                DVec3::new(r() - 0.5, r() - 0.5, r() - 0.5) * s
            };
            let (mut d, mut a, mut o, mut b, mut q) =
                (v(&mut r), v(&mut r), v(&mut r), v(&mut r), v(&mut r));
            if n % 2 == 1 {
                // d a rounded difference, b − q or a − o: the sign is then that difference's
                // low parts' alone.
                d = if n % 4 == 1 { b - q } else { a - o };
            }
            if n % 4 == 0 {
                // In the plane z = c: d along it, the four points on it (integer grid / 64).
                let c = ((r() * 100.0).floor() + 1.0) / 64.0;
                let g = |r: &mut dyn FnMut() -> f64| (r() * 1000.0).floor() / 64.0;
                d = DVec3::new(g(&mut r), g(&mut r), 0.0);
                [a, o, b, q] = [0; 4].map(|_| DVec3::new(g(&mut r), g(&mut r), c));
                if n % 8 == 4 {
                    b.z = f64::from_bits(c.to_bits() + 1);
                }
            }
            let want = exact(d, (a, o), (b, q));
            zeros += (want == 0) as usize;
            assert_eq!(
                det_sign(d, (a, o), (b, q)),
                Some(want),
                "{d} {a} {o} {b} {q}"
            );
        }
        assert!(zeros > 2_000, "{zeros} exact zeros");
        let tiny = DVec3::new(1e-120, 0.0, 1.0);
        assert_eq!(
            det_sign(tiny, (DVec3::X, DVec3::ZERO), (DVec3::Y, DVec3::ZERO)),
            None
        );
        let huge = DVec3::new(1e100, 0.0, 1.0);
        assert_eq!(
            det_sign(huge, (DVec3::X, DVec3::ZERO), (DVec3::Y, DVec3::ZERO)),
            None
        );
    }
}

//! f64 coordinates as exact integers, for the rare decisions the f64 filters cannot settle:
//! every finite f64 is an integer times a power of two, so points scaled by one common power of
//! two are integers, and sums and products of them are exact.

use super::DVec3;
use num_bigint::BigInt;

/// Points as integers: each f64 is `m · 2^e`; all are scaled by the same power of two (exact)
/// so that the smallest exponent becomes 0.
pub(crate) struct Integers {
    pub v: Vec<[BigInt; 3]>,
}

impl Integers {
    pub fn of(points: &[DVec3]) -> Integers {
        let parts: Vec<[(i64, i32); 3]> = points
            .iter()
            .map(|p| [decode(p.x), decode(p.y), decode(p.z)])
            .collect();
        let low = parts
            .iter()
            .flatten()
            .filter(|x| x.0 != 0)
            .map(|x| x.1)
            .min()
            .unwrap_or(0);
        let v = parts
            .iter()
            .map(|p| {
                p.map(|(m, e)| match m {
                    0 => BigInt::ZERO,
                    _ => BigInt::from(m) << ((e - low) as usize),
                })
            })
            .collect();
        Integers { v }
    }

    /// Point `i` less point `d`.
    pub fn diff(&self, i: usize, d: usize) -> [BigInt; 3] {
        [0, 1, 2].map(|k| &self.v[i][k] - &self.v[d][k])
    }

    /// `(a − d) · ((b − d) × (c − d))`, exactly.
    pub fn orient3d(&self, a: usize, b: usize, c: usize, d: usize) -> BigInt {
        det(&self.diff(a, d), &self.diff(b, d), &self.diff(c, d))
    }
}

/// `x · (y × z)`, the determinant of the rows `x`, `y`, `z`.
pub(crate) fn det(x: &[BigInt; 3], y: &[BigInt; 3], z: &[BigInt; 3]) -> BigInt {
    let minor = |x: &[BigInt; 3], y: &[BigInt; 3]| &x[0] * &y[1] - &x[1] * &y[0];
    &x[2] * minor(y, z) + &y[2] * minor(z, x) + &z[2] * minor(x, y)
}

/// `x · y`.
pub(crate) fn dot(x: &[BigInt; 3], y: &[BigInt; 3]) -> BigInt {
    &x[0] * &y[0] + &x[1] * &y[1] + &x[2] * &y[2]
}

/// `x × y`.
pub(crate) fn cross(x: &[BigInt; 3], y: &[BigInt; 3]) -> [BigInt; 3] {
    [
        &x[1] * &y[2] - &x[2] * &y[1],
        &x[2] * &y[0] - &x[0] * &y[2],
        &x[0] * &y[1] - &x[1] * &y[0],
    ]
}

/// The sign of an exact integer.
pub(crate) fn big_sign(x: &BigInt) -> i8 {
    match x.sign() {
        num_bigint::Sign::Minus => -1,
        num_bigint::Sign::NoSign => 0,
        num_bigint::Sign::Plus => 1,
    }
}

/// A finite f64 as `m · 2^e` with integer `m` (0 as `(0, 0)`).
fn decode(x: f64) -> (i64, i32) {
    if x == 0.0 {
        return (0, 0);
    }
    let bits = x.to_bits();
    let sign = if bits >> 63 == 1 { -1 } else { 1 };
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = (bits & ((1u64 << 52) - 1)) as i64;
    let (m, e) = if exp == 0 {
        (frac, -1074) // subnormal
    } else {
        (frac | (1i64 << 52), exp - 1075)
    };
    (sign * m, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_is_exact() {
        for x in [1.0, -0.75, 3.0e-310, 1.0e300, -123.456, f64::MIN_POSITIVE] {
            let (m, e) = decode(x);
            assert_eq!(m as f64 * 2f64.powi(e), x, "{x}");
        }
    }
}

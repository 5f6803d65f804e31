//! Whether two triangles are closer than a distance, exactly: the tie a clearance check meets
//! when parts are placed exactly that far apart (a CAD assembly designed to a 2 mm clearance),
//! where an f64 distance rounds either way.
//!
//! The distance of two disjoint triangles is attained at a vertex of one and the inside of the
//! other, or at an edge of each (Ericson 5.1.9). Each of those is a ratio of polynomials in
//! the coordinates, so in integers ([`Integers`]) `dist² < d²` is a comparison of products.

use super::integers::{cross, dot, Integers};
use super::{DVec3, Tri};
use num_bigint::BigInt;

/// Whether the distance of `t1` and `t2`, disjoint, is below `d` (> 0), exactly. For
/// triangles that meet it may say either: callers decide that first, exactly.
pub fn closer_than(t1: &Tri, t2: &Tri, d: f64) -> bool {
    let mut points = vec![DVec3::new(d, 0.0, 0.0)];
    points.extend(t1.iter().chain(t2));
    let ints = Integers::of(&points);
    let reach = Reach::new(&ints.v[0][0], false);
    let p = |i: usize| &ints.v[1 + i];
    let (a, b) = ([p(0), p(1), p(2)], [p(3), p(4), p(5)]);
    (0..3).any(|i| {
        face(a[i], b).is_some_and(|x| reach.holds(&x))
            || face(b[i], a).is_some_and(|x| reach.holds(&x))
            || (0..3).any(|j| edges(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3], &reach))
    })
}

/// Whether point `p` is within `r` (≥ 0) of triangle `t`, its distance at most `r`, exactly.
pub fn point_within(p: DVec3, t: &Tri, r: f64) -> bool {
    let ints = Integers::of(&[DVec3::new(r, 0.0, 0.0), p, t[0], t[1], t[2]]);
    let reach = Reach::new(&ints.v[0][0], true);
    let (p, t) = (&ints.v[1], [&ints.v[2], &ints.v[3], &ints.v[4]]);
    face(p, t).is_some_and(|x| reach.holds(&x))
        || (0..3).any(|k| reach.holds(&to_segment(p, t[k], t[(k + 1) % 3])))
}

type Point = [BigInt; 3];

/// A squared distance as a fraction: numerator, denominator (> 0).
type Squared = (BigInt, BigInt);

/// A distance squared, and whether a distance equal to it is within it.
struct Reach {
    squared: BigInt,
    inclusive: bool,
}

impl Reach {
    fn new(d: &BigInt, inclusive: bool) -> Reach {
        Reach {
            squared: d * d,
            inclusive,
        }
    }

    /// Whether a squared distance is within reach: below it (or equal, if inclusive).
    fn holds(&self, (num, den): &Squared) -> bool {
        let limit = &self.squared * den;
        if self.inclusive {
            num <= &limit
        } else {
            num < &limit
        }
    }
}

fn sub(x: &Point, y: &Point) -> Point {
    [0, 1, 2].map(|k| &x[k] - &y[k])
}

/// The squared distance from `p` to the plane of `t`, where `p`'s projection falls inside `t`
/// (closed); `None` where it falls outside (nearer an edge, which the edges measure) or `t`
/// has no inside.
fn face(p: &Point, t: [&Point; 3]) -> Option<Squared> {
    let n = cross(&sub(t[1], t[0]), &sub(t[2], t[0]));
    let nn = dot(&n, &n);
    if nn.sign() == num_bigint::Sign::NoSign {
        return None;
    }
    let inside = (0..3).all(|k| {
        let (a, b) = (t[k], t[(k + 1) % 3]);
        dot(&n, &cross(&sub(b, a), &sub(p, a))).sign() != num_bigint::Sign::Minus
    });
    // (n · (p − a))² / n · n.
    let h = dot(&n, &sub(p, t[0]));
    inside.then(|| (&h * &h, nn))
}

/// Whether segments `p0p1` and `q0q1` come within `reach`: at an end of one, or where the
/// lines through them pass nearest, if that is inside both.
fn edges(p0: &Point, p1: &Point, q0: &Point, q1: &Point, reach: &Reach) -> bool {
    if [(p0, q0, q1), (p1, q0, q1), (q0, p0, p1), (q1, p0, p1)]
        .iter()
        .any(|&(x, a, b)| reach.holds(&to_segment(x, a, b)))
    {
        return true;
    }
    let (u, v, r) = (sub(p1, p0), sub(q1, q0), sub(q0, p0));
    let c = cross(&u, &v);
    let den = dot(&c, &c); // |u|²|v|² − (u · v)²
    if den.sign() == num_bigint::Sign::NoSign {
        return false; // parallel: nearest at an end
    }
    // The nearest points of the lines, p0 + s u and q0 + t v: s = sn / den, t = tn / den.
    let (uu, uv, vv) = (dot(&u, &u), dot(&u, &v), dot(&v, &v));
    let (ur, vr) = (dot(&u, &r), dot(&v, &r));
    let sn = &ur * &vv - &uv * &vr;
    let tn = &uv * &ur - &uu * &vr;
    let zero = BigInt::ZERO;
    let inside = |x: &BigInt| x >= &zero && x <= &den;
    // The lines' distance: (r · c)² / c · c.
    let h = dot(&r, &c);
    inside(&sn) && inside(&tn) && reach.holds(&(&h * &h, den))
}

/// The squared distance from point `x` to segment `ab`.
fn to_segment(x: &Point, a: &Point, b: &Point) -> Squared {
    let one = || BigInt::from(1);
    let (u, w) = (sub(b, a), sub(x, a));
    let (wu, uu) = (dot(&w, &u), dot(&u, &u));
    if wu.sign() != num_bigint::Sign::Plus || uu.sign() == num_bigint::Sign::NoSign {
        return (dot(&w, &w), one()); // nearest a
    }
    if wu >= uu {
        let e = sub(x, b);
        return (dot(&e, &e), one()); // nearest b
    }
    // |w × u|² / |u|².
    let c = cross(&w, &u);
    (dot(&c, &c), uu)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::tritri;

    fn next_up(x: f64) -> f64 {
        f64::from_bits(x.to_bits() + 1)
    }
    fn next_down(x: f64) -> f64 {
        f64::from_bits(x.to_bits() - 1)
    }
    fn tri(p: [[f64; 3]; 3]) -> Tri {
        p.map(DVec3::from)
    }

    /// Hand-worked pairs exactly 3 (or 15) apart: closer than the next f64 above, not closer
    /// than that distance or the f64 below it. Their f64 distances, `separated_distance`'s,
    /// are checked within a rounding of it.
    #[test]
    fn pairs_exactly_a_distance_apart_are_not_closer_than_it() {
        // Vertex to face: the plane x + 2y + 2z = 0 (normal of length 3) through a triangle
        // around the origin, and a vertex at (1, 2, 2), 9 / 3 = 3 above the origin.
        let face = tri([[4.0, -1.0, -1.0], [-2.0, 2.0, -1.0], [-2.0, -1.0, 2.0]]);
        let above = tri([[1.0, 2.0, 2.0], [2.0, 4.0, 4.0], [4.0, 3.0, 4.0]]);
        // Edge to edge: the x axis, and the line (0, 3t, 5 + 4t), whose common normal is
        // (0, -4, 3) / 5: 15 / 5 = 3 apart, nearest at (0, 0, 0) and (0, -2.4, 1.8), inside
        // both edges; each third corner lies beyond its edge, away from the other.
        let along_x = tri([[-10.0, 0.0, 0.0], [10.0, 0.0, 0.0], [0.0, 8.0, -6.0]]);
        let skew = tri([[0.0, -6.0, -3.0], [0.0, 3.0, 9.0], [0.0, -8.0, 6.0]]);
        // Vertex to edge: (0, -9, 12) is 15 from the x axis, its foot inside the edge.
        let wide = tri([[-50.0, 0.0, 0.0], [50.0, 0.0, 0.0], [0.0, 40.0, -30.0]]);
        let tip = tri([[0.0, -9.0, 12.0], [10.0, -18.0, 24.0], [-10.0, -18.0, 24.0]]);
        for (t1, t2, d) in [(face, above, 3.0), (along_x, skew, 3.0), (wide, tip, 15.0)] {
            for (t1, t2) in [(t1, t2), (t2, t1)] {
                assert!(!tritri::intersect(&t1, &t2));
                assert!((tritri::separated_distance(&t1, &t2).distance - d).abs() < 1e-14 * d);
                assert!(!closer_than(&t1, &t2, d));
                assert!(!closer_than(&t1, &t2, next_down(d)));
                assert!(closer_than(&t1, &t2, next_up(d)));
            }
        }
    }

    /// A point exactly `r` from a triangle is within `r`, and not within the f64 below it:
    /// above the inside of a face, beside an edge, past a corner.
    #[test]
    fn a_point_exactly_r_away_is_within_r() {
        let face = tri([[4.0, -1.0, -1.0], [-2.0, 2.0, -1.0], [-2.0, -1.0, 2.0]]);
        let wide = tri([[-50.0, 0.0, 0.0], [50.0, 0.0, 0.0], [0.0, 40.0, -30.0]]);
        for (p, t, r) in [
            ([1.0, 2.0, 2.0], face, 3.0),
            ([0.0, -9.0, 12.0], wide, 15.0),
            ([-53.0, 0.0, -4.0], wide, 5.0),
        ] {
            let p = DVec3::from(p);
            assert!(point_within(p, &t, r), "{p} {r}");
            assert!(!point_within(p, &t, next_down(r)), "{p} {r}");
        }
        assert!(point_within(face[1], &face, 0.0));
    }

    /// Random pairs of small integer triangles, disjoint: wherever the f64 distance is clearly
    /// on one side of `d` (by a millionth of it), the exact comparison says the same.
    #[test]
    fn away_from_a_tie_the_exact_comparison_agrees_with_the_f64_distance() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 21) as f64 - 10.0
        };
        let mut decided = 0;
        for _ in 0..3000 {
            let mut corner = |scale: f64| DVec3::new(next(), next(), next()) * scale;
            let t1: Tri = [corner(1.0), corner(1.0), corner(1.0)];
            let shift = corner(0.5);
            let t2: Tri = [corner(1.0), corner(1.0), corner(1.0)].map(|p| p + shift);
            if tritri::intersect(&t1, &t2) {
                continue;
            }
            let dist = tritri::separated_distance(&t1, &t2).distance;
            for d in [0.5, 1.0, 2.5, 4.0, 7.0] {
                if (dist - d).abs() > 1e-6 * d {
                    assert_eq!(closer_than(&t1, &t2, d), dist < d, "{t1:?} {t2:?} {d}");
                    decided += 1;
                }
            }
        }
        assert!(decided > 5000, "{decided}");
    }
}

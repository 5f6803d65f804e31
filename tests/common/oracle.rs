//! An exact oracle for triangle–triangle intersection that shares nothing with the library:
//! linear-programming feasibility over the rationals.
//!
//! Closed triangles `P` and `Q` meet iff there are barycentric weights `λ, μ ≥ 0`, `Σλ = 1`,
//! `Σμ = 1`, with `Σ λ_i p_i = Σ μ_j q_j`. If that system is feasible it has a basic feasible
//! solution, whose support columns are linearly independent; so we enumerate every subset of the
//! six columns, solve exactly where the columns are independent, and look for a non-negative
//! solution. Integer coordinates only (the tests scale and translate exactly afterwards).

#[derive(Clone, Copy, Debug, PartialEq)]
struct Q {
    n: i128,
    d: i128,
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

impl Q {
    fn int(n: i128) -> Q {
        Q { n, d: 1 }
    }
    fn norm(n: i128, d: i128) -> Q {
        let g = gcd(n, d).max(1);
        let s = if d < 0 { -1 } else { 1 };
        Q {
            n: s * n / g,
            d: s * d / g,
        }
    }
    fn add(self, o: Q) -> Q {
        Q::norm(self.n * o.d + o.n * self.d, self.d * o.d)
    }
    fn sub(self, o: Q) -> Q {
        Q::norm(self.n * o.d - o.n * self.d, self.d * o.d)
    }
    fn mul(self, o: Q) -> Q {
        Q::norm(self.n * o.n, self.d * o.d)
    }
    fn div(self, o: Q) -> Q {
        Q::norm(self.n * o.d, self.d * o.n)
    }
    fn is_zero(self) -> bool {
        self.n == 0
    }
}

// Row operations read one row of `m` while writing another: indices, not iterators.
#[allow(clippy::needless_range_loop)]
/// Solve `A x = b` (5 rows, `cols` columns) exactly; `Some(x)` only when the columns are
/// independent and the system consistent.
fn solve(a: &[[Q; 6]; 5], b: &[Q; 5], cols: &[usize]) -> Option<Vec<Q>> {
    let k = cols.len();
    let mut m: Vec<Vec<Q>> = (0..5)
        .map(|r| {
            let mut row: Vec<Q> = cols.iter().map(|&c| a[r][c]).collect();
            row.push(b[r]);
            row
        })
        .collect();
    let mut row = 0;
    for col in 0..k {
        let piv = (row..5).find(|&r| !m[r][col].is_zero())?; // dependent column
        m.swap(row, piv);
        for r in 0..5 {
            if r != row && !m[r][col].is_zero() {
                let f = m[r][col].div(m[row][col]);
                for c in col..=k {
                    m[r][c] = m[r][c].sub(f.mul(m[row][c]));
                }
            }
        }
        row += 1;
    }
    if (row..5).any(|r| !m[r][k].is_zero()) {
        return None; // inconsistent
    }
    Some((0..k).map(|i| m[i][k].div(m[i][i])).collect())
}

/// The system `Σ λ_i p_i − Σ μ_j q_j = 0`, `Σ λ = 1`, `Σ μ = 1` over the columns `λ, μ`.
fn system(p: &[[i64; 3]; 3], q: &[[i64; 3]; 3]) -> ([[Q; 6]; 5], [Q; 5]) {
    let mut a = [[Q::int(0); 6]; 5];
    for i in 0..3 {
        for k in 0..3 {
            a[k][i] = Q::int(p[i][k] as i128);
            a[k][3 + i] = Q::int(-(q[i][k] as i128));
        }
        a[3][i] = Q::int(1);
        a[4][3 + i] = Q::int(1);
    }
    (a, [Q::int(0), Q::int(0), Q::int(0), Q::int(1), Q::int(1)])
}

/// Every basic feasible solution `(λ, μ)` of the system: the vertices of the polytope of
/// common points' weights.
fn basic_solutions(p: &[[i64; 3]; 3], q: &[[i64; 3]; 3]) -> impl Iterator<Item = [Q; 6]> {
    let (a, b) = system(p, q);
    (1u32..64).filter_map(move |mask| {
        let cols: Vec<usize> = (0..6).filter(|c| mask & (1 << c) != 0).collect();
        if cols.len() > 5 {
            return None;
        }
        let x = solve(&a, &b, &cols)?;
        if x.iter().any(|v| v.n < 0) {
            return None;
        }
        let mut full = [Q::int(0); 6];
        for (&c, v) in cols.iter().zip(x) {
            full[c] = v;
        }
        Some(full)
    })
}

/// Exact: do the closed triangles with integer vertices `p` and `q` intersect?
pub fn triangles_intersect_int(p: &[[i64; 3]; 3], q: &[[i64; 3]; 3]) -> bool {
    basic_solutions(p, q).next().is_some()
}

/// Exact, for a triangle `p` of non-zero area: do `p` and `q` have a common point off the
/// vertices `shared` of `p` and the segment between them, i.e. one whose weight on some other
/// vertex of `p` is positive? (A linear function's maximum over the common points is reached at
/// a vertex of their polytope, so the basic solutions decide it.)
pub fn triangles_meet_beyond_int(p: &[[i64; 3]; 3], q: &[[i64; 3]; 3], shared: &[usize]) -> bool {
    basic_solutions(p, q).any(|x| (0..3).any(|i| !shared.contains(&i) && x[i].n > 0))
}

/// The extreme points of the polytope of common points' weights, each mapped to its point
/// `Σ λ_i p_i` (exact rationals): the common set of the two triangles is their convex hull
/// (the image of a polytope under a linear map is the hull of its vertices' images). Empty
/// when the triangles do not meet.
fn common_points_exact(p: &[[i64; 3]; 3], q: &[[i64; 3]; 3]) -> Vec<[Q; 3]> {
    basic_solutions(p, q)
        .map(|x| {
            std::array::from_fn(|k| {
                (0..3).fold(Q::int(0), |acc, i| {
                    acc.add(x[i].mul(Q::int(p[i][k] as i128)))
                })
            })
        })
        .collect()
}

/// [`common_points_exact`] rounded to `f64` (each coordinate a quotient of integers, rounded
/// once more by the division: within 1 ulp).
pub fn common_points_int(p: &[[i64; 3]; 3], q: &[[i64; 3]; 3]) -> Vec<[f64; 3]> {
    common_points_exact(p, q)
        .iter()
        .map(|x| x.map(|c| c.n as f64 / c.d as f64))
        .collect()
}

/// Exact, for intersecting triangles with integer vertices: the dimension of their common set
/// (0 a point, 1 a segment, 2 an area), from the extreme points of the polytope of common
/// points' weights, each mapped to its point `Σ λ_i p_i`; `None` when they do not meet.
pub fn intersection_dimension_int(p: &[[i64; 3]; 3], q: &[[i64; 3]; 3]) -> Option<usize> {
    let points = common_points_exact(p, q);
    let first = *points.first()?;
    let diffs: Vec<[Q; 3]> = points
        .iter()
        .map(|x| std::array::from_fn(|k| x[k].sub(first[k])))
        .filter(|v: &[Q; 3]| v.iter().any(|c| !c.is_zero()))
        .collect();
    let Some(u) = diffs.first() else {
        return Some(0);
    };
    let cross = |v: &[Q; 3]| {
        [
            u[1].mul(v[2]).sub(u[2].mul(v[1])),
            u[2].mul(v[0]).sub(u[0].mul(v[2])),
            u[0].mul(v[1]).sub(u[1].mul(v[0])),
        ]
    };
    let flat = diffs.iter().all(|v| cross(v).iter().all(|c| c.is_zero()));
    Some(if flat { 1 } else { 2 })
}

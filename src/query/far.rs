//! Parts so far apart, for their size, that the rounding of their coordinates exceeds the
//! differences between their triangle pairs' distances: 1e18 apart at unit size, every pair's
//! distance is the same `f64`, and no bound can prune a pair, so the search would visit them
//! all. There the distance is `|T| + T̂ · (q − p) + O(s² / |T|)` for `T` between the parts'
//! centres, `p` in A and `q` in B, `s` their size: beyond 2^28 sizes apart the last term is
//! below a sixteenth of an ulp of the distance, and the closest pair is the one whose linear
//! term is smallest: A's support vertex towards B and B's towards A, found in one pass over
//! the vertices (each measured from its own part's centre, rotated, never carried out to the
//! large coordinates). Ties go to the smaller vertex index, then the smaller triangle index.

use super::Posed;
use crate::geom::DVec3;
use rayon::prelude::*;

/// How many of their combined box diagonals apart the parts must be (their boxes' gap) for
/// [`support_pair`] to answer.
const FAR: f64 = (1u64 << 28) as f64;

/// The closest triangle pair of parts this far apart, or `None` when they are nearer.
pub(crate) fn support_pair(a: &Posed, b: &Posed) -> Option<(u32, u32)> {
    let (ba, bb) = (a.node_box(0), b.node_box(0));
    let size = ba.diagonal() + bb.diagonal();
    // NaN sizes (none: the boxes are finite) would answer no.
    (ba.distance(&bb) >= FAR * size).then_some(())?;
    let (ca, cb) = (ba.center(), bb.center());
    // Halved first: a difference of coordinates near f64::MAX overflows.
    let dir = (cb * 0.5 - ca * 0.5).normalize_or_zero();
    let va = support(a, dir, ca);
    let vb = support(b, -dir, cb);
    Some((first_triangle_of(a, va)?, first_triangle_of(b, vb)?))
}

/// The vertex of `m` farthest along `dir`, from the part's own centre `c` (world): each vertex
/// rotated from the centre in the mesh's own frame, so no large coordinate enters.
fn support(m: &Posed, dir: DVec3, c: DVec3) -> u32 {
    let local_c = m.pose.unapply(c);
    let mesh = &m.prep.mesh;
    (0..mesh.vertices.len() as u32)
        .into_par_iter()
        .map(|v| (dir.dot(m.pose.rotate(mesh.vertex(v) - local_c)), v))
        .reduce(
            || (f64::NEG_INFINITY, u32::MAX),
            |x, y| {
                // Farther first, then the smaller index.
                if y.0 > x.0 || (y.0 == x.0 && y.1 < x.1) {
                    y
                } else {
                    x
                }
            },
        )
        .1
}

/// The smallest-index triangle using vertex `v`.
fn first_triangle_of(m: &Posed, v: u32) -> Option<u32> {
    m.prep
        .mesh
        .triangles
        .par_iter()
        .position_first(|t| t.contains(&v))
        .map(|i| i as u32)
}

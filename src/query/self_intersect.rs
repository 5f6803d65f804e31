//! Self-intersection of one mesh, CGAL's convention (`../shared/cases/README.md`): neighbours
//! meet where they share a vertex or an edge by construction, and that does not count; it counts
//! when a pair sharing an edge folds over (overlaps beyond the edge), when a pair sharing one
//! vertex meets anywhere else too, and for duplicate faces. Zero-area triangles are left out and
//! counted. Everything is decided with exact predicates on the mesh's own coordinates.

use super::{concatenated, par_outputs_by_job, Listed, Listing, Posed, Timings, TooMany};
use crate::geom::predicates::{
    self, direction_enters_triangle, orient2d, orient3d, project, segment_triangle,
};
use crate::geom::tritri::separation_bound;
use crate::geom::{centroid, spheres_within, DVec3, Tri};
use crate::mesh::Pose;
use crate::octree::self_leaf_pairs;
use rayon::prelude::*;
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SelfKind {
    DisjointVertices,
    SharedVertex,
    SharedEdgeFoldover,
    DuplicateFace,
}

impl SelfKind {
    /// Every kind, in the order the command line lists them.
    pub const ALL: [SelfKind; 4] = [
        SelfKind::DisjointVertices,
        SelfKind::SharedVertex,
        SelfKind::SharedEdgeFoldover,
        SelfKind::DuplicateFace,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SelfKind::DisjointVertices => "disjoint_vertices",
            SelfKind::SharedVertex => "shared_vertex",
            SelfKind::SharedEdgeFoldover => "shared_edge_foldover",
            SelfKind::DuplicateFace => "duplicate_face",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelfPair {
    pub a: u32,
    pub b: u32,
    pub kind: SelfKind,
}

#[derive(Clone, Debug, Default)]
pub struct SelfReport {
    /// Sorted by `(a, b)`, `a < b`.
    pub pairs: Vec<SelfPair>,
    pub zero_area_triangles: usize,
    pub candidates: u64,
    pub timings: Timings,
}

impl SelfReport {
    pub fn count(&self, kind: SelfKind) -> usize {
        self.pairs.iter().filter(|p| p.kind == kind).count()
    }
}

/// Self-intersecting triangle pairs of `m` (its pose is irrelevant: use [`Pose::IDENTITY`]).
/// However many there are: [`self_intersections_at_most`] stops at a number.
pub fn self_intersections(m: &super::PreparedMesh) -> SelfReport {
    match self_intersections_at_most(m, u64::MAX) {
        Ok(r) => r,
        Err(_) => unreachable!("no search finds more than u64::MAX pairs"),
    }
}

/// [`self_intersections`], refused once more than `most` pairs are found (one triangle
/// repeated 50 000 times cuts itself in 1.25e9 pairs, and filled the memory, a hunt's helper).
pub fn self_intersections_at_most(
    m: &super::PreparedMesh,
    most: u64,
) -> Result<SelfReport, TooMany> {
    let mut timings = Timings::default();
    let t = Instant::now();
    let posed = Posed::new(m, Pose::IDENTITY);
    let sph = posed.spheres();
    posed.boxes();
    timings.add("transform", t);
    let t = Instant::now();
    let leaves = self_leaf_pairs(posed.tree(), posed.boxes(), 0.0);
    let tris = &m.mesh.triangles;
    let listed = Listed::new(most);
    let jobs = par_outputs_by_job(
        &leaves,
        |&(p, q), (tp, tq): &mut (Vec<Tri>, Vec<Tri>), tested, out| {
            if listed.full() {
                return;
            }
            let before = out.len();
            let (lp, lq) = (posed.node_tris(p), posed.node_tris(q));
            // Each triangle meets every one of the other leaf: fetched once here.
            tp.clear();
            tp.extend(lp.iter().map(|&i| posed.tri(i)));
            tq.clear();
            tq.extend(lq.iter().map(|&j| posed.tri(j)));
            for (k, &i) in lp.iter().enumerate() {
                let first = if p == q { k + 1 } else { 0 };
                for (l, &j) in lq.iter().enumerate().skip(first) {
                    if m.zero_area[i as usize] || m.zero_area[j as usize] {
                        continue;
                    }
                    if !spheres_within(&sph[i as usize], &sph[j as usize], 0.0) {
                        continue;
                    }
                    *tested += 1;
                    // Each pair once, as (smaller, larger).
                    let ((a, ta), (b, tb)) = if i < j {
                        ((i, &tp[k]), (j, &tq[l]))
                    } else {
                        ((j, &tq[l]), (i, &tp[k]))
                    };
                    if let Some(kind) = pair_kind(tris[a as usize], tris[b as usize], ta, tb) {
                        out.push(SelfPair { a, b, kind });
                    }
                }
            }
            listed.add(out.len() - before);
        },
    );
    listed.over(Listing::SelfIntersecting)?;
    let (candidates, mut pairs) = concatenated(jobs);
    pairs.par_sort_unstable_by_key(|p| (p.a, p.b));
    timings.add("self_intersect", t);
    Ok(SelfReport {
        pairs,
        zero_area_triangles: m.zero_area.iter().filter(|&&z| z).count(),
        candidates,
        timings,
    })
}

/// The CGAL rule for one pair of non-degenerate triangles with vertex indices `ia`, `ib`.
pub(crate) fn pair_kind(ia: [u32; 3], ib: [u32; 3], a: &Tri, b: &Tri) -> Option<SelfKind> {
    // The shared corners as (index in a, index in b); no allocation: this runs for every pair
    // of neighbours.
    let mut shared = [(0usize, 0usize); 9];
    let mut n = 0;
    for (x, va) in ia.iter().enumerate() {
        for (y, vb) in ib.iter().enumerate() {
            if va == vb {
                shared[n] = (x, y);
                n += 1;
            }
        }
    }
    match n {
        // A positive separating bound proves them apart (its margin covers its rounding): cheaper
        // than the exact test, whose slow path nearly coplanar triangles side by side reach.
        0 => (separation_bound(a, b, centroid(b) - centroid(a)) <= 0.0
            && predicates::triangles_intersect(a, b))
        .then_some(SelfKind::DisjointVertices),
        1 => {
            let (x, y) = shared[0];
            let (a1, a2) = (a[(x + 1) % 3], a[(x + 2) % 3]);
            let (b1, b2) = (b[(y + 1) % 3], b[(y + 2) % 3]);
            shared_vertex_meets_elsewhere(a[x], a1, a2, b1, b2).then_some(SelfKind::SharedVertex)
        }
        2 => {
            // Shared edge (u, w); p and q are the other vertices. Beyond the edge they overlap
            // only if coplanar with p and q on the same side of the edge.
            let (u, w) = (a[shared[0].0], a[shared[1].0]);
            let p = a[3 - shared[0].0 - shared[1].0];
            let q = b[3 - shared[0].1 - shared[1].1];
            if orient3d(u, w, p, q) != 0 {
                return None;
            }
            let k = (0..3)
                .find(|&k| orient2d(project(u, k), project(w, k), project(p, k)) != 0)
                .unwrap_or(2);
            let sp = orient2d(project(u, k), project(w, k), project(p, k));
            let sq = orient2d(project(u, k), project(w, k), project(q, k));
            (sp * sq > 0).then_some(SelfKind::SharedEdgeFoldover)
        }
        _ => Some(SelfKind::DuplicateFace),
    }
}

/// Whether the non-degenerate triangles `(v, a1, a2)` and `(v, b1, b2)`, which share the
/// vertex `v` only, meet anywhere but at `v`. Most neighbours on a surface are settled by two
/// signs: when both other vertices of one triangle lie strictly on one side of the other's
/// plane, that triangle touches the plane at `v` alone, so they meet only there. The rest
/// (coplanar or folded neighbours) take [`shared_vertex_meets_elsewhere_by_edges`].
pub fn shared_vertex_meets_elsewhere(v: DVec3, a1: DVec3, a2: DVec3, b1: DVec3, b2: DVec3) -> bool {
    let beside =
        |p: DVec3, q: DVec3, r: DVec3, s: DVec3| orient3d(v, p, q, r) * orient3d(v, p, q, s) > 0;
    if beside(a1, a2, b1, b2) || beside(b1, b2, a1, a2) {
        return false;
    }
    shared_vertex_meets_elsewhere_by_edges(v, a1, a2, b1, b2)
}

/// [`shared_vertex_meets_elsewhere`] in every case: meeting anywhere but `v` means an edge of
/// one meets the other away from `v`: the edge opposite `v` anywhere, or an edge from `v`
/// heading into the other triangle.
pub fn shared_vertex_meets_elsewhere_by_edges(
    v: DVec3,
    a1: DVec3,
    a2: DVec3,
    b1: DVec3,
    b2: DVec3,
) -> bool {
    segment_triangle(a1, a2, &[v, b1, b2])
        || segment_triangle(b1, b2, &[v, a1, a2])
        || direction_enters_triangle(v, a1, b1, b2)
        || direction_enters_triangle(v, a2, b1, b2)
        || direction_enters_triangle(v, b1, a1, a2)
        || direction_enters_triangle(v, b2, a1, a2)
}

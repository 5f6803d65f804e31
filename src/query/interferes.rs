//! A yes/no clash query that stops at the first evidence: the question a clash review asks
//! first, answered without listing every pair.

use super::containment::point_in_closed_mesh;
use super::Posed;
use crate::geom::{spheres_within, tritri};
use crate::octree::any_leaf_pair;

/// Do the parts interfere: surfaces meeting, or one inside the other. Same answer as
/// [`super::check`]'s `interferes()`, found faster:
/// - both closed: a vertex of either that ray parity puts inside the other means the solids
///   overlap (or, if the vertex is on the surface, touch): interference, in microseconds. A
///   vertex found outside proves nothing yet;
/// - otherwise the surface search, stopping at the first intersecting pair.
pub fn interferes(a: &Posed, b: &Posed) -> bool {
    if a.prep.info.closed && b.prep.info.closed {
        let first = |m: &Posed| m.verts[m.prep.mesh.triangles[0][0] as usize];
        if point_in_closed_mesh(first(a), b) == Some(true)
            || point_in_closed_mesh(first(b), a) == Some(true)
        {
            return true;
        }
    }
    any_leaf_pair(a.tree(), &a.boxes, b.tree(), &b.boxes, 0.0, |la, lb| {
        a.node_tris(la).iter().any(|&i| {
            b.node_tris(lb).iter().any(|&j| {
                spheres_within(&a.sphere(i), &b.sphere(j), 0.0)
                    && tritri::intersect(&a.tri(i), &b.tri(j))
            })
        })
    })
}

//! Is one closed mesh inside another? Point-in-closed-mesh by ray parity, decided exactly:
//! each crossing is an exact segment–triangle test, and a ray that grazes an edge or a vertex
//! (detected exactly) is thrown away for another direction, so parity is never miscounted.

use super::Posed;
use crate::geom::predicates::{is_degenerate, orient3d, segment_triangle};
use crate::geom::ray::segment_aabb;
use crate::geom::DVec3;
use rayon::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Containment {
    AInB,
    BInA,
}

impl Containment {
    pub fn as_str(self) -> &'static str {
        match self {
            Containment::AInB => "a_in_b",
            Containment::BInA => "b_in_a",
        }
    }
}

/// Directions with no rational relation to the axes (a CAD mesh's faces and edges are mostly
/// axis-aligned), tried in turn until one ray meets no edge or vertex.
const DIRECTIONS: [[f64; 3]; 8] = [
    [0.5773502691896257, 0.6180339887498949, 0.5345224838248488],
    [-0.7071067811865476, 0.3090169943749474, 0.6366197723675814],
    [0.2718281828459045, -0.8660254037844386, 0.4142135623730950],
    [0.1414213562373095, 0.2236067977499790, -0.9643650760992955],
    [
        -0.3819660112501051,
        -0.5772156649015329,
        -0.7211102550927979,
    ],
    [0.9165151389911680, -0.1732050807568877, 0.3605551275463989],
    [-0.4472135954999579, 0.8944271909999159, -0.0318309886183791],
    [0.6931471805599453, 0.1098612288668110, -0.7124746655963472],
];

/// Whether `p` is strictly inside the closed mesh `m` (its surface must not pass through `p`).
/// `None` if every direction grazed an edge or vertex (never seen on real meshes).
pub fn point_in_closed_mesh(p: DVec3, m: &Posed) -> Option<bool> {
    let root = m.boxes[0];
    let reach = 2.0 * (root.diagonal() + p.distance(root.center())) + 1.0;
    for dir in DIRECTIONS {
        let q = p + DVec3::from_array(dir) * reach;
        if let Some(crossings) = count_crossings(p, q, m) {
            return Some(crossings % 2 == 1);
        }
    }
    None
}

/// Proper crossings of segment `pq` with the surface; `None` if it touches an edge or vertex, or
/// lies in a triangle's plane across it (the parity would be ambiguous).
fn count_crossings(p: DVec3, q: DVec3, m: &Posed) -> Option<u64> {
    let tree = m.tree();
    let mut stack = vec![0usize];
    let mut leaves = Vec::new();
    while let Some(n) = stack.pop() {
        if segment_aabb(p, q, &m.boxes[n]).is_none() {
            continue;
        }
        let node = &tree.nodes[n];
        if node.is_leaf() {
            leaves.push(n as u32);
        } else {
            stack.extend(node.children());
        }
    }
    let per_leaf: Vec<Option<u64>> = leaves
        .par_iter()
        .map(|&n| {
            let mut count = 0;
            for &t in m.node_tris(n) {
                let tri = m.tri(t);
                if is_degenerate(&tri) {
                    if segment_triangle(p, q, &tri) {
                        return None;
                    }
                    continue;
                }
                let op = orient3d(tri[0], tri[1], tri[2], p);
                let oq = orient3d(tri[0], tri[1], tri[2], q);
                if op * oq > 0 || (op == 0 && oq != 0) {
                    // Both ends on one side; or the start on the plane (outside the triangle,
                    // since the surfaces do not meet p) and the rest off it.
                    continue;
                }
                if oq == 0 {
                    if segment_triangle(p, q, &tri) {
                        return None; // ends on the surface or runs in its plane
                    }
                    continue;
                }
                let s = [
                    orient3d(p, q, tri[0], tri[1]),
                    orient3d(p, q, tri[1], tri[2]),
                    orient3d(p, q, tri[2], tri[0]),
                ];
                let pos = s.iter().any(|&x| x > 0);
                let neg = s.iter().any(|&x| x < 0);
                if pos && neg {
                    continue; // passes beside the triangle
                }
                if s.contains(&0) {
                    return None; // through an edge or a vertex
                }
                count += 1;
            }
            Some(count)
        })
        .collect();
    per_leaf.into_iter().sum()
}

/// With the surfaces known not to intersect and both meshes closed: is one inside the other?
/// (A vertex of one is inside the other exactly when the whole mesh is.)
pub fn containment(a: &Posed, b: &Posed) -> Option<Containment> {
    if !(a.prep.info.closed && b.prep.info.closed) {
        return None;
    }
    let first = |m: &Posed| m.verts[m.prep.mesh.triangles[0][0] as usize];
    if point_in_closed_mesh(first(a), b) == Some(true) {
        return Some(Containment::AInB);
    }
    if point_in_closed_mesh(first(b), a) == Some(true) {
        return Some(Containment::BInA);
    }
    None
}

//! Is one part inside another? Point in the solid a mesh's closed bodies bound, by a ray's
//! crossings decided exactly: each crossing is an exact segment–triangle test, and a ray that
//! grazes an edge or a vertex (detected exactly) is thrown away for another direction, so the
//! crossings (parity, or the winding number where the mesh is oriented) are never miscounted.

use super::Posed;
use crate::geom::predicates::{orient3d, segment_triangle};
use crate::geom::ray::SegmentSlabs;
use crate::geom::DVec3;
use rayon::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Containment {
    /// A, or a body of it (a connected component), is inside B.
    AInB,
    /// B, or a body of it, is inside A.
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

/// Ray directions on a golden-angle spiral over the sphere: none is parallel to an axis or a
/// diagonal (a CAD mesh's faces and edges mostly are), tried in turn until one ray meets no edge
/// or vertex.
fn direction(k: usize) -> DVec3 {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let z = 1.0 - (2 * k + 1) as f64 / 16.0 + 0.013;
    let r = (1.0 - z * z).max(0.0).sqrt();
    let phi = golden * (k as f64 + 0.37);
    DVec3::new(r * phi.cos(), r * phi.sin(), z)
}

/// Whether `p` is strictly inside the closed mesh `m` (its surface must not pass through `p`);
/// of a mesh with open bodies, inside the solid its closed bodies bound (the open ones bound
/// nothing and are not counted). A ray's crossings are counted with their direction: where the
/// mesh is oriented, inside means a winding number other than 0, so that a point in two
/// overlapping bodies (an assembly exported as one file, its bodies not united) is inside,
/// where parity would call it outside; a cavity's shell, oriented into the cavity, still
/// cancels the outer one. Otherwise parity. `None` if every direction grazed an edge or
/// vertex (never seen on real meshes).
pub fn point_in_closed_mesh(p: DVec3, m: &Posed) -> Option<bool> {
    let root = m.node_box(0);
    // The root box holds every vertex with room to spare, so a point outside it is outside the
    // solid: no ray needed.
    if (p.cmplt(root.min) | p.cmpgt(root.max)).any() {
        return Some(false);
    }
    let reach = 2.0 * (root.diagonal() + p.distance(root.center())) + 1.0;
    let first = out_nearest(p, &root);
    for dir in std::iter::once(first).chain((0..16).map(direction)) {
        let q = p + dir * reach;
        if let Some((crossings, winding)) = count_crossings(p, q, m) {
            return Some(if m.prep.info.oriented {
                winding != 0
            } else {
                crossings % 2 == 1
            });
        }
    }
    None
}

/// The first direction tried: out through the root box's nearest face, tilted off the axis (a
/// CAD part's faces mostly are axis-aligned). The shortest way out crosses the fewest nodes: a
/// part 1 % inside another is left through the nearby wall, not across the whole part.
fn out_nearest(p: DVec3, root: &crate::geom::Aabb) -> DVec3 {
    let (c, h) = (root.center(), root.half_extent());
    let room = h - (p - c).abs();
    let axis = if room.x <= room.y && room.x <= room.z {
        0
    } else if room.y <= room.z {
        1
    } else {
        2
    };
    let mut out = DVec3::ZERO;
    out[axis] = if p[axis] < c[axis] { -1.0 } else { 1.0 };
    (out + 0.3 * direction(0)).normalize()
}

/// Below this many leaves a ray's crossings are counted on the calling thread.
const PARALLEL_LEAVES: usize = 64;

/// Proper crossings of segment `pq` with the surface, and their sum with signs (+1 where `p` is
/// on the triangle's back, leaving through its front: an oriented closed surface's winding
/// number around `p`, up to its sign); `None` if it touches an edge or vertex, or lies in a
/// triangle's plane across it (the count would be ambiguous).
fn count_crossings(p: DVec3, q: DVec3, m: &Posed) -> Option<(u64, i64)> {
    let tree = m.tree();
    // The nodes are culled in the mesh's own coordinates, the segment carried back there once,
    // rather than each node's box posed: both roundings (the segment's now, the vertices' when
    // posed) are absorbed by padding the boxes by 1e-12 of the coordinates' magnitude.
    let (pl, ql) = (m.pose.unapply(p), m.pose.unapply(q));
    let magnitude = m
        .frame_magnitude()
        .max(p.abs().max_element())
        .max(q.abs().max_element());
    let pad = 1e-12 * magnitude + f64::MIN_POSITIVE;
    let seg = SegmentSlabs::new(pl, ql);
    let mut stack = vec![0usize];
    let mut leaves = Vec::new();
    while let Some(n) = stack.pop() {
        if !seg.meets(&tree.nodes[n].aabb().padded(pad)) {
            continue;
        }
        let node = &tree.nodes[n];
        if node.is_leaf() {
            leaves.push(n as u32);
        } else {
            stack.extend(node.children());
        }
    }
    let open = (!m.prep.info.closed).then_some(&m.prep.bodies);
    let crossings = |&n: &u32| -> Option<(u64, i64)> {
        let (mut count, mut winding) = (0, 0);
        for &t in m.node_tris(n) {
            if open.is_some_and(|b| !b.closed[b.of_triangle[t as usize] as usize]) {
                continue;
            }
            let tri = m.tri(t);
            // A degenerate triangle gives 0 at both ends, and is settled by the exact segment
            // test below, as is any triangle whose plane holds the segment.
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
            winding += op as i64;
        }
        Some((count, winding))
    };
    let add = |x: (u64, i64), y: (u64, i64)| (x.0 + y.0, x.1 + y.1);
    // A ray meets few leaves: threads would cost more than they save.
    if leaves.len() < PARALLEL_LEAVES {
        leaves
            .iter()
            .map(crossings)
            .try_fold((0, 0), |acc, c| c.map(|c| add(acc, c)))
    } else {
        leaves
            .par_iter()
            .map(crossings)
            .try_reduce(|| (0, 0), |x, y| Some(add(x, y)))
    }
}

/// Vertices whose inside-ness stands for their mesh's (any vertex of a body would do when the
/// surfaces do not meet: a body is connected, so it is wholly on one side of the other part's
/// surface): one per body, open or closed ([`crate::mesh::Bodies::probes`]), where it is.
pub(crate) fn probes<'a>(m: &'a Posed) -> impl Iterator<Item = (u32, DVec3)> + 'a {
    m.prep.bodies.probes.iter().map(|&v| (v, m.vertex(v)))
}

/// Whether the mesh bounds a solid: it is closed, or some body of it is.
pub(crate) fn has_solid(m: &Posed) -> bool {
    m.prep.info.closed || m.prep.bodies.bound_a_solid()
}

/// The first of `probes` inside the solid that `m`'s closed bodies bound (none when it has
/// none).
pub(crate) fn first_inside(
    mut probes: impl Iterator<Item = (u32, DVec3)>,
    m: &Posed,
) -> Option<(u32, DVec3)> {
    if !has_solid(m) {
        return None;
    }
    probes.find(|&(_, p)| point_in_closed_mesh(p, m) == Some(true))
}

/// With the surfaces known not to intersect: is one part inside the other, or a body of it?
/// Inside means inside the solid the other part's closed bodies bound; the part inside may be
/// open (a sheet inside a solid shares its points with it).
pub fn containment(a: &Posed, b: &Posed) -> Option<Containment> {
    if first_inside(probes(a), b).is_some() {
        return Some(Containment::AInB);
    }
    if first_inside(probes(b), a).is_some() {
        return Some(Containment::BInA);
    }
    None
}

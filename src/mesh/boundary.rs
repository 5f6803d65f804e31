//! A mesh's boundary, two ways:
//! - as a user sees why a mesh is open ([`BoundaryReport`]): the edges used by one triangle
//!   only, and how many of them lie within a tolerance of another such edge (a crack, or a seam
//!   whose vertices differ by a rounding and did not weld);
//! - as the winding number needs it ([`Caps`]): the boundary of the triangles as an oriented
//!   chain (each directed edge counted +1 forward, −1 backward; what is left over), closed off by
//!   a fan of cap triangles per loop. The mesh plus its caps is then a closed, consistently
//!   oriented surface, whose winding number around a point is an integer an exact ray count
//!   gives; the mesh's own generalized winding number (Jacobson et al. 2013) is that integer
//!   less the caps' solid angles ([`crate::query::winding_number`]).

use super::Mesh;
use crate::geom::closest::closest_points_segments;
use crate::geom::{Aabb, DVec3};
use std::collections::HashMap;

/// What `info` says of a mesh's open edges.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct BoundaryReport {
    /// Edges used by exactly one triangle.
    pub boundary_edges: usize,
    /// Edges used by three or more triangles.
    pub non_manifold_edges: usize,
    /// Boundary edges within [`BoundaryReport::crack_tolerance`] of another boundary edge they
    /// share no vertex with: cracks and unwelded seams, where the mesh is closed to the eye.
    pub boundary_edges_near_another: usize,
    /// 1e-6 of the bounding box's diagonal.
    pub crack_tolerance: f64,
}

/// Undirected edges (smaller vertex first) with, per edge, how many triangles use it and the
/// net count of its uses from the smaller vertex to the larger (−1 for each the other way).
/// An edge from a vertex to itself (a triangle with a repeated corner) bounds nothing and is
/// left out, as [`Mesh::info`]'s `closed` leaves it out.
fn edge_uses(m: &Mesh) -> HashMap<(u32, u32), (u32, i64)> {
    let mut uses: HashMap<(u32, u32), (u32, i64)> = HashMap::with_capacity(m.triangles.len() * 2);
    for t in &m.triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            if a == b {
                continue;
            }
            let e = uses.entry((a.min(b), a.max(b))).or_default();
            e.0 += 1;
            e.1 += if a < b { 1 } else { -1 };
        }
    }
    uses
}

impl BoundaryReport {
    pub fn of(m: &Mesh) -> BoundaryReport {
        let uses = edge_uses(m);
        let mut open: Vec<(u32, u32)> = uses
            .iter()
            .filter(|(_, &(n, _))| n == 1)
            .map(|(&e, _)| e)
            .collect();
        open.sort_unstable();
        let tolerance = 1e-6 * m.bounding_box().diagonal();
        BoundaryReport {
            boundary_edges: open.len(),
            non_manifold_edges: uses.values().filter(|&&(n, _)| n >= 3).count(),
            boundary_edges_near_another: near_another(m, &open, tolerance),
            crack_tolerance: tolerance,
        }
    }
}

/// How many of `edges` lie within `tol` of another of them that shares no vertex with it
/// (neighbours along a boundary loop touch at their shared vertex). A uniform grid: each edge
/// is cut into pieces no longer than a cell, each piece (its box grown by `tol`) goes into the
/// cells its box covers, and two edges are measured, whole and exactly, where they share a
/// cell. Cells start about an edge long, linear for the boundaries meshes have (a sweep along
/// one axis was quadratic for a tube along it), and are halved while they hold far more pairs
/// than pieces and halving makes the work less: in a soup of long edges crossing every way
/// nearly every pair shared a cell (a hunt's helper: 20 000 random triangles took 73 s).
fn near_another(m: &Mesh, edges: &[(u32, u32)], tol: f64) -> usize {
    let ends = |&(a, b): &(u32, u32)| (m.vertex(a), m.vertex(b));
    let mean = edges
        .iter()
        .map(|e| {
            let (p, q) = ends(e);
            Aabb::from_points([p, q]).padded(tol).diagonal()
        })
        .sum::<f64>()
        / edges.len().max(1) as f64;
    let mut cell = mean.max(tol).max(f64::MIN_POSITIVE);
    let mut grid = edge_grid(edges, &ends, cell, tol);
    let mut cost = grid_cost(&grid);
    for _ in 0..64 {
        let (pieces, pairs) = cost;
        // Crowded (far more pairs than pieces), and a finer cell still above the tolerance
        // and under 2^24 pieces: worth trying.
        let half = cell / 2.0;
        if pairs <= 16 * pieces || !(half >= 8.0 * tol && half > 0.0) || pieces > 1 << 24 {
            break;
        }
        let finer = edge_grid(edges, &ends, half, tol);
        let (p2, q2) = grid_cost(&finer);
        // Halving pays only where it parts edges: along a stack of edges a rounding apart
        // every cell holds them all at any size, and halving on took 34 stacked triangles to
        // 19 s (a review's helper).
        if (p2 + q2) as f64 > 0.9 * (pieces + pairs) as f64 {
            break;
        }
        (cell, grid, cost) = (half, finer, (p2, q2));
    }
    let mut near = vec![false; edges.len()];
    for members in grid.values() {
        for (k, &i) in members.iter().enumerate() {
            for &j in &members[k + 1..] {
                let (i, j) = (i as usize, j as usize);
                let (ei, ej) = (edges[i], edges[j]);
                let shared = ei.0 == ej.0 || ei.0 == ej.1 || ei.1 == ej.0 || ei.1 == ej.1;
                if shared || (near[i] && near[j]) {
                    continue;
                }
                let ((p1, q1), (p2, q2)) = (ends(&ei), ends(&ej));
                if closest_points_segments(p1, q1, p2, q2).distance_squared <= tol * tol {
                    near[i] = true;
                    near[j] = true;
                }
            }
        }
    }
    near.iter().filter(|&&n| n).count()
}

/// A grid's pieces and the pairs its cells hold.
fn grid_cost(grid: &HashMap<[i64; 3], Vec<u32>>) -> (usize, usize) {
    let pieces = grid.values().map(Vec::len).sum();
    let pairs = grid
        .values()
        .map(|c| c.len() * c.len().saturating_sub(1) / 2)
        .sum();
    (pieces, pairs)
}

/// [`near_another`]'s grid of `cell`: per cell, the edges with a piece in it, each once.
fn edge_grid(
    edges: &[(u32, u32)],
    ends: &impl Fn(&(u32, u32)) -> (DVec3, DVec3),
    cell: f64,
    tol: f64,
) -> HashMap<[i64; 3], Vec<u32>> {
    let key = |p: DVec3| (p / cell).floor().as_i64vec3().to_array();
    let mut grid: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
    for (i, e) in edges.iter().enumerate() {
        let (p, q) = ends(e);
        let n = ((p.distance(q) / cell).ceil() as usize).clamp(1, 1 << 24);
        for k in 0..n {
            let (s, t) = (k as f64 / n as f64, (k + 1) as f64 / n as f64);
            let piece = Aabb::from_points([p.lerp(q, s), p.lerp(q, t)]).padded(tol);
            let (lo, hi) = (key(piece.min), key(piece.max));
            for x in lo[0]..=hi[0] {
                for y in lo[1]..=hi[1] {
                    for z in lo[2]..=hi[2] {
                        let members = grid.entry([x, y, z]).or_default();
                        if members.last() != Some(&(i as u32)) {
                            members.push(i as u32);
                        }
                    }
                }
            }
        }
    }
    grid
}

/// The caps that close a mesh's boundary chain: one fan per loop, from the mean of the loop's
/// vertices (in the mesh's own coordinates) to each of its edges, turned against the mesh's use
/// of the edge so that the two cancel. Empty for a closed, consistently oriented mesh.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Caps {
    /// Per loop, its fan's apex.
    pub apexes: Vec<DVec3>,
    /// Cap triangles `(loop, u, v)`: apex, vertex `u`, vertex `v`, in that order. An edge the
    /// mesh uses k times more one way than the other gives k of them.
    pub triangles: Vec<(u32, u32, u32)>,
}

impl Caps {
    pub fn of(m: &Mesh) -> Caps {
        // The chain: the mesh runs `from -> to` net `k` times; its cap runs `to -> from`.
        let mut chain: Vec<(u32, u32)> = Vec::new();
        for (&(a, b), &(_, net)) in &edge_uses(m) {
            let (from, to) = if net > 0 { (a, b) } else { (b, a) };
            chain.extend(std::iter::repeat_n((from, to), net.unsigned_abs() as usize));
        }
        chain.sort_unstable();
        // Loops: the chain's edges joined where they share a vertex. Each such piece is a cycle
        // of its own (at every vertex as many chain edges arrive as leave), so a fan from any
        // apex closes it.
        let mut parent: HashMap<u32, u32> = HashMap::new();
        fn root(parent: &mut HashMap<u32, u32>, v: u32) -> u32 {
            let mut r = v;
            while let Some(&p) = parent.get(&r).filter(|&&p| p != r) {
                r = p;
            }
            parent.insert(v, r);
            r
        }
        for &(u, v) in &chain {
            let (ru, rv) = (root(&mut parent, u), root(&mut parent, v));
            parent.insert(ru.max(rv), ru.min(rv));
        }
        let mut loop_of_root: HashMap<u32, u32> = HashMap::new();
        let mut sums: Vec<(DVec3, f64)> = Vec::new();
        let mut triangles = Vec::with_capacity(chain.len());
        for &(from, to) in &chain {
            let r = root(&mut parent, from);
            let l = *loop_of_root.entry(r).or_insert_with(|| {
                sums.push((DVec3::ZERO, 0.0));
                sums.len() as u32 - 1
            });
            // Each chain edge adds its start: a cycle visits each of its vertices that often.
            sums[l as usize].0 += m.vertex(from);
            sums[l as usize].1 += 1.0;
            triangles.push((l, to, from));
        }
        Caps {
            apexes: sums.iter().map(|&(s, n)| s / n).collect(),
            triangles,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }
}

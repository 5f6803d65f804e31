//! Twin of `shaders/narrow.wgsl`: `main` (intersect, clearance, self with the neighbour
//! rule), `distance` and `band`, one candidate pair at a time.

use super::common::{local_tri, tri_dist};
use super::{INF, U};
use crate::gpu::layout::UNSURE;
use crate::gpu::layout::{Hit, Pair, Query, DISJOINT, MODE_INTERSECT, MODE_SELF, MODE_SELF_CROSS};
use crate::mesh::TriRecord;
use glam::Vec3;

/// `narrow.wgsl::orient`.
pub fn orient(a: Vec3, b: Vec3, c: Vec3, d: Vec3, e_in: f32) -> i32 {
    let (ad, bd, cd) = (a - d, b - d, c - d);
    let det = ad.dot(bd.cross(cd));
    let e2 = 2.0 * e_in;
    let (la, lb, lc) = (ad.length() + e2, bd.length() + e2, cd.length() + e2);
    let bound = 2.0 * (e2 * (lb * lc + la * lc + la * lb) + 32.0 * U * la * lb * lc) + 1e-30;
    if det > bound {
        1
    } else if det < -bound {
        -1
    } else {
        0
    }
}

/// `narrow.wgsl::tri_tri`: 0 disjoint, 1 intersecting, 2 unsure. As loops here: the shader
/// writes them out (lavapipe's cost of dynamically indexed arrays), in the same order.
pub fn tri_tri(p: &[Vec3; 3], r: &[Vec3; 3], e: f32) -> u32 {
    let op: [i32; 3] = std::array::from_fn(|i| orient(r[0], r[1], r[2], p[i], e));
    if op[0] != 0 && op[0] == op[1] && op[1] == op[2] {
        return 0;
    }
    let mut or = [0i32; 3];
    for i in 0..3 {
        or[i] = orient(p[0], p[1], p[2], r[i], e);
        if op[i] == 0 || or[i] == 0 {
            return 2;
        }
    }
    if or[0] == or[1] && or[1] == or[2] {
        return 0;
    }
    for i in 0..3 {
        let j = (i + 1) % 3;
        for (x, y, sx) in [(p, r, &op), (r, p, &or)] {
            if sx[i] != sx[j] {
                let s0 = orient(x[i], x[j], y[0], y[1], e);
                let s1 = orient(x[i], x[j], y[1], y[2], e);
                let s2 = orient(x[i], x[j], y[2], y[0], e);
                if s0 == 0 || s1 == 0 || s2 == 0 {
                    return 2;
                }
                if s0 == s1 && s1 == s2 {
                    return 1;
                }
            }
        }
    }
    0
}

/// `narrow.wgsl::neighbours`: two triangles of one mesh that share welded vertices (`ia`,
/// `ib`), by CGAL's convention: certain "no" where the signs allow, else unsure. No vertex
/// shared: [`tri_tri`]. One: disjoint when the other two vertices of either lie strictly on one
/// side of the other's plane. Two (an edge): disjoint unless coplanar. Three: a duplicate face.
pub fn neighbours(p: &[Vec3; 3], r: &[Vec3; 3], ia: [u32; 3], ib: [u32; 3], e: f32) -> u32 {
    // m[k][x]: A's vertex x is B's vertex k.
    let m: [[bool; 3]; 3] = std::array::from_fn(|k| ia.map(|x| x == ib[k]));
    let common = m.iter().flatten().filter(|&&x| x).count();
    let sa: [bool; 3] = std::array::from_fn(|x| m[0][x] || m[1][x] || m[2][x]);
    let sb: [bool; 3] = std::array::from_fn(|k| m[k].iter().any(|&x| x));
    match common {
        0 => tri_tri(p, r, e),
        3.. => 1,
        2 => {
            // The last vertex of each that the other does not share.
            let (pa, pb) = (last_unshared(sa), last_unshared(sb));
            let (u, w) = (p[(pa + 1) % 3], p[(pa + 2) % 3]);
            if orient(u, w, p[pa], r[pb], e) != 0 {
                0
            } else {
                2
            }
        }
        _ => {
            let side = |t: &[Vec3; 3], x: Vec3, shared: bool| {
                if shared {
                    0
                } else {
                    orient(t[0], t[1], t[2], x, e)
                }
            };
            let na: i32 = (0..3).map(|k| side(r, p[k], sa[k])).sum();
            let nb: i32 = (0..3).map(|k| side(p, r[k], sb[k])).sum();
            // Two certain signs that agree sum to ±2.
            if na.abs() == 2 || nb.abs() == 2 {
                0
            } else {
                2
            }
        }
    }
}

/// `narrow.wgsl::last_unshared`: the last of the three flags that is false (0 if none is).
fn last_unshared(s: [bool; 3]) -> usize {
    if !s[2] {
        2
    } else if !s[1] {
        1
    } else {
        0
    }
}

/// The mesh's welded vertex indices of position `i` (`vidx`: three per triangle).
fn corners(vidx: &[u32], i: u32) -> [u32; 3] {
    let k = 3 * i as usize;
    [vidx[k], vidx[k + 1], vidx[k + 2]]
}

/// A part's records and welded vertex indices, as `narrow.wgsl` binds them.
pub struct Side<'a> {
    pub tris: &'a [TriRecord],
    pub vidx: &'a [u32],
}

/// `narrow.wgsl::main` over every candidate, in every mode: intersect (the pairs that may
/// meet), self (the neighbour rule) and clearance (meeting pairs, and disjoint ones whose f32
/// distance is not certainly at least `d`, flagged [`DISJOINT`] with it). In order.
pub fn main(q: &Query, a: Side, b: Side, pairs: &[Pair]) -> Vec<Hit> {
    let mut out = Vec::new();
    for &[i, j] in pairs {
        let (p, r) = (
            local_tri(&q.a, &a.tris[i as usize]),
            local_tri(&q.b, &b.tris[j as usize]),
        );
        let hit = |flag, dist: f32| Hit {
            a: i,
            b: j,
            flag,
            dist_bits: dist.to_bits(),
        };
        if q.mode == MODE_SELF || q.mode == MODE_SELF_CROSS {
            let code = neighbours(&p, &r, corners(a.vidx, i), corners(b.vidx, j), q.tol[2]);
            out.extend((code != 0).then(|| hit(code, 0.0)));
            continue;
        }
        let code = tri_tri(&p, &r, q.tol[2]);
        if code != 0 || q.mode == MODE_INTERSECT {
            out.extend((code != 0).then(|| hit(code, 0.0)));
            continue;
        }
        let dist = tri_dist(&p, &r);
        if dist - q.tol[3] < q.tol[0] {
            out.push(hit(DISJOINT, dist));
        }
    }
    out
}

/// `narrow.wgsl::main` in intersect mode without the vertex indices it does not read.
pub fn narrow_intersect(
    q: &Query,
    tris_a: &[TriRecord],
    tris_b: &[TriRecord],
    pairs: &[Pair],
) -> Vec<Hit> {
    debug_assert_eq!(q.mode, MODE_INTERSECT);
    // Intersect mode reads no vertex indices.
    let a = Side {
        tris: tris_a,
        vidx: &[],
    };
    let b = Side {
        tris: tris_b,
        vidx: &[],
    };
    main(q, a, b, pairs)
}

/// `narrow.wgsl::distance`: every candidate's f32 distance, and their minimum (INF for none).
pub fn distance(q: &Query, a: &[TriRecord], b: &[TriRecord], pairs: &[Pair]) -> (Vec<f32>, f32) {
    let dists: Vec<f32> = pairs
        .iter()
        .map(|&[i, j]| {
            tri_dist(
                &local_tri(&q.a, &a[i as usize]),
                &local_tri(&q.b, &b[j as usize]),
            )
        })
        .collect();
    let min = dists.iter().copied().fold(INF, f32::min);
    (dists, min)
}

/// `narrow.wgsl::band`: the candidates whose f32 distance is at most `q.tol.w`, [`UNSURE`].
pub fn band(q: &Query, pairs: &[Pair], dists: &[f32]) -> Vec<Hit> {
    pairs
        .iter()
        .zip(dists)
        .filter(|(_, &d)| d <= q.tol[3])
        .map(|(&[i, j], &d)| Hit {
            a: i,
            b: j,
            flag: UNSURE,
            dist_bits: d.to_bits(),
        })
        .collect()
}

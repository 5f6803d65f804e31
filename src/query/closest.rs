//! The point of a mesh nearest to a given point: depth-first over the hierarchy
//! ([`crate::bvh`]; the nearer box first, a node dropped once its box is farther than the best
//! so far), Ericson's closest point on each triangle of the leaves reached. Ties go to the smaller triangle index, as the pair
//! searches' do, so the answer does not depend on the order of the search.

use super::Posed;
use crate::bvh::STACK;
use crate::geom::closest::{closest_point_triangle, distance_squared_point_aabb};
use crate::geom::{DVec3, Tri};

/// The nearest point of a mesh to a point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Closest {
    pub distance: f64,
    pub triangle: u32,
    /// The nearest point, world coordinates.
    pub point: DVec3,
    /// Its barycentric coordinates on the triangle: `point ≈ (1 − u − v) V0 + u V1 + v V2`.
    pub u: f64,
    pub v: f64,
}

/// The nearest point of `m` to `p` within `max_distance` (`f64::INFINITY` for no limit), or
/// `None` when nothing is that near.
pub fn closest_point(p: DVec3, m: &Posed, max_distance: f64) -> Option<Closest> {
    within(
        closest_within(p, m, search_limit(max_distance, reach(&[p], m))),
        max_distance,
    )
}

/// The squared bound a search for points within `max_distance` prunes by: a little over its
/// square (the reported distance, a square root, decides: [`within`]), and over the band in
/// which a point may lie on the surface exactly though its rounded nearest point does not
/// ([`on_surface`], at coordinates of magnitude up to `reach`); infinite where the square
/// overflows (a limit of 1e155 is no limit to 1e154 squared, which is infinite).
fn search_limit(max_distance: f64, reach: f64) -> f64 {
    let r = (max_distance + reach * ON_SURFACE) * (1.0 + 4.0 * f64::EPSILON);
    r * r
}

/// The largest coordinate of `points` and of `m`'s posed triangles, at most.
fn reach(points: &[DVec3], m: &Posed) -> f64 {
    let finite = points.iter().filter(|p| p.is_finite());
    let most = finite.fold(0.0, |a: f64, p| a.max(p.abs().max_element()));
    most.max(2.0 * m.frame_magnitude())
}

/// `c` where its reported distance is at most `max_distance`: the limit is decided on the
/// distance the answer gives, not on a rounded square of it. A distance beyond f64 (a point
/// near 1.8e308, whose nearest triangle was found but whose distance overflowed) is no answer
/// either, as the search's own overflow is: callers refuse such a row rather than report
/// `inf` at a real triangle.
fn within(c: Option<Closest>, max_distance: f64) -> Option<Closest> {
    c.filter(|c| c.distance <= max_distance && c.distance.is_finite())
}

/// The first row of `found` (nearest points or sphere contacts asked with no limit) that has no
/// answer while `m` has triangles: its distance is beyond f64, which callers refuse by row
/// rather than report as nothing within reach.
pub fn first_beyond_f64<T>(m: &crate::PreparedMesh, found: &[Option<T>]) -> Option<usize> {
    match m.mesh.triangles.is_empty() {
        true => None,
        false => found.iter().position(Option::is_none),
    }
}

/// The nearest points of `m` to many points, each as [`closest_point`] answers it. Points are
/// taken in Morton order of their position, and each search starts bounded by the distance to
/// the triangle nearest the point before it: neighbours in that order are near each other, so
/// the bound is tight and most of the tree is never pushed. The bound is inclusive and is the
/// exact value the search computes for that triangle, so every answer (ties included) is the
/// one the unbounded search gives.
pub fn closest_points(points: &[DVec3], m: &Posed, max_distance: f64) -> Vec<Option<Closest>> {
    use rayon::prelude::*;
    let limit = search_limit(max_distance, reach(points, m));
    m.slots_for(points.len());
    m.oriented_for(points.len());
    let order = morton_order(points);
    let found: Vec<Option<Closest>> = order
        .par_chunks(256)
        .flat_map_iter(|chunk| {
            let mut hint: Option<u32> = None;
            chunk.iter().map(move |&i| {
                if crate::stop::requested() {
                    return None;
                }
                let p = points[i];
                let bound = hint.map_or(limit, |t| {
                    limit.min(closest_point_triangle(p, &m.tri(t)).distance_squared(p))
                });
                let c = closest_within(p, m, bound);
                hint = c.map(|c| c.triangle).or(hint);
                within(c, max_distance)
            })
        })
        .collect();
    in_given_order(&order, found)
}

/// Indices of `points` sorted by the Morton code of their position in their bounding box
/// (10 bits an axis), ties by index; points that are not finite go last (with those in the
/// far corner), in their order.
pub(crate) fn morton_order(points: &[DVec3]) -> Vec<usize> {
    morton_order_in_groups(points, |_| 0)
}

/// [`morton_order`] within groups (below 16): indices by `group`, then as there. Group, code
/// and index share one `u64` (for up to 2^30 points), so that the sort compares words (1M
/// rays on 16 cores: 26-35 ms as three words, 21 bits an axis).
pub(crate) fn morton_order_in_groups(
    points: &[DVec3],
    group: impl Fn(usize) -> u8 + Sync,
) -> Vec<usize> {
    use rayon::prelude::*;
    const TOP: f64 = ((1u64 << 10) - 1) as f64;
    const LOW: u64 = (1 << 30) - 1;
    let finite = || points.iter().filter(|p| p.is_finite());
    let lo = finite().fold(DVec3::splat(f64::INFINITY), |a, &p| a.min(p));
    let hi = finite().fold(DVec3::splat(f64::NEG_INFINITY), |a, &p| a.max(p));
    let scale = TOP / (hi - lo).max_element().max(f64::MIN_POSITIVE);
    let spread = |v: f64| -> u64 {
        // Bits of a 10-bit integer spread to every third bit.
        let mut x = v.clamp(0.0, TOP) as u64;
        x = (x | x << 16) & 0x30000ff;
        x = (x | x << 8) & 0x300f00f;
        x = (x | x << 4) & 0x30c30c3;
        (x | x << 2) & 0x9249249
    };
    // Group and code: 34 bits.
    let key = |i: usize, p: DVec3| -> u64 {
        let group = (group(i).min(15) as u64) << 30;
        if !p.is_finite() {
            return group | LOW;
        }
        let q = (p - lo) * scale;
        group | spread(q.x) | spread(q.y) << 1 | spread(q.z) << 2
    };
    let keyed = points.par_iter().enumerate();
    if points.len() <= 1 << 30 {
        let mut words: Vec<u64> = keyed.map(|(i, &p)| key(i, p) << 30 | i as u64).collect();
        words.par_sort_unstable();
        return words.into_par_iter().map(|w| (w & LOW) as usize).collect();
    }
    // The index last: every key differs, so the unstable sort gives one order.
    let mut pairs: Vec<(u64, usize)> = keyed.map(|(i, &p)| (key(i, p), i)).collect();
    pairs.par_sort_unstable();
    pairs.into_par_iter().map(|k| k.1).collect()
}

/// `answers`, given for the items `order` names in turn, put back in the items' own order.
/// `order` is a permutation with an answer for each item: each answer is moved once to its
/// place, no sort.
pub(crate) fn in_given_order<T>(order: &[usize], answers: Vec<T>) -> Vec<T> {
    debug_assert_eq!(order.len(), answers.len());
    let mut placed: Vec<Option<T>> = std::iter::repeat_with(|| None).take(order.len()).collect();
    for (&i, a) in order.iter().zip(answers) {
        if let Some(slot) = placed.get_mut(i) {
            *slot = Some(a);
        }
    }
    placed.into_iter().flatten().collect()
}

/// [`closest_point`] with the squared distance limit given: depth-first over the hierarchy,
/// the nearer child first, a node passed over once its box is farther than the best so far
/// (strictly: a node at the same distance may hold a tie with a smaller index). Over the
/// oriented boxes four to a node where a batch has made them ([`crate::nearest_tree`]), else
/// the binary hierarchy, bounded by its oriented boxes where the mesh has them made
/// ([`crate::obb`]), else by its axis-aligned ones: every bound is a lower bound, so the
/// answer is the same.
fn closest_within(p: DVec3, m: &Posed, limit: f64) -> Option<Closest> {
    let bvh = m.prep.bvh();
    let pl = m.pose.unapply(p);
    let pad = m.cull_pad(&[p]);
    if let Some(tree) = m.prep.nearest_tree_if_made() {
        let mut best: Best = None;
        let searched = tree.search(pl, pad, limit, |slots| {
            for s in slots {
                consider(p, bvh.tris[s], &m.slot_tri(s), limit, &mut best);
            }
            best.map_or(limit, |b| b.0)
        });
        if searched {
            return answer(p, m, best);
        }
    }
    closest_on_binary(p, pl, pad, m, limit)
}

/// [`closest_within`] over the binary hierarchy, `p` carried into the mesh's frame as `pl`
/// within `pad`.
fn closest_on_binary(p: DVec3, pl: DVec3, pad: f64, m: &Posed, limit: f64) -> Option<Closest> {
    let bvh = m.prep.bvh();
    let oriented = m.prep.oriented_if_made().map(|o| &o.boxes[..]);
    // A rotation accepted a little off orthonormal stretches the mesh's frame against the
    // world's along one direction, by up to 1.5 times the pad (a review's worst case; the
    // point's own coordinates reach twice the frame's magnitude). An axis-aligned box takes
    // that error a coordinate at a time, within the pad; a box turned to that direction takes
    // all of it on one axis: three times the pad covers it.
    let reach = |n: usize| match oriented {
        Some(boxes) => boxes[n].distance_squared_to(pl, 3.0 * pad),
        None => distance_squared_point_aabb(pl, &bvh.nodes[n].aabb().padded(pad)),
    };
    let mut best: Best = None;
    let mut stack = [(0.0, 0usize); STACK];
    stack[0] = (reach(0), 0);
    let mut top = 1;
    while top > 0 {
        top -= 1;
        let (d2, n) = stack[top];
        if d2 > best.map_or(limit, |b| b.0) {
            continue;
        }
        let node = &bvh.nodes[n];
        if node.is_leaf() {
            for s in node.slots() {
                consider(p, bvh.tris[s], &m.slot_tri(s), limit, &mut best);
            }
            continue;
        }
        let (a, b) = (node.index as usize, node.index as usize + 1);
        let (da, db) = (reach(a), reach(b));
        // The nearer last, so it is taken first.
        let (near, far) = if da <= db {
            ((da, a), (db, b))
        } else {
            ((db, b), (da, a))
        };
        stack[top] = far;
        stack[top + 1] = near;
        top += 2;
    }
    answer(p, m, best)
}

/// The nearest so far: (distance², triangle, point), within the limit, ties to the smaller
/// index.
type Best = Option<(f64, u32, DVec3)>;

/// Triangle `t` (posed: `tri`) against the nearest so far: the one comparison every search
/// makes, on either backend.
#[inline]
fn consider(p: DVec3, t: u32, tri: &Tri, limit: f64, best: &mut Best) {
    let q = closest_point_triangle(p, tri);
    let e2 = q.distance_squared(p);
    if e2 <= limit && best.is_none_or(|b| (e2, t) < (b.0, b.1)) {
        *best = Some((e2, t, q));
    }
}

fn answer(p: DVec3, m: &Posed, best: Best) -> Option<Closest> {
    best.map(|(_, t, q)| {
        let distance = crate::geom::length(q - p);
        if let Some(on) = on_surface(p, m, t, distance) {
            let (u, v) = barycentric(p, &m.tri(on));
            return Closest {
                distance: 0.0,
                triangle: on,
                point: p,
                u,
                v,
            };
        }
        let (u, v) = barycentric(q, &m.tri(t));
        Closest {
            distance,
            triangle: t,
            point: q,
            u,
            v,
        }
    })
}

/// The band, as a fraction of the coordinates' magnitude, in which a nearest point found is
/// asked whether `p` lies on the surface exactly ([`on_surface`]).
const ON_SURFACE: f64 = 1.0 / (1u64 << 30) as f64;

/// Where the nearest point found, on triangle `t`, is within roundings of `p` (2^-30 of the
/// coordinates' magnitude, the mesh's and the point's) but not `p` itself: the triangle `p`
/// lies on exactly, if any (`t` where it is one, else the least index of those that hold it:
/// [`super::sphere_triangles`] of radius 0, by exact signs). A point on the surface then reads
/// distance 0, itself its nearest point: on a face's plane it read about 1e-16 (1 781 of
/// 10 000 points on a cube's faces), and `--max-distance 0` dropped it (a review's helper).
fn on_surface(p: DVec3, m: &Posed, t: u32, distance: f64) -> Option<u32> {
    // The magnitude of the whole mesh's coordinates, as the search's limit takes it: the
    // triangle found can be a small one beside the large one the point lies on, whose own
    // rounding is the larger (a review's helper: points on a triangle of corners at 2^30, with
    // small ones 1e-8 above them, read 1e-8).
    if !(distance > 0.0 && distance <= reach(&[p], m) * ON_SURFACE) {
        return None;
    }
    let holding = super::sphere_triangles(p, 0.0, m);
    match holding.contains(&t) {
        true => Some(t),
        false => holding.into_iter().min(),
    }
}

/// [`closest_point`] decided among `tris` alone: the answer wherever they include every
/// triangle that can be the nearest (the GPU's candidates do).
pub(crate) fn closest_among(
    p: DVec3,
    m: &Posed,
    max_distance: f64,
    tris: impl IntoIterator<Item = u32>,
) -> Option<Closest> {
    let limit = search_limit(max_distance, reach(&[p], m));
    let mut best = None;
    for t in tris {
        consider(p, t, &m.tri(t), limit, &mut best);
    }
    within(answer(p, m, best), max_distance)
}

/// Barycentric `(u, v)` of a point of triangle `t` (Ericson 3.4). On a (nearly) zero-area
/// triangle, where that system is singular, the point lies on its longest edge and is placed
/// along it.
pub(crate) fn barycentric(q: DVec3, t: &Tri) -> (f64, f64) {
    let (e0, e1, e2) = (t[1] - t[0], t[2] - t[0], q - t[0]);
    let (d00, d01, d11) = (e0.dot(e0), e0.dot(e1), e1.dot(e1));
    let den = d00 * d11 - d01 * d01;
    if den > 1e-12 * d00 * d11 {
        // By cross products against the normal (q − V0 = u e0 + v e1, so (q − V0) × e1 = u n):
        // errors of eps / sin of the triangle's angle, where the normal equations' are of
        // eps / sin² (a sliver's v came out -2.8e-4, 1.9e-4 off its point). The point is on the
        // triangle: what rounding puts outside is clamped back.
        let n = e0.cross(e1);
        let nn = n.length_squared();
        let (u, v) = (n.dot(e2.cross(e1)) / nn, n.dot(e0.cross(e2)) / nn);
        let (u, v) = (u.max(0.0), v.max(0.0));
        let sum = u + v;
        return if sum > 1.0 {
            (u / sum, v / sum)
        } else {
            (u, v)
        };
    }
    let along = |a: DVec3, b: DVec3| {
        let ab = b - a;
        let l = ab.length_squared();
        if l > 0.0 {
            ((q - a).dot(ab) / l).clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let e12 = (t[2] - t[1]).length_squared();
    if d00 >= d11 && d00 >= e12 {
        (along(t[0], t[1]), 0.0)
    } else if d11 >= e12 {
        (0.0, along(t[0], t[2]))
    } else {
        let s = along(t[1], t[2]);
        (1.0 - s, s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Groups first, then the Morton order in the finite points' box (hand-worked: the box is
    /// 0.1 to 0.9 on each axis; (0.1, 0.9, 0.1) sets only y's bits, which lie below x's and
    /// z's), the point that is not a number last in its group.
    #[test]
    fn morton_order_in_groups_takes_groups_then_the_curve() {
        let points = [
            DVec3::splat(0.9),
            DVec3::splat(0.1),
            DVec3::splat(0.1),
            DVec3::new(0.1, 0.9, 0.1),
            DVec3::new(f64::NAN, 0.5, 0.5),
        ];
        let group = |i: usize| (i == 2) as u8;
        assert_eq!(morton_order_in_groups(&points, group), vec![1, 3, 0, 4, 2]);
        assert_eq!(morton_order(&points), vec![1, 2, 3, 0, 4]);
    }

    /// Answers for items 2, 0, 1, in turn, put back in the items' order.
    #[test]
    fn answers_in_another_order_come_back_in_the_items() {
        assert_eq!(
            in_given_order(&[2, 0, 1], vec!["c", "a", "b"]),
            ["a", "b", "c"]
        );
    }

    /// Searches of the four-wide tree that overflow their room for pending boxes (made small
    /// here, as a tree far deeper than igea's would make it) fall back to the binary search:
    /// the same nearest points, ties and all, as with room to spare.
    #[test]
    fn nearest_points_whose_search_overflows_are_the_same() {
        use crate::mesh::{generate, Pose, PreparedMesh};
        use crate::wide::{Pendings, TEST_ROOM};
        let prep = PreparedMesh::new(generate::torus(1.0, 0.3, 24, 12));
        let m = Posed::new(&prep, Pose::IDENTITY);
        m.oriented_for(usize::MAX / 16);
        let tree = prep.nearest_tree_if_made().expect("made for a batch");
        let room = |r: usize| TEST_ROOM.with(|c| c.set(r));
        let mut rnd = crate::testing::lcg(17);
        let mut overflowed = 0;
        for _ in 0..300 {
            let p = DVec3::new(rnd(), rnd(), rnd()) * 4.0 - 2.0;
            room(Pendings::ROOM);
            let want = closest_point(p, &m, f64::INFINITY);
            room(0);
            if !tree.search(p, 0.0, f64::INFINITY, |_| f64::INFINITY) {
                overflowed += 1;
            }
            assert_eq!(closest_point(p, &m, f64::INFINITY), want, "{p}");
        }
        room(Pendings::ROOM);
        // Not vacuous: a search that opens every box overflows a room of none.
        assert!(overflowed > 150, "{overflowed}");
    }
}

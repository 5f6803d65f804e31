//! Many poses of one part against another, and a part moving along a path: the questions a
//! motion planner asks of two parts thousands of times. Each pose is answered as `check --quick`
//! answers it (solid semantics: a part inside another interferes); a path is followed by
//! conservative advancement (Mirtich; FCL does it for meshes): from a pose at distance `d`, no
//! point of B can reach A before the path has moved it `d`, and the speed of B's points along a
//! segment is bounded (translation plus rotation angle times B's reach from its origin), so a
//! step of `d / speed` cannot pass through A, however thin.

use super::containment::witnesses;
use super::oriented::pairs_within;
use super::solid::solid_distance_serial;
use super::winding::room;
use super::{solid_distance, Interference, Posed, SolidDistance};
use crate::mesh::{Pose, PreparedMesh};
use glam::{DMat3, DQuat, DVec3};
use rayon::prelude::*;
use std::collections::BinaryHeap;

/// One pose's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct PoseAnswer {
    pub solid: SolidDistance,
    /// Pairs closer than the clearance asked for, if one was.
    pub clearance_pairs: Option<usize>,
}

impl PoseAnswer {
    /// What a pose left is answered once the work is to stop ([`crate::stop`]): nothing.
    pub(crate) const STOPPED: PoseAnswer = PoseAnswer {
        solid: SolidDistance::Interfering(super::Interference::SurfacesMeet),
        clearance_pairs: None,
    };
}

/// Each of `poses` of B against A (placed by `pose_a`), in parallel.
pub fn poses(
    a: &PreparedMesh,
    pose_a: Pose,
    b: &PreparedMesh,
    poses: &[Pose],
    clearance_d: Option<f64>,
) -> Vec<PoseAnswer> {
    // A stays where it is: posed once, its vertices, boxes and spheres made at most once for
    // all the poses (per pose they were most of the time: 268k spheres for igea).
    let pa = Posed::new(a, pose_a);
    poses
        .par_iter()
        .map(|&pose_b| {
            if crate::stop::requested() {
                return PoseAnswer::STOPPED;
            }
            let pb = Posed::new(b, pose_b);
            PoseAnswer {
                solid: solid_distance_serial(&pa, &pb),
                clearance_pairs: clearance_d.map(|d| pairs_within(&pa, &pb, d)),
            }
        })
        .collect()
}

/// Where a path first brings B within the tolerance of A, or how near it came.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepReport {
    /// The first contact: the time (fraction of the whole path), the segment, the time within
    /// it, B's pose there, and the evidence or the closest points.
    pub contact: Option<SweepHit>,
    /// The smallest distance at the poses measured, where (time), and a certified lower bound
    /// on the distance anywhere along the path. A path with no contact is measured again
    /// between its steps where the bound leaves room for a smaller distance than found
    /// ([`refine_minimum`]), until the two are within the tolerance or as many poses again
    /// (and 64 more) have been measured: the distance at `min_time` is `min_distance`, and
    /// none along the path is below `min_distance_bound`.
    pub min_distance: f64,
    pub min_time: f64,
    pub min_distance_bound: f64,
    /// Poses measured.
    pub steps: usize,
    /// False when the advancement stopped before the path's end without a contact (its steps
    /// ran out: a path sliding past at a gap just above the tolerance; or became smaller than
    /// the path's parameter resolves): no contact is reported, and none is ruled out past
    /// `min_time`'s segment either; the bound holds only up to where it stopped.
    pub complete: bool,
    /// False where a pose was measured apart only by the likelier answer, against a part that
    /// is not closed (`containment_certain` false there: a body of more than 20 000 vertices
    /// judged by one, or one whose triangles pass where that part's winding number could reach
    /// 1/2): a contact could come earlier than reported, and the bound is not certified.
    pub certain: bool,
    /// The largest tolerance used: the one asked for, or at poses whose coordinates resolve
    /// less, what they do ([`Resolution`]).
    pub tolerance: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SweepHit {
    pub time: f64,
    pub segment: usize,
    pub segment_time: f64,
    pub pose: Pose,
    pub solid: SolidDistance,
}

/// Steps after which a sweep measures on the oriented boxes ([`crate::obb`]). For igea and
/// the bunny, building them costs 280 ms, about a hundred steps on the octree near the parts
/// (2.6 ms a step, 8 ms close by), and each step after costs 0.5 ms: a path of a thousand
/// steps takes half the time. Short sweeps never pay for the boxes.
const ORIENTED_AFTER: usize = 256;

/// Poses measured at most along one path; a path that grazes A at a gap just above the
/// tolerance takes the most.
const MAX_STEPS: usize = 1_000_000;

/// A sweep's default tolerance: 1e-6 of the parts' sizes (their boxes' diagonals summed).
/// [`sweep`] raises any tolerance, pose by pose, to what the posed coordinates resolve there
/// ([`Resolution`]).
pub fn path_tolerance(a: &PreparedMesh, b: &PreparedMesh) -> f64 {
    let size = a.mesh.bounding_box().diagonal() + b.mesh.bounding_box().diagonal();
    // Positive even for two points at the origin (a tolerance of 0 is refused).
    (1e-6 * size).max(f64::MIN_POSITIVE)
}

/// What the posed coordinates of A and B resolve at a pose of B: four times 32 roundings of a
/// posed point's magnitude (at most its pose's translation's plus its own length), term by
/// term as a moving sphere's slack is (a sum of magnitudes near f64's largest overflows where
/// each term, so scaled, does not). A tolerance finer than that is met only by the rounded
/// pose (a hunt's helper: at 1e12 the path's exact gap was 18 times the 3.5e-6 asked for).
/// Pose by pose, as the pose is rounded on its segment ([`Resolution::tolerance`]), not the
/// path's largest: one waypoint at 1e12 coarsened the whole path's, and a pass 1e-3 from A,
/// near the origin on another segment, was a contact (a review's helper).
struct Resolution {
    /// A's posed points' term, and B's own reach's.
    a: f64,
    b: f64,
}

impl Resolution {
    const K: f64 = 4.0 * 32.0 * f64::EPSILON;

    fn new(a: &PreparedMesh, pose_a: Pose, b: &PreparedMesh) -> Resolution {
        let reach = |b: &crate::geom::Aabb| Self::K * b.min.abs().max(b.max.abs()).length();
        Resolution {
            a: Self::K * pose_a.translation.abs().max_element() + reach(&a.mesh.bounding_box()),
            b: reach(&b.mesh.bounding_box()),
        }
    }

    /// The tolerance at B's pose `p` on segment `seg`: `tol`, or what the coordinates resolve
    /// there. The pose is rounded as [`lerp`] makes it: from the segment's start and the
    /// difference carried, so by as much as the start's magnitude and the pose's (both ends'
    /// where the difference overflows, `lerp`'s other form). A segment from 1e12 to the origin
    /// is rounded by 1.2e-4 all along (a review's helper: held to the pose's own magnitude
    /// alone, it reported a contact 4e-5 from A at a pose that tolerance did not cover, and
    /// stalled on another path).
    fn tolerance(&self, tol: f64, p: &Pose, seg: &Segment) -> f64 {
        let magnitude = |q: &Pose| q.translation.abs().max_element();
        let mut reach = magnitude(p).max(magnitude(&seg.p0));
        if !(seg.p1.translation - seg.p0.translation).is_finite() {
            reach = reach.max(magnitude(&seg.p1));
        }
        tol.max(self.a + self.b + Self::K * reach)
    }
}

/// The first segment of `path` (from waypoint `i` to `i + 1`) whose move is beyond f64: its
/// translation's length overflows (1e308 to -1e308 on an axis, or 7.5e307 to -7.5e307 on two,
/// a review's helper), so no step along it can be bounded and [`sweep`] would stop there,
/// incomplete, with nothing found. Callers refuse such a path.
pub fn first_unbounded_segment(path: &[Pose]) -> Option<usize> {
    path.windows(2)
        .position(|w| !crate::geom::length(w[1].translation - w[0].translation).is_finite())
}

/// The first waypoint whose rotation to the next is a half turn (within 2e-5 rad, about what
/// a rotation written to six digits resolves), if any: slerp turns the shorter way, and a half
/// turn has none, so which way it went was rounding's choice (a review's helper: R_z(180°) and
/// R_z(-180°), 2.4e-16 apart, swept opposite halves, one meeting a part the other missed).
pub fn first_half_turn(path: &[Pose]) -> Option<usize> {
    path.windows(2)
        .position(|w| quat(&w[0]).dot(quat(&w[1])).abs() < 1e-5)
}

/// Why a path with a half turn from waypoint `i` to the next is refused ([`first_half_turn`]).
pub fn half_turn_message(i: usize) -> String {
    format!(
        "the rotation from waypoint {i} to {} is a half turn (180 degrees), which turns either way: add a waypoint between them to say which",
        i + 1
    )
}

/// B moving through `path` (at least two waypoints) at `times` (increasing, first 0 and last 1;
/// even spacing when empty), A placed by `pose_a`: the first pose within `tol` of A (or within
/// what the coordinates resolve there, where that is coarser: [`Resolution`]), found without
/// passing through it.
pub fn sweep(
    a: &PreparedMesh,
    pose_a: Pose,
    b: &PreparedMesh,
    path: &[Pose],
    times: &[f64],
    tol: f64,
) -> SweepReport {
    let n = path.len();
    let time_of = |i: usize| {
        times
            .get(i)
            .copied()
            .unwrap_or(i as f64 / (n - 1).max(1) as f64)
    };
    // B's reach from its own origin: how far a rotation by θ can move any of its points (θ r).
    let reach = (0..b.mesh.vertices.len() as u32)
        .map(|v| b.mesh.vertex(v).length())
        .fold(0.0, f64::max);
    let pa = Posed::new(a, pose_a); // posed once for every step
    let resolution = Resolution::new(a, pose_a, b);
    let mut report = SweepReport {
        contact: None,
        min_distance: f64::INFINITY,
        min_time: 0.0,
        min_distance_bound: f64::INFINITY,
        steps: 0,
        complete: true,
        certain: true,
        tolerance: tol,
    };
    let segments: Vec<Segment> = (0..n.saturating_sub(1))
        .map(|seg| Segment::new(path[seg], path[seg + 1], reach))
        .collect();
    // The distance at `s` of the way along segment `seg`, its answer and B's pose there.
    let measure = |seg: usize, s: f64, steps: usize| {
        let pose = segments[seg].at(s);
        // The same answer either way; long sweeps switch to the walk that is cheaper per
        // step once its boxes are built.
        let pb = Posed::new(b, pose);
        let solid = if steps >= ORIENTED_AFTER {
            solid_distance_serial(&pa, &pb)
        } else {
            solid_distance(&pa, &pb)
        };
        (solid, pose)
    };
    let open = OpenInsides::of(a, b);
    // Each segment's poses measured: (s, distance).
    let mut measured: Vec<Vec<(f64, f64)>> = vec![Vec::new(); segments.len()];
    for (seg, segment) in segments.iter().enumerate() {
        let speed = segment.speed;
        let mut s = 0.0;
        loop {
            let (solid, pose) = measure(seg, s, report.steps);
            if let SolidDistance::Apart {
                containment_certain: false,
                ..
            } = solid
            {
                report.certain = false;
            }
            let d = solid.distance();
            let tol = resolution.tolerance(tol, &pose, segment);
            report.tolerance = report.tolerance.max(tol);
            let time = time_of(seg) + s * (time_of(seg + 1) - time_of(seg));
            measured[seg].push((s, d));
            report.steps += 1;
            if d < report.min_distance {
                (report.min_distance, report.min_time) = (d, time);
            }
            report.min_distance_bound = report.min_distance_bound.min(d / 2.0);
            if d <= tol {
                report.contact = Some(SweepHit {
                    time,
                    segment: seg,
                    segment_time: s,
                    pose,
                    solid,
                });
                return report;
            }
            if s >= 1.0 {
                break;
            }
            if crate::stop::requested() {
                report.complete = false;
                return report;
            }
            // Half the distance over the speed: the distance cannot fall below d / 2 before
            // the next pose, so the poses in between are certified too; no more than a vertex
            // may move without entering the inside of a part that is not closed, but at least
            // half the tolerance.
            let inside = open.room(&pa, &Posed::new(b, pose)).max(tol / 2.0);
            let next = (s + (d / 2.0).min(inside) / speed).min(1.0);
            // An infinite distance (parts beyond f64's range apart) bounds no step.
            if report.steps >= MAX_STEPS || !(d.is_finite() && next > s) {
                report.complete = false;
                return report;
            }
            s = next;
        }
    }
    let refine = |seg: usize, s: f64, steps: usize| measure(seg, s, steps).0.distance();
    let tol = report.tolerance;
    refine_minimum(&mut report, &segments, &measured, tol, &time_of, refine);
    report
}

/// A part that is not closed has an inside (winding number at least 1/2 in magnitude, as
/// [`super::point_inside`] decides) that the other part can enter without meeting its surface:
/// where a hole is, the winding number falls continuously from 1/2 to 0. The distance between
/// the surfaces then says nothing of how soon that happens (a review's helper: a small cube
/// passing through a box with holes in its faces, and one dropped into an open box, stepped
/// over the inside, or deep into it).
struct OpenInsides {
    /// Whether A and B are not closed.
    open: (bool, bool),
}

impl OpenInsides {
    fn of(a: &PreparedMesh, b: &PreparedMesh) -> OpenInsides {
        OpenInsides {
            open: (!a.info.closed, !b.info.closed),
        }
    }

    /// How far any point of B may move from this pose before a vertex asked against the
    /// other part's inside (as the interference search asks them) could cross its winding
    /// number's 1/2 ([`super::winding::inside_room`]; for A's vertices against B it is B's
    /// boundary that moves, its points no faster than any of B's): infinite where both parts
    /// are closed.
    fn room(&self, a: &Posed, b: &Posed) -> f64 {
        let room = |open: bool, w: &Posed, m: &Posed| {
            if !open {
                return f64::INFINITY;
            }
            let (witnesses, _) = witnesses(w, m, 0..usize::MAX);
            witnesses
                .par_iter()
                .map(|&(_, _, p)| room(p, m))
                .reduce(|| f64::INFINITY, f64::min)
        };
        room(self.open.0, b, a).min(room(self.open.1, a, b))
    }
}

/// One segment of a path: its ends, their rotations, and a bound on how fast any point of B
/// moves along it (distance a unit of `s`).
struct Segment {
    p0: Pose,
    p1: Pose,
    q0: DQuat,
    q1: DQuat,
    speed: f64,
}

impl Segment {
    /// From `p0` to `p1`, B's points at most `reach` from its origin.
    fn new(p0: Pose, p1: Pose, reach: f64) -> Segment {
        let (q0, q1) = (quat(&p0), quat(&p1));
        // The rotation angle from q0 to q1 by atan2 of the relative quaternion, which stays
        // accurate for tiny angles (glam's angle_between, 2 acos |dot|, gives 0 below 3e-8).
        let rel = q0.inverse() * q1;
        let angle = 2.0 * rel.xyz().length().atan2(rel.w.abs());
        // Without squares where they overflow (a move longer than 1.3e154: its speed was
        // infinite, so no step could be taken): the same bits otherwise.
        let shift = p1.translation - p0.translation;
        let length = Some(shift.length())
            .filter(|l| l.is_finite())
            .unwrap_or_else(|| crate::geom::length(shift));
        let speed = length + angle * reach;
        Segment {
            p0,
            p1,
            q0,
            q1,
            speed,
        }
    }

    fn at(&self, s: f64) -> Pose {
        interpolate(&self.p0, &self.p1, self.q0, self.q1, s)
    }
}

/// A stretch of a segment between two poses measured, and the least distance the speed bound
/// allows anywhere on it: the distance falls at most `speed` a unit of `s` from either end,
/// so it is at least where the two falls meet, `(d0 + d1 − speed (s1 − s0)) / 2`.
#[derive(Clone, Copy, Debug)]
struct Stretch {
    seg: usize,
    s: (f64, f64),
    d: (f64, f64),
    least: f64,
}

/// Least bound first, in a [`BinaryHeap`].
impl Ord for Stretch {
    fn cmp(&self, other: &Stretch) -> std::cmp::Ordering {
        other.least.total_cmp(&self.least)
    }
}

impl PartialOrd for Stretch {
    fn partial_cmp(&self, other: &Stretch) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Stretch {
    fn eq(&self, other: &Stretch) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Stretch {}

impl Stretch {
    fn new(seg: usize, s: (f64, f64), d: (f64, f64), speed: f64) -> Stretch {
        let least = (d.0 + d.1 - speed * (s.1 - s.0)) / 2.0;
        Stretch {
            seg,
            s,
            d,
            least: least.min(d.0).min(d.1),
        }
    }
}

/// For a path that ends with no contact: measures again in the middle of the stretch whose
/// bound is least, while it leaves room for a distance more than `tol` below the least found,
/// for at most as many poses as the advancement took and 64 more (a path that slides past at
/// a constant gap would need ever more; the speed bound is loose, so near a minimum the
/// distance found converges faster than the bound). Sets the least distance found, its time,
/// and the bound: the least of every stretch's.
fn refine_minimum(
    report: &mut SweepReport,
    segments: &[Segment],
    measured: &[Vec<(f64, f64)>],
    tol: f64,
    time_of: &dyn Fn(usize) -> f64,
    mut distance: impl FnMut(usize, f64, usize) -> f64,
) {
    if report.contact.is_some() || !report.complete {
        return;
    }
    let mut least_kept = f64::INFINITY;
    let mut stretches = BinaryHeap::new();
    for (seg, m) in measured.iter().enumerate() {
        let speed = segments[seg].speed;
        for w in m.windows(2) {
            stretches.push(Stretch::new(seg, (w[0].0, w[1].0), (w[0].1, w[1].1), speed));
        }
    }
    let budget = report.steps + 64;
    for _ in 0..budget {
        match stretches.peek() {
            Some(x) if x.least < report.min_distance - tol => {}
            _ => break,
        }
        let Some(x) = stretches.pop() else { break };
        let mid = (x.s.0 + x.s.1) / 2.0;
        if !(mid > x.s.0 && mid < x.s.1) {
            // As fine as the path's parameter resolves: its bound stays.
            least_kept = least_kept.min(x.least);
            continue;
        }
        let d = distance(x.seg, mid, report.steps);
        report.steps += 1;
        if d < report.min_distance {
            let (t0, t1) = (time_of(x.seg), time_of(x.seg + 1));
            (report.min_distance, report.min_time) = (d, t0 + mid * (t1 - t0));
        }
        let speed = segments[x.seg].speed;
        stretches.push(Stretch::new(x.seg, (x.s.0, mid), (x.d.0, d), speed));
        stretches.push(Stretch::new(x.seg, (mid, x.s.1), (d, x.d.1), speed));
    }
    let least = stretches
        .iter()
        .map(|x| x.least)
        .fold(least_kept.min(report.min_distance), f64::min);
    report.min_distance_bound = report
        .min_distance_bound
        .max(least.max(0.0))
        .min(report.min_distance);
}

fn quat(p: &Pose) -> DQuat {
    let r = &p.rotation;
    DQuat::from_mat3(&DMat3::from_cols_array_2d(&[
        [r[0][0], r[1][0], r[2][0]],
        [r[0][1], r[1][1], r[2][1]],
        [r[0][2], r[1][2], r[2][2]],
    ]))
    .normalize()
}

/// The pose at `s` of the way from `p0` to `p1`: translation linear, rotation by slerp (the
/// path's speed bound assumes a constant angular speed). The rotation is always the
/// quaternion's, ends included: a waypoint accepted a little off orthonormal is taken as the
/// rotation nearest it, so the path has no jump at its ends that the bound would not cover.
fn interpolate(p0: &Pose, p1: &Pose, q0: DQuat, q1: DQuat, s: f64) -> Pose {
    let s = s.clamp(0.0, 1.0);
    let m = DMat3::from_quat(q0.slerp(q1, s)).to_cols_array_2d();
    Pose {
        rotation: std::array::from_fn(|i| std::array::from_fn(|j| m[j][i])),
        translation: lerp(p0.translation, p1.translation, s),
    }
}

/// `a + (b - a) s`, as ever, where `b - a` is finite; else (ends of opposite signs near f64's
/// largest, 1e308 to -1e308) `a (1 - s) + b s`, which cannot overflow there: the difference's
/// infinity had made every pose between them not a number (a review's helper).
fn lerp(a: DVec3, b: DVec3, s: f64) -> DVec3 {
    let d = b - a;
    if d.is_finite() {
        return a + d * s;
    }
    a * (1.0 - s) + b * s
}

/// The evidence's name, or `None` when apart.
pub fn evidence(s: &SolidDistance) -> Option<&'static str> {
    match s {
        SolidDistance::Interfering(i) => Some(Interference::as_str(i)),
        SolidDistance::Apart { .. } => None,
    }
}

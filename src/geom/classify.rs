//! Sabharwal and Leopold: classify an intersecting pair as none / point / segment / area, crossing or
//! coplanar, and compute the intersection itself.
//!
//! The existence of the intersection, the coplanar/crossing decision and whether a crossing
//! pair shares a segment of positive length (piercing) are exact ([`super::predicates`]); the
//! geometry (points, segment ends, polygon) is computed in `f64` by clipping one triangle
//! against the other's prism and plane, and merged at a tolerance of `1e-12 ×` the pair's size.
//! That tolerance decides between point, segment and area only for pairs that touch (one
//! triangle does not cross the other's plane) or are coplanar.

use super::predicates;
use super::ray::line_triangle_weights;
use super::{DVec3, Tri};

/// What the intersection of two closed triangles is.
#[derive(Clone, Debug, PartialEq)]
pub enum Intersection {
    None,
    Point(DVec3),
    Segment(DVec3, DVec3),
    /// A convex polygon (coplanar overlap), vertices in order.
    Area(Vec<DVec3>),
}

/// Sabharwal and Leopold's class names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ContactClass {
    Point,
    Segment,
    Area,
}

impl ContactClass {
    pub fn as_str(self) -> &'static str {
        match self {
            ContactClass::Point => "point",
            ContactClass::Segment => "segment",
            ContactClass::Area => "area",
        }
    }
}

/// A classified intersecting pair.
#[derive(Clone, Debug, PartialEq)]
pub struct Contact {
    pub intersection: Intersection,
    /// Both triangles non-degenerate and in one plane (exact).
    pub coplanar: bool,
    /// Contact only on the boundary of a triangle (`true`), or one triangle passing through the
    /// other (`false`, "piercing"): each strictly straddles the other's plane and they share a
    /// segment of positive length (both exact).
    pub touching: bool,
}

impl Contact {
    pub fn class(&self) -> Option<ContactClass> {
        match self.intersection {
            Intersection::None => None,
            Intersection::Point(_) => Some(ContactClass::Point),
            Intersection::Segment(..) => Some(ContactClass::Segment),
            Intersection::Area(_) => Some(ContactClass::Area),
        }
    }
}

/// Classify the pair; `None` when they do not intersect (exact).
pub fn classify(t1: &Tri, t2: &Tri) -> Option<Contact> {
    if !predicates::triangles_intersect(t1, t2) {
        return None;
    }
    let coplanar = predicates::coplanar(t1, t2);
    let tol = merge_tolerance(t1, t2);
    let points = intersection_points(t1, t2, coplanar);
    let crossing = crossing_sides(t1, t2, coplanar);
    let piercing = crossing.is_some_and(|(s1, s2)| crossing_has_length(t1, t2, s1, s2));
    let intersection = match crossing {
        Some(_) => crossing_shape(&points, tol, piercing),
        None => shape_of(&points, tol, coplanar),
    };
    Some(Contact {
        intersection,
        coplanar,
        touching: !piercing,
    })
}

/// Whether two intersecting triangles, each strictly crossing the other's plane, share a
/// segment of positive length, exactly. Each meets the planes' common line in a segment (`I1`
/// and `I2`) whose ends are where the two edges from its vertex alone on one side cross the
/// other's plane, and the triangles meet in `I1 ∩ I2`: a segment whose ends are those of `I1`
/// and `I2` lying in the other triangle, so it has length where two such ends are distinct
/// points. An end `x` of `I1` lies in the other triangle exactly where its edge meets that
/// triangle (the edge meets the plane only at `x`); the two ends of one triangle are distinct
/// (it has area), and an end of each coincide exactly where their edges' four corners are
/// coplanar (both crossings then lie on that plane and on the line, which meet once: the plane
/// holds a corner off the line and strictly off the other triangle's plane). Rounded points,
/// merged at a tolerance, had called a piercing segment 5.6e-8 long at 1e8 a touching point.
/// `s1`, `s2`: each triangle's corners' sides of the other's plane ([`crossing_sides`]).
fn crossing_has_length(t1: &Tri, t2: &Tri, s1: [i8; 3], s2: [i8; 3]) -> bool {
    let in1 = ends_on_line(t1, s1).map(|(a, b)| line_meets(a, b, t2));
    let in2 = ends_on_line(t2, s2).map(|(a, b)| line_meets(a, b, t1));
    match (in1, in2) {
        ([true, true], _) | (_, [true, true]) => true,
        ([x1, y1], [x2, y2]) if (x1 || y1) && (x2 || y2) => {
            let (a, b) = ends_on_line(t1, s1)[if x1 { 0 } else { 1 }];
            let (c, d) = ends_on_line(t2, s2)[if x2 { 0 } else { 1 }];
            predicates::orient3d(a, b, c, d) != 0
        }
        _ => false,
    }
}

/// The sides of each triangle's corners of the other's plane (`orient3d`), where the two are
/// not coplanar, neither has zero area and each has corners strictly on both sides of the
/// other's plane; `None` otherwise.
fn crossing_sides(t1: &Tri, t2: &Tri, coplanar: bool) -> Option<([i8; 3], [i8; 3])> {
    if coplanar || predicates::is_degenerate(t1) || predicates::is_degenerate(t2) {
        return None;
    }
    let sides = |t: &Tri, o: &Tri| -> [i8; 3] {
        std::array::from_fn(|i| predicates::orient3d(o[0], o[1], o[2], t[i]))
    };
    let strict = |s: &[i8; 3]| s.contains(&1) && s.contains(&-1);
    let (s1, s2) = (sides(t1, t2), sides(t2, t1));
    (strict(&s1) && strict(&s2)).then_some((s1, s2))
}

/// Whether the line through `a` and `b` (not in `t`'s plane) meets the closed triangle `t`:
/// it passes on no two opposite sides of its edges. For an edge crossing `t`'s plane at one
/// point, whether that point lies in `t`.
fn line_meets(a: DVec3, b: DVec3, t: &Tri) -> bool {
    let s: [i8; 3] = std::array::from_fn(|i| predicates::orient3d(a, b, t[i], t[(i + 1) % 3]));
    !(s.contains(&1) && s.contains(&-1))
}

/// The two edges of `t` from its corner alone on one side of the other triangle's plane (the
/// others on the far side or on the plane; `side` gives each corner's), whose crossings of
/// that plane are the ends of `t`'s segment on it. `t` must cross the plane strictly.
fn ends_on_line(t: &Tri, side: [i8; 3]) -> [(DVec3, DVec3); 2] {
    let alone = (0..3)
        .find(|&i| side[i] != 0 && (1..3).all(|k| side[(i + k) % 3] * side[i] <= 0))
        .unwrap_or(0);
    let (p, q, r) = (t[alone], t[(alone + 1) % 3], t[(alone + 2) % 3]);
    [(p, q), (p, r)]
}

/// One point common to both triangles, if they intersect (used for the distance-0 witness).
pub fn contact_point(t1: &Tri, t2: &Tri) -> Option<DVec3> {
    match classify(t1, t2)?.intersection {
        Intersection::None => None,
        Intersection::Point(p) => Some(p),
        Intersection::Segment(a, b) => Some((a + b) * 0.5),
        Intersection::Area(poly) => Some(poly.iter().copied().sum::<DVec3>() / poly.len() as f64),
    }
}

fn merge_tolerance(t1: &Tri, t2: &Tri) -> f64 {
    let scale = t1
        .iter()
        .chain(t2.iter())
        .map(|p| p.abs().max_element())
        .fold(0.0_f64, f64::max);
    let size = super::Aabb::from_points(t1.iter().chain(t2.iter()).copied()).diagonal();
    1e-12 * size.max(1e-300) + 4.0 * f64::EPSILON * scale
}

/// Clip the convex polygon `poly` to the half-space `n·x ≥ c` (Sutherland–Hodgman).
/// `poly` clipped to the half-space where `side` is not negative; `value` is the signed
/// distance (scaled) the crossing points are interpolated by. `side` is exact where it can be
/// (a point on the boundary is kept, not lost to a rounded `value` of the wrong sign), so the
/// interpolation is clamped to the edge it crosses.
fn clip(poly: &[DVec3], side: impl Fn(DVec3) -> i8, value: impl Fn(DVec3) -> f64) -> Vec<DVec3> {
    let mut out = Vec::with_capacity(poly.len() + 1);
    for i in 0..poly.len() {
        let (p, q) = (poly[i], poly[(i + 1) % poly.len()]);
        let (sp, sq) = (side(p), side(q));
        if sp >= 0 {
            out.push(p);
        }
        if (sp > 0 && sq < 0) || (sp < 0 && sq > 0) {
            let (dp, dq) = (value(p), value(q));
            let t = (dp / (dp - dq)).clamp(0.0, 1.0);
            out.push(p + (q - p) * if t.is_nan() { 0.5 } else { t });
        }
    }
    out
}

/// `poly` (lying in the plane of `b`) clipped to `b`'s prism: its part inside `b`. Stable
/// because the prism's faces are perpendicular to the plane the polygon lies in.
///
/// Which side of an edge of `b` a point lies on is exact: the points and `b` are projected on
/// the coordinate plane the normal is most nearly perpendicular to (dropping a coordinate is
/// exact) and compared by `orient2d`. Rounded side values had put the corners of a shared edge
/// outside, and two coplanar triangles sharing an edge touched at a point instead of along it.
/// The crossing points are interpolated in coordinates relative to `b[0]`: in absolute ones,
/// far from the origin (a triangle 1e-5 across at 3e6), the rounding exceeds the distances.
fn clip_in_plane(poly: &[DVec3], b: &Tri) -> Vec<DVec3> {
    let o = b[0];
    let local = b.map(|p| p - o);
    let n = (local[1] - local[0]).cross(local[2] - local[0]);
    let drop = n.abs().max_position();
    let flat = |p: DVec3| match drop {
        0 => [p.y, p.z],
        1 => [p.z, p.x],
        _ => [p.x, p.y],
    };
    let turn = predicates::orient2d(flat(b[0]), flat(b[1]), flat(b[2]));
    let mut poly = poly.to_vec();
    for i in 0..3 {
        let (e0, e1) = (b[i], b[(i + 1) % 3]);
        let inward = n.cross(local[(i + 1) % 3] - local[i]);
        let c = inward.dot(local[i]);
        let value = |p: DVec3| inward.dot(p - o) - c;
        poly = if turn == 0 {
            // No orientation in any projection (b has no area): rounded sides.
            clip(
                &poly,
                |p| value(p).partial_cmp(&0.0).map_or(-1, |x| x as i8),
                value,
            )
        } else {
            clip(
                &poly,
                |p| predicates::orient2d(flat(e0), flat(e1), flat(p)) * turn,
                value,
            )
        };
        if poly.is_empty() {
            break;
        }
    }
    poly
}

/// Where the line through `a` and `b` (whose ends lie strictly on opposite sides of `dst`'s
/// plane, and which meets `dst`) crosses `dst`: as barycentric weights on `dst` from Ericson's
/// line–triangle triple products, so the point lies on `dst` even for a sliver. A weight that
/// is exactly 0 (the crossing on an edge of `dst`) may round to the wrong sign: it is taken as
/// 0, not as a miss.
fn crossing(a: DVec3, b: DVec3, dst: &Tri) -> DVec3 {
    let w = line_triangle_weights(a, b, dst);
    let w = if w.x + w.y + w.z < 0.0 { -w } else { w }.max(DVec3::ZERO);
    let sum = w.x + w.y + w.z;
    if sum > 0.0 && sum.is_finite() {
        let w = w / sum;
        return dst[0] * w.x + dst[1] * w.y + dst[2] * w.z;
    }
    // No weights to speak of (overflow, or rounding cancelled them all): where the segment
    // crosses the plane, by its ends' distances to it.
    let n = (dst[1] - dst[0]).cross(dst[2] - dst[0]);
    let (da, db) = (n.dot(a - dst[0]), n.dot(b - dst[0]));
    let t = (da / (da - db)).clamp(0.0, 1.0);
    a + (b - a) * if t.is_nan() { 0.5 } else { t }
}

/// Points where the edges of `src` meet `dst` (non-degenerate): exact tests choose the edges;
/// a crossing point is computed as barycentric weights on `dst` from Ericson's line–triangle
/// triple products, a convex combination, so it lies on `dst` by construction even when either
/// triangle is a sliver. An edge lying in `dst`'s plane contributes its part inside `dst`.
fn edge_contacts(src: &Tri, dst: &Tri, out: &mut Vec<DVec3>) {
    for i in 0..3 {
        let (a, b) = (src[i], src[(i + 1) % 3]);
        if !predicates::segment_triangle(a, b, dst) {
            continue;
        }
        let oa = predicates::orient3d(dst[0], dst[1], dst[2], a);
        let ob = predicates::orient3d(dst[0], dst[1], dst[2], b);
        match (oa, ob) {
            (0, 0) => out.extend(clip_in_plane(&[a, b], dst)),
            (0, _) => out.push(a),
            (_, 0) => out.push(b),
            _ => out.push(crossing(a, b, dst)),
        }
    }
}

fn intersection_points(t1: &Tri, t2: &Tri, coplanar: bool) -> Vec<DVec3> {
    let deg1 = predicates::is_degenerate(t1);
    let deg2 = predicates::is_degenerate(t2);
    let mut pts = Vec::new();
    if coplanar {
        pts = clip_in_plane(t1, t2);
    } else if deg1 && deg2 {
        pts = degenerate_points(t1, t2);
    } else {
        if !deg2 {
            edge_contacts(t1, t2, &mut pts);
        }
        if !deg1 {
            edge_contacts(t2, t1, &mut pts);
        }
    }
    if pts.is_empty() {
        // Rounding lost a contact the exact test proved: fall back to the nearest points.
        let d = super::tritri::separated_distance(t1, t2);
        return vec![(d.point_1 + d.point_2) * 0.5];
    }
    pts
}

/// Both triangles zero-area: intersect their edge segments pairwise.
fn degenerate_points(t1: &Tri, t2: &Tri) -> Vec<DVec3> {
    let mut out = Vec::new();
    for i in 0..3 {
        for j in 0..3 {
            let (a, b) = (t1[i], t1[(i + 1) % 3]);
            let (c, d) = (t2[j], t2[(j + 1) % 3]);
            if !predicates::segments_intersect(a, b, c, d) {
                continue;
            }
            let s = super::closest::closest_points_segments(a, b, c, d);
            out.push((s.p1 + s.p2) * 0.5);
            // Collinear overlap: the ends of either segment that lie on the other.
            for p in [a, b] {
                if predicates::segments_intersect(p, p, c, d) {
                    out.push(p);
                }
            }
            for p in [c, d] {
                if predicates::segments_intersect(p, p, a, b) {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// The shape of a pair each crossing the other's plane: a point or a segment, which decided
/// exactly (`piercing`), whatever the merging of the rounded points would make of it.
fn crossing_shape(points: &[DVec3], tol: f64, piercing: bool) -> Intersection {
    match (shape_of(points, tol, false), piercing) {
        (Intersection::Point(p), true) => match shape_of(points, 0.0, false) {
            Intersection::Point(q) => Intersection::Segment(p, q),
            shape => shape,
        },
        (Intersection::Segment(a, b), false) => Intersection::Point((a + b) * 0.5),
        (shape, _) => shape,
    }
}

/// Merge near-equal points and decide point / segment / area.
fn shape_of(points: &[DVec3], tol: f64, allow_area: bool) -> Intersection {
    let mut uniq: Vec<DVec3> = Vec::new();
    for &p in points {
        if !uniq.iter().any(|q| q.distance(p) <= tol) {
            uniq.push(p);
        }
    }
    match uniq.len() {
        0 => Intersection::None,
        1 => Intersection::Point(uniq[0]),
        _ => {
            // The two points farthest apart span the segment; any point off that line by more
            // than the tolerance makes it an area.
            let (mut a, mut b, mut best) = (0, 1, -1.0);
            for i in 0..uniq.len() {
                for j in i + 1..uniq.len() {
                    let d = uniq[i].distance_squared(uniq[j]);
                    if d > best {
                        (a, b, best) = (i, j, d);
                    }
                }
            }
            let (pa, pb) = (uniq[a], uniq[b]);
            let dir = (pb - pa).normalize_or_zero();
            let off_line = uniq.iter().any(|&p| {
                let v = p - pa;
                (v - dir * v.dot(dir)).length() > tol
            });
            if off_line && allow_area {
                Intersection::Area(uniq)
            } else {
                Intersection::Segment(pa, pb)
            }
        }
    }
}

//! Scalar geometry: every primitive of the published methods the project builds on, in `f64`.
//!
//! Each function names the method or book section it implements (`docs/references.md` lists them). The CPU path is the
//! reference the GPU is checked against, so the kernels avoid anything an `f32` WGSL twin could
//! not do mechanically (no recursion, no allocation in the hot functions, no dynamic dispatch).
//!
//! Boolean decisions that must be certified (triangle–triangle, segment–triangle,
//! point-in-triangle on the plane) live in [`predicates`] and [`tritri`] and use exact
//! orientation predicates; distances and closest points are plain `f64`.

pub mod classify;
pub mod closer;
pub mod closest;
pub mod crossing;
pub mod dynamic;
pub(crate) mod expansion;
pub(crate) mod integers;
pub mod overlap;
pub mod predicates;
pub mod ray;
pub mod tritri;
pub mod winding;

pub use glam::DVec3;

/// A triangle given by its three vertices, counter-clockwise seen from the side its normal points
/// to (Nathan (2015): "anti-clockwise winding").
pub type Tri = [DVec3; 3];

/// Axis-aligned bounding box (Ericson: AABB).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    pub min: DVec3,
    pub max: DVec3,
}

impl Aabb {
    /// The empty box: `min > max` on every axis, so any `grow` makes it valid.
    pub const EMPTY: Aabb = Aabb {
        min: DVec3::splat(f64::INFINITY),
        max: DVec3::splat(f64::NEG_INFINITY),
    };

    pub fn from_points(points: impl IntoIterator<Item = DVec3>) -> Aabb {
        let mut b = Aabb::EMPTY;
        for p in points {
            b.grow(p);
        }
        b
    }

    pub fn grow(&mut self, p: DVec3) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }

    /// The box grown by `pad` on every side.
    pub fn padded(&self, pad: f64) -> Aabb {
        Aabb {
            min: self.min - pad,
            max: self.max + pad,
        }
    }

    pub fn union(&self, o: &Aabb) -> Aabb {
        Aabb {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }

    pub fn center(&self) -> DVec3 {
        (self.min + self.max) * 0.5
    }

    pub fn half_extent(&self) -> DVec3 {
        (self.max - self.min) * 0.5
    }

    pub fn diagonal(&self) -> f64 {
        (self.max - self.min).length()
    }

    pub fn is_empty(&self) -> bool {
        self.min.x > self.max.x || self.min.y > self.max.y || self.min.z > self.max.z
    }

    /// Squared distance between two boxes (0 when they overlap or touch).
    pub fn distance_squared(&self, o: &Aabb) -> f64 {
        let gap = (self.min - o.max).max(o.min - self.max).max(DVec3::ZERO);
        gap.length_squared()
    }

    /// Distance between two boxes, finite wherever the boxes' coordinates are (their squared
    /// distance overflows beyond 1e154).
    pub fn distance(&self, o: &Aabb) -> f64 {
        let gap = (self.min * 0.5 - o.max * 0.5).max(o.min * 0.5 - self.max * 0.5);
        2.0 * length(gap.max(DVec3::ZERO))
    }
}

/// `|v|` without overflow or underflow in the squares: scaled by its largest coordinate first
/// (glam's `length` squares first, and is `inf` beyond 1.3e154).
pub fn length(v: DVec3) -> f64 {
    let m = v.abs().max_element();
    if m == 0.0 || !m.is_finite() {
        return m;
    }
    m * (v / m).length()
}

/// Sphere by centre and radius.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    pub center: DVec3,
    pub radius: f64,
}

/// Plane `n · X = d` (Ericson notation). `n` need not be unit length unless a function says so.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plane {
    pub n: DVec3,
    pub d: f64,
}

impl Plane {
    /// The plane through `p` with normal `n`.
    pub fn from_point_normal(p: DVec3, n: DVec3) -> Plane {
        Plane { n, d: n.dot(p) }
    }

    /// The plane of a triangle, normal `(b − a) × (c − a)` (not normalised).
    pub fn from_triangle(t: &Tri) -> Plane {
        Plane::from_point_normal(t[0], (t[1] - t[0]).cross(t[2] - t[0]))
    }

    /// Signed distance of `p`, in units of `|n|` (exact distance when `n` is unit).
    pub fn signed_distance(&self, p: DVec3) -> f64 {
        self.n.dot(p) - self.d
    }
}

/// The triangle's centroid, the mean of its vertices. Summed first (the same bits as ever)
/// unless the sum overflows, as corners beyond a third of f64's range can: then each corner's
/// third is summed (a review's helper: an infinite centre made a NaN the culls dropped pairs
/// on).
pub fn centroid(t: &Tri) -> DVec3 {
    let sum = t[0] + t[1] + t[2];
    if sum.is_finite() {
        return sum / 3.0;
    }
    t[0] / 3.0 + t[1] / 3.0 + t[2] / 3.0
}

/// Bounding sphere of Nathan (2015): centre at the centroid, radius to the farthest vertex.
pub fn triangle_bounding_sphere(t: &Tri) -> Sphere {
    let c = centroid(t);
    let r = t
        .iter()
        .map(|v| v.distance(c))
        .fold(0.0_f64, |a, b| a.max(b));
    Sphere {
        center: c,
        radius: r,
    }
}

/// Nathan (2015), step 1: the bounding-sphere cull with tolerance `d`:
/// `(C2 − C1)·(C2 − C1) ≤ (R1 + R2 + d)²`.
/// A cull: spheres whose gap is not a number (centres or radii beyond f64) are kept, for the
/// exact tests to decide.
pub fn spheres_within(a: &Sphere, b: &Sphere, d: f64) -> bool {
    let r = a.radius + b.radius + d;
    let gap = (b.center - a.center).length_squared();
    gap <= r * r || gap.is_nan() || r.is_nan()
}

//! Oriented boxes around the nodes of the hierarchy ([`crate::bvh`]), for the distance between
//! two parts under many poses ([`crate::query::poses`], long sweeps) and for batches of nearest
//! points. Axis-aligned boxes are loose once a part turns, and loose where a surface curves away
//! from what is near it: every pair of patches within the boxes' slack of the closest pair has
//! to be opened, and their number grows as the product of the two patches (42 000 leaf pairs a
//! pose for the bunny against igea; 389 nodes for a point far from igea's surface). A box
//! turned to a patch's normal is as thin as the patch is curved, so only what is near the
//! answer survives (Gottschalk, Lin and Manocha, "OBBTree", 1996; Coal's RSS and OBB trees do
//! the same).
//!
//! The lower bound between two boxes is their separation along the centres' line and along
//! each box's axes, those combined in each box's frame ([`Obb::gap`]): projection does not
//! lengthen, so no pair is pruned that could be the closest.

use crate::bvh::Bvh;
use crate::geom::{DVec3, Tri};
use crate::mesh::{Mesh, Pose};
use rayon::prelude::*;

/// An [`Obb`] in `f32`, relative to an origin, grown to hold it ([`Obb::rounded`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Obb32 {
    pub center: [f32; 3],
    pub axes: [[f32; 3]; 3],
    pub half: [f32; 3],
}

/// A box `center + Σ sᵢ axesᵢ` with `|sᵢ| ≤ half[i]`. Fitted boxes have orthonormal axes (to
/// rounding, which the padding covers); a box carried by a pose has the pose's rotation of
/// them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Obb {
    pub center: DVec3,
    pub axes: [DVec3; 3],
    pub half: DVec3,
}

impl Obb {
    /// The box around `points` (not empty) with the smaller volume of two frames: the
    /// coordinate axes, and one whose first axis is `normal` (a patch's area-weighted normal;
    /// ignored when zero). Padded so that rounding never leaves a point outside.
    pub fn fit(points: &[DVec3], normal: DVec3) -> Obb {
        let aligned = Self::around(points, [DVec3::X, DVec3::Y, DVec3::Z]);
        let Some(n) = normal.try_normalize() else {
            return aligned;
        };
        // The coordinate axis least along the normal, made perpendicular to it.
        let a = n.abs();
        let pick = if a.x <= a.y && a.x <= a.z {
            DVec3::X
        } else if a.y <= a.z {
            DVec3::Y
        } else {
            DVec3::Z
        };
        let e1 = (pick - n * n.dot(pick)).normalize();
        let turned = Self::around(points, [n, e1, n.cross(e1)]);
        let volume = |b: &Obb| b.half.x * b.half.y * b.half.z;
        if volume(&turned) < volume(&aligned) {
            turned
        } else {
            aligned
        }
    }

    /// The box with `axes` (orthonormal to rounding) around `points`: each axis's span, centred,
    /// padded by 1e-12 of the coordinates' magnitude (the projections' rounding and the axes'
    /// departure from orthonormal, about 1e-16 of it, many times over).
    fn around(points: &[DVec3], axes: [DVec3; 3]) -> Obb {
        let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
        let mut magnitude = 0.0f64;
        for p in points {
            let s = DVec3::new(axes[0].dot(*p), axes[1].dot(*p), axes[2].dot(*p));
            lo = lo.min(s);
            hi = hi.max(s);
            magnitude = magnitude.max(p.abs().max_element());
        }
        let mid = (lo + hi) * 0.5;
        let pad = 1e-12 * magnitude + f64::MIN_POSITIVE;
        Obb {
            center: axes[0] * mid.x + axes[1] * mid.y + axes[2] * mid.z,
            axes,
            half: (hi - lo) * 0.5 + DVec3::splat(pad),
        }
    }

    /// The box carried by `pose` (rounded, and its axes as far from orthonormal as the pose's
    /// rotation: the caller pads for both).
    pub fn carried(&self, pose: &Pose) -> Obb {
        Obb {
            center: pose.apply(self.center),
            axes: self.axes.map(|e| pose.rotate(e)),
            half: self.half,
        }
    }

    /// A lower bound on the distance between the two boxes (rounded; zero or negative when
    /// the axes tried do not separate them): the best of the gap between their projections on
    /// the line between their centres, and in each box's frame the distance from it to the
    /// axis-aligned box around the other (Gottschalk's separating axis test, as a distance).
    /// Each box's axes are taken as orthonormal: a fitted box's are to rounding, a carried
    /// one's as far as its pose's rotation is, and the caller pads the bound for both.
    pub fn gap(&self, other: &Obb) -> f64 {
        let (a, b) = (&self.axes, &other.axes);
        let (ha, hb) = (self.half, other.half);
        let d = other.center - self.center;
        // m[i][j] = aᵢ · bⱼ, and the centres' offset along each box's axes.
        let mut m = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                m[i][j] = a[i].dot(b[j]).abs();
            }
        }
        let da = DVec3::new(d.dot(a[0]), d.dot(a[1]), d.dot(a[2])).abs();
        let db = DVec3::new(d.dot(b[0]), d.dot(b[1]), d.dot(b[2])).abs();
        // In A's frame B lies within the box of half-extents rb around its centre, so the
        // distance between A's box and that box bounds theirs below, its axes' gaps combined
        // (not only their largest); the same in B's frame.
        let (mut in_a, mut in_b) = (0.0, 0.0);
        let mut gap = f64::NEG_INFINITY;
        for i in 0..3 {
            let rb = hb.x * m[i][0] + hb.y * m[i][1] + hb.z * m[i][2];
            let ga = da[i] - ha[i] - rb;
            let ra = ha.x * m[0][i] + ha.y * m[1][i] + ha.z * m[2][i];
            let gb = db[i] - hb[i] - ra;
            gap = gap.max(ga).max(gb);
            in_a += ga.max(0.0) * ga.max(0.0);
            in_b += gb.max(0.0) * gb.max(0.0);
        }
        if gap > 0.0 {
            gap = gap.max(in_a.max(in_b).sqrt());
        }
        // Along the centres' line: |d|² less both radii along d, over |d|.
        let len = d.length();
        if len > 0.0 {
            gap = gap.max((len * len - ha.dot(da) - hb.dot(db)) / len);
        }
        gap
    }

    /// The box relative to `origin` in `f32`: its centre and axes rounded, each half-extent
    /// grown to cover that. A point `x = c + Σ sⱼ aⱼ` of the box (`|sⱼ| ≤ hⱼ`) lies within
    /// `Σ hⱼ |aⱼ · a'ₖ| + |c − c'| |a'ₖ|` of the rounded centre `c'` along the rounded axis
    /// `a'ₖ`, plus the f64 rounding of all this and of the box's own fit (1e-12 of the
    /// magnitudes); the sum is rounded up to `f32`. The axes are then orthonormal only to
    /// within 3 2^-23 in each product, which a bound from them allows for.
    pub fn rounded(&self, origin: DVec3) -> Obb32 {
        let c = self.center - origin;
        let c32 = c.as_vec3();
        let shift = (c - c32.as_dvec3()).length();
        let magnitude =
            self.center.abs().max_element() + origin.abs().max_element() + self.half.element_sum();
        let pad = 1e-12 * magnitude + f64::MIN_POSITIVE;
        let axes = self.axes.map(|a| a.as_vec3());
        let half = std::array::from_fn(|k| {
            let ad = axes[k].as_dvec3();
            let half: f64 = (0..3)
                .map(|j| self.half[j] * self.axes[j].dot(ad).abs())
                .sum::<f64>()
                + shift * ad.length()
                + pad;
            // Nearest rounding is within 2^-24 of it: grown by 1e-6 first, never below.
            (half * (1.0 + 1e-6)) as f32
        });
        Obb32 {
            center: c32.to_array(),
            axes: axes.map(|a| a.to_array()),
            half,
        }
    }

    /// The squared distance from `p` to the box grown by `pad` on every side: in the box's
    /// frame, how far `p` lies outside it along each axis (the axes taken as orthonormal, as
    /// in [`Obb::gap`]).
    pub fn distance_squared_to(&self, p: DVec3, pad: f64) -> f64 {
        let q = p - self.center;
        let mut sum = 0.0;
        for k in 0..3 {
            let out = (q.dot(self.axes[k]).abs() - self.half[k] - pad).max(0.0);
            sum += out * out;
        }
        sum
    }

    /// A lower bound on the distance from the triangle `t` to the box (zero when they may
    /// meet): in the box's frame, the distance from it to the triangle's own box. The box's
    /// axes are taken as orthonormal, as in [`Obb::gap`].
    pub fn gap_to_triangle(&self, t: &Tri) -> f64 {
        let mut sum = 0.0;
        for k in 0..3 {
            let s = t.map(|p| (p - self.center).dot(self.axes[k]));
            let (lo, hi) = (s[0].min(s[1]).min(s[2]), s[0].max(s[1]).max(s[2]));
            let g = (lo - self.half[k]).max(-self.half[k] - hi).max(0.0);
            sum += g * g;
        }
        sum.sqrt()
    }

    /// An upper bound on the distance between any point of one box and any point of the
    /// other (rounded: the caller pads): the centres' distance plus both half-diagonals.
    pub fn reach(&self, other: &Obb) -> f64 {
        self.center.distance(other.center) + self.half.length() + other.half.length()
    }

    /// The squared half-diagonal (which box of a pair to open first).
    pub fn size(&self) -> f64 {
        self.half.length_squared()
    }
}

/// Each hierarchy node's oriented box, in the mesh's own coordinates, and its number of
/// triangles.
pub struct Oriented {
    pub boxes: Vec<Obb>,
    pub tri_counts: Vec<u32>,
}

impl Oriented {
    pub fn build(bvh: &Bvh, mesh: &Mesh) -> Oriented {
        // In slot order for the fitting only: a node's triangles in one place.
        let slot_tris: Vec<Tri> = bvh
            .tris
            .par_iter()
            .map(|&t| mesh.triangle(t as usize))
            .collect();
        let ranges = bvh.slot_ranges();
        Oriented {
            boxes: ranges
                .par_iter()
                .map(|r| fit_node(&slot_tris[r.clone()]))
                .collect(),
            tri_counts: ranges.iter().map(|r| r.len() as u32).collect(),
        }
    }
}

/// The oriented box of a node's triangles.
fn fit_node(tris: &[Tri]) -> Obb {
    let mut points = Vec::with_capacity(tris.len() * 3);
    let mut normal = DVec3::ZERO;
    for &[p, q, s] in tris {
        points.extend([p, q, s]);
        normal += (q - p).cross(s - p);
    }
    Obb::fit(&points, normal)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points on a tilted, slightly curved patch: the turned box must hold them all and be far
    /// thinner than the axis-aligned one.
    #[test]
    fn a_fitted_box_holds_its_points_and_turns_to_a_flat_patch() {
        let n = DVec3::new(1.0, 2.0, 2.0) / 3.0;
        let e1 = DVec3::new(2.0, -1.0, 0.0).normalize();
        let e2 = n.cross(e1);
        let points: Vec<DVec3> = (0..100)
            .map(|i| {
                let (u, v) = ((i % 10) as f64 * 0.1, (i / 10) as f64 * 0.1);
                DVec3::splat(5.0) + e1 * u + e2 * v + n * (1e-3 * (u * u + v * v))
            })
            .collect();
        let b = Obb::fit(&points, n);
        assert!(b.half.x < 2e-3, "{:?}", b.half);
        for p in &points {
            let s = p - b.center;
            for k in 0..3 {
                assert!(
                    s.dot(b.axes[k]).abs() <= b.half[k],
                    "{p} outside on axis {k}"
                );
            }
        }
    }

    /// Two unit cubes, one turned 45° about z and moved 3 along x: the distance between them
    /// is 3 − 0.5 − √2/2 (the turned cube's edge faces the other's face), and the bound must
    /// equal it to rounding (the first cube's x axis separates them exactly).
    #[test]
    fn the_gap_of_two_cubes_is_their_distance() {
        let cube = Obb {
            center: DVec3::ZERO,
            axes: [DVec3::X, DVec3::Y, DVec3::Z],
            half: DVec3::splat(0.5),
        };
        let turn = Pose::from_euler_degrees([0.0, 0.0, 45.0], DVec3::new(3.0, 0.0, 0.0));
        let gap = cube.gap(&cube.carried(&turn));
        let exact = 3.0 - 0.5 - 0.5 * 2f64.sqrt();
        assert!((gap - exact).abs() < 1e-12, "{gap} vs {exact}");
        // Overlapping boxes are not separated.
        let near = Pose::from_euler_degrees([10.0, 20.0, 30.0], DVec3::new(0.9, 0.0, 0.0));
        assert!(cube.gap(&cube.carried(&near)) <= 0.0);
    }
}

//! Rigid transforms applied at query time; a loaded mesh is never modified by its pose.

use crate::error::{Error, Result};
use glam::DVec3;

/// A rigid transform `x ↦ R x + t`, `R` a rotation (row-major).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    pub rotation: [[f64; 3]; 3],
    pub translation: DVec3,
}

impl Default for Pose {
    fn default() -> Self {
        Pose::IDENTITY
    }
}

impl Pose {
    /// How far from orthonormal a user's rotation may be, in each product of two rows (and in
    /// the last row's distance from `0 0 0 1`). Matrices written with 16 decimal digits are
    /// within 1e-15. Six-digit ones are within `√3 · 1e-6` (each entry off by up to 5e-7, a
    /// product of two unit rows by at most 5e-7 times their entries' sums, each up to √3):
    /// 1e-6 refused a fifth of random rotations written so (a review's helper).
    pub const RIGID_TOLERANCE: f64 = 2e-6;

    pub const IDENTITY: Pose = Pose {
        rotation: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        translation: DVec3::ZERO,
    };

    /// Whether [`Pose::apply`] moves no finite point, but for a zero's sign: a rotation of ones
    /// and zeros (either sign) on the identity's pattern, and a translation of +0.0 exactly.
    /// There `apply(p)` is `p + 0.0` in each coordinate, bit for bit: each sum adds zeros to
    /// the coordinate, and the last, +0.0, turns a zero sum to +0.0.
    pub fn moves_nothing(&self) -> bool {
        let r = &self.rotation;
        let ones = (0..3).all(|i| (0..3).all(|j| r[i][j] == if i == j { 1.0 } else { 0.0 }));
        ones && self.translation.to_array().iter().all(|t| t.to_bits() == 0)
    }

    pub fn translation(t: DVec3) -> Pose {
        Pose {
            translation: t,
            ..Pose::IDENTITY
        }
    }

    /// Rotation by `rx`, `ry`, `rz` degrees about the fixed X, then Y, then Z axis (so
    /// `R = Rz · Ry · Rx`), then translation by `t`. Quarter turns are exact (cos 90° is 0, not
    /// 6e-17): parts turned by right angles to touch do touch.
    pub fn from_euler_degrees(r: [f64; 3], t: DVec3) -> Pose {
        use glam::{DMat3, DVec3 as V};
        let [(sx, cx), (sy, cy), (sz, cz)] = r.map(sin_cos_degrees);
        let rx = DMat3::from_cols(V::X, V::new(0.0, cx, sx), V::new(0.0, -sx, cx));
        let ry = DMat3::from_cols(V::new(cy, 0.0, -sy), V::Y, V::new(sy, 0.0, cy));
        let rz = DMat3::from_cols(V::new(cz, sz, 0.0), V::new(-sz, cz, 0.0), V::Z);
        let m = rz * ry * rx;
        let c = m.to_cols_array_2d();
        let rotation = std::array::from_fn(|i| std::array::from_fn(|j| c[j][i]));
        Pose {
            rotation,
            translation: t,
        }
    }

    /// From a 4×4 row-major matrix, which must be rigid (orthonormal rotation, determinant +1,
    /// last row `0 0 0 1`).
    pub fn from_matrix(m: &[f64]) -> Result<Pose> {
        if m.len() != 16 {
            return Err(Error::Pose(format!(
                "a matrix needs 16 numbers, got {}",
                m.len()
            )));
        }
        if let Some(v) = m.iter().find(|v| !v.is_finite()) {
            return Err(Error::Pose(format!("non-finite entry {v}")));
        }
        let last = [m[12], m[13], m[14], m[15]];
        if (last[0].abs() + last[1].abs() + last[2].abs() + (last[3] - 1.0).abs())
            > Self::RIGID_TOLERANCE
        {
            return Err(Error::Pose(format!(
                "last row must be 0,0,0,1, got {last:?}"
            )));
        }
        let rotation = [[m[0], m[1], m[2]], [m[4], m[5], m[6]], [m[8], m[9], m[10]]];
        let pose = Pose {
            rotation,
            translation: DVec3::new(m[3], m[7], m[11]),
        };
        pose.check_rigid()?;
        Ok(pose)
    }

    fn check_rigid(&self) -> Result<()> {
        let r = self.rotation;
        for i in 0..3 {
            for j in 0..3 {
                let dot: f64 = (0..3).map(|k| r[i][k] * r[j][k]).sum();
                let want = if i == j { 1.0 } else { 0.0 };
                if (dot - want).abs() > Self::RIGID_TOLERANCE {
                    return Err(Error::Pose(format!(
                        "rotation part is not orthonormal (row {i}·row {j} = {dot}); scaling and shear are not supported"
                    )));
                }
            }
        }
        let det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1])
            - r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0])
            + r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
        if det < 0.0 {
            return Err(Error::Pose(
                "rotation part is a reflection (determinant −1)".into(),
            ));
        }
        Ok(())
    }

    /// `R p + t`, each row summed left to right then the translation added (the order numpy's
    /// `R @ p + t` uses), so poses given as matrices reproduce peers' coordinates bit for bit.
    pub fn apply(&self, p: DVec3) -> DVec3 {
        let r = &self.rotation;
        DVec3::new(
            r[0][0] * p.x + r[0][1] * p.y + r[0][2] * p.z + self.translation.x,
            r[1][0] * p.x + r[1][1] * p.y + r[1][2] * p.z + self.translation.y,
            r[2][0] * p.x + r[2][1] * p.y + r[2][2] * p.z + self.translation.z,
        )
    }

    /// `Rᵀ (p − t)`: back into the mesh's own coordinates, rounded (for culling only: exact
    /// tests use [`Pose::apply`]'s coordinates).
    pub fn unapply(&self, p: DVec3) -> DVec3 {
        let r = &self.rotation;
        let x = p - self.translation;
        DVec3::new(
            r[0][0] * x.x + r[1][0] * x.y + r[2][0] * x.z,
            r[0][1] * x.x + r[1][1] * x.y + r[2][1] * x.z,
            r[0][2] * x.x + r[1][2] * x.y + r[2][2] * x.z,
        )
    }

    /// A bound on how far [`Pose::unapply`] can land from the true inverse image `R⁻¹ (p − t)`
    /// of a world point whose mesh coordinates are at most `magnitude`: `Rᵀ` is the inverse
    /// only for an orthonormal `R`, and a matrix is accepted up to [`Pose::RIGID_TOLERANCE`] off it.
    /// `Rᵀ x = RᵀR y` for the true `y`, so the error is `(RᵀR − I) y` (at most three times the
    /// largest entry of `RᵀR − I`, times `|y|` ≤ √3 magnitude), plus rounding.
    pub fn unapply_error(&self, magnitude: f64) -> f64 {
        self.unapply_rate() * magnitude
    }

    /// [`Pose::unapply_error`] per unit of magnitude (it is that times the magnitude): for a
    /// caller that bounds many points under one pose.
    pub fn unapply_rate(&self) -> f64 {
        let r = &self.rotation;
        let mut defect = 0.0f64;
        for i in 0..3 {
            for j in 0..3 {
                let dot: f64 = (0..3).map(|k| r[k][i] * r[k][j]).sum();
                defect = defect.max((dot - if i == j { 1.0 } else { 0.0 }).abs());
            }
        }
        3.0 * 3f64.sqrt() * defect + 16.0 * f64::EPSILON
    }

    /// `self⁻¹ ∘ other`: `other`'s coordinates carried into `self`'s (rounded; for culling).
    pub fn relative(&self, other: &Pose) -> Pose {
        let (a, b) = (&self.rotation, &other.rotation);
        let rotation = std::array::from_fn(|i| {
            std::array::from_fn(|j| (0..3).map(|k| a[k][i] * b[k][j]).sum())
        });
        Pose {
            rotation,
            translation: self.unapply(other.translation),
        }
    }

    /// `R v` (directions).
    pub fn rotate(&self, v: DVec3) -> DVec3 {
        let r = &self.rotation;
        DVec3::new(
            r[0][0] * v.x + r[0][1] * v.y + r[0][2] * v.z,
            r[1][0] * v.x + r[1][1] * v.y + r[1][2] * v.z,
            r[2][0] * v.x + r[2][1] * v.y + r[2][2] * v.z,
        )
    }

    /// `|R|` applied to a box half-extent: the half-extent of the rotated box's AABB.
    pub fn rotate_extent(&self, e: DVec3) -> DVec3 {
        let r = &self.rotation;
        DVec3::new(
            r[0][0].abs() * e.x + r[0][1].abs() * e.y + r[0][2].abs() * e.z,
            r[1][0].abs() * e.x + r[1][1].abs() * e.y + r[1][2].abs() * e.z,
            r[2][0].abs() * e.x + r[2][1].abs() * e.y + r[2][2].abs() * e.z,
        )
    }

    /// Row-major 4×4 matrix.
    pub fn to_matrix(&self) -> [f64; 16] {
        let r = &self.rotation;
        let t = self.translation;
        [
            r[0][0], r[0][1], r[0][2], t.x, r[1][0], r[1][1], r[1][2], t.y, r[2][0], r[2][1],
            r[2][2], t.z, 0.0, 0.0, 0.0, 1.0,
        ]
    }
}

/// The sine and cosine of `deg` degrees, taken modulo 360 first (exactly), and exact at the
/// multiples of 90.
fn sin_cos_degrees(deg: f64) -> (f64, f64) {
    // In [0, 360], 360 itself for a tiny negative angle (the remainder rounds up to it).
    let r = deg.rem_euclid(360.0);
    if r % 90.0 == 0.0 {
        return match (r / 90.0) as u8 % 4 {
            0 => (0.0, 1.0),
            1 => (1.0, 0.0),
            2 => (0.0, -1.0),
            _ => (-1.0, 0.0),
        };
    }
    r.to_radians().sin_cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pose that moves nothing applies as `p + 0.0`, bit for bit, zeros' signs included, for
    /// every sign of its zero entries; a translation of -0.0 or a rotation entry of 1e-300
    /// does move something (the sign of a zero, a coordinate by an ulp), and is not one.
    #[test]
    fn a_pose_that_moves_nothing_applies_as_adding_zero() {
        let values = [
            0.0, -0.0, 1.0, -3.5, 5e-324, -5e-324, 1e308, -2.25e-300, 7.0e10,
        ];
        let zeros = [0.0, -0.0];
        for signs in 0..64u32 {
            let z = |k: u32| zeros[(signs >> k & 1) as usize];
            let pose = Pose {
                rotation: [[1.0, z(0), z(1)], [z(2), 1.0, z(3)], [z(4), z(5), 1.0]],
                translation: DVec3::ZERO,
            };
            assert!(pose.moves_nothing());
            let triples = values
                .iter()
                .flat_map(|&x| values.iter().flat_map(move |&y| values.map(|w| (x, y, w))));
            for (x, y, w) in triples {
                let p = DVec3::new(x, y, w);
                let (a, b) = (pose.apply(p), p + DVec3::ZERO);
                let bits = |v: DVec3| v.to_array().map(f64::to_bits);
                assert_eq!(bits(a), bits(b), "{p:?} by {pose:?}");
            }
        }
        let minus = Pose::translation(DVec3::new(0.0, -0.0, 0.0));
        assert!(!minus.moves_nothing());
        // 0·(-1) + 1·(-0) + 0·(-2) + (-0) is -0, where adding +0.0 would give +0.
        let p = DVec3::new(-1.0, -0.0, -2.0);
        assert_eq!(minus.apply(p).y.to_bits(), (-0.0f64).to_bits());
        let tiny = Pose {
            rotation: [[1.0, 1e-300, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            ..Pose::IDENTITY
        };
        assert!(!tiny.moves_nothing());
        assert_ne!(tiny.apply(DVec3::new(5e-324, 1e300, 0.0)).x, 5e-324);
    }

    /// Every combination of quarter turns (from -360 to 720 degrees about each axis) gives a
    /// rotation of 0s and ±1s, exactly, equal to the product of the axes' exact quarter turns
    /// worked by hand; other angles give glam's rotations within rounding, in the same order.
    #[test]
    fn quarter_turns_are_exact_and_other_angles_are_glams() {
        let turns = (-4..=8).map(|q| q as f64 * 90.0);
        // Rz by a quarter turn maps x to y and y to -x; likewise about x and y.
        let quarter = |k: usize, q: i64| {
            let mut m = glam::DMat3::IDENTITY;
            let (i, j) = ((k + 1) % 3, (k + 2) % 3);
            for _ in 0..q.rem_euclid(4) {
                let mut step = glam::DMat3::IDENTITY;
                step.col_mut(i)[i] = 0.0;
                step.col_mut(i)[j] = 1.0;
                step.col_mut(j)[j] = 0.0;
                step.col_mut(j)[i] = -1.0;
                m = step * m;
            }
            m
        };
        for x in turns.clone() {
            for y in turns.clone() {
                for z in turns.clone() {
                    let p = Pose::from_euler_degrees([x, y, z], DVec3::ZERO);
                    let q = |a: f64| (a / 90.0) as i64;
                    let want = quarter(2, q(z)) * quarter(1, q(y)) * quarter(0, q(x));
                    for (i, row) in p.rotation.iter().enumerate() {
                        for (j, &v) in row.iter().enumerate() {
                            assert_eq!(v, want.col(j)[i], "{x} {y} {z}");
                        }
                    }
                }
            }
        }
        // A tiny negative angle's remainder modulo 360 rounds to 360 itself: a whole turn.
        let tiny = Pose::from_euler_degrees([-1e-20, 0.0, 0.0], DVec3::ZERO);
        assert_eq!(tiny.rotation, Pose::IDENTITY.rotation);
        let r = [12.0, -34.0, 561.0];
        let p = Pose::from_euler_degrees(r, DVec3::ZERO);
        let g = glam::DMat3::from_rotation_z(r[2].to_radians())
            * glam::DMat3::from_rotation_y(r[1].to_radians())
            * glam::DMat3::from_rotation_x(r[0].to_radians());
        for (i, row) in p.rotation.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                assert!((v - g.col(j)[i]).abs() < 1e-15, "{i} {j}");
            }
        }
    }
}

//! Spheres against a mesh: where a sphere stands (its gap to the surface, negative when it
//! penetrates the solid, by the winding number as containment has it), every triangle it
//! touches, and the first contact of a sphere moving along a straight path, by conservative
//! advancement: step by the distance to the surface less the radius over the speed, so that no
//! step can pass through a wall however thin (Mirtich's conservative advancement, as FCL does
//! for meshes).

use super::{closest_point, point_inside, Closest, Posed};
use crate::geom::closest::{closest_point_triangle, distance_squared_point_aabb};
use crate::geom::DVec3;

/// Where a sphere stands against a mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SphereContact {
    /// The sphere reaches the surface or the inside: `gap <= 0`.
    pub touches: bool,
    /// Distance from the centre to the surface less the radius; with the centre inside the
    /// solid, minus the distance less the radius.
    pub gap: f64,
    pub triangle: u32,
    /// The surface point nearest the centre.
    pub point: DVec3,
}

/// The sphere of centre `c` and radius `r` against `m` (`None` only for a centre that is not
/// finite).
pub fn sphere_contact(c: DVec3, r: f64, m: &Posed) -> Option<SphereContact> {
    let near = closest_point(c, m, f64::INFINITY)?;
    Some(contact_from(&near, point_inside(c, m).inside, r))
}

/// A sphere's contact given its centre's nearest point and whether the centre is inside: the
/// one computation of it, whichever backend found those.
pub(crate) fn contact_from(near: &Closest, inside: bool, r: f64) -> SphereContact {
    let gap = if inside {
        -near.distance - r
    } else {
        near.distance - r
    };
    SphereContact {
        touches: gap <= 0.0,
        gap,
        triangle: near.triangle,
        point: near.point,
    }
}

/// Every triangle within `r` of `c` (the sphere's surface or inside meets it), by index.
pub fn sphere_triangles(c: DVec3, r: f64, m: &Posed) -> Vec<u32> {
    let tree = m.tree();
    let r2 = r * r;
    let mut out = Vec::new();
    let mut stack = vec![0usize];
    while let Some(n) = stack.pop() {
        if distance_squared_point_aabb(c, &m.node_box(n)) > r2 {
            continue;
        }
        let node = &tree.nodes[n];
        if !node.is_leaf() {
            stack.extend(node.children());
            continue;
        }
        for &t in m.node_tris(n as u32) {
            if closest_point_triangle(c, &m.tri(t)).distance_squared(c) <= r2 {
                out.push(t);
            }
        }
    }
    out.sort_unstable();
    out
}

/// The first contact of a moving sphere.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepContact {
    /// Fraction of the path, in [0, 1]: the centre is at `c + toi · v`.
    pub toi: f64,
    pub triangle: u32,
    /// The surface point the sphere reaches.
    pub point: DVec3,
}

/// Steps of the advancement at most; a path that grazes the surface at a gap just above the
/// tolerance takes the most.
const MAX_STEPS: usize = 1_000_000;

/// What a moving sphere meets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SphereSweep {
    /// First contact.
    Contact(SweepContact),
    /// None along the whole move.
    Clear,
    /// Not decided past fraction `from` of the move: the steps ran out ([`MAX_STEPS`], a path
    /// grazing the surface just above the tolerance), or became smaller than the path's
    /// parameter can resolve (a sphere far from the origin moving slowly), or the centre is not
    /// finite. Never reported as clear.
    Undecided { from: f64 },
}

impl SphereSweep {
    pub fn contact(&self) -> Option<&SweepContact> {
        match self {
            SphereSweep::Contact(c) => Some(c),
            _ => None,
        }
    }
}

/// The sphere of radius `r` moving from `c` to `c + v`: its first contact with `m` (within
/// `tol` of touching, and certainly not touching before), or clear, or undecided. A sphere
/// already touching or inside at the start has contact at 0.
pub fn sphere_sweep(c: DVec3, r: f64, v: DVec3, m: &Posed, tol: f64) -> SphereSweep {
    let Some(start) = sphere_contact(c, r, m) else {
        // No nearest point: a mesh with no triangles, which nothing meets, or a centre that is
        // not finite.
        let clear = m.prep.mesh.triangles.is_empty() && c.is_finite() && (c + v).is_finite();
        return if clear {
            SphereSweep::Clear
        } else {
            SphereSweep::Undecided { from: 0.0 }
        };
    };
    let mut sweep = match Sweep::start(&start) {
        Ok(sweep) => sweep,
        Err(done) => return done,
    };
    loop {
        let near = closest_point(sweep.centre(c, v), m, f64::INFINITY);
        if let Some(done) = sweep.step(near.as_ref(), r, v, tol) {
            return done;
        }
    }
}

/// A sphere's advancement along its move, one step at a time: the CPU's loop and the GPU's
/// batches (a step for every moving sphere at once) take the same steps from the same nearest
/// points, so they give the same answers.
#[derive(Clone, Copy, Debug)]
pub struct Sweep {
    /// Fraction of the move made.
    pub s: f64,
    /// Steps taken.
    pub steps: usize,
}

impl Sweep {
    /// From where the sphere stands at the start: a sphere touching there is done, at 0.
    pub fn start(start: &SphereContact) -> Result<Sweep, SphereSweep> {
        if start.touches {
            return Err(SphereSweep::Contact(SweepContact {
                toi: 0.0,
                triangle: start.triangle,
                point: start.point,
            }));
        }
        Ok(Sweep { s: 0.0, steps: 0 })
    }

    /// Where the centre is now.
    pub fn centre(&self, c: DVec3, v: DVec3) -> DVec3 {
        c + v * self.s
    }

    /// One step from the surface point nearest the centre now (`None`: no answer there): the
    /// sphere's answer, or `None` to go on.
    pub fn step(
        &mut self,
        near: Option<&Closest>,
        r: f64,
        v: DVec3,
        tol: f64,
    ) -> Option<SphereSweep> {
        let s = self.s;
        if self.steps == MAX_STEPS {
            return Some(SphereSweep::Undecided { from: s });
        }
        self.steps += 1;
        let Some(near) = near else {
            return Some(SphereSweep::Undecided { from: s });
        };
        let gap = near.distance - r;
        if gap <= tol {
            return Some(SphereSweep::Contact(SweepContact {
                toi: s,
                triangle: near.triangle,
                point: near.point,
            }));
        }
        // No point of the surface is nearer than `gap` to the sphere: moving less than that
        // along the path cannot reach it.
        let next = s + gap / v.length();
        if next > 1.0 {
            return Some(SphereSweep::Clear);
        }
        if next.is_nan() || next <= s {
            return Some(SphereSweep::Undecided { from: s });
        }
        self.s = next;
        None
    }
}

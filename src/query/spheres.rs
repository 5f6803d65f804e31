//! Spheres against a mesh: where a sphere stands (its gap to the surface, negative when it
//! penetrates the solid, by the winding number as containment has it), every triangle it
//! touches, and the first contact of a sphere moving along a straight path, by conservative
//! advancement: step by the distance to the surface less the radius over the speed, so that no
//! step can pass through a wall however thin (Mirtich's conservative advancement, as FCL does
//! for meshes).

use super::winding::inside_room;
use super::{closest_point, point_inside, winding_number, Closest, Posed, Winding};
use super::{Listing, TooMany, MAX_PAIRS};
use crate::geom::closer::point_within;
use crate::geom::closest::{closest_point_triangle, distance_squared_point_aabb};
use crate::geom::DVec3;

/// Where a sphere stands against a mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SphereContact {
    /// The sphere reaches the surface or its centre is inside: the exact `gap <= 0` (against
    /// a mesh that is not closed, a sphere reaching the inside through a hole with its centre
    /// outside does not touch), decided exactly
    /// (`gap`, rounded, may read a rounding either side of 0 where the exact one is 0 or
    /// nearly so).
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
    if crate::stop::requested() {
        return None;
    }
    let near = closest_point(c, m, f64::INFINITY)?;
    Some(contact_from(c, r, &near, point_inside(c, m).inside, m))
}

/// A sphere's contact given its centre's nearest point and whether the centre is inside: the
/// one computation of it, whichever backend found those. `touches` is exact: a sphere whose
/// radius is exactly its centre's distance touches, whichever way that distance rounds.
pub(crate) fn contact_from(
    c: DVec3,
    r: f64,
    near: &Closest,
    inside: bool,
    m: &Posed,
) -> SphereContact {
    let gap = if inside {
        -near.distance - r
    } else {
        near.distance - r
    };
    let band = slack(c, r, DVec3::ZERO, m);
    let touches = inside
        || near.distance < r - band
        || (near.distance <= r + band && !sphere_triangles(c, r, m).is_empty());
    SphereContact {
        touches,
        gap,
        triangle: near.triangle,
        point: near.point,
    }
}

/// How far an f64 distance from a centre at `c` (moving by up to `v`) to `m`'s surface may be
/// from the exact one: the centre and the nearest point are computed within a few roundings
/// (2^-52) of the coordinates' magnitude, and 32 of them leave room.
fn slack(c: DVec3, r: f64, v: DVec3, m: &Posed) -> f64 {
    let b = m.root_box();
    let mesh = b.min.abs().max(b.max.abs()).max_element();
    let terms = [c.abs().max_element(), v.abs().max_element(), r, mesh];
    let k = 32.0 * f64::EPSILON;
    match k * terms.iter().sum::<f64>() {
        s if s.is_finite() => s,
        // Magnitudes whose sum overflows (a sphere moving from 1e308 to 0): the same bound
        // term by term. Its infinity had made a default tolerance the mesh's, 1e294 times
        // finer than such coordinates resolve, and the sweep undecided.
        _ => terms.iter().map(|t| k * t).sum(),
    }
}

/// Every triangle within `r` of `c` (the sphere's surface or inside meets it), by index,
/// exactly: a triangle exactly `r` away is one.
pub fn sphere_triangles(c: DVec3, r: f64, m: &Posed) -> Vec<u32> {
    let band = slack(c, r, DVec3::ZERO, m);
    let tree = m.tree();
    let reach = (r + band) * (r + band);
    let mut out = Vec::new();
    let mut stack = vec![0usize];
    while let Some(n) = stack.pop() {
        if distance_squared_point_aabb(c, &m.node_box(n)) > reach {
            continue;
        }
        let node = &tree.nodes[n];
        if !node.is_leaf() {
            stack.extend(node.children());
            continue;
        }
        for &t in m.node_tris(n as u32) {
            let tri = m.tri(t);
            // Measured without squares: beyond 1.3e154 they overflowed, and a sphere touching
            // exactly (or cutting in) 1e160 away named no triangle (a review's helper).
            let d = crate::geom::length(closest_point_triangle(c, &tri) - c);
            // The f64 distance settles all but a tie; that is decided in integers.
            let within = match () {
                _ if d < r - band => true,
                _ if d > r + band => false,
                _ => point_within(c, &tri, r),
            };
            if within {
                out.push(t);
            }
        }
    }
    out.sort_unstable();
    out
}

/// Every (sphere, triangle) pair of `spheres` (centre, radius) that [`sphere_triangles`]
/// names, by sphere then triangle, the spheres on rayon's threads: `spheres --contacts` and
/// Python's `sphere_touching`.
///
/// At most [`MAX_PAIRS`] pairs: past them, an error (a radius in another unit than the mesh's
/// asked for 3.5e8 pairs of 5 000 spheres, and the process was killed for memory: a review's
/// helper).
pub fn spheres_touching(spheres: &[(DVec3, f64)], m: &Posed) -> Result<Vec<(u32, u32)>, TooMany> {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    let listed = AtomicU64::new(0);
    let lists: Vec<Vec<u32>> = spheres
        .par_iter()
        .map(|&(c, r)| {
            if listed.load(Relaxed) > MAX_PAIRS {
                return Vec::new();
            }
            let found = sphere_triangles(c, r, m);
            listed.fetch_add(found.len() as u64, Relaxed);
            found
        })
        .collect();
    if listed.into_inner() > MAX_PAIRS {
        return Err(TooMany {
            what: Listing::SphereContacts,
            most: MAX_PAIRS,
        });
    }
    let pairs = lists.iter().enumerate();
    Ok(pairs
        .flat_map(|(i, ts)| ts.iter().map(move |&t| (i as u32, t)))
        .collect())
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
    let mut sweep = match Sweep::start(&start, (c, r, v), m) {
        Ok(sweep) => sweep,
        Err(done) => return done,
    };
    loop {
        if crate::stop::requested() {
            return SphereSweep::Undecided { from: 0.0 };
        }
        let near = closest_point(sweep.centre(c, v), m, f64::INFINITY);
        let winding = sweep.winding(c, v, m);
        if let Some(done) = sweep.step(near.as_ref(), winding.as_ref(), r, v, tol) {
            return done;
        }
    }
}

/// The tolerance moving sphere `(centre, radius, displacement)` is swept with: `given`, or by
/// default 1e-9 of the mesh's bounding-box diagonal, and no less than four times what its own
/// coordinates resolve ([`slack`]: a sphere far from the origin), so that it can be decided.
/// Each sphere its own: a batch's one default, the largest, let one row far away coarsen every
/// other (a review's helper: a row moved by 1e15 made a sphere 0.25 clear of the mesh touch).
/// A tolerance given finer than that is raised to it: no step could decide a sphere within
/// it, which came back undecided however plain its contact (a review's helper: a sphere
/// falling onto a box's face, 1e-13 given, 5.3e-14 resolved).
pub fn sweep_tolerance(m: &Posed, (c, r, v): (DVec3, f64, DVec3), given: Option<f64>) -> f64 {
    let asked = given.unwrap_or_else(|| {
        // The box `info` keeps, not the mesh's measured again: that is a pass over every vertex,
        // which per sphere took 100k moving spheres on igea from 1.1 to 22 s. Positive even for
        // a mesh of one point and a sphere of none at the origin.
        let info = &m.prep.info;
        let bbox = crate::geom::Aabb {
            min: DVec3::from_array(info.bbox_min),
            max: DVec3::from_array(info.bbox_max),
        };
        (1e-9 * bbox.diagonal()).max(f64::MIN_POSITIVE)
    });
    match 4.0 * slack(c, r, v, m) {
        resolved if resolved.is_finite() => asked.max(resolved),
        _ => asked,
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
    /// How far the f64 distance may be from the exact one along this move ([`slack`]).
    slack: f64,
    /// The mesh is not closed: its inside (winding number at least 1/2) can be entered
    /// through a hole without nearing the surface, and each step asks the centre's winding
    /// number ([`Sweep::winding`]).
    open: bool,
}

impl Sweep {
    /// From where the sphere stands at the start (a sphere touching there is done, at 0), for
    /// the sphere of radius `r` at `c` moving by `v` against `m`.
    pub fn start(
        start: &SphereContact,
        (c, r, v): (DVec3, f64, DVec3),
        m: &Posed,
    ) -> Result<Sweep, SphereSweep> {
        if start.touches {
            return Err(SphereSweep::Contact(SweepContact {
                toi: 0.0,
                triangle: start.triangle,
                point: start.point,
            }));
        }
        Ok(Sweep {
            s: 0.0,
            steps: 0,
            slack: slack(c, r, v, m),
            open: !m.prep.info.closed,
        })
    }

    /// Where the mesh is not closed, the centre's winding number and how far it may move
    /// before that could reach 1/2 ([`inside_room`]), for [`Sweep::step`].
    pub fn winding(&self, c: DVec3, v: DVec3, m: &Posed) -> Option<(Winding, f64)> {
        self.open.then(|| {
            let centre = self.centre(c, v);
            let w = winding_number(centre, m);
            (w, inside_room(centre, &w, m))
        })
    }

    /// Where the centre is now.
    pub fn centre(&self, c: DVec3, v: DVec3) -> DVec3 {
        c + v * self.s
    }

    /// One step from the surface point nearest the centre now (`None`: no answer there) and,
    /// for a mesh that is not closed, the centre's winding number ([`Sweep::winding`]): the
    /// sphere's answer, or `None` to go on.
    ///
    /// Every decision allows for the f64 distance's error (`slack`): contact only where the
    /// exact gap is certainly within `tol`, and a step only as long as the exact gap certainly
    /// allows, so that a rounding can neither step past a thin wall nor end a move that touches
    /// at its very end. Where `tol` is finer than the coordinates resolve (parts far from the
    /// origin), a sphere close to the surface is undecided rather than stepped through it.
    pub fn step(
        &mut self,
        near: Option<&Closest>,
        winding: Option<&(Winding, f64)>,
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
        let error = self.slack + 4.0 * f64::EPSILON * near.distance;
        // A centre in the inside touches, as a standing sphere does.
        if gap <= tol - error || winding.is_some_and(|w| w.0.inside()) {
            return Some(SphereSweep::Contact(SweepContact {
                toi: s,
                triangle: near.triangle,
                point: near.point,
            }));
        }
        // No point of the surface is nearer than `room` to the sphere: moving less than that
        // along the path cannot reach it (the step rounded down).
        let mut room = gap - error;
        // Nor can a move of less than `inside` enter the inside through a hole; a move of half
        // the tolerance is taken at least, so that a centre nearing the inside arrives (by at
        // most that much past where it begins), and such a step certifies nothing.
        let mut certified = true;
        if let Some(&(_, inside)) = winding {
            certified = inside >= room || inside >= tol / 2.0;
            room = room.min(inside.max(tol / 2.0));
        }
        if room <= 0.0 {
            return Some(SphereSweep::Undecided { from: s });
        }
        let next = s + fraction_of(room, v) * (1.0 - 4.0 * f64::EPSILON);
        if next > 1.0 {
            // Clear only where the room certified reaches past the end, or the end is where
            // the sphere stands now; else the end is looked at (a review's helper: a sphere
            // whose last half-tolerance went into an open box's inside was called clear).
            if certified || s >= 1.0 {
                return Some(SphereSweep::Clear);
            }
            self.s = 1.0;
            return None;
        }
        if next.is_nan() || next <= s {
            return Some(SphereSweep::Undecided { from: s });
        }
        self.s = next;
        None
    }
}

/// `room` as a fraction of `v`'s length, scaled so that a move whose length is beyond f64
/// while its components are not (1.7e308 on each axis) still steps: dividing by the length,
/// infinite there, had made every step nothing (a review's helper). Two roundings, as the
/// length's own multiply was. A move of no length: room for all of it (`room` is positive).
fn fraction_of(room: f64, v: DVec3) -> f64 {
    let m = v.abs().max_element();
    if m == 0.0 {
        return f64::INFINITY;
    }
    room / m / (v / m).length()
}

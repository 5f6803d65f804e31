//! Pictures of an answer: a PNG drawn on the CPU ([`png`]) and a GLB to open in any viewer
//! ([`glb`]), both made from one [`Scene`]: the parts' triangles in world coordinates, each
//! marked plain, within the clearance or clashing; the intersection curves; the closest points
//! and the segment between them; and the region to frame.

mod glb;
mod raster;

pub use glb::glb;
pub use raster::{png, MAX_SIDE};

use crate::error::Result;
use crate::geom::{Aabb, DVec3, Tri};
use crate::mesh::{Pose, PreparedMesh};
use crate::query::{CheckReport, Containment, Posed, SelfReport};
use std::path::Path;

/// What a triangle is in the picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Plain,
    /// Closer to the other part than the clearance.
    Near,
    /// Intersecting the other part (or itself), or a body swallowed by the other part.
    Clash,
}

/// One part: its triangles in world coordinates and their marks.
#[derive(Clone, Debug)]
pub struct Part {
    pub name: &'static str,
    pub triangles: Vec<Tri>,
    pub marks: Vec<Mark>,
    /// Drawn as a cut-away: triangles facing the camera are left out, so that what it
    /// swallows shows.
    pub container: bool,
    /// A container's triangles that wind inward (their body's volume negative): the cut-away
    /// reads them reversed. The triangles themselves stay as the mesh has them, for the GLB
    /// (a review's helper found an inside-out container written turned outward).
    pub inward: Vec<bool>,
}

/// A picture's content, before it is drawn or written.
#[derive(Clone, Debug)]
pub struct Scene {
    pub parts: Vec<Part>,
    /// Intersection curves, as segments.
    pub curves: Vec<(DVec3, DVec3)>,
    /// The closest points (A's, B's) when the parts are apart.
    pub closest: Option<(DVec3, DVec3)>,
    /// The region the camera frames.
    pub focus: Aabb,
    /// The least radius framed around the focus, so that a point (a touch) or a short segment
    /// still shows what surrounds it.
    pub context: f64,
}

impl Scene {
    /// The scene of a `check`: A and B under their poses, marked from `report`.
    pub fn of_check(
        a: &PreparedMesh,
        pose_a: Pose,
        b: &PreparedMesh,
        pose_b: Pose,
        report: &CheckReport,
    ) -> Scene {
        let (pa, pb) = (Posed::new(a, pose_a), Posed::new(b, pose_b));
        let mut parts = [part("A", &pa), part("B", &pb)];
        if let Some(c) = &report.clearance {
            for p in &c.pairs {
                parts[0].marks[p.a as usize] = Mark::Near;
                parts[1].marks[p.b as usize] = Mark::Near;
            }
        }
        for p in &report.intersect.pairs {
            parts[0].marks[p.a as usize] = Mark::Clash;
            parts[1].marks[p.b as usize] = Mark::Clash;
        }
        let swallowed = mark_inside(&mut parts, [&pa, &pb], report);
        let closest = (!report.interferes() && report.distance.distance > 0.0)
            .then_some((report.distance.point_a, report.distance.point_b));
        // Half the smaller part: both ends of a closest segment show whole when it is short.
        // A part with no extent (its triangles one point) frames nothing: the other part, or
        // the two points' distance, or a unit (a review's helper: a point-sized part swallowed
        // by a cube zoomed without end, a blank picture).
        let sizes = parts.iter().map(|p| bounds(p).diagonal());
        let context = match sizes.filter(|&d| d > 0.0).reduce(f64::min) {
            Some(d) => 0.5 * d,
            None => {
                let both = parts.iter().map(bounds).reduce(|a, b| a.union(&b));
                both.map(|b| b.diagonal())
                    .filter(|&d| d > 0.0)
                    .unwrap_or(1.0)
            }
        };
        let mut scene = Scene {
            parts: parts.into(),
            curves: report.intersect.curve_segments(),
            closest,
            focus: Aabb::from_points([DVec3::ZERO]),
            context,
        };
        scene.focus = scene.check_focus(swallowed);
        scene
    }

    /// What a `check`'s picture frames: where the surfaces cross, where they do (the clashing
    /// triangles' box was a whole plate a small part pierced, a hunt's helper, the part a few
    /// pixels in it); else the `swallowed` body the answer names, the clashing triangles, the
    /// closest segment with the triangles within the clearance (a review's helper: plates one
    /// over the other were framed on the corner the segment happened to join, half the
    /// picture empty), or everything.
    fn check_focus(&self, swallowed: Option<Aabb>) -> Aabb {
        let curves = (!self.curves.is_empty())
            .then(|| Aabb::from_points(self.curves.iter().flat_map(|&(p, q)| [p, q])));
        curves
            .or(swallowed)
            .or_else(|| marked_box(&self.parts, Mark::Clash))
            .unwrap_or_else(|| match self.closest {
                Some((p, q)) => {
                    let segment = Aabb::from_points([p, q]);
                    match marked_box(&self.parts, Mark::Near) {
                        Some(near) => segment.union(&near),
                        None => segment,
                    }
                }
                None => self.bounds(),
            })
    }

    /// The scene of a `self` check: the mesh, its self-intersecting triangles marked.
    pub fn of_self(m: &PreparedMesh, pose: Pose, report: &SelfReport) -> Scene {
        let posed = Posed::new(m, pose);
        let mut only = part("mesh", &posed);
        for p in &report.pairs {
            only.marks[p.a as usize] = Mark::Clash;
            only.marks[p.b as usize] = Mark::Clash;
        }
        // A twentieth of the mesh: a self-intersection is small in a large mesh.
        let context = Some(0.05 * bounds(&only).diagonal())
            .filter(|&d| d > 0.0)
            .unwrap_or(1.0);
        let mut scene = Scene {
            parts: vec![only],
            curves: Vec::new(),
            closest: None,
            focus: Aabb::from_points([DVec3::ZERO]),
            context,
        };
        scene.focus = marked_box(&scene.parts, Mark::Clash).unwrap_or_else(|| scene.bounds());
        scene
    }

    /// The sum of the clashing triangles' area-weighted normals (each part's outward where it
    /// is consistently oriented): the side a clash on one face of a part is seen from. Zero
    /// where they face every way (crossing parts, a swallowed body).
    pub fn clash_facing(&self) -> DVec3 {
        self.parts
            .iter()
            .filter(|p| !p.container)
            .flat_map(|p| p.triangles.iter().zip(&p.marks))
            .filter(|(_, &m)| m == Mark::Clash)
            .map(|(t, _)| (t[1] - t[0]).cross(t[2] - t[0]) * 0.5)
            .filter(|n| n.is_finite())
            .sum()
    }

    /// The box of everything.
    pub fn bounds(&self) -> Aabb {
        Aabb::from_points(
            self.parts
                .iter()
                .flat_map(|p| p.triangles.iter().flatten().copied()),
        )
    }
}

/// The box of the triangles of `parts` marked `mark`, if any.
fn marked_box(parts: &[Part], mark: Mark) -> Option<Aabb> {
    let points: Vec<DVec3> = parts
        .iter()
        .flat_map(|p| p.triangles.iter().zip(&p.marks))
        .filter(|(_, &m)| m == mark)
        .flat_map(|(t, _)| *t)
        .collect();
    (!points.is_empty()).then(|| Aabb::from_points(points))
}

fn bounds(p: &Part) -> Aabb {
    Aabb::from_points(p.triangles.iter().flatten().copied())
}

fn part(name: &'static str, m: &Posed) -> Part {
    let n = m.prep.mesh.triangles.len();
    // Every triangle is read: each vertex posed once, not once per triangle using it.
    m.verts();
    Part {
        name,
        triangles: (0..n as u32).map(|i| m.tri(i)).collect(),
        marks: vec![Mark::Plain; n],
        container: false,
        inward: vec![false; n],
    }
}

/// Marks what lies inside the other part and makes that part a container, cut away: the
/// bodies the answer's containment names (and, where a body of each part lies inside the
/// other, the other's too: a hunt's helper found it left plain), or a part inside the other
/// touching it from there (through the wall's outside it was hidden). The box of the bodies
/// named, to frame.
fn mark_inside(parts: &mut [Part; 2], posed: [&Posed; 2], report: &CheckReport) -> Option<Aabb> {
    let Some(c) = report.containment else {
        if report.intersects() {
            if let Some(inner) = [1, 0].into_iter().find(|&i| within(posed[i], posed[1 - i])) {
                contain(&mut parts[1 - inner], posed[1 - inner]);
            }
        }
        return None;
    };
    let inner = match c {
        Containment::AInB => 0,
        Containment::BInA => 1,
    };
    mark_swallowed(&mut parts[inner], posed[inner], posed[1 - inner]);
    contain(&mut parts[1 - inner], posed[1 - inner]);
    let swallowed = marked_box(&parts[inner..=inner], Mark::Clash);
    mark_swallowed(&mut parts[1 - inner], posed[1 - inner], posed[inner]);
    swallowed
}

/// Makes `part` (posed as `m`) a container, drawn cut away: its triangles facing the camera
/// are left out. Which way each body winds is judged by the sign of its volume, and the
/// triangles of one winding inward marked so: an inside-out container's near side was kept by
/// its winding and hid what it swallowed (a hunt's helper), and one judged from a single point
/// inside misjudged a container of several bodies (a review's helper).
fn contain(part: &mut Part, m: &Posed) {
    part.container = true;
    let bodies = &m.prep.bodies;
    let c = bounds(part).center();
    let mut volume = vec![0.0f64; bodies.closed.len()];
    for (t, &b) in part.triangles.iter().zip(&bodies.of_triangle) {
        volume[b as usize] += (t[0] - c).dot((t[1] - c).cross(t[2] - c));
    }
    for (inward, &b) in part.inward.iter_mut().zip(&bodies.of_triangle) {
        *inward = volume[b as usize] < 0.0;
    }
}

/// Whether `inner` lies inside `outer`, on or within its surface: every one of up to 64 of its
/// vertices, spread through its numbering, inside or uncertain (on the surface, where the
/// winding number is 1/2 on a face only to rounding). For the picture only: the answer itself
/// is the check's, and a part may cross its container between the vertices sampled (then drawn
/// cut away all the same).
fn within(inner: &Posed, outer: &Posed) -> bool {
    let n = inner.prep.mesh.vertices.len();
    let step = n.div_ceil(64).max(1);
    (0..n).step_by(step).all(|v| {
        let at = crate::query::point_inside(inner.vertex(v as u32), outer);
        at.inside || !at.certain
    })
}

/// Marks the bodies of `inner` that are inside `outer` (the surfaces do not meet when
/// containment is decided, so a body's one probe vertex says for all of it).
fn mark_swallowed(part: &mut Part, inner: &Posed, outer: &Posed) {
    let bodies = &inner.prep.bodies;
    let inside: Vec<bool> = bodies
        .probes
        .iter()
        .map(|&v| crate::query::point_inside(inner.vertex(v), outer).inside)
        .collect();
    for (mark, &body) in part.marks.iter_mut().zip(&bodies.of_triangle) {
        if inside.get(body as usize).copied().unwrap_or(false) {
            *mark = Mark::Clash;
        }
    }
}

/// Writes the pictures asked for: a PNG of `size` to `render`, a GLB to `glb`.
pub fn write(
    scene: &Scene,
    render: Option<&Path>,
    size: (u32, u32),
    glb_path: Option<&Path>,
) -> Result<()> {
    if let Some(path) = render {
        crate::save::file(path, &png(scene, size.0, size.1)?)?;
    }
    if let Some(path) = glb_path {
        crate::save::file(path, &glb(scene)?)?;
    }
    Ok(())
}

//! Who answers a query: the CPU, the GPU, or (`auto`) a hardware GPU with the CPU behind it.
//!
//! Every query has one signature whatever the backend, and both backends return the same
//! values to the last bit: the GPU culls and certifies in `f32`, the CPU re-decides what it
//! could not and recomputes every reported distance in `f64`. So the choice is about speed
//! alone, and `auto` may change its mind mid-session (a lost device) without changing answers.

use crate::error::{Error, Result};
use crate::geom::DVec3;
use crate::gpu::{GpuBackend, GpuContext, GpuInfo};
use crate::mesh::{Pose, PreparedMesh};
use crate::query::{
    self, CheckOptions, CheckReport, Closest, Hits, Inside, PoseAnswer, Posed, RayHit, SelfReport,
    SolidDistance, SphereContact, SphereSweep, Winding,
};
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

/// The backend asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BackendKind {
    /// The exact `f64` CPU path.
    Cpu,
    /// The GPU, or an error ([`Error::NoAdapter`]) when no adapter can be set up.
    Gpu,
    /// A hardware GPU when there is one, else the CPU; falls back to the CPU when the GPU fails
    /// mid-query (a lost device, say). A software adapter (lavapipe, llvmpipe, WARP) is slower
    /// than the CPU path, so `auto` leaves it to [`BackendKind::Gpu`].
    #[default]
    Auto,
}

impl FromStr for BackendKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<BackendKind> {
        match s.to_ascii_lowercase().as_str() {
            "cpu" => Ok(BackendKind::Cpu),
            "gpu" => Ok(BackendKind::Gpu),
            "auto" => Ok(BackendKind::Auto),
            _ => Err(Error::Argument(format!(
                "backend must be cpu, gpu or auto, got {s:?}"
            ))),
        }
    }
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            BackendKind::Cpu => "cpu",
            BackendKind::Gpu => "gpu",
            BackendKind::Auto => "auto",
        })
    }
}

/// Called with a one-line reason each time `auto` answers on the CPU instead of the GPU.
type Notice = Box<dyn Fn(&str) + Send + Sync>;

/// A backend, made once and used for any number of queries (the GPU's pipelines and work
/// buffers are made once). Safe to share between threads.
///
/// ```no_run
/// use meshclash::{Backend, CheckOptions, Mesh, Pose, PreparedMesh};
/// let a = PreparedMesh::new(Mesh::load("a.stl")?);
/// let b = PreparedMesh::new(Mesh::load("b.stl")?);
/// let backend = Backend::auto();
/// let r = backend.check(&a, Pose::IDENTITY, &b, Pose::IDENTITY, &CheckOptions::default())?;
/// println!("{} answered: interferes {}", backend.name(), r.interferes());
/// # Ok::<(), meshclash::Error>(())
/// ```
pub struct Backend {
    kind: BackendKind,
    /// The GPU that answers, while there is one; `auto` drops it on its first failure.
    gpu: RwLock<Option<Arc<GpuBackend>>>,
    fallback: Mutex<Option<String>>,
    notice: Notice,
}

impl Backend {
    /// The CPU path.
    pub fn cpu() -> Backend {
        Backend::from_parts(BackendKind::Cpu, None, |_| {})
    }

    /// The GPU; an error when no adapter can be set up.
    pub fn gpu() -> Result<Backend> {
        Backend::new(BackendKind::Gpu)
    }

    /// A hardware GPU when there is one, else the CPU ([`Backend::fallback_reason`] says why).
    pub fn auto() -> Backend {
        match Backend::with_notice(BackendKind::Auto, |_| {}) {
            Ok(b) => b,
            // `auto` answers on the CPU where it takes no GPU; should setting up ever fail
            // otherwise, it does the same and keeps the reason.
            Err(e) => {
                let b = Backend::from_parts(BackendKind::Auto, None, |_| {});
                b.fall_back(format!("{e}; answering on the CPU"));
                b
            }
        }
    }

    pub fn new(kind: BackendKind) -> Result<Backend> {
        Backend::with_notice(kind, |_| {})
    }

    /// As [`Backend::new`], calling `notice` with the reason whenever `auto` answers on the CPU
    /// (at once, when it takes no GPU; later, when the GPU fails mid-query).
    pub fn with_notice(
        kind: BackendKind,
        notice: impl Fn(&str) + Send + Sync + 'static,
    ) -> Result<Backend> {
        if kind == BackendKind::Cpu {
            return Ok(Backend::from_parts(kind, None, notice));
        }
        match GpuContext::new().and_then(GpuBackend::new) {
            Ok(g) if kind == BackendKind::Auto && g.ctx.software => {
                let b = Backend::from_parts(kind, None, notice);
                b.fall_back(format!(
                    "only a software GPU adapter ({}); answering on the CPU, which is faster \
                     (--backend gpu uses it)",
                    g.ctx.info.name
                ));
                Ok(b)
            }
            Ok(g) => Ok(Backend::from_parts(kind, Some(g), notice)),
            Err(e) if kind == BackendKind::Gpu => Err(match e {
                Error::Gpu(m) => Error::NoAdapter(format!(": the GPU could not be set up: {m}")),
                e => e,
            }),
            Err(e) => {
                let b = Backend::from_parts(kind, None, notice);
                b.fall_back(format!("{e}; answering on the CPU"));
                Ok(b)
            }
        }
    }

    /// A backend over a GPU backend made by hand (tests and benchmarks set its capacities).
    #[doc(hidden)]
    pub fn from_gpu(g: GpuBackend) -> Backend {
        Backend::from_parts(BackendKind::Gpu, Some(g), |_| {})
    }

    fn from_parts(
        kind: BackendKind,
        gpu: Option<GpuBackend>,
        notice: impl Fn(&str) + Send + Sync + 'static,
    ) -> Backend {
        Backend {
            kind,
            gpu: RwLock::new(gpu.map(Arc::new)),
            fallback: Mutex::new(None),
            notice: Box::new(notice),
        }
    }

    /// The backend asked for.
    pub fn kind(&self) -> BackendKind {
        self.kind
    }

    /// Who answers now: `"gpu"` or `"cpu"`.
    pub fn name(&self) -> &'static str {
        if self.gpu_backend().is_some() {
            "gpu"
        } else {
            "cpu"
        }
    }

    /// The adapter that answers, if a GPU does.
    pub fn adapter(&self) -> Option<GpuInfo> {
        self.gpu_backend().map(|g| g.ctx.info.clone())
    }

    /// Why `auto` answers on the CPU, if it does.
    pub fn fallback_reason(&self) -> Option<String> {
        self.fallback
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The GPU backend that answers, if any (for benchmarks and tests).
    #[doc(hidden)]
    pub fn gpu_backend(&self) -> Option<Arc<GpuBackend>> {
        self.gpu
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn fall_back(&self, reason: String) {
        *self.gpu.write().unwrap_or_else(PoisonError::into_inner) = None;
        (self.notice)(&reason);
        *self.fallback.lock().unwrap_or_else(PoisonError::into_inner) = Some(reason);
    }

    /// `on_gpu` when a GPU answers; under `auto` its failure falls back to `on_cpu`.
    fn answer<T>(
        &self,
        on_gpu: impl FnOnce(&GpuBackend) -> Result<T>,
        on_cpu: impl FnOnce() -> T,
    ) -> Result<T> {
        if let Some(g) = self.gpu_backend() {
            match on_gpu(&g) {
                Ok(r) => return Ok(r),
                // The query's own fault, not the GPU's: the CPU would refuse it too.
                Err(e @ Error::TooManyPairs(_)) => return Err(e),
                Err(e) if self.kind == BackendKind::Auto => {
                    self.fall_back(format!("{e}; answering on the CPU"));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(on_cpu())
    }

    /// Two parts' distance and contacts need a triangle on each: a mesh with none is refused
    /// as its file would have been ([`Error::Empty`]).
    fn both_have_triangles(a: &PreparedMesh, b: &PreparedMesh) -> Result<()> {
        match [a, b].into_iter().find(|m| m.mesh.triangles.is_empty()) {
            Some(m) => Err(Error::Empty {
                path: m.mesh.source.clone(),
            }),
            None => Ok(()),
        }
    }

    /// [`Backend::answer`] for a query on `m` alone. A mesh with no triangles is answered on the
    /// CPU, where its queries find nothing; the GPU stages take at least one triangle.
    fn answer_on<T>(
        &self,
        m: &PreparedMesh,
        on_gpu: impl FnOnce(&GpuBackend) -> Result<T>,
        on_cpu: impl FnOnce() -> T,
    ) -> Result<T> {
        if m.mesh.triangles.is_empty() {
            return Ok(on_cpu());
        }
        self.answer(on_gpu, on_cpu)
    }

    /// Everything a clash review asks of two placed parts ([`query::check`]): intersecting
    /// pairs, containment, distance and closest points, and the pairs closer than
    /// `opts.clearance`. A part with no triangles is refused ([`Error::Empty`]).
    pub fn check(
        &self,
        a: &PreparedMesh,
        pose_a: Pose,
        b: &PreparedMesh,
        pose_b: Pose,
        opts: &CheckOptions,
    ) -> Result<CheckReport> {
        Self::both_have_triangles(a, b)?;
        if let Some(d) = opts.clearance {
            query::check_clearance(&Posed::new(a, pose_a), &Posed::new(b, pose_b), d)?;
        }
        self.answer(
            |g| {
                let (ga, gb) = (g.resident(a)?, g.resident(b)?);
                g.check(a, &ga, pose_a, b, &gb, pose_b, opts).map(Ok)
            },
            || query::check_at_most(a, pose_a, b, pose_b, opts, query::MAX_PAIRS),
        )?
        .map_err(Error::from)
    }

    /// The generalized winding number of `m` (placed by `pose`) around each of `points`
    /// ([`query::winding_number`]), with its bound; inside is `|w| ≥ 1/2`
    /// ([`Winding::inside`]). On the GPU a thread per point counts its ray's crossings; the
    /// values equal the CPU's to the bit.
    pub fn winding_numbers(
        &self,
        m: &PreparedMesh,
        pose: Pose,
        points: &[DVec3],
    ) -> Result<Vec<Winding>> {
        let posed = Posed::new(m, pose);
        self.answer_on(
            m,
            |g| g.winding_numbers(&posed, &*g.resident(m)?, points),
            || {
                use rayon::prelude::*;
                points
                    .par_iter()
                    .map(|&p| query::winding_number(p, &posed))
                    .collect()
            },
        )
    }

    /// Each point's winding number around `m` (placed by `pose`) and whether it is inside, as
    /// [`query::point_inside`] decides: by that winding number, or by the parity of a ray's
    /// crossings for a closed mesh whose triangles are not consistently oriented (as `check`'s
    /// containment decides; [`query::inside_by_parity`]).
    pub fn points_inside(
        &self,
        m: &PreparedMesh,
        pose: Pose,
        points: &[DVec3],
    ) -> Result<Vec<(Winding, Inside)>> {
        use rayon::prelude::*;
        let w = self.winding_numbers(m, pose, points)?;
        let posed = Posed::new(m, pose);
        Ok(points
            .par_iter()
            .zip(w)
            .map(|(&p, w)| (w, query::inside_given(p, &w, &posed)))
            .collect())
    }

    /// The nearest point of `m` (placed by `pose`) to each of `points`, within `max_distance`
    /// (`f64::INFINITY`: no limit): [`query::closest_point`]. On the GPU, each point's few
    /// candidate triangles (`gpu::closest`; the host decides among them in f64, the unsure
    /// points on the CPU: the same answers); on the CPU in parallel over the points.
    pub fn closest_points(
        &self,
        m: &PreparedMesh,
        pose: Pose,
        points: &[DVec3],
        max_distance: f64,
    ) -> Result<Vec<Option<Closest>>> {
        let posed = Posed::new(m, pose);
        self.answer_on(
            m,
            |g| g.closest_points(&posed, &*g.resident(m)?, points, max_distance),
            || query::closest_points(points, &posed, max_distance),
        )
    }

    /// The hits of each ray `(origin, direction)` on `m` (placed by `pose`), up to
    /// `origin + max_t · direction`: [`query::ray_hits`], watertight. On the GPU, the first
    /// hits and the certain misses of `Any` (`gpu::rays`; the rest on the CPU, the same
    /// answers); on the CPU in parallel over the rays.
    pub fn ray_hits(
        &self,
        m: &PreparedMesh,
        pose: Pose,
        rays: &[(DVec3, DVec3)],
        max_t: f64,
        hits: Hits,
    ) -> Result<Vec<Vec<RayHit>>> {
        use rayon::prelude::*;
        let posed = Posed::new(m, pose);
        let found = self.answer_on(
            m,
            |g| {
                g.ray_hits(&posed, &*g.resident(m)?, rays, max_t, hits)
                    .map(Ok)
            },
            || {
                if m.wide().is_none() {
                    posed.slots_for(rays.len());
                }
                let count = query::HitCount::default();
                let found = rays
                    .par_iter()
                    .map(|&(o, d)| count.keep(|| query::ray_hits(o, d, &posed, max_t, hits)))
                    .collect();
                count.checked(found)
            },
        )?;
        Ok(found?)
    }

    /// Each sphere `(centre, radius)` against `m` (placed by `pose`): its gap and nearest point
    /// ([`query::sphere_contact`]). On the GPU, the centres' nearest points and winding numbers
    /// (the same answers); on the CPU in parallel.
    pub fn sphere_contacts(
        &self,
        m: &PreparedMesh,
        pose: Pose,
        spheres: &[(DVec3, f64)],
    ) -> Result<Vec<Option<SphereContact>>> {
        use rayon::prelude::*;
        let posed = Posed::new(m, pose);
        self.answer_on(
            m,
            |g| g.sphere_contacts(&posed, &*g.resident(m)?, spheres),
            || {
                posed.slots_for(spheres.len());
                posed.oriented_for(spheres.len());
                spheres
                    .par_iter()
                    .map(|&(c, r)| query::sphere_contact(c, r, &posed))
                    .collect()
            },
        )
    }

    /// Each sphere `(centre, radius, displacement)` moving against `m`: its first contact
    /// within `tol` of touching (by default each sphere's own, [`query::sweep_tolerance`]), or
    /// clear, or undecided ([`query::sphere_sweep`]). On the GPU,
    /// the spheres step together, their nearest points found there (the CPU's steps, the same
    /// answers); on the CPU in parallel.
    pub fn sphere_sweeps(
        &self,
        m: &PreparedMesh,
        pose: Pose,
        spheres: &[(DVec3, f64, DVec3)],
        tol: Option<f64>,
    ) -> Result<Vec<SphereSweep>> {
        use rayon::prelude::*;
        let posed = Posed::new(m, pose);
        self.answer_on(
            m,
            |g| g.sphere_sweeps(&posed, &*g.resident(m)?, spheres, tol),
            || {
                posed.slots_for(spheres.len());
                // Each sphere takes many nearest points along its way.
                posed.oriented_for(spheres.len().saturating_mul(8));
                spheres
                    .par_iter()
                    .map(|&(c, r, v)| {
                        let tol = query::sweep_tolerance(&posed, (c, r, v), tol);
                        query::sphere_sweep(c, r, v, &posed, tol)
                    })
                    .collect()
            },
        )
    }

    /// Every pair of triangles of `m` that meet other than along their shared edges and
    /// vertices ([`query::self_intersections`]).
    pub fn self_intersections(&self, m: &PreparedMesh) -> Result<SelfReport> {
        self.answer_on(
            m,
            |g| g.self_intersections(m, &*g.resident(m)?).map(Ok),
            || query::self_intersections_at_most(m, query::MAX_PAIRS),
        )?
        .map_err(Error::from)
    }

    /// Each of `poses` of B against A (placed by `pose_a`), with the pairs within
    /// `clearance_d` if asked ([`query::poses`]). On the GPU, every pose in one dispatch
    /// (`gpu::poses`: a thread per pose proves the surfaces apart and keeps the pairs that may
    /// be nearest, which the host measures in f64; the rest, and the clearance counts, on the
    /// CPU: the same answers); on the CPU in parallel over the poses. A part with no triangles
    /// is refused ([`Error::Empty`]).
    pub fn poses(
        &self,
        a: &PreparedMesh,
        pose_a: Pose,
        b: &PreparedMesh,
        poses: &[Pose],
        clearance_d: Option<f64>,
    ) -> Result<Vec<PoseAnswer>> {
        Self::both_have_triangles(a, b)?;
        self.answer(
            |g| {
                let (ga, gb) = (g.resident(a)?, g.resident(b)?);
                let pa = Posed::new(a, pose_a);
                g.poses((&pa, &ga), (b, &gb), poses, clearance_d)
            },
            || query::poses(a, pose_a, b, poses, clearance_d),
        )
    }

    /// Build what a batch of `queries` nearest points walks, and on the GPU upload the mesh
    /// with it, ahead of the batch: each is made once per mesh and kept, so a caller that
    /// times its queries, as the CLI's summaries do (`prepare_ms`), keeps this out of them
    /// (on the GPU the hierarchy's arrays and boxes are built on the host to be uploaded). The
    /// binary
    /// hierarchy and its oriented boxes (which the GPU walks two to a node, and the CPU, for a
    /// batch of an eighth as many points as triangles, four to a node), and the caps a signed
    /// distance's winding numbers need.
    pub fn prepare_closest(&self, m: &PreparedMesh, queries: usize) -> Result<()> {
        m.bvh();
        self.answer(
            |g| {
                // The boxes' upload builds them, for the CPU's unsure points too.
                let posed = Posed::new(m, Pose::IDENTITY);
                g.make_resident_hierarchy(&posed, &*g.resident(m)?, true)
            },
            || m.oriented_for(queries),
        )?;
        self.prepare_inside(m)
    }

    /// [`Backend::prepare_closest`] for winding numbers, which walk the octree: the caps over
    /// the mesh's holes, and the upload.
    pub fn prepare_inside(&self, m: &PreparedMesh) -> Result<()> {
        m.caps();
        self.answer(|g| g.resident(m).map(|_| ()), || ())
    }

    /// [`Backend::prepare_closest`] for rays: the eight-wide tree the CPU walks
    /// ([`crate::wide`]; on the GPU backend it answers the rays the GPU is unsure of), and on
    /// the GPU the binary one, uploaded.
    pub fn prepare_rays(&self, m: &PreparedMesh) -> Result<()> {
        m.wide();
        self.answer(
            |g| {
                let posed = Posed::new(m, Pose::IDENTITY);
                g.make_resident_hierarchy(&posed, &*g.resident(m)?, false)
            },
            || (),
        )
    }

    /// What every call of [`Backend::poses`] with these parts reuses, made now: their
    /// hierarchies' oriented boxes and the caps of their inside tests, and on the GPU both
    /// meshes and hierarchies uploaded and the walk's pipeline made. Timed apart from the
    /// poses, as loading is.
    pub fn prepare_poses(&self, a: &PreparedMesh, b: &PreparedMesh) -> Result<()> {
        for m in [a, b] {
            m.oriented();
            m.caps();
        }
        self.answer(
            |g| {
                for m in [a, b] {
                    let posed = Posed::new(m, Pose::IDENTITY);
                    g.make_resident_hierarchy(&posed, &*g.resident(m)?, true)?;
                }
                g.prepare_pose_walk()
            },
            || (),
        )
    }

    /// Whether the parts share a point, as solids: surfaces meeting or one inside the other
    /// ([`query::interferes`]). Stops at the first evidence; answered on the CPU, where an
    /// early exit costs microseconds.
    pub fn interferes(
        &self,
        a: &PreparedMesh,
        pose_a: Pose,
        b: &PreparedMesh,
        pose_b: Pose,
    ) -> Result<bool> {
        Ok(query::interferes(
            &Posed::new(a, pose_a),
            &Posed::new(b, pose_b),
        ))
    }

    /// The distance between the solids, 0 when they interfere ([`query::solid_distance`]);
    /// answered on the CPU, which stops at the first evidence. A part with no triangles is
    /// refused ([`Error::Empty`]).
    pub fn solid_distance(
        &self,
        a: &PreparedMesh,
        pose_a: Pose,
        b: &PreparedMesh,
        pose_b: Pose,
    ) -> Result<SolidDistance> {
        Self::both_have_triangles(a, b)?;
        Ok(query::solid_distance(
            &Posed::new(a, pose_a),
            &Posed::new(b, pose_b),
        ))
    }
}

//! The command line's arguments: commands, options and poses.

use clap::{Args, Parser, Subcommand, ValueEnum};
use meshclash::{BackendKind, DVec3, Error, Pose};
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(
    name = "meshclash",
    version,
    about = "Clashes between triangle meshes: interference, containment, distance, clearance, self-intersection"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Do two placed parts intersect, is one inside the other, how far apart are they.
    Check {
        /// Part A: a mesh file (STL, OBJ, PLY, 3MF, glTF or GLB).
        a: PathBuf,
        /// Part B: a mesh file (STL, OBJ, PLY, 3MF, glTF or GLB).
        b: PathBuf,
        #[command(flatten)]
        pose_a: PoseArgsA,
        #[command(flatten)]
        pose_b: PoseArgsB,
        /// Also list every triangle pair closer than this distance.
        #[arg(long, value_name = "D", allow_negative_numbers = true)]
        clearance: Option<f64>,
        /// List the intersecting (and clearance) triangle pairs.
        #[arg(long)]
        pairs: bool,
        /// Only: do the parts interfere (the first evidence found), and if not, how far apart
        /// are they. Solid semantics: a part inside another is at distance 0. On the CPU: the
        /// first evidence of a clash between closed parts takes microseconds, less than an
        /// upload to a GPU; parts apart take the distance search.
        #[arg(long, conflicts_with_all = ["clearance", "pairs", "render", "size", "glb"])]
        quick: bool,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
        /// Where to answer: auto is the GPU where there is a hardware one, else the CPU.
        #[arg(long, value_enum, default_value_t = Backend::Auto)]
        backend: Backend,
        #[command(flatten)]
        pictures: PictureArgs,
    },
    /// Does a mesh cut itself (CGAL's convention for neighbouring triangles).
    #[command(name = "self")]
    SelfCheck {
        /// A mesh file (STL, OBJ, PLY, 3MF, glTF or GLB).
        mesh: PathBuf,
        /// List the self-intersecting triangle pairs.
        #[arg(long)]
        pairs: bool,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
        /// Where to answer: auto is the GPU where there is a hardware one, else the CPU.
        #[arg(long, value_enum, default_value_t = Backend::Auto)]
        backend: Backend,
        #[command(flatten)]
        pictures: PictureArgs,
    },
    /// Many poses of B against A in one call: per pose, what check --quick answers (solid
    /// semantics). Columns: pose, interferes, distance, triangle_a, triangle_b, ax, ay, az, bx,
    /// by, bz (closest points when apart), evidence (when not), clearance_pairs, certain (false
    /// where the answer is only the likelier one, against a part that is not closed).
    Poses {
        /// Part A: a mesh file (STL, OBJ, PLY, 3MF, glTF or GLB).
        a: PathBuf,
        /// Part B: a mesh file (STL, OBJ, PLY, 3MF, glTF or GLB).
        b: PathBuf,
        /// Poses of B: .npy (K x 4 x 4 or K x 16, float32 or float64), .json (a list of 4x4 or
        /// 16-number rows, or one 4x4) or .csv (16 numbers a row, row-major); each must be rigid.
        poses: PathBuf,
        #[command(flatten)]
        pose_a: PoseArgsA,
        /// Also count the triangle pairs closer than this, per pose.
        #[arg(long, value_name = "D", allow_negative_numbers = true)]
        clearance: Option<f64>,
        /// Write one row per pose to this .csv, .npy (structured) or .json.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// The summary as one JSON object on stdout.
        #[arg(long)]
        json: bool,
        /// Where to answer: auto is the GPU where there is a hardware one, else the CPU.
        #[arg(long, value_enum, default_value_t = Backend::Auto)]
        backend: Backend,
    },
    /// B moving through waypoints (translation linear, rotation by slerp): its first contact
    /// with A, certified by conservative advancement (no contact before the time reported, and
    /// there within --tolerance of touching; against a part that is not closed, entering its
    /// inside through a hole is found within half the tolerance), or how near it came.
    Sweep {
        /// Part A: a mesh file (STL, OBJ, PLY, 3MF, glTF or GLB).
        a: PathBuf,
        /// Part B: a mesh file (STL, OBJ, PLY, 3MF, glTF or GLB).
        b: PathBuf,
        #[command(flatten)]
        pose_a: PoseArgsA,
        /// The waypoints: poses of B, at least two, as `poses` reads them.
        #[arg(long, value_name = "FILE")]
        path: PathBuf,
        /// The waypoints' times, comma-separated and increasing, the first 0 and the last 1
        /// (default: evenly spaced).
        #[arg(long, value_name = "T0,T1,...")]
        times: Option<String>,
        /// How near touching counts as contact, a distance (default: 1e-6 of the parts'
        /// combined size, and no finer than the posed coordinates resolve).
        #[arg(long, value_name = "E", allow_negative_numbers = true)]
        tolerance: Option<f64>,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Where each ray meets the mesh, watertight (a ray through a shared edge or vertex hits
    /// once). Columns: ray, hit, t, triangle, u, v, x, y, z, front.
    Ray {
        /// A mesh file (STL, OBJ, PLY, 3MF, glTF or GLB).
        mesh: PathBuf,
        /// Rays: .npy (N x 6), .csv or .json rows of origin x,y,z then direction x,y,z.
        rays: PathBuf,
        #[command(flatten)]
        batch: BatchArgs,
        /// first: the nearest hit; any: whether there is one (occlusion); all: every hit, one
        /// row each, by t.
        #[arg(long, value_enum, default_value_t = HitsArg::First)]
        hits: HitsArg,
        /// Only hits at t <= T (in units of each ray's direction).
        #[arg(long, value_name = "T", allow_negative_numbers = true)]
        max_t: Option<f64>,
    },
    /// Spheres against the mesh. Rows of 4 (centre, radius): touches, gap (distance less
    /// radius, negative when it penetrates), triangle and nearest point. Rows of 7 (centre,
    /// radius, displacement v): the sphere moving from c to c + v, its first contact (toi in
    /// [0, 1]) by conservative advancement, which no thin wall can be tunnelled through.
    Spheres {
        /// A mesh file (STL, OBJ, PLY, 3MF, glTF or GLB).
        mesh: PathBuf,
        /// Spheres: .npy, .csv or .json rows of 4 or 7 numbers.
        spheres: PathBuf,
        #[command(flatten)]
        batch: BatchArgs,
        /// (Rows of 4) one row per triangle each sphere touches, instead of one per sphere.
        #[arg(long)]
        contacts: bool,
        /// (Rows of 7) how near touching a contact is found, as a distance; default 1e-9 of
        /// the mesh's size, and no less than four times what each sphere's coordinates resolve.
        #[arg(long, value_name = "E", allow_negative_numbers = true)]
        tolerance: Option<f64>,
    },
    /// Is each point inside the mesh: its generalized winding number, inside where |w| >= 1/2,
    /// and whether that is certain. Columns: winding, inside, certain, bound (the exact winding
    /// number lies within it of winding).
    Inside {
        /// A mesh file (STL, OBJ, PLY, 3MF, glTF or GLB).
        mesh: PathBuf,
        /// Points: .npy (float32 or float64, N x 3), .csv (x,y,z, an optional header) or .json
        /// (a list of [x, y, z]).
        points: PathBuf,
        #[command(flatten)]
        batch: BatchArgs,
    },
    /// The nearest point of the mesh to each point. Columns: distance, triangle, x, y, z, u, v
    /// (barycentric on the triangle).
    Closest {
        /// A mesh file (STL, OBJ, PLY, 3MF, glTF or GLB).
        mesh: PathBuf,
        /// Points: .npy (float32 or float64, N x 3), .csv (x,y,z, an optional header) or .json
        /// (a list of [x, y, z]).
        points: PathBuf,
        #[command(flatten)]
        batch: BatchArgs,
        /// Negative distances inside the mesh (by its winding number, as `inside`).
        #[arg(long)]
        signed: bool,
        /// Points farther than this from the mesh get no triangle (empty columns).
        #[arg(long, value_name = "D", allow_negative_numbers = true)]
        max_distance: Option<f64>,
    },
    /// Triangles, welded vertices, bounds, zero-area triangles, closed and oriented, bodies,
    /// boundary and non-manifold edges, the unit the file declares.
    Info {
        /// A mesh file (STL, OBJ, PLY, 3MF, glTF or GLB).
        mesh: PathBuf,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Build meshes in memory (linked tori, a part swallowed by another, a near miss), check them
    /// on every available backend and show the answers and the time of each stage.
    Demo {
        /// Triangles per mesh, about (400 to 2 000 000; the tori's and spheres' grids round it).
        #[arg(long, default_value_t = 200_000)]
        triangles: usize,
    },
    /// Time `check`'s stages on the CPU and on the GPU (when there is one) on generated scenes:
    /// overlapping, near miss, far apart, one inside the other; answers are checked equal.
    Bench {
        /// Triangles per mesh, about (400 to 2 000 000; the tori's and spheres' grids round it).
        #[arg(long, default_value_t = 100_000)]
        triangles: usize,
        /// What to time: the CPU always; the GPU too with gpu, or with auto where there is a
        /// hardware one.
        #[arg(long, value_enum, default_value_t = Backend::Auto)]
        backend: Backend,
        /// One JSON object per scene, one per line, each printed as its scene finishes.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum HitsArg {
    First,
    Any,
    All,
}

impl From<HitsArg> for meshclash::query::Hits {
    fn from(h: HitsArg) -> Self {
        match h {
            HitsArg::First => Self::First,
            HitsArg::Any => Self::Any,
            HitsArg::All => Self::All,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    Cpu,
    Gpu,
    Auto,
}

impl Backend {
    pub fn kind(self) -> BackendKind {
        match self {
            Backend::Cpu => BackendKind::Cpu,
            Backend::Gpu => BackendKind::Gpu,
            Backend::Auto => BackendKind::Auto,
        }
    }
}

macro_rules! pose_args {
    ($name:ident, $t:literal, $r:literal, $m:literal, $which:literal) => {
        #[derive(Args)]
        pub struct $name {
            // clap reads doc comments, not `doc = concat!(..)`: the help is given directly.
            #[arg(long = $t, id = $t, value_name = "X,Y,Z", allow_hyphen_values = true,
                  help = concat!("Translate ", $which, " by x,y,z (after the rotation)"))]
            translate: Option<String>,
            #[arg(long = $r, id = $r, value_name = "RX,RY,RZ", allow_hyphen_values = true,
                  help = concat!("Rotate ", $which, " by rx,ry,rz degrees about the fixed X, then Y, then Z axis"))]
            rotate: Option<String>,
            #[arg(long = $m, id = $m, value_name = "M00,...,M33", allow_hyphen_values = true,
                  help = concat!("Place ", $which, " by a rigid 4x4 matrix, 16 numbers row-major"))]
            matrix: Option<String>,
        }
        impl $name {
            pub fn pose(&self) -> Result<Pose, Error> {
                parse_pose(
                    [self.translate.as_deref(), self.rotate.as_deref(), self.matrix.as_deref()],
                    [$t, $r, $m],
                    $which,
                )
            }
        }
    };
}
pose_args!(PoseArgsA, "translate-a", "rotate-a", "matrix-a", "A");
pose_args!(PoseArgsB, "translate-b", "rotate-b", "matrix-b", "B");
pose_args!(PoseArgs, "translate", "rotate", "matrix", "the mesh");

/// What the batch commands (ray, inside, closest, spheres) share: the mesh's pose, where the
/// rows go, how the summary is printed, where to answer.
#[derive(Args)]
pub struct BatchArgs {
    #[command(flatten)]
    pub pose: PoseArgs,
    /// Write one row per answer to this .csv, .npy (structured) or .json.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The summary as one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// Where to answer: auto is the GPU where there is a hardware one, else the CPU.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    pub backend: Backend,
}

fn numbers(s: &str, n: usize, what: &str) -> Result<Vec<f64>, Error> {
    let v: Result<Vec<f64>, _> = s.split(',').map(|x| x.trim().parse::<f64>()).collect();
    match v {
        Ok(v) if v.len() == n && v.iter().all(|x| x.is_finite()) => Ok(v),
        _ => Err(Error::Argument(format!(
            "{what} needs {n} finite comma-separated numbers, got {s:?}"
        ))),
    }
}

/// The pose of `which` part from its options' values `[translate, rotate, matrix]`, each error
/// naming the option as given (`names`, without the dashes: "translate-b").
fn parse_pose([t, r, m]: [Option<&str>; 3], names: [&str; 3], which: &str) -> Result<Pose, Error> {
    let [tn, rn, mn] = names.map(|n| format!("--{n}"));
    if let Some(m) = m {
        if t.is_some() || r.is_some() {
            return Err(Error::Argument(format!(
                "{mn} for {which} cannot be combined with {tn} or {rn}"
            )));
        }
        // Named, as the other options' errors are: which part's matrix is not rigid.
        return Pose::from_matrix(&numbers(m, 16, &mn)?).map_err(|e| match e {
            Error::Pose(why) => Error::Pose(format!("{mn}: {why}")),
            other => other,
        });
    }
    let t = t
        .map(|s| numbers(s, 3, &tn))
        .transpose()?
        .unwrap_or(vec![0.0; 3]);
    let r = r
        .map(|s| numbers(s, 3, &rn))
        .transpose()?
        .unwrap_or(vec![0.0; 3]);
    Ok(Pose::from_euler_degrees(
        [r[0], r[1], r[2]],
        DVec3::new(t[0], t[1], t[2]),
    ))
}

/// Pictures of the answer (`check` and `self`).
#[derive(Args, Clone, Debug)]
pub struct PictureArgs {
    /// Draw the answer to a PNG: the parts shaded, clashing triangles red (check: A grey, B
    /// blue, the intersection curves, triangles within the clearance orange, the closest
    /// segment).
    #[arg(long, value_name = "PNG")]
    pub render: Option<PathBuf>,
    /// The PNG's size in pixels, each side at most 8192.
    #[arg(long, value_name = "WxH", default_value = "1024x768", value_parser = picture_size, requires = "render")]
    pub size: (u32, u32),
    /// Write the answer as a GLB (binary glTF) to open in Blender, three.js or trimesh.
    #[arg(long, value_name = "GLB")]
    pub glb: Option<PathBuf>,
}

impl PictureArgs {
    /// Where the pictures go, checked before the work as `--out` is (a long check is not lost
    /// to a typo in a folder's name): neither one of the command's `inputs`, nor both one file.
    pub fn check_paths(&self, inputs: &[&Path]) -> Result<(), Error> {
        let pictures = [
            ("--render", &self.render, "png"),
            ("--glb", &self.glb, "glb"),
        ];
        let inputs = crate::table::with_buffers(inputs);
        for (option, path, _) in pictures {
            if let Some(p) = path {
                crate::table::check_writable(option, p, &inputs)?;
            }
        }
        // Both to one file is refused, but for a device (both to /dev/null, to time them).
        let device = |p: &Path| std::fs::metadata(p).is_ok_and(|m| !m.is_file());
        match (&self.render, &self.glb) {
            (Some(png), Some(glb)) if crate::table::same_path(png, glb) && !device(png) => {
                Err(Error::Argument(format!(
                    "--render and --glb are one file, {}: the GLB would replace the PNG",
                    png.display()
                )))
            }
            _ => Ok(()),
        }?;
        for (option, path, ext) in pictures {
            if let Some(p) = path {
                picture_extension(option, p, ext)?;
            }
        }
        Ok(())
    }
}

/// A picture's path names its format, or none (a device, a name without an extension): a
/// review's helper wrote a GLB named `.png` and a PNG named `.glb`, where `--out` refuses a
/// name of another format.
fn picture_extension(option: &str, path: &Path, ext: &str) -> Result<(), Error> {
    match crate::table::extension(path).as_str() {
        "" => Ok(()),
        e if e == ext => Ok(()),
        other => Err(Error::Argument(format!(
            "{option} {}: writes a .{ext} file, not .{other}",
            path.display()
        ))),
    }
}

fn picture_size(s: &str) -> Result<(u32, u32), String> {
    let parsed = s
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)));
    match parsed {
        Some((w, h))
            if (1..=meshclash::picture::MAX_SIDE).contains(&w)
                && (1..=meshclash::picture::MAX_SIDE).contains(&h) =>
        {
            Ok((w, h))
        }
        _ => Err(format!(
            "expected WIDTHxHEIGHT, each 1 to {} pixels, e.g. 1024x768",
            meshclash::picture::MAX_SIDE
        )),
    }
}

//! `meshclash`: a thin command line over the library. Exit 0 for a completed query whatever the
//! answer, 2 for bad input or arguments (one line on stderr), 1 for an internal failure.

use clap::{Args, Parser, Subcommand, ValueEnum};
use glam::DVec3;
use meshclash::gpu::{GpuBackend, GpuContext};
use meshclash::mesh::{generate, Mesh, Pose};
use meshclash::query::{
    self, CheckOptions, CheckReport, Interference, Posed, PreparedMesh, SelfKind, SelfReport,
    SolidDistance, Timings,
};
use meshclash::Error;
use serde_json::{json, Map, Value};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "meshclash",
    version,
    about = "Clashes between triangle meshes: interference, containment, distance, clearance, self-intersection"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Do two placed parts intersect, is one inside the other, how far apart are they.
    Check {
        /// Part A: an STL (binary or ASCII) or OBJ file.
        a: PathBuf,
        /// Part B: an STL (binary or ASCII) or OBJ file.
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
        /// first evidence takes microseconds, less than an upload to a GPU.
        #[arg(long, conflicts_with_all = ["clearance", "pairs"])]
        quick: bool,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
        /// Where to answer: auto is the GPU where there is a hardware one, else the CPU.
        #[arg(long, value_enum, default_value_t = Backend::Auto)]
        backend: Backend,
    },
    /// Does a mesh cut itself (CGAL's convention for neighbouring triangles).
    #[command(name = "self")]
    SelfCheck {
        /// An STL (binary or ASCII) or OBJ file.
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
    },
    /// Triangles, welded vertices, bounds, zero-area triangles, closed and oriented, bodies.
    Info {
        /// An STL (binary or ASCII) or OBJ file.
        mesh: PathBuf,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Build meshes in memory (linked tori, a part swallowed by another, a near miss), check them
    /// on every available backend and show the answers and the time of each stage.
    Demo {
        /// Triangles per mesh.
        #[arg(long, default_value_t = 200_000)]
        triangles: usize,
    },
    /// Time every query on the CPU and on the GPU (when there is one) on generated scenes:
    /// overlapping, near miss, far apart, one inside the other; answers are checked equal.
    Bench {
        /// Triangles per mesh.
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
enum Backend {
    Cpu,
    Gpu,
    Auto,
}

macro_rules! pose_args {
    ($name:ident, $t:literal, $r:literal, $m:literal, $which:literal) => {
        #[derive(Args)]
        struct $name {
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
            fn pose(&self) -> Result<Pose, Error> {
                parse_pose(self.translate.as_deref(), self.rotate.as_deref(), self.matrix.as_deref(), $which)
            }
        }
    };
}
pose_args!(PoseArgsA, "translate-a", "rotate-a", "matrix-a", "A");
pose_args!(PoseArgsB, "translate-b", "rotate-b", "matrix-b", "B");

fn numbers(s: &str, n: usize, what: &str) -> Result<Vec<f64>, Error> {
    let v: Result<Vec<f64>, _> = s.split(',').map(|x| x.trim().parse::<f64>()).collect();
    match v {
        Ok(v) if v.len() == n && v.iter().all(|x| x.is_finite()) => Ok(v),
        _ => Err(Error::Argument(format!(
            "{what} needs {n} finite comma-separated numbers, got {s:?}"
        ))),
    }
}

fn parse_pose(
    t: Option<&str>,
    r: Option<&str>,
    m: Option<&str>,
    which: &str,
) -> Result<Pose, Error> {
    if let Some(m) = m {
        if t.is_some() || r.is_some() {
            return Err(Error::Argument(format!(
                "--matrix for {which} cannot be combined with --translate or --rotate"
            )));
        }
        return Pose::from_matrix(&numbers(m, 16, "--matrix")?);
    }
    let t = t
        .map(|s| numbers(s, 3, "--translate"))
        .transpose()?
        .unwrap_or(vec![0.0; 3]);
    let r = r
        .map(|s| numbers(s, 3, "--rotate"))
        .transpose()?
        .unwrap_or(vec![0.0; 3]);
    Ok(Pose::from_euler_degrees(
        [r[0], r[1], r[2]],
        DVec3::new(t[0], t[1], t[2]),
    ))
}

fn main() -> ExitCode {
    // Rust starts programs with SIGPIPE ignored, so printing into a pipe whose reader has gone
    // (`meshclash check a b --pairs | head`) made println! panic. A command-line tool ends
    // quietly there, killed by the signal, as cat and grep do.
    #[cfg(unix)]
    // SAFETY: first thing in main, before any other thread starts; SIG_DFL is the action every
    // process starts with, which Rust's runtime set to SIG_IGN.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Mesa's Vulkan drivers print a warning on every start when a headless machine has no
    // runtime directory; give them one so stderr keeps to meshclash's own lines. Done first,
    // while this is the only thread.
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        let dir = std::env::temp_dir().join("meshclash-runtime");
        if std::fs::create_dir_all(&dir).is_ok() {
            std::env::set_var("XDG_RUNTIME_DIR", &dir);
        }
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) if e.use_stderr() => {
            // One line, as for every other bad argument.
            if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                eprintln!("meshclash: no command given: check, self, info or demo (see --help)");
            } else {
                // clap's message runs until its first blank line (then usage and tips).
                let text = e.render().to_string();
                let msg: Vec<&str> = text
                    .lines()
                    .take_while(|l| !l.trim().is_empty())
                    .map(str::trim)
                    .collect();
                eprintln!(
                    "meshclash: {} (see --help)",
                    msg.join(" ").trim_start_matches("error: ")
                );
            }
            return ExitCode::from(2);
        }
        Err(e) => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("meshclash: {e}");
            ExitCode::from(exit_code(&e))
        }
    }
}

/// Bad input and arguments are the user's to fix (2); a GPU that fails mid-query is ours (1).
fn exit_code(e: &Error) -> u8 {
    match e {
        Error::Gpu(_) => 1,
        _ => 2,
    }
}

/// Progress on stderr, only for a person watching (never into a pipe or a CI log).
fn progress(msg: &str) {
    if std::io::stderr().is_terminal() {
        eprintln!("{msg}");
    }
}

/// The backend that answers: the GPU with its adapter, or the CPU.
enum Engine {
    Cpu,
    Gpu(Box<GpuBackend>),
}

impl Engine {
    fn name(&self) -> &'static str {
        match self {
            Engine::Cpu => "cpu",
            Engine::Gpu(_) => "gpu",
        }
    }

    fn adapter(&self) -> Value {
        match self {
            Engine::Cpu => Value::Null,
            Engine::Gpu(b) => serde_json::to_value(&b.ctx.info).unwrap_or(Value::Null),
        }
    }
}

/// `gpu` insists on an adapter (exit 2 without one); `auto` takes one if there is one and says
/// on stderr when it answers on the CPU instead.
fn choose_backend(b: Backend) -> Result<Engine, Error> {
    if b == Backend::Cpu {
        return Ok(Engine::Cpu);
    }
    match GpuContext::new().and_then(GpuBackend::new) {
        // A software adapter (lavapipe, llvmpipe, WARP) is a CPU pretending: the CPU path is
        // faster, so `auto` takes the CPU and says so; `gpu` still uses it.
        Ok(g) if b == Backend::Auto && g.ctx.software => {
            eprintln!(
                "meshclash: only a software GPU adapter ({}); answering on the CPU, which is faster (--backend gpu uses it)",
                g.ctx.info.name
            );
            Ok(Engine::Cpu)
        }
        Ok(g) => {
            progress(&format!(
                "GPU: {} ({})",
                g.ctx.info.name, g.ctx.info.backend
            ));
            Ok(Engine::Gpu(Box::new(g)))
        }
        Err(e) if b == Backend::Gpu => Err(match e {
            Error::Gpu(m) => Error::NoAdapter(format!(": the GPU could not be set up: {m}")),
            e => e,
        }),
        Err(e) => {
            eprintln!("meshclash: {e}; answering on the CPU");
            Ok(Engine::Cpu)
        }
    }
}

/// `check` on the engine; under `auto`, a GPU failure (a lost device, say) falls back to the
/// CPU with a line on stderr.
fn run_check(
    engine: &mut Engine,
    auto: bool,
    a: &PreparedMesh,
    pa: Pose,
    b: &PreparedMesh,
    pb: Pose,
    opts: &CheckOptions,
) -> Result<CheckReport, Error> {
    if let Engine::Gpu(g) = engine {
        let r = g.upload(a).and_then(|ga| {
            let gb = g.upload(b)?;
            g.check(a, &ga, pa, b, &gb, pb, opts)
        });
        match r {
            Ok(r) => return Ok(r),
            Err(e) if auto => {
                eprintln!("meshclash: {e}; answering on the CPU");
                *engine = Engine::Cpu;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(query::check(a, pa, b, pb, opts))
}

fn run_self(engine: &mut Engine, auto: bool, m: &PreparedMesh) -> Result<SelfReport, Error> {
    if let Engine::Gpu(g) = engine {
        match g.upload(m).and_then(|gm| g.self_intersections(m, &gm)) {
            Ok(r) => return Ok(r),
            Err(e) if auto => {
                eprintln!("meshclash: {e}; answering on the CPU");
                *engine = Engine::Cpu;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(query::self_intersections(m))
}

fn load(path: &Path) -> Result<PreparedMesh, Error> {
    let t = Instant::now();
    let mesh = Mesh::load(path)?;
    let prep = PreparedMesh::new(mesh);
    progress(&format!(
        "loaded {} ({} triangles, octree {:.1} ms, {:.1} ms in all)",
        path.display(),
        prep.mesh.triangles.len(),
        prep.octree_ms,
        t.elapsed().as_secs_f64() * 1e3
    ));
    Ok(prep)
}

fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
        Command::Info { mesh, json } => {
            let m = Mesh::load(&mesh)?;
            let (info, open) = m.info_and_open_vertices(&m.zero_area_flags());
            let bodies = m.bodies(&open);
            let (closed_bodies, bodies) = (
                bodies.closed.iter().filter(|&&c| c).count(),
                bodies.probes.len(),
            );
            if json {
                let mut v = serde_json::to_value(&info).unwrap_or(Value::Null);
                if let Value::Object(o) = &mut v {
                    o.insert("bodies".into(), bodies.into());
                    o.insert("closed_bodies".into(), closed_bodies.into());
                }
                println!("{v}");
            } else {
                println!("mesh:                {}", mesh.display());
                println!("triangles:           {}", info.triangles);
                println!("vertices (welded):   {}", info.vertices);
                println!("bbox min:            {:?}", info.bbox_min);
                println!("bbox max:            {:?}", info.bbox_max);
                println!("zero-area triangles: {}", info.zero_area_triangles);
                println!("closed:              {}", info.closed);
                println!("oriented:            {}", info.oriented);
                println!("bodies:              {bodies} ({closed_bodies} closed)");
            }
            Ok(())
        }
        Command::Check {
            a,
            b,
            pose_a,
            pose_b,
            clearance,
            pairs,
            quick,
            json,
            backend,
        } => {
            let (pa, pb) = (pose_a.pose()?, pose_b.pose()?);
            if quick {
                if backend == Backend::Gpu {
                    return Err(Error::Argument(
                        "--quick answers on the CPU; leave out --backend gpu".into(),
                    ));
                }
                let (ma, mb) = (load(&a)?, load(&b)?);
                let t = Instant::now();
                let (x, y) = (Posed::new(&ma, pa), Posed::new(&mb, pb));
                let r = query::solid_distance(&x, &y);
                let mut timings = Timings::default();
                timings.add("solid_distance", t);
                if json {
                    println!("{}", quick_json(&r, &timings));
                } else {
                    print_quick(&a, &b, &ma, &mb, &r, &timings);
                }
                return Ok(());
            }
            if let Some(d) = clearance {
                if !(d.is_finite() && d >= 0.0) {
                    return Err(Error::Argument(format!(
                        "--clearance must be a finite distance ≥ 0, got {d}"
                    )));
                }
            }
            let (ma, mb) = (load(&a)?, load(&b)?);
            let mut engine = choose_backend(backend)?;
            let r = run_check(
                &mut engine,
                backend == Backend::Auto,
                &ma,
                pa,
                &mb,
                pb,
                &CheckOptions { clearance },
            )?;
            if json {
                println!("{}", check_json(&r, pairs, &engine));
            } else {
                print_check(&a, &b, &ma, &mb, &r, pairs, &engine);
            }
            Ok(())
        }
        Command::SelfCheck {
            mesh,
            pairs,
            json,
            backend,
        } => {
            let m = load(&mesh)?;
            let mut engine = choose_backend(backend)?;
            let r = run_self(&mut engine, backend == Backend::Auto, &m)?;
            if json {
                println!("{}", self_json(&r, pairs, &engine));
            } else {
                print_self(&mesh, &m, &r, pairs, &engine);
            }
            Ok(())
        }
        Command::Demo { triangles } => demo(triangles),
        Command::Bench {
            triangles,
            backend,
            json,
        } => {
            if triangles < 100 {
                return Err(Error::Argument(format!(
                    "--triangles must be at least 100, got {triangles}"
                )));
            }
            let engine = choose_backend(backend)?;
            let gpu = match &engine {
                Engine::Gpu(g) => Some(g.as_ref()),
                Engine::Cpu => None,
            };
            bench(triangles, gpu, json)
        }
    }
}

/// `meshclash bench`: each scene's rows (or JSON line) as soon as it is done, a minute or more
/// apart at a million triangles. Backends that disagree are our bug: an error (exit 1) once
/// every scene has run, naming them. An output that cannot be written (a full disk) is an
/// error; a reader that stops reading ends the run by SIGPIPE (see `main`).
fn bench(triangles: usize, gpu: Option<&GpuBackend>, json: bool) -> Result<(), Error> {
    use meshclash::bench;
    use std::io::Write;
    let emit = |text: &str| {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(Error::Output)
    };
    progress(&format!(
        "bench: building the scenes' meshes ({triangles} triangles each)"
    ));
    let t = Instant::now();
    let scenes = bench::scenes(triangles);
    let build_ms = t.elapsed().as_secs_f64() * 1e3;
    if !json {
        emit(&bench::header(&scenes, build_ms, gpu))?;
    }
    let mut disagree = Vec::new();
    for sc in &scenes {
        progress(&format!("bench: {} ...", sc.name));
        let runs = bench::run(sc, gpu)?;
        if !bench::agree(&runs) {
            disagree.push(sc.name);
        }
        let text = if json {
            format!("{}\n", bench::json(sc, &runs))
        } else {
            bench::rows(sc, &runs)
        };
        emit(&text)?;
    }
    if disagree.is_empty() {
        Ok(())
    } else {
        Err(Error::Gpu(format!(
            "the GPU's answers differ from the CPU's on: {}",
            disagree.join(", ")
        )))
    }
}

fn v3(v: DVec3) -> Value {
    json!([v.x, v.y, v.z])
}

fn timings_json(t: &Timings) -> Value {
    let mut m = Map::new();
    for (k, v) in &t.0 {
        let prev = m.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        m.insert(k.clone(), json!(prev + v));
    }
    m.insert("total".into(), json!(t.total()));
    Value::Object(m)
}

fn check_json(r: &CheckReport, with_pairs: bool, engine: &Engine) -> Value {
    let d = &r.distance;
    let piercing = r
        .intersect
        .pairs
        .iter()
        .filter(|p| !p.contact.touching)
        .count();
    let mut out = json!({
        "intersects": r.intersects(),
        "interferes": r.interferes(),
        "containment": r.containment.map(|c| c.as_str()),
        "pair_count": r.intersect.pairs.len(),
        "touching_pair_count": r.intersect.pairs.len() - piercing,
        "piercing_pair_count": piercing,
        "min_distance": d.distance,
        "closest_point_a": v3(d.point_a),
        "closest_point_b": v3(d.point_b),
        "separation": v3(d.separation),
        "triangle_a": d.triangle_a,
        "triangle_b": d.triangle_b,
        "clearance": r.clearance.as_ref().map(|c| c.clearance),
        "clearance_pair_count": r.clearance.as_ref().map(|c| c.pairs.len()),
        "candidate_pairs": {
            "intersect": r.intersect.candidates,
            "distance": d.candidates,
            "clearance": r.clearance.as_ref().map(|c| c.candidates),
        },
        "backend": engine.name(),
        "adapter": engine.adapter(),
        "timings_ms": timings_json(&r.timings),
    });
    if with_pairs {
        out["pairs"] = r
            .intersect
            .pairs
            .iter()
            .map(|p| {
                json!({
                    "a": p.a, "b": p.b,
                    "class": p.contact.class().map(|c| c.as_str()),
                    "coplanar": p.contact.coplanar,
                    "touching": p.contact.touching,
                })
            })
            .collect();
        out["curves"] = r
            .intersect
            .curve_segments()
            .iter()
            .map(|(p, q)| json!([v3(*p), v3(*q)]))
            .collect();
        if let Some(c) = &r.clearance {
            out["clearance_pairs"] = c
                .pairs
                .iter()
                .map(|p| json!({"a": p.a, "b": p.b, "distance": p.distance, "intersects": p.intersects}))
                .collect();
        }
    }
    out
}

fn quick_json(r: &SolidDistance, timings: &Timings) -> Value {
    let mut out = json!({
        "interferes": matches!(r, SolidDistance::Interfering(_)),
        "evidence": null,
        "solid_distance": r.distance(),
        "backend": "cpu",
        "timings_ms": timings_json(timings),
    });
    match r {
        SolidDistance::Interfering(i) => {
            out["evidence"] = json!(i.as_str());
            if let Interference::VertexOfAInB { vertex, point }
            | Interference::VertexOfBInA { vertex, point } = *i
            {
                out["evidence_vertex"] = json!(vertex);
                out["evidence_point"] = v3(point);
            }
        }
        SolidDistance::Apart(d) => {
            out["closest_point_a"] = v3(d.point_a);
            out["closest_point_b"] = v3(d.point_b);
            out["separation"] = v3(d.separation);
            out["triangle_a"] = json!(d.triangle_a);
            out["triangle_b"] = json!(d.triangle_b);
        }
    }
    out
}

fn print_quick(
    a: &Path,
    b: &Path,
    ma: &PreparedMesh,
    mb: &PreparedMesh,
    r: &SolidDistance,
    timings: &Timings,
) {
    println!("A: {} ({} triangles)", a.display(), ma.mesh.triangles.len());
    println!("B: {} ({} triangles)", b.display(), mb.mesh.triangles.len());
    match r {
        SolidDistance::Interfering(i) => {
            let why = match i {
                Interference::VertexOfAInB { vertex, point } => format!(
                    "vertex {vertex} of A, at {:?}, is inside B or on its surface",
                    point.to_array()
                ),
                Interference::VertexOfBInA { vertex, point } => format!(
                    "vertex {vertex} of B, at {:?}, is inside A or on its surface",
                    point.to_array()
                ),
                Interference::SurfacesMeet => "the surfaces meet".into(),
            };
            println!("interferes:     yes ({why})");
            println!("solid distance: 0");
        }
        SolidDistance::Apart(d) => {
            println!("interferes:     no");
            println!(
                "solid distance: {} between A triangle {} at {:?} and B triangle {} at {:?}",
                d.distance,
                d.triangle_a,
                d.point_a.to_array(),
                d.triangle_b,
                d.point_b.to_array()
            );
        }
    }
    println!("time (ms):      {}", fmt_timings(timings));
}

fn fmt_timings(t: &Timings) -> String {
    let parts: Vec<String> = t.0.iter().map(|(k, v)| format!("{k} {v:.2}")).collect();
    format!("{} (total {:.2})", parts.join(", "), t.total())
}

fn print_check(
    a: &Path,
    b: &Path,
    ma: &PreparedMesh,
    mb: &PreparedMesh,
    r: &CheckReport,
    with_pairs: bool,
    engine: &Engine,
) {
    let d = &r.distance;
    let n = r.intersect.pairs.len();
    let piercing = r
        .intersect
        .pairs
        .iter()
        .filter(|p| !p.contact.touching)
        .count();
    println!("A: {} ({} triangles)", a.display(), ma.mesh.triangles.len());
    println!("B: {} ({} triangles)", b.display(), mb.mesh.triangles.len());
    if n > 0 {
        println!(
            "intersects:   yes, {n} triangle pairs ({piercing} piercing, {} touching)",
            n - piercing
        );
    } else {
        println!("intersects:   no");
    }
    // A part of several bodies may have one inside the other part and the rest outside it.
    let part = |name: &str, m: &PreparedMesh| match m.bodies.probes.len() {
        1 => name.to_string(),
        n => format!("{name} (or one of its {n} bodies)"),
    };
    // Nothing can be inside a part none of whose bodies is closed: say so, not just "none".
    let no_solid = |name: &str, m: &PreparedMesh| {
        let b = &m.bodies;
        (!b.bound_a_solid()).then(|| match b.closed.len() {
            1 => format!("{name} is not closed, so nothing is inside it"),
            n => format!("none of the {n} bodies of {name} is closed, so nothing is inside it"),
        })
    };
    println!(
        "containment:  {}",
        match r.containment {
            Some(query::Containment::AInB) => format!("{} is inside B", part("A", ma)),
            Some(query::Containment::BInA) => format!("{} is inside A", part("B", mb)),
            None if r.intersects() => "none".to_string(),
            None => {
                let why: Vec<String> = [no_solid("A", ma), no_solid("B", mb)]
                    .into_iter()
                    .flatten()
                    .collect();
                if why.is_empty() {
                    "none".to_string()
                } else {
                    format!("none ({})", why.join("; "))
                }
            }
        }
    );
    println!(
        "interferes:   {}",
        if r.interferes() { "yes" } else { "no" }
    );
    println!(
        "min distance: {} between A triangle {} at {:?} and B triangle {} at {:?}",
        d.distance,
        d.triangle_a,
        d.point_a.to_array(),
        d.triangle_b,
        d.point_b.to_array()
    );
    if let Some(c) = &r.clearance {
        println!(
            "clearance {}: {} triangle pairs closer",
            c.clearance,
            c.pairs.len()
        );
    }
    if with_pairs {
        for p in &r.intersect.pairs {
            println!(
                "  pair {} {}: {}{}{}",
                p.a,
                p.b,
                p.contact.class().map_or("?", |c| c.as_str()),
                if p.contact.coplanar { ", coplanar" } else { "" },
                if p.contact.touching {
                    ", touching"
                } else {
                    ", piercing"
                }
            );
        }
        if let Some(c) = &r.clearance {
            for p in &c.pairs {
                println!("  clearance pair {} {}: distance {}", p.a, p.b, p.distance);
            }
        }
    }
    match engine {
        Engine::Gpu(g) => println!(
            "backend:      gpu ({}, {})",
            g.ctx.info.name, g.ctx.info.backend
        ),
        Engine::Cpu => println!("backend:      cpu"),
    }
    println!("timings (ms): {}", fmt_timings(&r.timings));
}

const KINDS: [SelfKind; 4] = [
    SelfKind::DisjointVertices,
    SelfKind::SharedVertex,
    SelfKind::SharedEdgeFoldover,
    SelfKind::DuplicateFace,
];

fn self_json(r: &SelfReport, with_pairs: bool, engine: &Engine) -> Value {
    let by_kind: Map<String, Value> = KINDS
        .iter()
        .filter(|k| r.count(**k) > 0)
        .map(|k| (k.as_str().to_string(), json!(r.count(*k))))
        .collect();
    let mut out = json!({
        "self_intersects": !r.pairs.is_empty(),
        "pair_count": r.pairs.len(),
        "by_kind": by_kind,
        "zero_area_triangles": r.zero_area_triangles,
        "candidate_pairs": r.candidates,
        "backend": engine.name(),
        "adapter": engine.adapter(),
        "timings_ms": timings_json(&r.timings),
    });
    if with_pairs {
        out["pairs"] = r
            .pairs
            .iter()
            .map(|p| json!({"a": p.a, "b": p.b, "kind": p.kind.as_str()}))
            .collect();
    }
    out
}

fn print_self(path: &Path, m: &PreparedMesh, r: &SelfReport, with_pairs: bool, engine: &Engine) {
    println!(
        "mesh: {} ({} triangles)",
        path.display(),
        m.mesh.triangles.len()
    );
    println!(
        "self-intersects: {}",
        if r.pairs.is_empty() { "no" } else { "yes" }
    );
    println!("pairs: {}", r.pairs.len());
    for k in KINDS {
        if r.count(k) > 0 {
            println!("  {}: {}", k.as_str(), r.count(k));
        }
    }
    println!("zero-area triangles (left out): {}", r.zero_area_triangles);
    if with_pairs {
        for p in &r.pairs {
            println!("  pair {} {}: {}", p.a, p.b, p.kind.as_str());
        }
    }
    println!("backend: {}", engine.name());
    println!("timings (ms): {}", fmt_timings(&r.timings));
}

struct Scene<'a> {
    name: &'a str,
    a: &'a PreparedMesh,
    pose_a: Pose,
    b: &'a PreparedMesh,
    pose_b: Pose,
    clearance: Option<f64>,
}

/// README's first command: meshes built in memory, every scene on every available backend.
fn demo(triangles: usize) -> Result<(), Error> {
    if triangles < 100 {
        return Err(Error::Argument(format!(
            "--triangles must be at least 100, got {triangles}"
        )));
    }
    println!("meshclash demo: {triangles} triangles per mesh, built in memory\n");
    let (nu, nv) = generate::torus_grid(triangles, 4);
    let (lat, lon) = generate::sphere_grid(triangles);
    let t = Instant::now();
    let torus = PreparedMesh::new(generate::torus(1.0, 0.3, nu, nv));
    let big = PreparedMesh::new(generate::sphere(2.0, lat, lon));
    let small = PreparedMesh::new(generate::torus(1.0, 0.3, nu, nv));
    println!(
        "built: torus {} triangles, sphere {} triangles ({:.0} ms with octrees)\n",
        torus.mesh.triangles.len(),
        big.mesh.triangles.len(),
        t.elapsed().as_secs_f64() * 1e3
    );
    // Chain links: the second torus stands in the xz-plane through the first one's hole. Centred,
    // its tube would keep a 0.4 gap along a whole circle (every point of one centre circle is 1
    // from the other's centre); tilted and shifted, the parts meet or miss at isolated places,
    // as real parts do.
    let link = |shift: f64| {
        Pose::from_euler_degrees([90.0, 7.0, 3.0], DVec3::new(1.0 + shift, 0.03, 0.02))
    };
    let scenes = [
        Scene {
            name: "linked tori, cutting each other",
            a: &torus,
            pose_a: Pose::IDENTITY,
            b: &small,
            pose_b: link(0.5),
            clearance: Some(0.01),
        },
        Scene {
            name: "torus swallowed by a sphere (no surface contact)",
            a: &small,
            pose_a: Pose::from_euler_degrees([20.0, 10.0, 0.0], DVec3::new(0.25, 0.1, 0.05)),
            b: &big,
            pose_b: Pose::IDENTITY,
            clearance: Some(0.44),
        },
        Scene {
            name: "linked tori, near miss",
            a: &torus,
            pose_a: Pose::IDENTITY,
            b: &small,
            pose_b: link(0.0),
            clearance: Some(0.38),
        },
    ];
    let mut engines = vec![Engine::Cpu];
    match GpuContext::new().and_then(GpuBackend::new) {
        Ok(g) => {
            println!(
                "GPU: {} ({}); every scene runs on the CPU and on the GPU.",
                g.ctx.info.name, g.ctx.info.backend
            );
            // A driver may compile a pipeline at its first dispatch (lavapipe takes seconds):
            // run every stage once on small parts, so that the timings below are the queries'.
            let t = Instant::now();
            let tiny = PreparedMesh::new(generate::torus(1.0, 0.3, 24, 8));
            let mut engine = Engine::Gpu(Box::new(g));
            for shift in [0.5, 0.0] {
                let opts = CheckOptions {
                    clearance: Some(0.05),
                };
                run_check(
                    &mut engine,
                    false,
                    &tiny,
                    Pose::IDENTITY,
                    &tiny,
                    link(shift),
                    &opts,
                )?;
            }
            println!(
                "GPU warm-up (first dispatches compile the pipelines): {:.0} ms\n",
                t.elapsed().as_secs_f64() * 1e3
            );
            engines.push(engine);
        }
        Err(e) => println!("GPU: none ({e}); every scene runs on the CPU only.\n"),
    }
    for Scene {
        name,
        a,
        pose_a: pa,
        b,
        pose_b: pb,
        clearance,
    } in scenes
    {
        println!("== {name}");
        for engine in engines.iter_mut() {
            let backend = engine.name();
            let r = run_check(engine, false, a, pa, b, pb, &CheckOptions { clearance })?;
            let n = r.intersect.pairs.len();
            let piercing = r
                .intersect
                .pairs
                .iter()
                .filter(|p| !p.contact.touching)
                .count();
            println!("  [{backend}] intersects: {} ({n} pairs, {piercing} piercing), containment: {}, interferes: {}",
                r.intersects(),
                r.containment.map_or("none", |c| c.as_str()),
                r.interferes());
            println!(
                "  [{backend}] min distance {:.6} (A tri {}, B tri {}), curve segments {}",
                r.distance.distance,
                r.distance.triangle_a,
                r.distance.triangle_b,
                r.intersect.curve_segments().len()
            );
            if let Some(c) = &r.clearance {
                println!(
                    "  [{backend}] pairs closer than {}: {}",
                    c.clearance,
                    c.pairs.len()
                );
            }
            println!("  [{backend}] ms: {}", fmt_timings(&r.timings));
        }
        // What `check --quick` answers: the first evidence, and the solids' distance.
        let t = Instant::now();
        let quick = query::solid_distance(&Posed::new(a, pa), &Posed::new(b, pb));
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let why = match &quick {
            SolidDistance::Interfering(i) => format!("interferes ({})", i.as_str()),
            SolidDistance::Apart(_) => "apart".into(),
        };
        println!(
            "  [cpu] --quick: {why}, solid distance {:.6}, in {ms:.3} ms",
            quick.distance()
        );
        println!();
    }
    Ok(())
}

//! `meshclash`: a thin command line over the library. Exit 0 for a completed query whatever the
//! answer, 2 for bad input or arguments (one line on stderr), 1 for an internal failure.

#[macro_use]
mod output;
mod args;
mod bench;
mod check;
mod demo;
mod json;
mod motion;
mod points;
mod progress;
mod spheres;
mod table;
mod text;

use args::{Cli, Command};
use clap::Parser;
use meshclash::mesh::BoundaryReport;
use meshclash::{Backend, BackendKind, Error, Mesh, PreparedMesh};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

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
    // A file cut short by Ctrl-C or `kill` is not left beside its target.
    meshclash::save::remove_partial_on_signal();
    // Mesa's Vulkan drivers print a warning on every start when a headless machine has no
    // runtime directory; give them one so stderr keeps to meshclash's own lines. Done first,
    // while this is the only thread.
    if std::env::var_os("XDG_RUNTIME_DIR").is_none_or(|d| d.is_empty()) {
        let dir = std::env::temp_dir().join("meshclash-runtime");
        if std::fs::create_dir_all(&dir).is_ok() {
            std::env::set_var("XDG_RUNTIME_DIR", &dir);
        }
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) if e.use_stderr() => {
            progress::say(format_args!("meshclash: {} (see --help)", clap_message(&e)));
            return ExitCode::from(2);
        }
        Err(e) => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
    };
    let result = run(cli).and_then(|()| output::finish().map_or(Ok(()), |e| Err(Error::Output(e))));
    progress::release(result.is_ok());
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            progress::say(format_args!("meshclash: {e}"));
            ExitCode::from(exit_code(&e))
        }
    }
}

/// clap's error in one line, as for every other bad argument.
fn clap_message(e: &clap::Error) -> String {
    if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        return "no command given: check, self, info, poses, sweep, inside, closest, ray, spheres, demo or bench"
            .into();
    }
    // clap's message runs until its first blank line (then usage and tips).
    let text = e.render().to_string();
    let msg: Vec<&str> = text
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    msg.join(" ").trim_start_matches("error: ").to_string()
}

/// Bad input and arguments are the user's to fix (2); a GPU that fails mid-query is ours (1).
fn exit_code(e: &Error) -> u8 {
    match e {
        Error::Gpu(_) => 1,
        _ => 2,
    }
}

fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
        Command::Info { mesh, json } => info(&mesh, json),
        Command::Poses {
            a,
            b,
            poses,
            pose_a,
            clearance,
            out,
            json,
            backend,
        } => motion::poses(
            (&a, &b, &poses),
            pose_a.pose()?,
            clearance,
            (out, json),
            backend.kind(),
        ),
        Command::Sweep {
            a,
            b,
            pose_a,
            path,
            times,
            tolerance,
            json,
        } => motion::sweep(&a, &b, pose_a.pose()?, &path, times, tolerance, json),
        Command::Ray {
            mesh,
            rays,
            batch,
            hits,
            max_t,
        } => points::ray(points::Job::new(&mesh, &rays, batch)?, hits.into(), max_t),
        Command::Spheres {
            mesh,
            spheres,
            batch,
            contacts,
            tolerance,
        } => spheres::spheres(
            points::Job::new(&mesh, &spheres, batch)?,
            contacts,
            tolerance,
        ),
        Command::Inside {
            mesh,
            points: p,
            batch,
        } => points::inside(points::Job::new(&mesh, &p, batch)?),
        Command::Closest {
            mesh,
            points: p,
            batch,
            signed,
            max_distance,
        } => points::closest(points::Job::new(&mesh, &p, batch)?, signed, max_distance),
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
            pictures,
        } => {
            let poses = (pose_a.pose()?, pose_b.pose()?);
            let out = check::Output {
                pairs,
                json,
                pictures,
            };
            if quick {
                check::quick(&a, &b, poses, backend.kind(), json)
            } else {
                check::check(&a, &b, poses, clearance, backend.kind(), out)
            }
        }
        Command::SelfCheck {
            mesh,
            pairs,
            json,
            backend,
            pictures: p,
        } => {
            p.check_paths(&[&mesh])?;
            let m = load(&mesh)?;
            let backend = choose_backend(backend.kind())?;
            let r = progress::during("checking", || backend.self_intersections(&m))?;
            // The answer first, as check's.
            if json {
                output::json(&json::self_json(&r, pairs, &backend));
            } else {
                text::print_self(&mesh, &m, &r, pairs, &backend);
            }
            if p.render.is_some() || p.glb.is_some() {
                let scene = meshclash::picture::Scene::of_self(&m, meshclash::Pose::IDENTITY, &r);
                progress::during("drawing", || {
                    meshclash::picture::write(&scene, p.render.as_deref(), p.size, p.glb.as_deref())
                })?;
            }
            Ok(())
        }
        Command::Demo { triangles } => demo::demo(triangles),
        Command::Bench {
            triangles,
            backend,
            json,
        } => bench::bench(triangles, backend.kind(), json),
    }
}

/// `meshclash info`: what a mesh is made of, and whether it bounds a solid.
fn info(path: &Path, json: bool) -> Result<(), Error> {
    let m = Mesh::load(path)?;
    notice_coarse(path, &m);
    let (info, open) = m.info_and_open_vertices(&m.zero_area_flags());
    let bodies = m.bodies(&open);
    // Why a mesh is open: its boundary edges, and how many of them are cracks or seams.
    let edges = BoundaryReport::of(&m);
    if json {
        out!(
            "{}",
            meshclash::json::info(&info, &bodies, &edges, m.unit.as_deref())
        );
        return Ok(());
    }
    let (closed_bodies, bodies) = (
        bodies.closed.iter().filter(|&&c| c).count(),
        bodies.probes.len(),
    );
    out!("mesh:                {}", path.display());
    out!("triangles:           {}", info.triangles);
    out!("vertices (welded):   {}", info.vertices);
    out!("bbox min:            {:?}", info.bbox_min);
    out!("bbox max:            {:?}", info.bbox_max);
    out!("zero-area triangles: {}", info.zero_area_triangles);
    out!("closed:              {}", info.closed);
    out!("oriented:            {}", info.oriented);
    out!("bodies:              {bodies} ({closed_bodies} closed)");
    out!("boundary edges:      {}", edges.boundary_edges);
    out!(
        "  near another:      {} (within {:.3e}: cracks and unwelded seams)",
        edges.boundary_edges_near_another,
        edges.crack_tolerance
    );
    out!("non-manifold edges:  {}", edges.non_manifold_edges);
    if let Some(unit) = &m.unit {
        out!("unit (declared):     {unit}");
    }
    Ok(())
}

/// The backend asked for; `auto` says on stderr when and why it answers on the CPU.
fn choose_backend(kind: BackendKind) -> Result<Backend, Error> {
    let backend = Backend::with_notice(kind, |why| progress::notice(format!("meshclash: {why}")))?;
    if let Some(a) = backend.adapter() {
        progress::note(&format!("GPU: {} ({})", a.name, a.backend));
    }
    Ok(backend)
}

/// Both parts of a two-part command, and a notice where their files declare different units:
/// coordinates are read as numbers, never converted, so a part in millimetres against one in
/// metres is a thousand times off, silently otherwise.
fn load_pair(a: &Path, b: &Path) -> Result<(PreparedMesh, PreparedMesh), Error> {
    let (ma, mb) = (load(a)?, load(b)?);
    if let Some((ua, ub)) = ma.mesh.units_differ(&mb.mesh) {
        progress::notice(format!(
            "meshclash: {} declares its unit as {ua} and {} as {ub}; units are not converted, and a pose cannot scale: convert one file to the other's unit",
            a.display(),
            b.display()
        ));
    }
    Ok((ma, mb))
}

/// A notice where float32 holds the mesh's coordinates coarsely for its size
/// ([`Mesh::coarse_float32`]).
fn notice_coarse(path: &Path, m: &Mesh) {
    if let Some(c) = m.coarse_float32() {
        progress::notice(format!("meshclash: {}: {c}", path.display()));
    }
}

fn load(path: &Path) -> Result<PreparedMesh, Error> {
    let t = Instant::now();
    let name = path.display();
    let mesh = progress::during(&format!("reading {name}"), || Mesh::load(path))?;
    notice_coarse(path, &mesh);
    let prep = progress::during(&format!("preparing {name}"), || PreparedMesh::new(mesh));
    progress::note(&format!(
        "loaded {} ({} triangles, octree {:.1} ms, {:.1} ms in all)",
        path.display(),
        prep.mesh.triangles.len(),
        prep.octree_ms,
        t.elapsed().as_secs_f64() * 1e3
    ));
    Ok(prep)
}

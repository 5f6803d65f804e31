//! What each command prints for a person (the default; `--json` prints `json.rs`'s instead).

use meshclash::query::Interference;
use meshclash::{Backend, CheckReport, Containment, PreparedMesh, SelfKind, SelfReport};
use meshclash::{SolidDistance, Timings};
use std::path::Path;

pub fn print_quick(
    a: &Path,
    b: &Path,
    ma: &PreparedMesh,
    mb: &PreparedMesh,
    r: &SolidDistance,
    timings: &Timings,
) {
    out!("A: {} ({})", a.display(), triangles(&ma.mesh));
    out!("B: {} ({})", b.display(), triangles(&mb.mesh));
    match r {
        SolidDistance::Interfering(i) => {
            let why = match i {
                Interference::VertexOfAInB { vertex, point, .. } => format!(
                    "vertex {vertex} of A, at {:?}, is inside B or on its surface{}",
                    point.to_array(),
                    uncertain_word(i.certain())
                ),
                Interference::VertexOfBInA { vertex, point, .. } => format!(
                    "vertex {vertex} of B, at {:?}, is inside A or on its surface{}",
                    point.to_array(),
                    uncertain_word(i.certain())
                ),
                Interference::SurfacesMeet => "the surfaces meet".into(),
            };
            out!("interferes:     yes ({why})");
            out!("solid distance: 0");
        }
        SolidDistance::Apart {
            report: d,
            containment_certain,
        } => {
            out!("interferes:     no{}", uncertain_word(*containment_certain));
            out!(
                "solid distance: {} between A triangle {} at {:?} and B triangle {} at {:?}",
                number(d.distance),
                d.triangle_a,
                d.point_a.to_array(),
                d.triangle_b,
                d.point_b.to_array()
            );
        }
    }
    out!("time (ms):      {}", fmt_timings(timings));
}

/// What a person is told where an inside-or-outside answer is not certain.
fn uncertain_word(certain: bool) -> &'static str {
    if certain {
        ""
    } else {
        " (uncertain: a part is not closed, and inside or outside it was not certified for every point of the other)"
    }
}

pub fn fmt_timings(t: &Timings) -> String {
    let parts: Vec<String> = t.0.iter().map(|(k, v)| format!("{k} {v:.2}")).collect();
    format!("{} (total {:.2})", parts.join(", "), t.total())
}

pub fn print_check(
    a: &Path,
    b: &Path,
    ma: &PreparedMesh,
    mb: &PreparedMesh,
    r: &CheckReport,
    with_pairs: bool,
    backend: &Backend,
) {
    let d = &r.distance;
    let n = r.intersect.pairs.len();
    let piercing = r.intersect.piercing_count();
    out!("A: {} ({})", a.display(), triangles(&ma.mesh));
    out!("B: {} ({})", b.display(), triangles(&mb.mesh));
    if n > 0 {
        out!(
            "intersects:   yes, {n} triangle pairs ({piercing} piercing, {} touching)",
            n - piercing
        );
    } else {
        out!("intersects:   no");
    }
    out!("containment:  {}", containment(r, ma, mb));
    out!(
        "interferes:   {}",
        if r.interferes() { "yes" } else { "no" }
    );
    out!(
        "min distance: {} between A triangle {} at {:?} and B triangle {} at {:?}",
        number(d.distance),
        d.triangle_a,
        d.point_a.to_array(),
        d.triangle_b,
        d.point_b.to_array()
    );
    if let Some(c) = &r.clearance {
        out!(
            "clearance {}: {} triangle pairs closer",
            number(c.clearance),
            c.pairs.len()
        );
    }
    if with_pairs {
        print_pairs(r);
    }
    match backend.adapter() {
        Some(a) => out!("backend:      gpu ({}, {})", a.name, a.backend),
        None => out!("backend:      cpu"),
    }
    out!("timings (ms): {}", fmt_timings(&r.timings));
}

/// The containment line: who is inside whom, and whether that is certain.
fn containment(r: &CheckReport, ma: &PreparedMesh, mb: &PreparedMesh) -> String {
    // A part of several bodies may have one inside the other part and the rest outside it.
    let part = |name: &str, m: &PreparedMesh| match m.bodies.probes.len() {
        1 => name.to_string(),
        n => format!("{name} (or one of its {n} bodies)"),
    };
    let answer = match r.containment {
        Some(Containment::AInB) => format!("{} is inside B", part("A", ma)),
        Some(Containment::BInA) => format!("{} is inside A", part("B", mb)),
        None => "none".to_string(),
    };
    format!("{answer}{}", uncertain_word(r.containment_certain))
}

/// `--pairs`: every intersecting pair, then every clearance pair.
fn print_pairs(r: &CheckReport) {
    for p in &r.intersect.pairs {
        out!(
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
            out!(
                "  clearance pair {} {}: distance {}",
                p.a,
                p.b,
                number(p.distance)
            );
        }
    }
}

pub const KINDS: [SelfKind; 4] = [
    SelfKind::DisjointVertices,
    SelfKind::SharedVertex,
    SelfKind::SharedEdgeFoldover,
    SelfKind::DuplicateFace,
];

pub fn print_self(
    path: &Path,
    m: &PreparedMesh,
    r: &SelfReport,
    with_pairs: bool,
    backend: &Backend,
) {
    out!("mesh: {} ({})", path.display(), triangles(&m.mesh));
    out!(
        "self-intersects: {}",
        if r.pairs.is_empty() { "no" } else { "yes" }
    );
    out!("pairs: {}", r.pairs.len());
    for k in KINDS {
        if r.count(k) > 0 {
            out!("  {}: {}", k.as_str(), r.count(k));
        }
    }
    out!("zero-area triangles (left out): {}", r.zero_area_triangles);
    if with_pairs {
        for p in &r.pairs {
            out!("  pair {} {}: {}", p.a, p.b, p.kind.as_str());
        }
    }
    out!("backend: {}", backend.name());
    out!("timings (ms): {}", fmt_timings(&r.timings));
}

/// A distance as a person reads it: as written (`0.25`, `3`) within 1e-4 to 1e16, else with an
/// exponent, where the points beside it (`{:?}`) take one too (`{}` wrote 1e300 as its 301
/// digits).
fn number(x: f64) -> String {
    let m = x.abs();
    if m == 0.0 || (1e-4..1e16).contains(&m) || !m.is_finite() {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// "1 triangle", "8700 triangles".
fn triangles(m: &meshclash::Mesh) -> String {
    match m.triangles.len() {
        1 => "1 triangle".into(),
        n => format!("{n} triangles"),
    }
}

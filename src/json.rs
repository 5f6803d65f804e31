//! The answers as the command line's `--json` gives them (the contract in `docs/cli.md`), less
//! what depends on who answered and when: the command line adds `backend`, `adapter` and
//! `timings_ms`; the Python package's `to_dict()` returns these values as they are. One
//! construction for both, so the two cannot drift apart.

use crate::mesh::{Bodies, BoundaryReport, MeshInfo};
use crate::query::{CheckReport, Interference, SelfKind, SelfReport, SolidDistance, Timings};
use crate::DVec3;
use serde_json::{json, Map, Value};

/// A point or vector as a three-number array.
pub fn v3(v: DVec3) -> Value {
    json!([v.x, v.y, v.z])
}

/// Milliseconds per stage (a stage that ran more than once summed), and `total`.
pub fn timings(t: &Timings) -> Value {
    let mut m = Map::new();
    for (k, v) in &t.0 {
        let prev = m.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        m.insert(k.clone(), json!(prev + v));
    }
    m.insert("total".into(), json!(t.total()));
    Value::Object(m)
}

/// `check --json` (with `--pairs`: `with_pairs`).
pub fn check(r: &CheckReport, with_pairs: bool) -> Value {
    let d = &r.distance;
    let piercing = r.intersect.piercing_count();
    let mut out = json!({
        "intersects": r.intersects(),
        "interferes": r.interferes(),
        "containment": r.containment.map(|c| c.as_str()),
        "containment_certain": r.containment_certain,
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

/// `check --quick --json`.
pub fn solid_distance(r: &SolidDistance) -> Value {
    let mut out = json!({
        "interferes": matches!(r, SolidDistance::Interfering(_)),
        "evidence": null,
        "solid_distance": r.distance(),
    });
    match r {
        SolidDistance::Interfering(i) => {
            out["evidence"] = json!(i.as_str());
            out["containment_certain"] = json!(i.certain());
            if let Interference::VertexOfAInB { vertex, point, .. }
            | Interference::VertexOfBInA { vertex, point, .. } = *i
            {
                out["evidence_vertex"] = json!(vertex);
                out["evidence_point"] = v3(point);
            }
        }
        SolidDistance::Apart {
            report: d,
            containment_certain,
        } => {
            out["containment_certain"] = json!(containment_certain);
            out["closest_point_a"] = v3(d.point_a);
            out["closest_point_b"] = v3(d.point_b);
            out["separation"] = v3(d.separation);
            out["triangle_a"] = json!(d.triangle_a);
            out["triangle_b"] = json!(d.triangle_b);
        }
    }
    out
}

/// `self --json` (with `--pairs`: `with_pairs`).
pub fn self_intersections(r: &SelfReport, with_pairs: bool) -> Value {
    let by_kind: Map<String, Value> = SelfKind::ALL
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

/// `info --json`: the mesh's [`MeshInfo`], its bodies (how many, how many closed), the unit its
/// file declares (null where none) and its [`BoundaryReport`].
pub fn info(info: &MeshInfo, bodies: &Bodies, edges: &BoundaryReport, unit: Option<&str>) -> Value {
    let mut v = serde_json::to_value(info).unwrap_or(Value::Null);
    if let (Value::Object(o), Ok(Value::Object(e))) = (&mut v, serde_json::to_value(edges)) {
        o.insert("bodies".into(), bodies.probes.len().into());
        let closed = bodies.closed.iter().filter(|&&c| c).count();
        o.insert("closed_bodies".into(), closed.into());
        o.insert("unit".into(), unit.into());
        o.extend(e);
    }
    v
}

//! The answers as the command line's `--json` gives them (the contract in `docs/cli.md`), less
//! what depends on who answered and when: the command line adds `backend`, `adapter` and
//! `timings_ms`; the Python package's `to_dict()` returns these values as they are. One
//! construction for both, so the two cannot drift apart.

use crate::mesh::{Bodies, BoundaryReport, MeshInfo};
use crate::query::{
    CheckReport, ClearancePair, Interference, PairContact, SelfKind, SelfPair, SelfReport,
    SolidDistance, Timings,
};
use crate::DVec3;
use serde::ser::{SerializeMap, SerializeSeq};
use serde_json::{json, Map, Value};

/// An answer whose lists (pairs, curves) are made into values one element at a time as it is
/// written, never held whole: 50M clearance pairs as values took 24 GB where the answer held
/// 1.4 (a review's helper). `head` is the rest, an object, written first.
pub struct Listed<'a> {
    pub head: Map<String, Value>,
    lists: Vec<(&'static str, List<'a>)>,
}

enum List<'a> {
    Intersecting(&'a [PairContact]),
    Curves(Vec<(DVec3, DVec3)>),
    Clearance(&'a [ClearancePair]),
    SelfPairs(&'a [SelfPair]),
}

impl List<'_> {
    fn len(&self) -> usize {
        match self {
            List::Intersecting(x) => x.len(),
            List::Curves(x) => x.len(),
            List::Clearance(x) => x.len(),
            List::SelfPairs(x) => x.len(),
        }
    }

    fn item(&self, i: usize) -> Value {
        match self {
            List::Intersecting(x) => {
                let p = &x[i];
                json!({
                    "a": p.a, "b": p.b,
                    "class": p.contact.class().map(|c| c.as_str()),
                    "coplanar": p.contact.coplanar,
                    "touching": p.contact.touching,
                })
            }
            List::Curves(x) => json!([v3(x[i].0), v3(x[i].1)]),
            List::Clearance(x) => {
                let p = &x[i];
                json!({"a": p.a, "b": p.b, "distance": p.distance, "intersects": p.intersects})
            }
            List::SelfPairs(x) => json!({"a": x[i].a, "b": x[i].b, "kind": x[i].kind.as_str()}),
        }
    }
}

/// A list written as a sequence, its elements made as they go.
struct Items<'l, 'a>(&'l List<'a>);

impl serde::Serialize for Items<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for i in 0..self.0.len() {
            seq.serialize_element(&self.0.item(i))?;
        }
        seq.end()
    }
}

impl serde::Serialize for Listed<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.head.len() + self.lists.len()))?;
        for (k, v) in &self.head {
            map.serialize_entry(k, v)?;
        }
        for (k, list) in &self.lists {
            map.serialize_entry(k, &Items(list))?;
        }
        map.end()
    }
}

impl Listed<'_> {
    /// Everything as one value (the Python package's `to_dict`), the lists after the head.
    pub fn into_value(self) -> Value {
        let mut out = self.head;
        for (k, list) in &self.lists {
            let items = (0..list.len()).map(|i| list.item(i)).collect();
            out.insert(k.to_string(), Value::Array(items));
        }
        Value::Object(out)
    }
}

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

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
    check_listed(r, with_pairs).into_value()
}

/// [`check`], its lists written as they go.
pub fn check_listed(r: &CheckReport, with_pairs: bool) -> Listed<'_> {
    let d = &r.distance;
    let piercing = r.intersect.piercing_count();
    let out = json!({
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
    let mut lists = Vec::new();
    if with_pairs {
        lists.push(("pairs", List::Intersecting(&r.intersect.pairs)));
        lists.push(("curves", List::Curves(r.intersect.curve_segments())));
        if let Some(c) = &r.clearance {
            lists.push(("clearance_pairs", List::Clearance(&c.pairs)));
        }
    }
    Listed {
        head: object(out),
        lists,
    }
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
    self_listed(r, with_pairs).into_value()
}

/// [`self_intersections`], its pairs written as they go.
pub fn self_listed(r: &SelfReport, with_pairs: bool) -> Listed<'_> {
    let by_kind: Map<String, Value> = SelfKind::ALL
        .iter()
        .filter(|k| r.count(**k) > 0)
        .map(|k| (k.as_str().to_string(), json!(r.count(*k))))
        .collect();
    let out = json!({
        "self_intersects": !r.pairs.is_empty(),
        "pair_count": r.pairs.len(),
        "by_kind": by_kind,
        "zero_area_triangles": r.zero_area_triangles,
        "candidate_pairs": r.candidates,
    });
    let pairs = List::SelfPairs(&r.pairs);
    Listed {
        head: object(out),
        lists: with_pairs.then_some(("pairs", pairs)).into_iter().collect(),
    }
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

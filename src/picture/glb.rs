//! A GLB (binary glTF 2.0) of a [`Scene`], for Blender, three.js, trimesh and any viewer: a
//! node per part with a primitive per mark (plain, near in orange, clashing in red), the
//! intersection curves and the closest segment as line primitives. glTF holds `f32`, so the
//! coordinates are re-centred on the scene's focus; the offset is kept in `f64` in the root
//! node's `extras` (`meshclash_offset`), not applied, so nothing is lost to rounding. Each
//! part's own coordinates are about the point of its box nearest the focus, which its node's
//! translation places: two small parts far apart keep their shapes (about one centre they
//! were rounded flat).

use super::raster::{CLASH, CLOSEST, CURVE, NEAR, PART_A, PART_B};
use super::{Mark, Scene};
use crate::error::{Error, Result};
use crate::geom::DVec3;
use serde_json::{json, Value};

const LINES: u32 = 1;
const TRIANGLES: u32 = 4;
const FLOAT: u32 = 5126;
const ARRAY_BUFFER: u32 = 34962;

/// The scene as GLB bytes; an error past GLB's 4 GiB.
pub fn glb(scene: &Scene) -> Result<Vec<u8>> {
    let offset = scene.focus.center();
    let mut doc = Doc::default();
    let mut nodes = Vec::new();
    for (k, part) in scene.parts.iter().enumerate() {
        let base = if k == 0 { PART_A } else { PART_B };
        // The point of the part's box nearest the focus: the focus itself for a part at the
        // clash, where the coordinates matter most (a part's own centre far from it, a body
        // far away, rounded the clash's faces; a review's helper); near it for a part far
        // away. A part of no triangles has no box: the focus stands in.
        let b = super::bounds(part);
        let centre = match b.min.is_finite() && b.max.is_finite() {
            true => offset.clamp(b.min, b.max),
            false => offset,
        };
        let mut primitives = Vec::new();
        for (mark, colour, name) in [
            (Mark::Plain, base, "plain"),
            (Mark::Near, NEAR, "within clearance"),
            (Mark::Clash, CLASH, "clashing"),
        ] {
            let points: Vec<DVec3> = part
                .triangles
                .iter()
                .zip(&part.marks)
                .filter(|(_, &m)| m == mark)
                .flat_map(|(t, _)| *t)
                .collect();
            if let Some(p) = doc.primitive(&points, centre, TRIANGLES, colour, name)? {
                primitives.push(p);
            }
        }
        let node = doc.node(part.name, primitives);
        doc.nodes[node]["translation"] = json!((centre - offset).to_array());
        nodes.push(node);
    }
    let curves: Vec<DVec3> = scene.curves.iter().flat_map(|&(p, q)| [p, q]).collect();
    // Dark red, as the PNG draws them: the clash's red would vanish on the red faces.
    if let Some(p) = doc.primitive(&curves, offset, LINES, CURVE, "intersection curves")? {
        nodes.push(doc.node("intersection curves", vec![p]));
    }
    if let Some((p, q)) = scene.closest {
        if let Some(p) = doc.primitive(&[p, q], offset, LINES, CLOSEST, "closest segment")? {
            nodes.push(doc.node("closest segment", vec![p]));
        }
    }
    doc.finish(nodes, offset)
}

#[derive(Default)]
struct Doc {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
    materials: Vec<Value>,
    meshes: Vec<Value>,
    nodes: Vec<Value>,
}

impl Doc {
    /// A primitive of `points` (re-centred by `offset`) drawn in `mode`; none if empty.
    fn primitive(
        &mut self,
        points: &[DVec3],
        offset: DVec3,
        mode: u32,
        colour: [u8; 3],
        name: &str,
    ) -> Result<Option<Value>> {
        if points.is_empty() {
            return Ok(None);
        }
        let local: Vec<[f32; 3]> = points
            .iter()
            .map(|&p| (p - offset).as_vec3().to_array())
            .collect();
        if local.iter().flatten().any(|c| !c.is_finite()) {
            return Err(Error::Argument(
                "--glb: coordinates beyond f32's range from the picture's centre (GLB holds f32): parts this far apart cannot be drawn in one GLB".into(),
            ));
        }
        let (mut min, mut max) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        for p in &local {
            for k in 0..3 {
                min[k] = min[k].min(p[k]);
                max[k] = max[k].max(p[k]);
            }
        }
        self.views.push(json!({
            "buffer": 0,
            "byteOffset": self.bin.len(),
            "byteLength": local.len() * 12,
            "target": ARRAY_BUFFER,
        }));
        self.bin.extend(bytemuck::cast_slice(&local));
        self.accessors.push(json!({
            "bufferView": self.views.len() - 1,
            "componentType": FLOAT,
            "count": local.len(),
            "type": "VEC3",
            "min": min,
            "max": max,
        }));
        let rgb = colour.map(|c| srgb_to_linear(c as f64));
        self.materials.push(json!({
            "name": name,
            "doubleSided": true,
            "pbrMetallicRoughness": {
                "baseColorFactor": [rgb[0], rgb[1], rgb[2], 1.0],
                "metallicFactor": 0.0,
                "roughnessFactor": 0.8,
            },
        }));
        Ok(Some(json!({
            "attributes": {"POSITION": self.accessors.len() - 1},
            "mode": mode,
            "material": self.materials.len() - 1,
        })))
    }

    /// A node named `name` with a mesh of `primitives`; none (glTF requires one primitive at
    /// least) for a part of no triangles.
    fn node(&mut self, name: &str, primitives: Vec<Value>) -> usize {
        let mut node = json!({ "name": name });
        if !primitives.is_empty() {
            self.meshes
                .push(json!({"name": name, "primitives": primitives}));
            node["mesh"] = json!(self.meshes.len() - 1);
        }
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    fn finish(mut self, children: Vec<usize>, offset: DVec3) -> Result<Vec<u8>> {
        self.nodes.push(json!({
            "name": "meshclash",
            "children": children,
            "extras": {"meshclash_offset": offset.to_array()},
        }));
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let doc = json!({
            "asset": {"version": "2.0", "generator": concat!("meshclash ", env!("CARGO_PKG_VERSION"))},
            "scene": 0,
            "scenes": [{"nodes": [self.nodes.len() - 1]}],
            "nodes": self.nodes,
            "meshes": self.meshes,
            "materials": self.materials,
            "accessors": self.accessors,
            "bufferViews": self.views,
            "buffers": [{"byteLength": self.bin.len()}],
        });
        let mut text = doc.to_string().into_bytes();
        while !text.len().is_multiple_of(4) {
            text.push(b' ');
        }
        let total = 12 + 8 + text.len() + 8 + self.bin.len();
        if total > u32::MAX as usize {
            return Err(Error::Argument(format!(
                "the scene needs a {total}-byte GLB, more than GLB's 4 GiB"
            )));
        }
        let mut out = Vec::with_capacity(total);
        out.extend(b"glTF");
        out.extend(2u32.to_le_bytes());
        out.extend((total as u32).to_le_bytes());
        out.extend((text.len() as u32).to_le_bytes());
        out.extend(b"JSON");
        out.extend(text);
        out.extend((self.bin.len() as u32).to_le_bytes());
        out.extend(b"BIN\0");
        out.extend(self.bin);
        Ok(out)
    }
}

/// glTF colour factors are linear; the picture's colours are sRGB.
fn srgb_to_linear(c: f64) -> f64 {
    let c = c / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

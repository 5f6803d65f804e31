//! 3MF (3D Manufacturing Format): a zip (OPC package) holding XML model parts. Every build item
//! is placed with its transform, every object's mesh and every component (also those in other
//! model parts, the production extension's `p:path`) with theirs composed. The model's `unit` is
//! kept. Decompression is capped (a zip bomb is an error, not an exhausted memory), and
//! instancing is capped by [`super::expansion_limit`].

use super::{expansion_limit, fault, Extent, Loaded, Soup};
use crate::error::Result;
use glam::{DAffine3, DMat3, DVec3};
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::Path;

/// The most bytes all parts of a package may decompress to.
pub const MAX_DECOMPRESSED: u64 = 1 << 30;
/// Components nest at most this deep (a cycle would nest forever).
const MAX_DEPTH: usize = 32;
const MODEL_REL: &str = "http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel";
const DEFAULT_MODEL: &str = "3D/3dmodel.model";
/// The core specification's namespace: its elements are the mesh (an element of another is an
/// extension's, a vendor's support structure, a displacement map: never the mesh's vertices).
const CORE: &str = "http://schemas.microsoft.com/3dmanufacturing/core/2015/02";
/// Extensions a document may require (`requiredextensions`) that leave the core mesh as it is:
/// production (objects in other parts, read), materials (colours) and triangle sets (names for
/// groups of triangles), both ignored. Any other, a displacement, a boolean shape, a beam
/// lattice, slices, makes a different shape, and the spec (3.4) says a reader that does not
/// know it must not process the document.
const KNOWN: [&str; 3] = [
    "http://schemas.microsoft.com/3dmanufacturing/production/2015/06",
    "http://schemas.microsoft.com/3dmanufacturing/material/2015/02",
    "http://schemas.microsoft.com/3dmanufacturing/trianglesets/2021/07",
];

/// A 3MF package from bytes.
pub fn read_3mf(bytes: &[u8], path: &Path) -> Result<Loaded> {
    read_3mf_capped(bytes, path, MAX_DECOMPRESSED)
}

/// [`read_3mf`] with the decompression cap given (tests use a small one).
#[doc(hidden)]
pub fn read_3mf_capped(bytes: &[u8], path: &Path, cap: u64) -> Result<Loaded> {
    Package::open(bytes, cap)
        .and_then(|mut p| p.read(bytes.len()))
        .map_err(|m| fault(path, "3MF", m))
}

/// An object of a model part: a mesh, or components placing other objects.
#[derive(Default)]
struct Object {
    vertices: Vec<[f32; 3]>,
    triangles: Vec<[u32; 3]>,
    /// (model part, object id, transform).
    components: Vec<(String, String, DAffine3)>,
}

/// Objects by (model part, id).
type Objects = HashMap<(String, String), Object>;

struct Package<'a> {
    zip: zip::ZipArchive<std::io::Cursor<&'a [u8]>>,
    /// Bytes decompressed so far, against `cap`.
    taken: u64,
    cap: u64,
    objects: Objects,
}

impl<'a> Package<'a> {
    fn open(bytes: &'a [u8], cap: u64) -> Result<Package<'a>, String> {
        let zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
            .map_err(|e| format!("not a readable zip package: {e}"))?;
        Ok(Package {
            zip,
            taken: 0,
            cap,
            objects: HashMap::new(),
        })
    }

    fn read(&mut self, package_bytes: usize) -> Result<Loaded, String> {
        let root = self.root_model()?;
        let text = self.text(&root)?;
        let doc = xml(&text, &root)?;
        let model = doc.root_element();
        required_extensions(model, &root)?;
        let unit = model.attribute("unit").unwrap_or("millimeter").to_string();
        let items = build_items(&root, model)?;
        let mut todo = self.load_objects(&root, model)?;
        todo.extend(items.iter().map(|(part, _, _)| part.clone()));
        self.load_parts(todo)?;
        let mut known = HashMap::new();
        let mut total = Extent::default();
        for (part, id, _) in &items {
            total = total.and(self.extent(part, id, 0, &mut known)?);
        }
        total.within(expansion_limit(package_bytes), "build")?;
        let mut soup = Soup::with_capacity(total.triangles as usize);
        for (part, id, transform) in &items {
            self.place(part, id, *transform, &mut soup)?;
        }
        Ok(Loaded {
            soup,
            unit: Some(unit),
        })
    }

    /// The objects of every part in `todo` and of the parts their components name, each part
    /// read once (a worklist: a chain of parts cannot nest the reader's calls).
    fn load_parts(&mut self, mut todo: Vec<String>) -> Result<(), String> {
        let mut loaded: HashSet<String> = self.objects.keys().map(|(p, _)| p.clone()).collect();
        while let Some(part) = todo.pop() {
            if !loaded.insert(part.clone()) {
                continue;
            }
            let text = self.text(&part)?;
            let doc = xml(&text, &part)?;
            required_extensions(doc.root_element(), &part)?;
            todo.extend(self.load_objects(&part, doc.root_element())?);
        }
        Ok(())
    }

    /// The model part the package's relationships name as its start part, else the usual one.
    fn root_model(&mut self) -> Result<String, String> {
        if self.entry("_rels/.rels").is_none() {
            return Ok(DEFAULT_MODEL.into());
        }
        let text = self.text("_rels/.rels")?;
        let doc = xml(&text, "_rels/.rels")?;
        let target = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "Relationship")
            .find(|n| n.attribute("Type") == Some(MODEL_REL))
            .and_then(|n| n.attribute("Target"));
        Ok(target.map_or(DEFAULT_MODEL.into(), part_name))
    }

    /// The zip entry of part `name`: OPC compares part names without regard to ASCII case (a
    /// review's helper: a relationship's target differing in case from its entry was "not
    /// found"), so an exact match first, else one that differs only in case.
    fn entry(&self, name: &str) -> Option<usize> {
        self.zip.index_for_name(name).or_else(|| {
            let same = |n: &&str| n.eq_ignore_ascii_case(name);
            let found = self.zip.file_names().find(same)?;
            self.zip.index_for_name(found)
        })
    }

    /// A part's text, its decompressed size counted against the cap.
    fn text(&mut self, name: &str) -> Result<String, String> {
        let index = self
            .entry(name)
            .ok_or_else(|| format!("part {name:?}: specified file not found in archive"))?;
        let entry = self
            .zip
            .by_index(index)
            .map_err(|e| format!("part {name:?}: {e}"))?;
        let room = self.cap - self.taken;
        let mut bytes = Vec::new();
        entry
            .take(room + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("part {name:?}: cannot decompress: {e}"))?;
        if bytes.len() as u64 > room {
            return Err(format!(
                "the package decompresses to more than {} bytes (a zip bomb, or a model too large to read)",
                self.cap
            ));
        }
        self.taken += bytes.len() as u64;
        String::from_utf8(bytes).map_err(|_| format!("part {name:?} is not UTF-8 text"))
    }

    /// The objects of model part `part`; the other parts their components name.
    fn load_objects(&mut self, part: &str, model: roxmltree::Node) -> Result<Vec<String>, String> {
        let mut others = Vec::new();
        for node in core_children(model, "resources").flat_map(|r| core_children(r, "object")) {
            let id = attr(node, "id", part)?.to_string();
            let object = object(node, part)?;
            others.extend(
                object
                    .components
                    .iter()
                    .filter(|(other, _, _)| other != part)
                    .map(|(other, _, _)| other.clone()),
            );
            self.objects.insert((part.to_string(), id), object);
        }
        Ok(others)
    }

    fn object(&self, part: &str, id: &str) -> Result<&Object, String> {
        self.objects
            .get(&(part.to_string(), id.to_string()))
            .ok_or_else(|| format!("{part}: no object with id {id:?}"))
    }

    /// What placing object `id` takes, components included. Extents are kept in `known`: ten
    /// levels of ten components would otherwise be 10^10 visits. A cached extent still counts
    /// its height, so no order of build items lets a chain nest deeper than [`MAX_DEPTH`].
    fn extent(
        &self,
        part: &str,
        id: &str,
        depth: usize,
        known: &mut HashMap<(String, String), Extent>,
    ) -> Result<Extent, String> {
        let key = (part.to_string(), id.to_string());
        let cached = known.get(&key).copied();
        if depth + cached.map_or(0, |e| e.height) > MAX_DEPTH {
            return Err(format!(
                "components nest deeper than {MAX_DEPTH} (a cycle?) at object {id:?}"
            ));
        }
        if let Some(e) = cached {
            return Ok(e);
        }
        let o = self.object(part, id)?;
        let mut e = Extent::of(o.vertices.len(), o.triangles.len());
        for (p, i, _) in &o.components {
            e = e.and(self.extent(p, i, depth + 1, known)?.under());
        }
        known.insert(key, e);
        Ok(e)
    }

    fn place(&self, part: &str, id: &str, t: DAffine3, soup: &mut Soup) -> Result<(), String> {
        // Depth, cycles and work were bounded by `extent`, which saw the same objects.
        let o = self.object(part, id)?;
        let moved: Vec<[f32; 3]> = o
            .vertices
            .iter()
            .map(|v| {
                let p = t.transform_point3(DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64));
                p.as_vec3().to_array()
            })
            .collect();
        // A mirroring transform must not turn the shape inside out (3MF core, 3.3): the
        // winding is reversed with it.
        let flip = t.matrix3.determinant() < 0.0;
        soup.extend(o.triangles.iter().map(|t| {
            let [a, b, c] = t.map(|i| moved[i as usize]);
            if flip {
                [a, c, b]
            } else {
                [a, b, c]
            }
        }));
        for (p, i, c) in &o.components {
            self.place(p, i, t * *c, soup)?;
        }
        Ok(())
    }
}

/// A zip entry's name for an OPC part name ("/3D/3dmodel.model" → "3D/3dmodel.model").
fn part_name(target: &str) -> String {
    target.trim_start_matches('/').to_string()
}

fn xml<'t>(text: &'t str, part: &str) -> Result<roxmltree::Document<'t>, String> {
    roxmltree::Document::parse(text).map_err(|e| format!("part {part:?}: bad XML: {e}"))
}

/// `node`'s child elements named `name` in the core namespace, or in none (a writer that
/// declares no namespace at all): a review's helper's vendor element inside a mesh, its own
/// `<x:triangle>` in it, was read as one of the mesh's triangles.
fn core_children<'a, 'input: 'a>(
    node: roxmltree::Node<'a, 'input>,
    name: &'a str,
) -> impl Iterator<Item = roxmltree::Node<'a, 'input>> + 'a {
    node.children().filter(move |n| {
        n.is_element()
            && n.tag_name().name() == name
            && matches!(n.tag_name().namespace(), None | Some(CORE))
    })
}

/// Refuses a model part that requires an extension this reader does not know ([`KNOWN`]):
/// read as core alone, a displaced mesh lost its displacement and a boolean shape its cube (a
/// review's helper).
fn required_extensions(model: roxmltree::Node, part: &str) -> Result<(), String> {
    let Some(required) = model.attribute("requiredextensions") else {
        return Ok(());
    };
    for prefix in required.split_whitespace() {
        let uri = model.lookup_namespace_uri(Some(prefix)).unwrap_or(prefix);
        if !KNOWN.contains(&uri) {
            return Err(format!(
                "{part}: requires the 3MF extension {uri:?} ({prefix:?}), which changes the \
                 shape and is not read here"
            ));
        }
    }
    Ok(())
}

fn attr<'n>(node: roxmltree::Node<'n, '_>, name: &str, part: &str) -> Result<&'n str, String> {
    node.attribute(name).ok_or_else(|| {
        let line = node.document().text_pos_at(node.range().start).row;
        format!(
            "{part}:{line}: <{}> has no {name:?} attribute",
            node.tag_name().name()
        )
    })
}

fn number(node: roxmltree::Node, name: &str, part: &str) -> Result<f64, String> {
    let text = attr(node, name, part)?;
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| {
            let line = node.document().text_pos_at(node.range().start).row;
            format!("{part}:{line}: {name}={text:?} is not a finite number")
        })
}

/// A vertex coordinate: its decimal rounded once, to the nearest f32 (through f64, one just
/// past the midpoint of two f32 rounds to the midpoint, then to even: a review's helper read a
/// face meant to touch 1.2e-7 apart).
fn coordinate(node: roxmltree::Node, name: &str, part: &str) -> Result<f32, String> {
    let v = number(node, name, part)?;
    Ok(attr(node, name, part)?
        .trim()
        .parse::<f32>()
        .unwrap_or(v as f32))
}

/// An `<object>`: its mesh's vertices and triangles, its components.
fn object(node: roxmltree::Node, part: &str) -> Result<Object, String> {
    let mut o = Object::default();
    let meshes = || core_children(node, "mesh");
    let vertices = meshes().flat_map(|m| core_children(m, "vertices"));
    let triangles = meshes().flat_map(|m| core_children(m, "triangles"));
    let components = core_children(node, "components");
    let elements = (vertices.flat_map(|v| core_children(v, "vertex")))
        .chain(triangles.flat_map(|t| core_children(t, "triangle")))
        .chain(components.flat_map(|c| core_children(c, "component")));
    for n in elements {
        match n.tag_name().name() {
            "vertex" => o.vertices.push([
                coordinate(n, "x", part)?,
                coordinate(n, "y", part)?,
                coordinate(n, "z", part)?,
            ]),
            "triangle" => {
                let mut t = [0u32; 3];
                for (slot, key) in t.iter_mut().zip(["v1", "v2", "v3"]) {
                    let text = attr(n, key, part)?;
                    *slot = text.trim().parse().map_err(|_| {
                        format!("{part}: triangle {key}={text:?} is not a vertex index")
                    })?;
                }
                o.triangles.push(t);
            }
            "component" => {
                let id = attr(n, "objectid", part)?.to_string();
                let other = n.attribute("path").map_or(part.to_string(), part_name);
                o.components.push((other, id, transform(n, part)?));
            }
            _ => {}
        }
    }
    let n = o.vertices.len();
    if let Some(t) = o
        .triangles
        .iter()
        .find(|t| t.iter().any(|&i| i as usize >= n))
    {
        return Err(format!(
            "{part}: object {:?}: triangle {t:?} names a vertex past its {n} vertices",
            node.attribute("id").unwrap_or("?")
        ));
    }
    Ok(o)
}

/// The build's items: (part, object id, transform).
fn build_items(
    part: &str,
    model: roxmltree::Node,
) -> Result<Vec<(String, String, DAffine3)>, String> {
    let build = core_children(model, "build")
        .next()
        .ok_or("the model has no <build>")?;
    core_children(build, "item")
        .map(|n| {
            let other = n.attribute("path").map_or(part.to_string(), part_name);
            Ok((
                other,
                attr(n, "objectid", part)?.to_string(),
                transform(n, part)?,
            ))
        })
        .collect()
}

/// A `transform` attribute: 12 numbers, the 3MF 4×3 matrix of a row vector times the matrix
/// (`x' = x·m00 + y·m10 + z·m20 + m30`, and so on); the identity when absent.
fn transform(node: roxmltree::Node, part: &str) -> Result<DAffine3, String> {
    let Some(text) = node.attribute("transform") else {
        return Ok(DAffine3::IDENTITY);
    };
    let m: Vec<f64> = text
        .split_whitespace()
        .map(|w| w.parse::<f64>().ok().filter(|v| v.is_finite()))
        .collect::<Option<_>>()
        .filter(|m: &Vec<f64>| m.len() == 12)
        .ok_or_else(|| format!("{part}: transform {text:?} is not 12 finite numbers"))?;
    // Row r of the 4×3 matrix is the image of axis r: the columns of the usual matrix.
    let col = |r: usize| DVec3::new(m[3 * r], m[3 * r + 1], m[3 * r + 2]);
    Ok(DAffine3 {
        matrix3: DMat3::from_cols(col(0), col(1), col(2)),
        translation: col(3),
    })
}

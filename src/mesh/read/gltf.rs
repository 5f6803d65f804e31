//! glTF 2.0, as JSON (`.gltf`, buffers embedded as data URIs or in files beside it) or binary
//! (`.glb`): every triangle primitive (triangles, strips and fans) of every mesh that the scene's
//! nodes place, with the nodes' transforms composed. The `gltf` crate parses and validates the
//! document; the buffers are read here, every accessor's extent checked against its view and
//! buffer before a byte is taken, so a forged count allocates nothing.

use super::{expansion_limit, fault, read_regular_file, Extent, Loaded, Soup};
use crate::error::{Error, Result};
use base64::Engine;
use glam::{DMat3, DMat4, DQuat, DVec3};
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::Mode;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Nodes nest at most this deep (a cycle would nest forever).
const MAX_DEPTH: usize = 64;

/// A glTF or GLB file from bytes; buffers in other files are read beside `path`.
pub fn read_gltf(bytes: &[u8], path: &Path) -> Result<Loaded> {
    let bad = |m: String| fault(path, "glTF", m);
    let gltf = parse(bytes).map_err(bad)?;
    let (buffers, beside_bytes) = buffers(&gltf, path)?;
    let doc = &gltf.document;
    let roots = roots(doc);
    let mut known = vec![None; doc.nodes().len()];
    let mut total = Extent::default();
    for (node, _) in &roots {
        total = total.and(extent(node.clone(), 0, &mut known).map_err(bad)?);
    }
    // Against the file and the buffer files beside it, each once, as a GLB's own chunk counts
    // (a review's helper: a .gltf of 569 bytes was held to 2^20 triangles where its 20 MB
    // .bin held more, read whole as a .glb): nodes sharing a buffer add nothing to it.
    total
        .within(
            expansion_limit(bytes.len().saturating_add(beside_bytes)),
            "scene",
        )
        .map_err(bad)?;
    // Not reserved ahead: the counts are the accessors' own, checked only as they are read.
    let mut soup = Soup::new();
    for (node, t) in roots {
        place(node, t, &buffers, &mut soup).map_err(bad)?;
    }
    Ok(Loaded {
        soup,
        unit: Some("meter".into()),
    })
}

/// The document, validated. gltf-json's validation indexes a primitive's POSITION accessor
/// before checking that it exists (a panic on a forged index): the primitives' accessor indices
/// are checked here first.
fn parse(bytes: &[u8]) -> Result<gltf::Gltf, String> {
    // The gltf crate subtracts 12 from a GLB's declared length unchecked (an overflow panic
    // in builds with overflow checks): a header that short is refused here.
    if bytes.starts_with(b"glTF") {
        let declared = bytes
            .get(8..12)
            .map(|l| u32::from_le_bytes([l[0], l[1], l[2], l[3]]));
        if declared.is_none_or(|l| l < 12) {
            return Err("a GLB header shorter than its 12 bytes".into());
        }
    }
    let raw = gltf::Gltf::from_slice_without_validation(bytes).map_err(|e| e.to_string())?;
    let json = raw.document.as_json();
    let accessors = json.accessors.len();
    for (m, mesh) in json.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let mut used = primitive.attributes.values().chain(&primitive.indices);
            if let Some(i) = used.find(|i| i.value() >= accessors) {
                return Err(format!(
                    "mesh {m} primitive {p} names accessor {} of {accessors}",
                    i.value()
                ));
            }
        }
    }
    let document =
        gltf::Document::from_json(raw.document.into_json()).map_err(|e| e.to_string())?;
    Ok(gltf::Gltf {
        document,
        blob: raw.blob,
    })
}

/// Every buffer's bytes: the GLB's binary chunk (buffer 0 only, as the specification says), a
/// data URI, or a file beside `path`; and how many bytes those files hold, each counted once.
/// Shared, not copied: many buffers may name one chunk or file, which is read once.
fn buffers(gltf: &gltf::Gltf, path: &Path) -> Result<(Vec<Rc<[u8]>>, usize)> {
    let bad = |m: String| fault(path, "glTF", m);
    let blob: Option<Rc<[u8]>> = gltf.blob.as_deref().map(Rc::from);
    let mut files: HashMap<&str, Rc<[u8]>> = HashMap::new();
    let mut out = Vec::new();
    for b in gltf.document.buffers() {
        let data = match b.source() {
            gltf::buffer::Source::Bin if b.index() == 0 => blob
                .clone()
                .ok_or_else(|| bad("buffer 0 is the GLB binary chunk, but there is none".into()))?,
            gltf::buffer::Source::Bin => {
                return Err(bad(format!(
                    "buffer {} has no uri: only buffer 0 may be the GLB chunk",
                    b.index()
                )))
            }
            gltf::buffer::Source::Uri(uri) => match uri.strip_prefix("data:") {
                Some(data) => {
                    Rc::from(data_uri(data).map_err(|m| bad(format!("buffer {}: {m}", b.index())))?)
                }
                None => match files.get(uri) {
                    Some(data) => data.clone(),
                    None => {
                        let data: Rc<[u8]> = Rc::from(beside(path, uri)?);
                        files.insert(uri, data.clone());
                        data
                    }
                },
            },
        };
        if data.len() < b.length() {
            return Err(bad(format!(
                "buffer {} holds {} bytes, less than its byteLength {}",
                b.index(),
                data.len(),
                b.length()
            )));
        }
        out.push(data);
    }
    Ok((out, files.values().map(|f| f.len()).sum()))
}

fn data_uri(data: &str) -> Result<Vec<u8>, String> {
    let (_, payload) = data
        .split_once(";base64,")
        .ok_or("a data URI that is not base64")?;
    base64::engine::general_purpose::STANDARD
        .decode(payload)
        .map_err(|e| format!("bad base64: {e}"))
}

/// The files beside a glTF or GLB file that its buffers name, for a command that must not
/// write over an input (a review's helper: `--out buf0.json` replaced a .gltf's buffer, which
/// then read as 281 bytes). Only the JSON is read (a GLB's first chunk); none where the file
/// cannot be read or parsed, which loading it reports.
pub fn buffer_files(path: &Path) -> Vec<PathBuf> {
    let ext = path.extension().and_then(|e| e.to_str());
    let json = match ext.map(|e| e.to_ascii_lowercase()).as_deref() {
        Some("gltf") => read_regular_file(path).ok(),
        Some("glb") => glb_json(path),
        _ => None,
    };
    let Some(doc) = json.and_then(|j| serde_json::from_slice::<serde_json::Value>(&j).ok()) else {
        return Vec::new();
    };
    let uris = doc["buffers"].as_array().into_iter().flatten();
    uris.filter_map(|b| b["uri"].as_str())
        .filter(|uri| !uri.starts_with("data:"))
        .map(|uri| beside_path(path, uri))
        .collect()
}

/// A GLB's JSON chunk, read alone: a 12-byte header, then the chunk's length and type.
fn glb_json(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    if !std::fs::metadata(path).ok()?.is_file() {
        return None; // a FIFO would block, a device never end
    }
    let mut file = std::fs::File::open(path).ok()?;
    let mut head = [0u8; 20];
    file.read_exact(&mut head).ok()?;
    let length = u32::from_le_bytes(head[12..16].try_into().ok()?);
    if &head[..4] != b"glTF" || &head[16..20] != b"JSON" {
        return None;
    }
    let mut json = Vec::new();
    file.take(u64::from(length)).read_to_end(&mut json).ok()?;
    Some(json)
}

/// Where a buffer's `uri` leads: relative to the glTF file, percent-escapes decoded.
fn beside_path(path: &Path, uri: &str) -> PathBuf {
    path.parent()
        .unwrap_or(Path::new("."))
        .join(percent_decode(uri))
}

/// A buffer in a file named relative to the glTF file (percent-escapes decoded).
fn beside(path: &Path, uri: &str) -> Result<Vec<u8>> {
    let file = beside_path(path, uri);
    read_regular_file(&file).map_err(|e| match e {
        Error::Io { source, .. } => fault(
            path,
            "glTF",
            format!("its buffer {uri:?} ({}): {source}", file.display()),
        ),
        other => other,
    })
}

fn percent_decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The nodes to place, at the identity: the default scene's (else the first scene's) roots;
/// without scenes, every node that is no other node's child.
fn roots(doc: &gltf::Document) -> Vec<(gltf::Node<'_>, DMat4)> {
    if let Some(scene) = doc.default_scene().or_else(|| doc.scenes().next()) {
        return scene.nodes().map(|n| (n, DMat4::IDENTITY)).collect();
    }
    let mut child = vec![false; doc.nodes().len()];
    for n in doc.nodes() {
        for c in n.children() {
            child[c.index()] = true;
        }
    }
    doc.nodes()
        .filter(|n| !child[n.index()])
        .map(|n| (n, DMat4::IDENTITY))
        .collect()
}

/// A node's transform, in `f64` from the file's `f32` values.
fn local(node: &gltf::Node) -> DMat4 {
    match node.transform() {
        gltf::scene::Transform::Matrix { matrix } => {
            DMat4::from_cols_array_2d(&matrix.map(|c| c.map(f64::from)))
        }
        gltf::scene::Transform::Decomposed {
            translation,
            rotation,
            scale,
        } => DMat4::from_scale_rotation_translation(
            DVec3::from_array(scale.map(f64::from)),
            DQuat::from_array(rotation.map(f64::from)).normalize(),
            DVec3::from_array(translation.map(f64::from)),
        ),
    }
}

/// What placing a node and its children takes. Extents are kept in `known` (by node): nodes
/// that share children could otherwise ask for exponentially many visits; a cached extent
/// still counts its height, so no order of roots lets a chain nest deeper than [`MAX_DEPTH`].
fn extent(node: gltf::Node, depth: usize, known: &mut [Option<Extent>]) -> Result<Extent, String> {
    let cached = known[node.index()];
    if depth + cached.map_or(0, |e| e.height) > MAX_DEPTH {
        return Err(format!("nodes nest deeper than {MAX_DEPTH} (a cycle?)"));
    }
    if let Some(e) = cached {
        return Ok(e);
    }
    let mut e = Extent::of(0, 0);
    let weights = node
        .weights()
        .or(node.mesh().and_then(|m| m.weights()))
        .unwrap_or(&[]);
    for p in node.mesh().iter().flat_map(|m| m.primitives()) {
        // Each morph target that moves the positions reads them all again (a review's helper:
        // a thousand targets naming one accessor, placed by twenty nodes, took 14 s of work
        // this count did not see).
        let moving = p
            .morph_targets()
            .zip(weights)
            .filter(|(t, &w)| w != 0.0 && t.positions().is_some())
            .count();
        let points = p.get(&gltf::Semantic::Positions).map_or(0, |a| a.count());
        let read = points.saturating_mul(1 + moving);
        let n = p.indices().map_or(points, |a| a.count());
        let triangles = match p.mode() {
            Mode::Triangles => n / 3,
            Mode::TriangleStrip | Mode::TriangleFan => n.saturating_sub(2),
            _ => 0,
        };
        e = e.and(Extent::of(read, triangles));
    }
    for c in node.children() {
        e = e.and(extent(c, depth + 1, known)?.under());
    }
    known[node.index()] = Some(e);
    Ok(e)
}

fn place(
    node: gltf::Node,
    parent: DMat4,
    buffers: &[Rc<[u8]>],
    soup: &mut Soup,
) -> Result<(), String> {
    // Depth, cycles and work were bounded by `extent`, which saw the same nodes.
    let t = parent * local(&node);
    if let (Some(_), Some(skin)) = (node.mesh(), node.skin()) {
        // A skinned mesh is placed by its joints, each vertex by its weights, and the node's
        // own transform is ignored (glTF 2.0, "Skins"): read at the node's, a review's
        // helper's was 100 off and unposed. Refused rather than read wrong.
        return Err(format!(
            "node {} is skinned (skin {}): its shape is posed by the skin's joints, which are \
             not read; export it with the skin applied",
            node.index(),
            skin.index()
        ));
    }
    if let Some(mesh) = node.mesh() {
        // The morph targets' weights: the node's, else the mesh's (glTF 2.0, "Morph Targets").
        let weights = node.weights().or(mesh.weights()).unwrap_or(&[]);
        for p in mesh.primitives() {
            primitive(&p, (t, weights), buffers, soup)
                .map_err(|m| format!("mesh {} primitive {}: {m}", mesh.index(), p.index()))?;
        }
    }
    for c in node.children() {
        place(c, t, buffers, soup)?;
    }
    Ok(())
}

/// A primitive's triangles, its positions moved by its morph targets' `weights`, under `t`
/// (winding reversed where `t` mirrors, as the glTF specification says). Points and lines are
/// left out.
fn primitive(
    p: &gltf::Primitive,
    (t, weights): (DMat4, &[f32]),
    buffers: &[Rc<[u8]>],
    soup: &mut Soup,
) -> Result<(), String> {
    let mode = p.mode();
    if !matches!(
        mode,
        Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
    ) {
        return Ok(());
    }
    let positions = p
        .get(&gltf::Semantic::Positions)
        .ok_or("no POSITION attribute")?;
    if positions.data_type() != DataType::F32 || positions.dimensions() != Dimensions::Vec3 {
        return Err("POSITION is not float VEC3 (quantized positions are not read)".into());
    }
    let moved = morphs(p, weights, buffers, positions.count())?;
    let points: Vec<[f32; 3]> = vec3s(&positions, buffers)?
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let v = v + moved.get(i).copied().unwrap_or(DVec3::ZERO);
            t.transform_point3(v).as_vec3().to_array()
        })
        .collect();
    let indices: Vec<u32> = match p.indices() {
        Some(a) => indices(&a, buffers, points.len())?,
        None => (0..points.len() as u32).collect(),
    };
    // A leftover index would be dropped without a word: the file is damaged, so say so.
    if mode == Mode::Triangles && !indices.len().is_multiple_of(3) {
        return Err(format!(
            "TRIANGLES with {} indices, not a multiple of 3",
            indices.len()
        ));
    }
    let flip = DMat3::from_mat4(t).determinant() < 0.0;
    let mut push = |a: u32, b: u32, c: u32| {
        let (b, c) = if flip { (c, b) } else { (b, c) };
        soup.push([a, b, c].map(|i| points[i as usize]));
    };
    match mode {
        Mode::Triangles => indices.chunks_exact(3).for_each(|w| push(w[0], w[1], w[2])),
        Mode::TriangleStrip => indices.windows(3).enumerate().for_each(|(i, w)| {
            if i % 2 == 0 {
                push(w[0], w[1], w[2])
            } else {
                push(w[0], w[2], w[1])
            }
        }),
        _ => (1..indices.len().saturating_sub(1))
            .for_each(|i| push(indices[i], indices[i + 1], indices[0])),
    }
    Ok(())
}

/// A float VEC3 accessor's elements: its view's (zeros where it has none), then its sparse
/// substitutions (glTF 2.0, "Sparse Accessors": exporters write morph targets so).
fn vec3s(a: &gltf::Accessor, buffers: &[Rc<[u8]>]) -> Result<Vec<DVec3>, String> {
    if a.data_type() != DataType::F32 || a.dimensions() != Dimensions::Vec3 {
        return Err(format!("accessor {} is not float VEC3", a.index()));
    }
    let vec3 = |e: &[u8]| {
        let v = [0, 4, 8].map(|k| f32::from_le_bytes([e[k], e[k + 1], e[k + 2], e[k + 3]]));
        DVec3::from_array(v.map(f64::from))
    };
    let within = |e| format!("accessor {}: {e}", a.index());
    let mut out: Vec<DVec3> = match a.view() {
        Some(view) => in_view(&view, (a.offset(), 12, a.count()), buffers)
            .map_err(within)?
            .map(vec3)
            .collect(),
        None => {
            // Zeros the file does not hold: a count no byte confirms (a hunt's helper: 5e8
            // from 2 MB, 13 GB asked for) is held to the buffers' bytes, as a view's count is
            // to its view's (a morph target's count is its base's).
            let held: usize = buffers.iter().map(|b| b.len()).sum();
            if a.count() > held {
                return Err(within(format!(
                    "{} elements without a buffer view, more than the {held} bytes of the file's buffers",
                    a.count()
                )));
            }
            vec![DVec3::ZERO; a.count()]
        }
    };
    let Some(sparse) = a.sparse() else {
        return Ok(out);
    };
    let (idx, values, n) = (sparse.indices(), sparse.values(), sparse.count());
    let width = match idx.index_type() {
        gltf::accessor::sparse::IndexType::U8 => 1,
        gltf::accessor::sparse::IndexType::U16 => 2,
        gltf::accessor::sparse::IndexType::U32 => 4,
    };
    let at = in_view(&idx.view(), (idx.offset(), width, n), buffers).map_err(within)?;
    let to = in_view(&values.view(), (values.offset(), 12, n), buffers).map_err(within)?;
    for (i, v) in at.zip(to) {
        let i = i.iter().rev().fold(0usize, |k, &b| k << 8 | b as usize);
        let slot = out
            .get_mut(i)
            .ok_or_else(|| within(format!("a sparse index {i} of {} elements", a.count())))?;
        *slot = vec3(v);
    }
    Ok(out)
}

/// Each of `n` positions' displacement by the primitive's morph targets, the sum of each
/// target's POSITION times its weight (glTF 2.0, "Morph Targets"; a review's helper: they were
/// left out, so a morphed mesh was read in its base shape). Empty where no weight moves it.
fn morphs(
    p: &gltf::Primitive,
    weights: &[f32],
    buffers: &[Rc<[u8]>],
    n: usize,
) -> Result<Vec<DVec3>, String> {
    let mut moved = Vec::new();
    for (target, &w) in p.morph_targets().zip(weights) {
        let Some(a) = target.positions().filter(|_| w != 0.0) else {
            continue;
        };
        if a.count() != n {
            return Err(format!(
                "morph target accessor {} has {} elements for {n} positions",
                a.index(),
                a.count()
            ));
        }
        moved.resize(n, DVec3::ZERO);
        for (m, d) in moved.iter_mut().zip(vec3s(&a, buffers)?) {
            *m += d * f64::from(w);
        }
    }
    Ok(moved)
}

fn indices(a: &gltf::Accessor, buffers: &[Rc<[u8]>], n: usize) -> Result<Vec<u32>, String> {
    let read: fn(&[u8]) -> u32 = match (a.data_type(), a.dimensions()) {
        (DataType::U8, Dimensions::Scalar) => |e| e[0] as u32,
        (DataType::U16, Dimensions::Scalar) => |e| u16::from_le_bytes([e[0], e[1]]) as u32,
        (DataType::U32, Dimensions::Scalar) => |e| u32::from_le_bytes([e[0], e[1], e[2], e[3]]),
        _ => return Err("indices are not unsigned integer scalars".into()),
    };
    let out: Vec<u32> = elements(a, buffers)?.map(read).collect();
    match out.iter().find(|&&i| i as usize >= n) {
        Some(i) => Err(format!("index {i} out of range ({n} positions)")),
        None => Ok(out),
    }
}

/// The bytes of each of an accessor's elements, its extent checked against its buffer view
/// and buffer first.
fn elements<'b>(
    a: &gltf::Accessor,
    buffers: &'b [Rc<[u8]>],
) -> Result<impl Iterator<Item = &'b [u8]>, String> {
    if a.sparse().is_some() {
        return Err("sparse accessors are not read here".into());
    }
    let view = a.view().ok_or("an accessor without a buffer view")?;
    let within = |e| format!("accessor {}: {e}", a.index());
    in_view(&view, (a.offset(), a.size(), a.count()), buffers).map_err(within)
}

/// `count` elements of `size` bytes from `offset` in `view`, its stride between them, the
/// extent checked against the view and its buffer first.
fn in_view<'b>(
    view: &gltf::buffer::View,
    (offset, size, count): (usize, usize, usize),
    buffers: &'b [Rc<[u8]>],
) -> Result<impl Iterator<Item = &'b [u8]> + use<'b>, String> {
    let buffer = &buffers[view.buffer().index()];
    let stride = view.stride().unwrap_or(size);
    let view_end = view.offset().checked_add(view.length());
    let bytes = view_end
        .and_then(|end| buffer.get(view.offset()..end))
        .ok_or_else(|| format!("buffer view {} runs past its buffer", view.index()))?;
    let last = count
        .checked_sub(1)
        .map_or(Some(0), |k| {
            k.checked_mul(stride)?
                .checked_add(offset)?
                .checked_add(size)
        })
        .filter(|&end| end <= bytes.len() && stride >= size);
    if last.is_none() {
        return Err(format!(
            "{count} elements of {size} bytes, stride {stride}, runs past its buffer view {}",
            view.index()
        ));
    }
    Ok((0..count).map(move |k| &bytes[offset + k * stride..offset + k * stride + size]))
}

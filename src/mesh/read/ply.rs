//! PLY, ASCII and binary (little and big endian): a `vertex` element with `x y z`, faces as
//! polygons (`face` with a list `vertex_indices` or `vertex_index`, fanned from their first
//! vertex) and as triangle strips (`tristrips`, `-1` restarting a strip). Other elements and
//! properties are read past.

use super::{fault, Soup};
use crate::error::Result;
use std::path::Path;

/// A header longer than this is not a header (PLY headers are a few hundred bytes).
const MAX_HEADER: usize = 1 << 16;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Encoding {
    Ascii,
    Little,
    Big,
}

/// A PLY scalar type.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scalar {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    F32,
    F64,
}

impl Scalar {
    fn parse(name: &str) -> Option<Scalar> {
        Some(match name {
            "char" | "int8" => Scalar::I8,
            "uchar" | "uint8" => Scalar::U8,
            "short" | "int16" => Scalar::I16,
            "ushort" | "uint16" => Scalar::U16,
            "int" | "int32" => Scalar::I32,
            "uint" | "uint32" => Scalar::U32,
            "float" | "float32" => Scalar::F32,
            "double" | "float64" => Scalar::F64,
            _ => return None,
        })
    }

    /// The least and greatest values of an integer type (a float type's are not limited here:
    /// a coordinate beyond `f32` is refused as not finite once read).
    fn range(self) -> (f64, f64) {
        match self {
            Scalar::I8 => (i8::MIN as f64, i8::MAX as f64),
            Scalar::U8 => (0.0, u8::MAX as f64),
            Scalar::I16 => (i16::MIN as f64, i16::MAX as f64),
            Scalar::U16 => (0.0, u16::MAX as f64),
            Scalar::I32 => (i32::MIN as f64, i32::MAX as f64),
            Scalar::U32 => (0.0, u32::MAX as f64),
            Scalar::F32 | Scalar::F64 => (f64::NEG_INFINITY, f64::INFINITY),
        }
    }

    fn size(self) -> usize {
        match self {
            Scalar::I8 | Scalar::U8 => 1,
            Scalar::I16 | Scalar::U16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::F64 => 8,
        }
    }
}

#[derive(Debug)]
enum Property {
    Scalar(Scalar, String),
    /// A list: the count's type, the items' type, the name.
    List(Scalar, Scalar, String),
}

impl Property {
    fn name(&self) -> &str {
        match self {
            Property::Scalar(_, n) | Property::List(_, _, n) => n,
        }
    }
}

#[derive(Debug)]
struct Element {
    name: String,
    count: u64,
    properties: Vec<Property>,
}

impl Element {
    /// The fewest bytes one item takes in a binary file (a list may be empty).
    fn min_size(&self) -> u64 {
        self.properties
            .iter()
            .map(|p| match p {
                Property::Scalar(s, _) | Property::List(s, _, _) => s.size() as u64,
            })
            .sum()
    }
}

/// A PLY file from bytes.
pub fn read_ply(bytes: &[u8], path: &Path) -> Result<Soup> {
    let bad = |m: String| fault(path, "PLY", m);
    let (encoding, elements, body) = header(bytes).map_err(bad)?;
    let mut source = match encoding {
        Encoding::Ascii => Source::Ascii(Words::new(body, path)?),
        e => Source::Binary {
            bytes: body,
            at: 0,
            big: e == Encoding::Big,
        },
    };
    let mut vertices: Vec<[f32; 3]> = Vec::new();
    let mut soup = Soup::new();
    for e in &elements {
        // A count the rest of the file cannot hold is forged: refused before anything is
        // reserved for it.
        let values = e.count.saturating_mul(e.properties.len() as u64);
        if !source.has_room(values, e.count.saturating_mul(e.min_size())) {
            return Err(bad(format!(
                "element \"{}\" declares {} items, more than the rest of the file holds",
                e.name, e.count
            )));
        }
        match e.name.as_str() {
            "vertex" => vertices = read_vertices(e, &mut source).map_err(bad)?,
            "face" | "tristrips" => {
                read_faces(e, &mut source, &vertices, &mut soup).map_err(bad)?
            }
            _ => skip(e, &mut source).map_err(bad)?,
        }
    }
    source.finish().map_err(bad)?;
    if vertices.is_empty() && !elements.iter().any(|e| e.name == "vertex") {
        return Err(bad("no \"vertex\" element".into()));
    }
    Ok(soup)
}

/// The header: encoding, elements, and the body after `end_header`.
fn header(bytes: &[u8]) -> Result<(Encoding, Vec<Element>, &[u8]), String> {
    let (end, body_at) = header_end(bytes)
        .ok_or("no \"end_header\" line in the first 64 KiB: not a PLY file, or a damaged header")?;
    let text = std::str::from_utf8(&bytes[..end]).map_err(|_| "the header is not text")?;
    let mut lines = text.lines().map(str::trim);
    if lines.next() != Some("ply") {
        return Err("does not begin with \"ply\"".into());
    }
    let mut encoding = None;
    let mut elements: Vec<Element> = Vec::new();
    for line in lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [] | ["comment", ..] | ["obj_info", ..] => {}
            ["format", kind, version] => {
                if *version != "1.0" {
                    return Err(format!("format version {version:?}: only 1.0 is known"));
                }
                encoding = Some(match *kind {
                    "ascii" => Encoding::Ascii,
                    "binary_little_endian" => Encoding::Little,
                    "binary_big_endian" => Encoding::Big,
                    other => return Err(format!("unknown format {other:?}")),
                })
            }
            // A second element of a name would be read over the first (a review's helper: a
            // second "vertex" replaced the first's positions without a word).
            ["element", name @ ("vertex" | "face" | "tristrips"), _]
                if elements.iter().any(|e| e.name == *name) =>
            {
                return Err(format!("element {name:?} is declared twice"));
            }
            ["element", name @ ("face" | "tristrips"), count]
                if *count != "0" && !elements.iter().any(|e| e.name == "vertex") =>
            {
                return Err(format!(
                    "element {name:?} comes before \"vertex\": this reader takes faces after the vertices they name"
                ));
            }
            ["element", name, count] => elements.push(Element {
                name: name.to_string(),
                count: count
                    .parse()
                    .map_err(|_| format!("element {name:?} has a bad count {count:?}"))?,
                properties: Vec::new(),
            }),
            ["property", rest @ ..] => {
                let e = elements.last_mut().ok_or("a property before any element")?;
                let p = property(rest)?;
                if e.properties.iter().any(|q| q.name() == p.name()) {
                    return Err(format!(
                        "element {:?} declares property {:?} twice",
                        e.name,
                        p.name()
                    ));
                }
                e.properties.push(p);
            }
            _ => return Err(format!("unexpected header line {line:?}")),
        }
    }
    let encoding = encoding.ok_or("no \"format\" line in the header")?;
    Ok((encoding, elements, &bytes[body_at..]))
}

fn property(words: &[&str]) -> Result<Property, String> {
    let scalar = |w: &str| Scalar::parse(w).ok_or_else(|| format!("unknown property type {w:?}"));
    match words {
        ["list", count, item, name] => {
            let count = scalar(count)?;
            if matches!(count, Scalar::F32 | Scalar::F64) {
                return Err(format!("list {name:?} has a floating-point count type"));
            }
            Ok(Property::List(count, scalar(item)?, name.to_string()))
        }
        [ty, name] => Ok(Property::Scalar(scalar(ty)?, name.to_string())),
        _ => Err(format!(
            "bad property line \"property {}\"",
            words.join(" ")
        )),
    }
}

/// Where the `end_header` line begins, and where the body after it begins: the first line
/// that is `end_header` itself (not a comment that mentions it), ended by "\n" or "\r\n".
fn header_end(bytes: &[u8]) -> Option<(usize, usize)> {
    let window = &bytes[..bytes.len().min(MAX_HEADER)];
    let mut start = 0;
    for line in window.split_inclusive(|&b| b == b'\n') {
        let next = start + line.len();
        if line.ends_with(b"\n") && line.trim_ascii() == b"end_header" {
            return Some((start, next));
        }
        start = next;
    }
    None
}

/// `x y z` of every vertex, in `f32` (a `double` coordinate is rounded, as every reader of this
/// crate rounds to the `f32` the meshes are held in).
fn read_vertices(e: &Element, src: &mut Source) -> Result<Vec<[f32; 3]>, String> {
    let slot = |axis: &str| {
        e.properties
            .iter()
            .position(|p| matches!(p, Property::Scalar(_, n) if n == axis))
            .ok_or_else(|| format!("the vertex element has no scalar property {axis:?}"))
    };
    let xyz = [slot("x")?, slot("y")?, slot("z")?];
    let mut out = Vec::with_capacity(e.count as usize);
    let mut values = vec![0f64; e.properties.len()];
    for _ in 0..e.count {
        for (k, p) in e.properties.iter().enumerate() {
            values[k] = match p {
                Property::Scalar(s, _) => src.number(*s)?,
                Property::List(c, s, _) => {
                    src.skip_list(*c, *s)?;
                    0.0
                }
            };
        }
        src.end_item()?;
        out.push(xyz.map(|k| values[k] as f32));
    }
    Ok(out)
}

/// Polygons (fanned) or strips into `soup`; indices refer to `vertices`.
fn read_faces(
    e: &Element,
    src: &mut Source,
    vertices: &[[f32; 3]],
    soup: &mut Soup,
) -> Result<(), String> {
    let strips = e.name == "tristrips";
    let list = e
        .properties
        .iter()
        .position(|p| matches!(p, Property::List(_, _, n) if n == "vertex_indices" || n == "vertex_index"))
        .ok_or_else(|| format!("the {} element has no list \"vertex_indices\"", e.name))?;
    let mut indices: Vec<i64> = Vec::new();
    for item in 0..e.count {
        for (k, p) in e.properties.iter().enumerate() {
            match p {
                Property::List(c, s, _) if k == list => src.list(*c, *s, &mut indices)?,
                Property::List(c, s, _) => src.skip_list(*c, *s)?,
                Property::Scalar(s, _) => {
                    src.number(*s)?;
                }
            }
        }
        src.end_item()?;
        let at = |i: i64| -> Result<[f32; 3], String> {
            usize::try_from(i)
                .ok()
                .and_then(|i| vertices.get(i).copied())
                .ok_or_else(|| {
                    format!(
                        "{} {item}: vertex index {i} out of range ({} vertices)",
                        e.name,
                        vertices.len()
                    )
                })
        };
        if strips {
            strip_triangles(&indices, at, soup)?;
        } else {
            if indices.len() < 3 {
                return Err(format!(
                    "face {item} has {} vertices, needs 3",
                    indices.len()
                ));
            }
            let first = at(indices[0])?;
            for w in indices[1..].windows(2) {
                soup.push([first, at(w[0])?, at(w[1])?]);
            }
        }
    }
    Ok(())
}

/// The triangles of a strip with `-1` restarts (as an unsigned `uint`, 4294967295): triangle k
/// of a strip is (s[k], s[k+1], s[k+2]), its first two swapped when k is odd so that all keep
/// one orientation; triangles with a repeated index (the joints strippers insert) are dropped.
fn strip_triangles(
    indices: &[i64],
    at: impl Fn(i64) -> Result<[f32; 3], String>,
    soup: &mut Soup,
) -> Result<(), String> {
    for strip in indices.split(|&i| i == -1 || i == u32::MAX as i64) {
        for (k, w) in strip.windows(3).enumerate() {
            let (p, q, r) = (w[0], w[1], w[2]);
            if p == q || q == r || p == r {
                continue;
            }
            let (p, q) = if k % 2 == 1 { (q, p) } else { (p, q) };
            soup.push([at(p)?, at(q)?, at(r)?]);
        }
    }
    Ok(())
}

fn skip(e: &Element, src: &mut Source) -> Result<(), String> {
    // An element without properties takes no bytes, whatever its count says.
    if e.properties.is_empty() {
        return Ok(());
    }
    for _ in 0..e.count {
        for p in &e.properties {
            match p {
                Property::Scalar(s, _) => {
                    src.number(*s)?;
                }
                Property::List(c, s, _) => src.skip_list(*c, *s)?,
            }
        }
        src.end_item()?;
    }
    Ok(())
}

/// Where the body's values come from.
enum Source<'a> {
    Ascii(Words<'a>),
    Binary {
        bytes: &'a [u8],
        at: usize,
        big: bool,
    },
}

impl Source<'_> {
    /// Whether the rest of the body can hold `values` values taking `binary` bytes in a binary
    /// file; in ASCII each value takes at least two bytes (a digit and a separator), the
    /// last one.
    fn has_room(&self, values: u64, binary: u64) -> bool {
        match self {
            Source::Ascii(w) => values <= (w.text.len() - w.at).div_ceil(2) as u64,
            Source::Binary { bytes, at, .. } => binary <= (bytes.len() - at) as u64,
        }
    }

    fn number(&mut self, s: Scalar) -> Result<f64, String> {
        match self {
            Source::Ascii(w) => w.number(s),
            Source::Binary { bytes, at, big } => {
                let n = s.size();
                let raw = bytes
                    .get(*at..*at + n)
                    .ok_or("the file ends inside its data: truncated")?;
                *at += n;
                Ok(decode(s, raw, *big))
            }
        }
    }

    /// The end of an item: in ASCII, where its line ends (a value left on the line is one its
    /// element does not declare: a file whose header and body disagree, refused rather than
    /// read shifted).
    fn end_item(&mut self) -> Result<(), String> {
        match self {
            Source::Ascii(w) => w.end_item(),
            Source::Binary { .. } => Ok(()),
        }
    }

    /// The end of the body: nothing may follow the last element the header declares (a face
    /// or a vertex more would be silently lost) but white space, or in a binary file NUL
    /// padding.
    fn finish(&self) -> Result<(), String> {
        match self {
            Source::Ascii(w) => w.finish(),
            Source::Binary { bytes, at, .. } => {
                let tail = &bytes[(*at).min(bytes.len())..];
                match tail.iter().all(|&b| b == 0 || b.is_ascii_whitespace()) {
                    true => Ok(()),
                    false => Err(format!(
                        "{} bytes of data after the last element the header declares",
                        tail.len()
                    )),
                }
            }
        }
    }

    /// A list's items into `out` (cleared first).
    fn list(&mut self, count: Scalar, item: Scalar, out: &mut Vec<i64>) -> Result<(), String> {
        out.clear();
        let n = self.number(count)?;
        if n < 0.0 {
            return Err(format!("a list has a negative length {n}"));
        }
        // The length is bounded by the bytes left before any is reserved.
        if !self.has_room(n as u64, (n as u64).saturating_mul(item.size() as u64)) {
            return Err(format!("a list of {n} items runs past the end of the file"));
        }
        for _ in 0..n as u64 {
            let v = self.number(item)?;
            if v.fract() != 0.0 {
                return Err(format!("vertex index {v} is not an integer"));
            }
            out.push(v as i64);
        }
        Ok(())
    }

    fn skip_list(&mut self, count: Scalar, item: Scalar) -> Result<(), String> {
        let n = self.number(count)?;
        if n < 0.0 {
            return Err(format!("a list has a negative length {n}"));
        }
        for _ in 0..n as u64 {
            self.number(item)?;
        }
        Ok(())
    }
}

fn decode(s: Scalar, raw: &[u8], big: bool) -> f64 {
    macro_rules! num {
        ($t:ty) => {{
            let a = raw.try_into().unwrap_or_default();
            (if big {
                <$t>::from_be_bytes(a)
            } else {
                <$t>::from_le_bytes(a)
            }) as f64
        }};
    }
    match s {
        Scalar::I8 => raw[0] as i8 as f64,
        Scalar::U8 => raw[0] as f64,
        Scalar::I16 => num!(i16),
        Scalar::U16 => num!(u16),
        Scalar::I32 => num!(i32),
        Scalar::U32 => num!(u32),
        Scalar::F32 => num!(f32),
        Scalar::F64 => num!(f64),
    }
}

/// The words of an ASCII body, with the line each is on (counted from the body's first) for
/// messages. Each item of an element is one line, as PLY writes them: a value on the next line
/// or one left over would mean the header and the body disagree, and read as a stream of
/// numbers such a file came out shifted (a vertex more than declared read as a face, a face's
/// extra index as the next face's first), so both are refused.
struct Words<'a> {
    text: &'a str,
    at: usize,
    line: usize,
    /// A value of the current item has been read: the next must be on its line.
    in_item: bool,
}

impl<'a> Words<'a> {
    fn new(body: &'a [u8], path: &Path) -> Result<Words<'a>> {
        let text = std::str::from_utf8(body)
            .map_err(|_| fault(path, "PLY", "the ASCII body is not text"))?;
        Ok(Words {
            text,
            at: 0,
            line: 0,
            in_item: false,
        })
    }

    fn end_item(&mut self) -> Result<(), String> {
        let rest = &self.text[self.at..];
        let left = rest[..rest.find('\n').unwrap_or(rest.len())].trim();
        if !left.is_empty() {
            return Err(format!(
                "body line {}: more values than its element declares ({left:?} left over)",
                self.line + 1
            ));
        }
        self.in_item = false;
        Ok(())
    }

    fn finish(&self) -> Result<(), String> {
        let rest = &self.text[self.at..];
        match rest.find(|c: char| !c.is_ascii_whitespace()) {
            None => Ok(()),
            Some(at) => Err(format!(
                "body line {}: data after the last element the header declares",
                self.line + 1 + rest[..at].matches('\n').count()
            )),
        }
    }

    fn number(&mut self, s: Scalar) -> Result<f64, String> {
        let rest = &self.text[self.at..];
        let start = rest
            .find(|c: char| !c.is_ascii_whitespace())
            .ok_or("the file ends inside its data: truncated")?;
        let lines = rest[..start].matches('\n').count();
        if self.in_item && lines > 0 {
            return Err(format!(
                "body line {}: fewer values than its element declares",
                self.line + 1
            ));
        }
        self.line += lines;
        self.in_item = true;
        let len = rest[start..]
            .find(|c: char| c.is_ascii_whitespace())
            .unwrap_or(rest.len() - start);
        let word = &rest[start..start + len];
        self.at += start + len;
        let v: f64 = word
            .parse()
            .map_err(|_| format!("body line {}: not a number: {word:?}", self.line + 1))?;
        let integral = !matches!(s, Scalar::F32 | Scalar::F64);
        if integral && v.fract() != 0.0 {
            return Err(format!(
                "body line {}: {word:?} is not an integer",
                self.line + 1
            ));
        }
        // A binary file cannot hold such a value; in ASCII it says the header is wrong.
        // A float's NaN is its own value, as a binary file may hold: the mesh refuses it as it
        // refuses any coordinate that is not finite, naming the triangle.
        let (lo, hi) = s.range();
        let nan_float = v.is_nan() && !integral;
        if !nan_float && !(lo..=hi).contains(&v) {
            return Err(format!(
                "body line {}: {word:?} is beyond the range of its type ({lo} to {hi})",
                self.line + 1
            ));
        }
        // A float's decimal rounded once, to the nearest f32 (the mesh's own type): through
        // f64, one just past the midpoint of two f32 rounds to the midpoint, then to even (a
        // review's helper: 1 + 2^-24 + 2^-60 read as 1, a face meant to touch read 1.2e-7
        // apart). An f32 holds exactly as an f64 what `as f32` gives back.
        match integral {
            true => Ok(v),
            false => Ok(word.parse::<f32>().map_or(v, f64::from)),
        }
    }
}

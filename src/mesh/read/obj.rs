//! Wavefront OBJ.

use super::Soup;
use crate::error::{Error, Result};
use std::borrow::Cow;
use std::path::Path;

/// Wavefront OBJ: `v x y z [w]` and `f a b c …` (indices 1-based or negative, `i/t/n` forms);
/// polygons are triangulated as fans from their first vertex. Other statements, and comments
/// from `#` to the end of a line, are ignored; a line ending in `\` goes on on the next.
pub fn read_obj(bytes: &[u8], path: &Path) -> Result<Soup> {
    let text = String::from_utf8_lossy(bytes);
    let err = |line: usize, message: String| Error::Syntax {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut verts: Vec<[f32; 3]> = Vec::new();
    let mut soup = Vec::new();
    for (line, statement) in statements(&text) {
        let mut tok = statement.split_whitespace();
        match tok.next() {
            Some("v") => verts.push(vertex(tok).map_err(|m| err(line, m))?),
            Some("f") => {
                let idx = face(tok, &verts).map_err(|m| err(line, m))?;
                for k in 1..idx.len() - 1 {
                    soup.push([idx[0], idx[k], idx[k + 1]]);
                }
            }
            _ => {}
        }
    }
    Ok(soup)
}

/// The file's statements, each with the line it starts on: comments dropped (a comment runs
/// from `#` to the end of its line, after a statement too: `f 1 2 3 # lid` was refused, a bad
/// face index "#", where `v 0 0 0 # tip` was read), lines ending in `\` joined to the next,
/// and a byte-order mark skipped (a review's helper: it made the first `v` another word, the
/// vertex was dropped and every face after named the next vertex on). Lazily, a line borrowed
/// unless it is joined: a copy of every line doubled a large file's peak memory.
fn statements(text: &str) -> impl Iterator<Item = (usize, Cow<'_, str>)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate().map(|(i, raw)| {
        let part = raw.split('#').next().unwrap_or("");
        match part.trim_end().strip_suffix('\\') {
            Some(p) => (i + 1, p, true),
            None => (i + 1, part, false),
        }
    });
    std::iter::from_fn(move || {
        let (line, part, mut more) = lines.next()?;
        let mut statement = Cow::Borrowed(part);
        while more {
            let Some((_, next, goes_on)) = lines.next() else {
                break;
            };
            let joined = statement.to_mut();
            joined.push(' ');
            joined.push_str(next);
            more = goes_on;
        }
        Some((line, statement))
    })
}

fn vertex<'a>(mut tok: impl Iterator<Item = &'a str>) -> std::result::Result<[f32; 3], String> {
    let mut v = [0f32; 3];
    for (k, slot) in v.iter_mut().enumerate() {
        let t = tok
            .next()
            .ok_or_else(|| format!("vertex has {k} coordinates, expected 3"))?;
        *slot = t
            .parse::<f32>()
            .map_err(|_| format!("not a number: {t:?}"))?;
    }
    Ok(v)
}

/// A face's corners, at least 3.
fn face<'a>(
    tok: impl Iterator<Item = &'a str>,
    verts: &[[f32; 3]],
) -> std::result::Result<Vec<[f32; 3]>, String> {
    let mut idx = Vec::new();
    for t in tok {
        let first = t.split('/').next().unwrap_or("");
        let n: i64 = first.parse().map_err(|_| format!("bad face index {t:?}"))?;
        let resolved = if n > 0 { n - 1 } else { verts.len() as i64 + n };
        let v = usize::try_from(resolved).ok().filter(|_| n != 0);
        match v.and_then(|r| verts.get(r)) {
            Some(&p) => idx.push(p),
            None => {
                return Err(format!(
                    "face index {n} out of range ({} vertices so far)",
                    verts.len()
                ))
            }
        }
    }
    if idx.len() < 3 {
        return Err(format!("face has {} vertices, needs 3", idx.len()));
    }
    Ok(idx)
}

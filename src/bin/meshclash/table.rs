//! Batches of rows in and out: points (and later rays, spheres) from `.npy` (float32 or float64,
//! C order, N×k), `.csv` (an optional header line) or `.json` (a list of rows); answers as
//! columns to `.csv` (a header of the column names), `.npy` (a structured array with those
//! names) or `.json` (a list of objects). Every row is checked: a wrong width, a number that
//! does not parse or is not finite is an error naming the file and the row.

use meshclash::Error;
use std::path::Path;

/// `n` rows of `width` numbers, row after row.
pub struct Rows {
    pub width: usize,
    pub values: Vec<f64>,
}

impl Rows {
    pub fn len(&self) -> usize {
        self.values.len() / self.width.max(1)
    }

    pub fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.width..(i + 1) * self.width]
    }
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn syntax(path: &Path, line: usize, message: String) -> Error {
    Error::Syntax {
        path: path.to_path_buf(),
        line,
        message,
    }
}

/// The rows of `path`, each `width` numbers wide, all finite.
pub fn read(path: &Path, width: usize) -> Result<Rows, Error> {
    read_widths(path, &[width])
}

/// The rows of `path`, all finite, as wide as one of `widths`.
pub fn read_widths(path: &Path, widths: &[usize]) -> Result<Rows, Error> {
    let rows = match extension(path).as_str() {
        "npy" => read_npy(path)?,
        "csv" => read_csv(path)?,
        "json" => read_json(path)?,
        other => {
            return Err(Error::Argument(format!(
                "{}: unknown table format {other:?} (expected .npy, .csv or .json)",
                path.display()
            )))
        }
    };
    // A table of no rows (a CSV of its header alone, `[]`): as a `.npy` of shape (0, k), a
    // batch of none, whose width nothing tells.
    if rows.values.is_empty() && rows.width == 0 {
        return Ok(Rows {
            width: widths[0],
            values: Vec::new(),
        });
    }
    if !widths.contains(&rows.width) {
        let want: Vec<String> = widths.iter().map(|w| w.to_string()).collect();
        return Err(Error::Argument(format!(
            "{}: rows of {} numbers, expected {}",
            path.display(),
            rows.width,
            want.join(" or ")
        )));
    }
    let width = rows.width;
    if let Some(i) = rows.values.iter().position(|v| !v.is_finite()) {
        return Err(syntax(
            path,
            i / width + 1,
            format!(
                "row {} holds {}, not a finite number",
                i / width,
                rows.values[i]
            ),
        ));
    }
    Ok(rows)
}

fn read_csv(path: &Path) -> Result<Rows, Error> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    // Spreadsheets write a byte-order mark first ("CSV UTF-8"): it is not part of the data.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut width = None;
    let mut values = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let fields: Result<Vec<f64>, _> = line.split(',').map(|f| f.trim().parse()).collect();
        // The first line is a header only if none of its fields is a number: a first row
        // with one mistyped number is an error, not a header that silently drops a row.
        let header = |line: &str| line.split(',').all(|f| f.trim().parse::<f64>().is_err());
        let fields = match fields {
            Ok(f) => f,
            Err(_) if n == 0 && header(line) => continue,
            Err(e) => return Err(syntax(path, n + 1, format!("not a number: {e}"))),
        };
        match width {
            None => width = Some(fields.len()),
            Some(w) if w != fields.len() => {
                return Err(syntax(
                    path,
                    n + 1,
                    format!("{} numbers, the rows before have {w}", fields.len()),
                ))
            }
            _ => {}
        }
        values.extend(fields);
    }
    Ok(Rows {
        width: width.unwrap_or(0),
        values,
    })
}

fn read_json(path: &Path) -> Result<Rows, Error> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| syntax(path, e.line(), format!("expected a list of rows: {e}")))?;
    let list = value
        .as_array()
        .ok_or_else(|| syntax(path, 1, "expected a list of rows".into()))?;
    // A row is a list of numbers, or of lists of numbers (a 4×4 matrix), read row-major.
    let rows: Vec<Vec<f64>> = list
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let mut out = Vec::new();
            flatten(row, &mut out)
                .then_some(out)
                .ok_or_else(|| syntax(path, 1, format!("row {i} is not a list of numbers")))
        })
        .collect::<Result<_, _>>()?;
    let width = rows.first().map_or(0, Vec::len);
    if let Some(i) = rows.iter().position(|r| r.len() != width) {
        return Err(syntax(
            path,
            1,
            format!("row {i} has {} numbers, row 0 has {width}", rows[i].len()),
        ));
    }
    Ok(Rows {
        width,
        values: rows.concat(),
    })
}

/// The numbers of a JSON row, nested lists flattened in order; false on anything else.
fn flatten(v: &serde_json::Value, out: &mut Vec<f64>) -> bool {
    match v {
        serde_json::Value::Number(n) => n.as_f64().map(|x| out.push(x)).is_some(),
        serde_json::Value::Array(a) => a.iter().all(|x| flatten(x, out)),
        _ => false,
    }
}

/// NumPy's format 1.0–3.0: magic, version, a header dict (`descr`, `fortran_order`, `shape`),
/// then the data. Float32 or float64, little endian, C order, one or two dimensions.
fn read_npy(path: &Path) -> Result<Rows, Error> {
    let bytes = std::fs::read(path).map_err(io(path))?;
    let bad = |m: &str| syntax(path, 1, format!("not a readable .npy: {m}"));
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(bad("no NUMPY magic"));
    }
    let (len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(bad(&format!("version {v}"))),
    };
    let header = bytes
        .get(start..start.saturating_add(len))
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or_else(|| bad("header cut short"))?;
    let size = match () {
        _ if header.contains("'<f8'") => 8,
        _ if header.contains("'<f4'") => 4,
        _ => {
            return Err(bad(
                "only float32 and float64 (little endian) arrays are read",
            ))
        }
    };
    if header.contains("'fortran_order': True") {
        return Err(bad(
            "Fortran order; save it in C order (np.ascontiguousarray)",
        ));
    }
    let shape = npy_shape(header).ok_or_else(|| bad("no shape"))?;
    let (rows, width) = match shape[..] {
        [n] => (n, 1),
        [n, k] => (n, k),
        // Matrices, one per row: K×4×4 as K rows of 16. No other table has three dimensions.
        [n, 4, 4] => (n, 16),
        [_, _, _] => {
            return Err(bad(&format!(
                "shape {shape:?}: of three dimensions, only K×4×4 matrices"
            )))
        }
        _ => return Err(bad(&format!("{} dimensions, expected 2", shape.len()))),
    };
    let data = &bytes[start + len..];
    let count = rows
        .checked_mul(width)
        .ok_or_else(|| bad("shape too large"))?;
    if data.len() != count.saturating_mul(size) {
        return Err(bad(&format!(
            "shape {shape:?} needs {} bytes of data, the file has {}",
            count.saturating_mul(size),
            data.len()
        )));
    }
    let values = if size == 8 {
        data.chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect()
    } else {
        data.chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap_or([0; 4])) as f64)
            .collect()
    };
    Ok(Rows { width, values })
}

/// The numbers of the header's `'shape': (a, b, ...)`.
fn npy_shape(header: &str) -> Option<Vec<usize>> {
    let at = header.find("'shape'")?;
    let rest = &header[at..];
    let (open, close) = (rest.find('(')?, rest.find(')')?);
    rest.get(open + 1..close)?
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().ok())
        .collect()
}

/// One output column; `None` is a missing value (`null` in JSON, empty in CSV, NaN or −1 in
/// `.npy`).
pub enum Column {
    F64(Vec<Option<f64>>),
    I64(Vec<Option<i64>>),
    Bool(Vec<bool>),
    /// Short names (at most [`STR_WIDTH`] characters in `.npy`).
    Str(Vec<Option<&'static str>>),
}

/// Characters of a string column in `.npy` (`<U20`).
const STR_WIDTH: usize = 20;

impl Column {
    fn json(&self, i: usize) -> serde_json::Value {
        match self {
            Column::F64(v) => v[i].map_or(serde_json::Value::Null, |x| x.into()),
            Column::I64(v) => v[i].map_or(serde_json::Value::Null, |x| x.into()),
            Column::Bool(v) => v[i].into(),
            Column::Str(v) => v[i].map_or(serde_json::Value::Null, |x| x.into()),
        }
    }

    fn csv(&self, i: usize) -> String {
        match self {
            Column::F64(v) => v[i].map_or(String::new(), |x| format!("{x:?}")),
            Column::I64(v) => v[i].map_or(String::new(), |x| x.to_string()),
            Column::Bool(v) => v[i].to_string(),
            Column::Str(v) => v[i].unwrap_or("").to_string(),
        }
    }

    /// NumPy's type string.
    fn npy_type(&self) -> &'static str {
        match self {
            Column::F64(_) => "<f8",
            Column::I64(_) => "<i8",
            Column::Bool(_) => "|b1",
            Column::Str(_) => "<U20",
        }
    }

    /// The bytes of row `i`.
    fn npy(&self, i: usize, out: &mut Vec<u8>) {
        match self {
            Column::F64(v) => out.extend(v[i].unwrap_or(f64::NAN).to_le_bytes()),
            Column::I64(v) => out.extend(v[i].unwrap_or(-1).to_le_bytes()),
            Column::Bool(v) => out.push(v[i] as u8),
            Column::Str(v) => {
                // UCS-4, padded with zeros to the field's width.
                let chars: Vec<char> = v[i].unwrap_or("").chars().take(STR_WIDTH).collect();
                for k in 0..STR_WIDTH {
                    out.extend((chars.get(k).map_or(0, |&c| c as u32)).to_le_bytes());
                }
            }
        }
    }
}

/// `columns` (all `n` long) to `path`, in the format its extension names.
pub fn write(path: &Path, n: usize, columns: &[(&str, Column)]) -> Result<(), Error> {
    let bytes = match extension(path).as_str() {
        "csv" => {
            let mut s = columns.iter().map(|c| c.0).collect::<Vec<_>>().join(",");
            s.push('\n');
            for i in 0..n {
                let row: Vec<String> = columns.iter().map(|c| c.1.csv(i)).collect();
                s.push_str(&row.join(","));
                s.push('\n');
            }
            s.into_bytes()
        }
        "json" => {
            let rows: Vec<serde_json::Value> = (0..n)
                .map(|i| {
                    columns
                        .iter()
                        .map(|(k, c)| (k.to_string(), c.json(i)))
                        .collect()
                })
                .collect();
            serde_json::to_vec(&rows).unwrap_or_default()
        }
        "npy" => npy_bytes(n, columns),
        other => {
            return Err(Error::Argument(format!(
                "{}: unknown table format {other:?} (expected .npy, .csv or .json)",
                path.display()
            )))
        }
    };
    std::fs::write(path, bytes).map_err(Error::Output)
}

/// A structured `.npy` (format 1.0): one record per row, one field per column.
fn npy_bytes(n: usize, columns: &[(&str, Column)]) -> Vec<u8> {
    let mut data = Vec::new();
    for i in 0..n {
        for (_, c) in columns {
            c.npy(i, &mut data);
        }
    }
    let descr: Vec<String> = columns
        .iter()
        .map(|(name, c)| format!("('{name}', '{}')", c.npy_type()))
        .collect();
    let mut header = format!(
        "{{'descr': [{}], 'fortran_order': False, 'shape': ({n},), }}",
        descr.join(", ")
    );
    // Data starts at a multiple of 64 bytes; the header ends with a newline.
    let pad = (64 - (10 + header.len() + 1) % 64) % 64;
    header.push_str(&" ".repeat(pad));
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.into_bytes());
    out.extend(data);
    out
}

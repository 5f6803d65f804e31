//! Batches of rows in and out: points (and later rays, spheres) from `.npy` (float32 or float64,
//! C order, N×k), `.csv` (an optional header line) or `.json` (a list of rows); answers as
//! columns to `.csv` (a header of the column names), `.npy` (a structured array with those
//! names) or `.json` (a list of objects). Every row is checked: a wrong width, a number that
//! does not parse or is not finite is an error naming the file and the row (in a CSV, its line).

use meshclash::Error;
use std::path::{Path, PathBuf};

/// `n` rows of `width` numbers, row after row.
pub struct Rows {
    pub width: usize,
    /// Whether the file tells the width: false for a table of no rows other than a `.npy`
    /// (a CSV of its header alone, `[]`), whose width is then the first one asked for.
    pub width_given: bool,
    pub values: Vec<f64>,
    /// Each row's line in the file (CSV); empty where rows have no line of their own (JSON,
    /// `.npy`), whose messages name line 1 and the row.
    lines: Vec<usize>,
}

impl Rows {
    pub fn len(&self) -> usize {
        self.values.len() / self.width.max(1)
    }

    pub fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.width..(i + 1) * self.width]
    }

    /// The line of the file that row `i` is on, for messages: its own line in a CSV, else 1.
    pub fn line(&self, i: usize) -> usize {
        self.lines.get(i).copied().unwrap_or(1)
    }
}

pub fn extension(path: &Path) -> String {
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

/// A table's bytes, from a regular file only, as meshes are read: a FIFO with no writer or
/// `/dev/zero` named as rows would block or fill the memory (a hunt's helper found both).
fn bytes(path: &Path) -> Result<Vec<u8>, Error> {
    meshclash::mesh::read::read_regular_file(path)
}

/// [`bytes`] as UTF-8 text (CSV, JSON).
fn text(path: &Path) -> Result<String, Error> {
    String::from_utf8(bytes(path)?).map_err(|_| {
        let e = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        );
        io(path)(e)
    })
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

/// The rows of `path`, all finite, as wide as one of `widths`; a spinner on a terminal while
/// a large table is read.
pub fn read_widths(path: &Path, widths: &[usize]) -> Result<Rows, Error> {
    let what = format!("reading {}", file_name(path));
    crate::progress::during(&what, || rows_of(path, widths))
}

/// `path`'s last part, for a spinner's line.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn rows_of(path: &Path, widths: &[usize]) -> Result<Rows, Error> {
    let rows = match extension(path).as_str() {
        "npy" => read_npy(path)?,
        "csv" => read_csv(path, widths)?,
        "json" => read_json(path, widths)?,
        other => {
            return Err(Error::Argument(format!(
                "{}: unknown table format {other:?} (expected .npy, .csv or .json)",
                path.display()
            )))
        }
    };
    // A table of no rows (a CSV of its header alone, `[]`): as a `.npy` of shape (0, k), a
    // batch of none, whose width nothing tells. (Rows of no numbers are refused when read.)
    if rows.values.is_empty() && rows.width == 0 {
        return Ok(Rows {
            width: widths[0],
            width_given: false,
            values: Vec::new(),
            lines: Vec::new(),
        });
    }
    if !widths.contains(&rows.width) {
        // Every row is as wide as the first (a later one that is not was refused when read):
        // the first names where. A `.npy` of no rows has a width all the same.
        let message = match rows.len() {
            0 => format!(
                "its rows have {} numbers (it has none), expected {}",
                rows.width,
                expected(widths)
            ),
            _ => format!(
                "row 0 has {} numbers, expected {} (so has every row){}",
                rows.width,
                expected(widths),
                // A single point saved as np.array([x, y, z]) (a review's helper).
                match rows.width == 1 && extension(path) == "npy" {
                    true => "; a 1-D array is read as a column: save one row as shape (1, k)",
                    false => "",
                }
            ),
        };
        return Err(syntax(path, rows.line(0), message));
    }
    let width = rows.width;
    if let Some(i) = rows.values.iter().position(|v| !v.is_finite()) {
        return Err(syntax(
            path,
            rows.line(i / width),
            format!(
                "row {} holds {}, not a finite number",
                i / width,
                rows.values[i]
            ),
        ));
    }
    Ok(rows)
}

/// A header field: a name (`x`, `_id`), starting with a letter or `_`, and not a number
/// (`nan` and `inf` are numbers).
fn is_name(field: &str) -> bool {
    field.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && field.parse::<f64>().is_err()
}

/// `widths` as a message says them: "3", "4 or 7".
fn expected(widths: &[usize]) -> String {
    let want: Vec<String> = widths.iter().map(|w| w.to_string()).collect();
    want.join(" or ")
}

/// A row `i` (on `line`) of `width` numbers after rows of `first`: where the first rows are
/// not a width the command takes, they are what is wrong, not the row that differs.
fn ragged(
    path: &Path,
    widths: &[usize],
    first: (usize, usize),
    i: (usize, usize),
    width: usize,
) -> Error {
    match widths.contains(&first.0) {
        false => syntax(
            path,
            first.1,
            format!(
                "row 0 has {} numbers, expected {}",
                first.0,
                expected(widths)
            ),
        ),
        true => syntax(
            path,
            i.1,
            format!(
                "row {} has {width} numbers, the rows before have {}",
                i.0, first.0
            ),
        ),
    }
}

fn read_csv(path: &Path, widths: &[usize]) -> Result<Rows, Error> {
    let text = text(path)?;
    // Spreadsheets write a byte-order mark first ("CSV UTF-8"): it is not part of the data.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut width = None;
    let mut values = Vec::new();
    let mut lines = Vec::new();
    let mut first = true;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        // The first line is a header only if every field is a name: a first row with one
        // mistyped number, quoted numbers or numbers not separated by commas is an error, not
        // a header that silently drops a row.
        if std::mem::take(&mut first) && fields.iter().all(|f| is_name(f)) {
            continue;
        }
        let numbers = fields
            .iter()
            .map(|f| {
                f.parse::<f64>().map_err(|_| {
                    syntax(
                        path,
                        n + 1,
                        format!("not a number: {f:?} (fields are numbers separated by commas)"),
                    )
                })
            })
            .collect::<Result<Vec<f64>, _>>()?;
        match width {
            None => width = Some(numbers.len()),
            Some(w) if w != numbers.len() => {
                let (first, row) = ((w, lines[0]), (lines.len(), n + 1));
                return Err(ragged(path, widths, first, row, numbers.len()));
            }
            _ => {}
        }
        values.extend(numbers);
        lines.push(n + 1);
    }
    Ok(Rows {
        width_given: true,
        width: width.unwrap_or(0),
        values,
        lines,
    })
}

fn read_json(path: &Path, widths: &[usize]) -> Result<Rows, Error> {
    let text = text(path)?;
    // A byte-order mark, as a CSV may have (some Windows editors write one).
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| syntax(path, e.line(), format!("expected a list of rows: {e}")))?;
    let list = value
        .as_array()
        .ok_or_else(|| syntax(path, 1, "expected a list of rows".into()))?;
    // serde_json keeps no positions: messages name the row, on line 1.
    let rows: Vec<Vec<f64>> = list
        .iter()
        .enumerate()
        .map(|(i, row)| {
            json_row(row).ok_or_else(|| {
                syntax(
                    path,
                    1,
                    format!("row {i} is not a list of numbers (nor a 4×4 matrix)"),
                )
            })
        })
        .collect::<Result<_, _>>()?;
    let width = rows.first().map_or(0, Vec::len);
    if width == 0 && !rows.is_empty() {
        return Err(syntax(path, 1, "row 0 holds no numbers".into()));
    }
    if let Some(i) = rows.iter().position(|r| r.len() != width) {
        return Err(ragged(path, widths, (width, 1), (i, 1), rows[i].len()));
    }
    Ok(Rows {
        width_given: true,
        width,
        values: rows.concat(),
        lines: Vec::new(),
    })
}

/// The numbers of a JSON row: a flat list of numbers, or a 4×4 list of lists of numbers (a
/// pose matrix), read row-major. `None` for anything else.
fn json_row(row: &serde_json::Value) -> Option<Vec<f64>> {
    let numbers = |v: &[serde_json::Value]| -> Option<Vec<f64>> {
        v.iter().map(serde_json::Value::as_f64).collect()
    };
    let items = row.as_array()?;
    if let Some(flat) = numbers(items) {
        return Some(flat);
    }
    if items.len() != 4 {
        return None;
    }
    let matrix: Vec<Vec<f64>> = items
        .iter()
        .map(|r| {
            r.as_array()
                .filter(|r| r.len() == 4)
                .and_then(|r| numbers(r))
        })
        .collect::<Option<_>>()?;
    Some(matrix.concat())
}

/// NumPy's format 1.0–3.0: magic, version, a header dict (`descr`, `fortran_order`, `shape`),
/// then the data. Float32 or float64, little endian, C order, one or two dimensions.
fn read_npy(path: &Path) -> Result<Rows, Error> {
    let bytes = bytes(path)?;
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
        .ok_or_else(|| bad("header cut short"))?;
    let header = std::str::from_utf8(header).map_err(|_| bad("header not UTF-8 text"))?;
    let dict = npy_header(header).map_err(|m| bad(&m))?;
    // As in Python, a key given twice takes its last value.
    let get = |key: &str| dict.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v);
    let size = match get("descr") {
        Some(PyValue::Str(d)) if d == "<f8" => 8,
        Some(PyValue::Str(d)) if d == "<f4" => 4,
        Some(PyValue::Str(d)) => {
            return Err(bad(&format!(
                "dtype {d:?}: only float32 and float64, little endian ('<f4', '<f8'), are read"
            )))
        }
        _ => return Err(bad("the header's 'descr' is missing or not a string")),
    };
    match get("fortran_order") {
        Some(PyValue::Bool(false)) => {}
        Some(PyValue::Bool(true)) => {
            return Err(bad(
                "Fortran order; save it in C order (np.ascontiguousarray)",
            ))
        }
        _ => {
            return Err(bad(
                "the header's 'fortran_order' is missing or not True/False",
            ))
        }
    }
    let shape = match get("shape") {
        Some(PyValue::Tuple(s)) => s.clone(),
        _ => return Err(bad("the header's 'shape' is missing or not a tuple")),
    };
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
    if width == 0 && rows > 0 {
        return Err(syntax(
            path,
            1,
            format!("row 0 holds no numbers (shape {shape:?})"),
        ));
    }
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
    Ok(Rows {
        width_given: true,
        width,
        values,
        lines: Vec::new(),
    })
}

/// A value of a `.npy` header: NumPy writes strings, `True`/`False` and tuples of integers.
enum PyValue {
    Str(String),
    Bool(bool),
    Tuple(Vec<usize>),
}

/// The keys and values of a `.npy` header, a Python dict literal such as
/// `{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }`, with or without spaces, its
/// keys in any order; what is wrong with it otherwise.
fn npy_header(header: &str) -> Result<Vec<(String, PyValue)>, String> {
    let mut p = Literal(header);
    if !p.eat('{') {
        return Err("the header is not a dict".into());
    }
    let mut entries = Vec::new();
    while !p.eat('}') {
        let key = p
            .string()
            .ok_or("a key of the header is not a quoted string")?;
        if !["descr", "fortran_order", "shape"].contains(&key.as_str()) {
            return Err(format!("unexpected key {key:?} in the header"));
        }
        if !p.eat(':') {
            return Err(format!("no ':' after {key:?} in the header"));
        }
        entries.push((key, p.value()?));
        if !p.eat(',') {
            if !p.eat('}') {
                return Err("the header's dict is not closed".into());
            }
            break;
        }
    }
    if !p.0.trim().is_empty() {
        return Err("text after the header's dict".into());
    }
    Ok(entries)
}

/// The unread rest of a Python literal.
struct Literal<'a>(&'a str);

impl Literal<'_> {
    /// Skips whitespace, then `c` if it comes next: whether it did.
    fn eat(&mut self, c: char) -> bool {
        self.0 = self.0.trim_start();
        match self.0.strip_prefix(c) {
            Some(rest) => {
                self.0 = rest;
                true
            }
            None => false,
        }
    }

    /// A string in single or double quotes (no escapes: NumPy's keys and dtypes need none).
    fn string(&mut self) -> Option<String> {
        self.0 = self.0.trim_start();
        let quote = self.0.chars().next().filter(|&c| c == '\'' || c == '"')?;
        let body = &self.0[1..];
        let end = body.find(quote)?;
        self.0 = &body[end + 1..];
        Some(body[..end].to_string())
    }

    /// A string, `True`, `False` or a tuple of integers.
    fn value(&mut self) -> Result<PyValue, String> {
        self.0 = self.0.trim_start();
        if self.0.starts_with('[') {
            return Err(
                "a structured array (its 'descr' is a list of fields); only plain float32 and \
                 float64 arrays are read"
                    .into(),
            );
        }
        if let Some(s) = self.string() {
            return Ok(PyValue::Str(s));
        }
        for (word, b) in [("True", true), ("False", false)] {
            if let Some(rest) = self.0.strip_prefix(word) {
                self.0 = rest;
                return Ok(PyValue::Bool(b));
            }
        }
        let not_a_tuple =
            || "a value of the header is not a string, True, False or a tuple of integers";
        if !self.eat('(') {
            return Err(not_a_tuple().into());
        }
        let mut dims = Vec::new();
        while !self.eat(')') {
            let digits = self
                .0
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(self.0.len());
            dims.push(self.0[..digits].parse().map_err(|_| not_a_tuple())?);
            self.0 = &self.0[digits..];
            if !self.eat(',') {
                if !self.eat(')') {
                    return Err(not_a_tuple().into());
                }
                break;
            }
        }
        Ok(PyValue::Tuple(dims))
    }
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

/// The rows as a JSON list of objects, written a row at a time: a tree of every row's values
/// took about 1.2 kB a row (a review's helper: 3M points' `--out .json` peaked at 3.7 GB, their
/// CSV at 1 GB). The same bytes as the tree's.
fn json_rows(n: usize, columns: &[(&str, Column)]) -> Result<Vec<u8>, Error> {
    let mut out = Vec::with_capacity(n.saturating_mul(16 * columns.len()));
    out.push(b'[');
    for i in 0..n {
        if i > 0 {
            out.push(b',');
        }
        let row: serde_json::Map<String, serde_json::Value> = columns
            .iter()
            .map(|(k, c)| (k.to_string(), c.json(i)))
            .collect();
        serde_json::to_writer(&mut out, &row)
            .map_err(|e| Error::Output(std::io::Error::other(e)))?;
    }
    out.push(b']');
    Ok(out)
}

/// `columns` (all `n` long) to `path`, in the format its extension names; a spinner on a
/// terminal while a large table is written.
pub fn write(path: &Path, n: usize, columns: &[(&str, Column)]) -> Result<(), Error> {
    let what = format!("writing {}", file_name(path));
    crate::progress::during(&what, || write_now(path, n, columns))
}

fn write_now(path: &Path, n: usize, columns: &[(&str, Column)]) -> Result<(), Error> {
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
        "json" => json_rows(n, columns)?,
        "npy" => npy_bytes(n, columns),
        other => {
            return Err(Error::Argument(format!(
                "{}: unknown table format {other:?} (expected .npy, .csv or .json)",
                path.display()
            )))
        }
    };
    meshclash::save::file(path, &bytes)
}

/// An `--out` path that [`write`] can take: a known format, and [`check_writable`]. Checked
/// before the work, so that a long batch is not lost to a typo or a read-only folder.
pub fn check_out(path: &Path, inputs: &[&Path]) -> Result<(), Error> {
    if !matches!(extension(path).as_str(), "csv" | "json" | "npy") {
        return Err(Error::Argument(format!(
            "--out {}: unknown table format (expected .npy, .csv or .json)",
            path.display()
        )));
    }
    check_writable("--out", path, &with_buffers(inputs))
}

/// The command's `inputs`, with the files a glTF's buffers name (read from beside it, so
/// inputs too); for [`check_writable`], made once for all of a command's outputs.
pub fn with_buffers(inputs: &[&Path]) -> Vec<PathBuf> {
    let buffers = inputs
        .iter()
        .flat_map(|i| meshclash::mesh::read::buffer_files(i));
    inputs
        .iter()
        .map(|i| i.to_path_buf())
        .chain(buffers)
        .collect()
}

/// A path `option` will write once the work is done: in a folder that exists, a file (or a
/// device such as /dev/null) or none yet, and writable, and none of the command's `inputs`
/// (a review's helper: `--render a.stl` wrote a PNG over the mesh it had read). An existing
/// file is opened for writing but left as it is; a new one is created and removed again.
/// Links are followed: one whose file does not exist yet is judged by the path it leads to.
pub fn check_writable(option: &str, path: &Path, inputs: &[PathBuf]) -> Result<(), Error> {
    let bad = |why: &str| Error::Argument(format!("{option} {}: {why}", path.display()));
    if let Some(input) = inputs.iter().find(|i| same_path(path, i)) {
        return Err(bad(&format!(
            "is an input of this command ({}): it would be written over",
            input.display()
        )));
    }
    let target = dangling_target(path);
    let path = target.as_deref().unwrap_or(path);
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.is_dir() {
            return Err(bad("is a folder"));
        }
        // A FIFO would block the write (and opening it here would end its reader's input).
        if blocks(&meta.file_type()) {
            return Err(bad("is a named pipe or a socket, not a file"));
        }
    }
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() && !dir.is_dir() {
            return Err(bad("its folder does not exist"));
        }
    }
    let mut open = std::fs::OpenOptions::new();
    let writable = match path.exists() {
        true => open.write(true).open(path).map(|_| ()),
        false => open
            .write(true)
            .create_new(true)
            .open(path)
            .and_then(|_| std::fs::remove_file(path)),
    };
    writable.map_err(|e| bad(&format!("cannot be written: {e}")))
}

/// Whether `a` and `b` name one file: the same file where both exist (through links, hard or
/// symbolic: by their metadata, never opened, which would block on a FIFO), else the same
/// absolute path (an output not written yet).
pub fn same_path(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        use std::os::unix::fs::MetadataExt;
        return (x.dev(), x.ino()) == (y.dev(), y.ino());
    }
    #[cfg(not(unix))]
    if let (Ok(x), Ok(y)) = (a.canonicalize(), b.canonicalize()) {
        return x == y;
    }
    matches!(
        (std::path::absolute(a), std::path::absolute(b)),
        (Ok(x), Ok(y)) if x == y
    )
}

/// Whether writing to a file of this type could block: a FIFO or a socket.
fn blocks(t: &std::fs::FileType) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        t.is_fifo() || t.is_socket()
    }
    #[cfg(not(unix))]
    {
        let _ = t;
        false
    }
}

/// Where a chain of links that leads nowhere yet ends (writing through it creates that
/// file), followed as the system follows it, up to 40 links.
fn dangling_target(path: &Path) -> Option<std::path::PathBuf> {
    if path.exists() || !path.is_symlink() {
        return None;
    }
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        if !at.is_symlink() {
            return Some(at);
        }
        let to = std::fs::read_link(&at).ok()?;
        at = match at.parent() {
            Some(dir) if to.is_relative() => dir.join(to),
            _ => to,
        };
    }
    None
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

//! Between Python and the library: errors, arrays, poses, backends and JSON values.

use crate::process::{self, Owned};
use meshclash::{Backend, BackendKind, DVec3, Error, Pose};
use numpy::{PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::exceptions::{
    PyFileNotFoundError, PyIsADirectoryError, PyMemoryError, PyOSError, PyPermissionError,
    PyRuntimeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde_json::Value;
use std::io::ErrorKind;
use std::sync::{Arc, Mutex};

/// The library's error as Python's: files are `OSError` (by kind, as `open` raises them), a
/// GPU that cannot be had or fails is `RuntimeError`, everything else the caller gave is
/// `ValueError`. The message is the command line's.
pub fn err(e: Error) -> PyErr {
    let msg = e.to_string();
    match &e {
        Error::Io { source, .. } => match source.kind() {
            ErrorKind::NotFound => PyFileNotFoundError::new_err(msg),
            ErrorKind::PermissionDenied => PyPermissionError::new_err(msg),
            ErrorKind::IsADirectory => PyIsADirectoryError::new_err(msg),
            _ => PyOSError::new_err(msg),
        },
        Error::NotAFile { kind, .. } if kind.contains("directory") => {
            PyIsADirectoryError::new_err(msg)
        }
        Error::NotAFile { .. } | Error::Grew { .. } | Error::Output(_) => PyOSError::new_err(msg),
        Error::NoAdapter(_) | Error::Gpu(_) => PyRuntimeError::new_err(msg),
        _ => PyValueError::new_err(msg),
    }
}

pub fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// `numpy.asarray(obj, dtype)`: lists, tuples and arrays of any dtype numpy can cast.
pub fn asarray<'py>(obj: &Bound<'py, PyAny>, dtype: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    let np = py.import(pyo3::intern!(py, "numpy"))?;
    np.call_method1(pyo3::intern!(py, "asarray"), (obj, dtype))
}

/// `obj` as a float64 array of `ndim` dimensions whose last is `last` (when given); `what`
/// names it in the error.
pub fn f64_array<'py>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    shape: &[Option<usize>],
) -> PyResult<PyReadonlyArrayDyn<'py, f64>> {
    let arr = asarray(&numbers(obj, what)?, Some("float64"))?;
    let arr = arr
        .cast_into::<PyArrayDyn<f64>>()
        .map_err(|_| value_error(format!("{what} must be an array of numbers")))?;
    check_shape(arr.shape(), what, shape)?;
    Ok(arr.readonly())
}

/// `obj` holds numbers as numpy casts them to float64 without losing what they say: refused
/// are booleans, complex numbers (their imaginary part dropped), strings ("0.5" parsed) and a
/// masked array with masked values (its hidden values would be answered), all of which
/// `asarray(float64)` took quietly (a hunt's helper). The array `obj` makes, converted once
/// (a list is not read twice).
fn numbers<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    let ma = py.import(pyo3::intern!(py, "numpy"))?.getattr("ma")?;
    if ma.call_method1("is_masked", (obj,))?.is_truthy()? {
        return Err(value_error(format!(
            "{what}: a masked array with masked values (pass the rows to answer, or .filled())"
        )));
    }
    let arr = asarray(obj, None)?;
    let dtype = arr.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    if matches!(kind.as_str(), "f" | "i" | "u") {
        return Ok(arr);
    }
    // Python objects (Fraction, Decimal, int beyond int64...): each as float() reads it, but
    // not those the dtypes above are refused for (a review's helper: strings were parsed and
    // booleans taken as 0 and 1 through an object array).
    if kind == "O" {
        if let Some(bad) = not_real(&arr)? {
            return Err(value_error(format!(
                "{what} must be an array of real numbers, got an object array holding {bad}"
            )));
        }
        return Ok(arr);
    }
    Err(value_error(format!(
        "{what} must be an array of real numbers, got dtype {}",
        dtype.str()?
    )))
}

/// A real number argument (a distance, a limit, a tolerance): what `float()` takes, less
/// booleans, which Python would take as 0 and 1 (`clearance=True` is a mistake, not a
/// clearance of 1).
#[derive(Clone, Copy, Debug)]
pub struct Real(pub f64);

impl<'a, 'py> FromPyObject<'a, 'py> for Real {
    type Error = PyErr;

    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Real> {
        // A bool, or numpy's (a scalar, or a 0-d array: `np.array(True)`), by its dtype.
        let numpy_bool = match obj.getattr("dtype") {
            Ok(dtype) => dtype.getattr("kind")?.extract::<String>()? == "b",
            Err(_) => false,
        };
        if obj.is_instance_of::<pyo3::types::PyBool>() || numpy_bool {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "expected a real number, got a bool",
            ));
        }
        Ok(Real(obj.extract::<f64>()?))
    }
}

/// The type of the first element of object array `arr` that is a boolean, a complex number, a
/// string or bytes, if any.
fn not_real(arr: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    let py = arr.py();
    let np = py.import(pyo3::intern!(py, "numpy"))?;
    let refused = pyo3::types::PyTuple::new(
        py,
        [
            py.get_type::<pyo3::types::PyBool>().into_any(),
            np.getattr("bool_")?,
            py.get_type::<pyo3::types::PyComplex>().into_any(),
            np.getattr("complexfloating")?,
            py.get_type::<PyString>().into_any(),
            py.get_type::<pyo3::types::PyBytes>().into_any(),
        ],
    )?;
    for x in arr.call_method0("ravel")?.try_iter()? {
        let x = x?;
        if x.is_instance(&refused)? {
            return Ok(Some(x.get_type().name()?.to_string()));
        }
    }
    Ok(None)
}

/// A shape as Python writes it: `(5, 3)`, `(0,)`, `()`.
pub fn py_shape(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => {
            let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
            format!("({})", dims.join(", "))
        }
    }
}

/// A shape against a pattern (`None`: any length), as a `ValueError` naming both.
pub fn check_shape(got: &[usize], what: &str, want: &[Option<usize>]) -> PyResult<()> {
    let fits =
        got.len() == want.len() && got.iter().zip(want).all(|(g, w)| w.is_none_or(|w| *g == w));
    if fits {
        return Ok(());
    }
    let want: Vec<String> = want
        .iter()
        .zip(["N", "M", "K"])
        .map(|(w, n)| w.map_or(n.to_string(), |w| w.to_string()))
        .collect();
    let want = match want.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", want.join(", ")),
    };
    Err(value_error(format!(
        "{what} must have shape {want}, got {}",
        py_shape(got)
    )))
}

/// An empty `Vec` with room for `n` rows of `what`, or `MemoryError`: numpy holds some arrays
/// in no memory (`np.broadcast_to(p, (2**40, 3))`), and copying one aborted the interpreter
/// (a hunt's helper) where Python raises for an allocation that cannot be had.
pub fn room<T>(n: usize, what: &str) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| PyMemoryError::new_err(format!("{what}: {n} rows do not fit in memory")))?;
    Ok(v)
}

/// Rows of three finite numbers, `(N, 3)`, as points (query rows: points, origins,
/// directions, centres, displacements). A row holding NaN or an infinity is refused, as the
/// command line refuses it: answered, it came back as an answer (outside, nothing within reach).
pub fn points(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<DVec3>> {
    let a = f64_array(obj, what, &[None, Some(3)])?;
    let a = a.as_array();
    let mut rows: Vec<DVec3> = room(a.shape()[0], what)?;
    rows.extend(a.outer_iter().map(|r| DVec3::new(r[0], r[1], r[2])));
    if let Some((i, v)) = rows.iter().enumerate().find_map(|(i, r)| {
        r.to_array()
            .into_iter()
            .find(|v| !v.is_finite())
            .map(|v| (i, v))
    }) {
        return Err(value_error(format!(
            "{what}: row {i} holds {v}, not a finite number"
        )));
    }
    Ok(rows)
}

/// A 4×4 rigid transform (`None`: the identity), checked as `--matrix` is.
pub fn pose(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Pose> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(Pose::IDENTITY);
    };
    let a = f64_array(obj, what, &[Some(4), Some(4)])?;
    let m: Vec<f64> = a.as_array().iter().copied().collect();
    Pose::from_matrix(&m).map_err(|e| value_error(format!("{what}: {e}")))
}

/// Many 4×4 rigid transforms: `(K, 4, 4)`, `(K, 16)` rows read row-major, or one `(4, 4)`,
/// as the command line reads a poses file.
pub fn poses(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Pose>> {
    let a = f64_array(obj, what, &[None, Some(4), Some(4)])
        .or_else(|first| f64_array(obj, what, &[None, Some(16)]).map_err(|_| first))
        .or_else(|first| f64_array(obj, what, &[Some(4), Some(4)]).map_err(|_| first))
        .map_err(|first| {
            // A shape none of the three takes: name all three, not the first alone.
            let shape = asarray(obj, Some("float64")).and_then(|x| x.getattr("shape"));
            match shape {
                Ok(shape) if first.to_string().contains("must have shape") => value_error(format!(
                    "{what} must have shape (K, 4, 4), (K, 16) or (4, 4), got {shape}"
                )),
                _ => first,
            }
        })?;
    let a = a.as_array();
    let pose = |i: usize, m: Vec<f64>| {
        Pose::from_matrix(&m).map_err(|e| value_error(format!("{what}[{i}]: {e}")))
    };
    if a.shape() == [4, 4] {
        return Ok(vec![pose(0, a.iter().copied().collect())?]);
    }
    let mut out = room(a.shape()[0], what)?;
    for (i, m) in a.outer_iter().enumerate() {
        out.push(pose(i, m.iter().copied().collect())?);
    }
    Ok(out)
}

/// The backends made so far, one per kind, shared by every call: a GPU's device and pipelines
/// are made once, and a mesh's uploads (kept per backend) serve every later query. A process
/// forked from one that made them makes its own ([`process::ours`]).
static SHARED: [Owned<Backend>; 3] = [const { Mutex::new(None) }; 3];

fn shared(py: Python<'_>, kind: BackendKind) -> PyResult<Arc<Backend>> {
    let slot = &SHARED[match kind {
        BackendKind::Cpu => 0,
        BackendKind::Gpu => 1,
        BackendKind::Auto => 2,
    }];
    py.detach(|| process::ours(slot, || Backend::new(kind)))
        .map_err(err)
}

/// Who answers the queries: `backend("auto")`, `"cpu"` or `"gpu"`. One per kind per process,
/// made on first use and kept.
#[pyclass(frozen, name = "Backend", module = "meshclash")]
pub struct PyBackend {
    pub inner: Arc<Backend>,
    /// The process that made it: in a child forked after, the child's backend of its kind
    /// answers instead ([`backend_arg`]).
    pid: u32,
}

#[pymethods]
impl PyBackend {
    /// The backend asked for: "auto", "cpu" or "gpu".
    #[getter]
    fn kind(&self) -> String {
        self.inner.kind().to_string()
    }

    /// Who answers now: "gpu" or "cpu".
    #[getter]
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    /// The GPU adapter that answers (name, backend, device type, ...), or None on the CPU.
    #[getter]
    fn adapter<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &adapter_json(&self.inner))
    }

    /// Why "auto" answers on the CPU, if it does.
    #[getter]
    fn fallback_reason(&self) -> Option<String> {
        self.inner.fallback_reason()
    }

    /// Handles of the same backend are equal (one per kind per process, so two calls of
    /// `backend("cpu")` give equal handles, as docs/python.md says); another object is not.
    fn __eq__(&self, other: PyRef<'_, PyBackend>) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    fn __hash__(&self) -> u64 {
        Arc::as_ptr(&self.inner) as usize as u64
    }

    /// Pickled as its kind: unpickled (in another process too) it is that process's backend
    /// of the kind.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let module = py.import("meshclash._meshclash")?;
        Ok((module.getattr("backend")?, (self.kind(),)))
    }

    /// The same handle: a backend is shared, not copied.
    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __deepcopy__(slf: Py<Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf
    }

    fn __repr__(&self) -> String {
        format!(
            "meshclash.Backend(kind={:?}, answering on {})",
            self.inner.kind().to_string(),
            self.inner.name()
        )
    }
}

/// `backend(kind="auto")`: the shared backend of that kind ("auto", "cpu" or "gpu"), made on
/// first use. "gpu" raises RuntimeError when no GPU adapter can be set up; "auto" takes a
/// hardware GPU when there is one, else the CPU (a software adapter such as lavapipe is slower
/// than the CPU path).
#[pyfunction]
#[pyo3(signature = (kind = None), text_signature = "(kind='auto')")]
pub fn backend(py: Python<'_>, kind: Option<&str>) -> PyResult<PyBackend> {
    let kind: BackendKind = kind.unwrap_or("auto").parse().map_err(err)?;
    Ok(PyBackend {
        inner: shared(py, kind)?,
        pid: std::process::id(),
    })
}

/// A `backend=` argument: a kind's name or a `Backend`; `None` is "auto".
pub fn backend_arg(obj: &Bound<'_, PyAny>) -> PyResult<Arc<Backend>> {
    if obj.is_none() {
        return Ok(backend(obj.py(), None)?.inner);
    }
    if let Ok(b) = obj.cast::<PyBackend>() {
        let b = b.get();
        if b.pid == std::process::id() {
            return Ok(b.inner.clone());
        }
        return shared(obj.py(), b.inner.kind());
    }
    let kind = obj.cast::<PyString>().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(
            "backend must be \"auto\", \"cpu\", \"gpu\" or a Backend",
        )
    })?;
    Ok(backend(obj.py(), Some(&kind.to_cow()?))?.inner)
}

/// The adapter that answered, or `null` on the CPU (as the command line gives it).
pub fn adapter_json(backend: &Backend) -> Value {
    backend
        .adapter()
        .and_then(|a| serde_json::to_value(a).ok())
        .unwrap_or(Value::Null)
}

/// A JSON value as Python's `json.loads` would give it.
pub fn json_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(a) => {
            let items = a
                .iter()
                .map(|x| json_to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

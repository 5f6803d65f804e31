//! Batch queries, numpy in and numpy out: points, rays, spheres, poses and sweeps.

use pyo3::prelude::*;

pub fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}

//! `meshclash._meshclash`: the Python bindings. The package `meshclash` (python/meshclash)
//! re-exports these and adds the trimesh-style `CollisionManager` on top of them.
//!
//! Every query converts its arguments under the GIL, runs with the GIL released
//! ([`process::released`], on this process's own threads) and converts its answer back under it. Errors keep the command line's
//! messages: bad input is `ValueError`, files `OSError`, a GPU that fails `RuntimeError`.

mod batch;
mod convert;
mod manager;
mod mesh;
mod pair;
mod process;

use pyo3::prelude::*;

#[pymodule]
fn _meshclash(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<mesh::Mesh>()?;
    m.add_class::<convert::PyBackend>()?;
    m.add_class::<pair::CheckResult>()?;
    m.add_class::<pair::SolidDistanceResult>()?;
    m.add_class::<pair::SelfResult>()?;
    m.add_function(wrap_pyfunction!(mesh::load, m)?)?;
    m.add_function(wrap_pyfunction!(mesh::_mesh_from_parts, m)?)?;
    m.add_function(wrap_pyfunction!(mesh::_unit_name, m)?)?;
    m.add_function(wrap_pyfunction!(convert::backend, m)?)?;
    m.add_function(wrap_pyfunction!(pair::check, m)?)?;
    m.add_function(wrap_pyfunction!(pair::interferes, m)?)?;
    m.add_function(wrap_pyfunction!(pair::solid_distance, m)?)?;
    m.add_function(wrap_pyfunction!(pair::self_intersections, m)?)?;
    m.add_function(wrap_pyfunction!(manager::interfering_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(manager::nearest_pair, m)?)?;
    m.add_function(wrap_pyfunction!(manager::contacts, m)?)?;
    m.add_function(wrap_pyfunction!(manager::rigid_transform, m)?)?;
    batch::register(m)?;
    Ok(())
}

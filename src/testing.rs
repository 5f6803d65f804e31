//! Helpers the unit tests share (built only for tests).

use crate::mesh::Mesh;

/// A small deterministic generator of numbers in [0, 1) (no dependency for a unit test).
pub fn lcg(seed: u64) -> impl FnMut() -> f64 {
    let mut s = seed;
    move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `mesh` moved by `offset` and scaled by `scale`, in f32 as a file would hold it.
pub fn placed(mesh: &Mesh, scale: f32, offset: [f32; 3]) -> Mesh {
    let mut m = mesh.clone();
    for v in &mut m.vertices {
        *v = [0, 1, 2].map(|k| v[k] * scale + offset[k]);
    }
    m
}

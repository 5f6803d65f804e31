//! The per-triangle record of Nathan (2015) in the layout the GPU reads, unchanged.

use crate::geom::{triangle_bounding_sphere, Tri};
use bytemuck::{Pod, Zeroable};

/// Nathan's preprocessed triangle: vertices, edge vectors, unit normal, edge unit normals,
/// bounding sphere and the "F" vectors with the inverse determinant of the barycentric test.
///
/// WGSL twin: `struct TriRecord` in `shaders/common.wgsl`; `tests/layout.rs` checks sizes and
/// offsets against naga's reflection. Every field is a `vec4<f32>` (16-byte aligned, no implicit
/// padding); the fourth components carry the values named below.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct TriRecord {
    /// `V0, V1, V2`; `w = 0`.
    pub v: [[f32; 4]; 3],
    /// Bounding sphere: centroid, `w` = radius to the farthest vertex. Beside the vertices: the
    /// 64 bytes the GPU's cull and narrow stages read are one cache line of a record.
    pub sphere: [f32; 4],
    /// Unit normal; `w = n · V0` (the plane offset). All zero for a zero-area triangle.
    pub normal: [f32; 4],
    /// `E0 = V1 − V0`, `E1 = V2 − V1`, `E2 = V0 − V2`; `w = |E_i|`.
    pub e: [[f32; 4]; 3],
    /// Edge unit normals `(E_i/|E_i|) × n`, pointing out of the triangle; `w = en_i · V_i`.
    pub edge_normal: [[f32; 4]; 3],
    /// `E0·E0`, `E0·E2`, `E2·E2` (the F vectors `F20 = (E0·E0, E0·E2)`,
    /// `F22 = (E0·E2, E2·E2)`) and `w = 1 / (F20 × F22)`, 0 for a zero-area triangle.
    pub bary: [f32; 4],
}

impl TriRecord {
    /// Computed in `f64` from the triangle, rounded to `f32` once at the end.
    pub fn new(t: &Tri) -> TriRecord {
        let f = crate::geom::tritri::TriFrame::new(t);
        let v4 = |v: glam::DVec3, w: f64| [v.x as f32, v.y as f32, v.z as f32, w as f32];
        let s = triangle_bounding_sphere(t);
        let (e0, e2) = (f.e[0], f.e[2]);
        let (a, b, c) = (e0.dot(e0), e0.dot(e2), e2.dot(e2));
        let det = a * c - b * b;
        let inv = if f.is_degenerate() || det == 0.0 {
            0.0
        } else {
            1.0 / det
        };
        TriRecord {
            v: std::array::from_fn(|i| v4(t[i], 0.0)),
            e: std::array::from_fn(|i| v4(f.e[i], f.e[i].length())),
            normal: v4(f.n, f.n.dot(t[0])),
            edge_normal: std::array::from_fn(|i| v4(f.en[i], f.en[i].dot(t[i]))),
            sphere: v4(s.center, s.radius),
            bary: [a as f32, b as f32, c as f32, inv as f32],
        }
    }
}

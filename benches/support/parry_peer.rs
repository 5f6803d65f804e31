//! Our meshes and poses as parry3d 0.31 shapes (f32; parry's own glam), for the comparisons in
//! `benches/queries.rs` and `examples/compare_timings.rs`.

use meshclash::mesh::Pose;
use meshclash::PreparedMesh;
use parry3d::math::{Mat3, Pose as PPose, Rot3, Vector};
use parry3d::shape::TriMesh;

pub fn trimesh(m: &PreparedMesh) -> TriMesh {
    let v = m
        .mesh
        .vertices
        .iter()
        .map(|p| Vector::new(p[0], p[1], p[2]))
        .collect();
    TriMesh::new(v, m.mesh.triangles.clone()).expect("a non-empty mesh")
}

pub fn pose(p: &Pose) -> PPose {
    let r = p.rotation;
    let col = |j: usize| Vector::new(r[0][j] as f32, r[1][j] as f32, r[2][j] as f32);
    let t = p.translation;
    PPose::from_parts(
        Vector::new(t.x as f32, t.y as f32, t.z as f32),
        Rot3::from_mat3(&Mat3::from_cols(col(0), col(1), col(2))),
    )
}

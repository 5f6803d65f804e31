//! `query::check` on two tiny posed meshes: no panic, and the intersecting pairs equal brute
//! force over all pairs with the exact test, the distance the minimum over all pairs. The same
//! pose through `query::poses` (the oriented boxes' walk): where the parts are apart, the pair
//! brute force names (the smallest `(distance², a, b)`), and `check`'s count of pairs within the
//! clearance.
//!
//! Input layout (a shorter input is skipped): byte 0 and 1, the triangle counts of A and B
//! (1 to 4 each); byte 2, the placement: both meshes scaled by 1, 2^-10 or 2^-20 and both
//! poses moved by 0, 2^20 or 2^21 along every axis; then per mesh a pose of 7 bytes (a
//! quaternion's x, y, z, w and a translation, each a signed byte); then 9 signed bytes per
//! triangle. Coordinates and translations are multiples of 1/8 (scaled by a power of two, moved
//! by one: still exact), so shared vertices, touching and coplanar faces are exact and frequent;
//! a quaternion of all zeros is the identity, which keeps them exact after posing. Tiny parts
//! far from the origin are where rounding margins and culling bounds are tightest.
#![no_main]
use libfuzzer_sys::fuzz_target;
use meshclash::geom::{tritri, DVec3, Tri};
use meshclash::mesh::{Mesh, Pose};
use meshclash::query::{self, CheckOptions};
use meshclash::PreparedMesh;

/// A signed byte as a multiple of 1/8.
fn coord(b: u8) -> f64 {
    (b as i8) as f64 / 8.0
}

/// The rotation of the unit quaternion `q / |q|` (identity for `q = 0`), and a translation
/// scaled by `scale` and moved by `far` on every axis.
fn pose(b: &[u8], scale: f64, far: f64) -> Pose {
    let q = [b[0], b[1], b[2], b[3]].map(|x| (x as i8) as f64);
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    let translation = DVec3::new(coord(b[4]), coord(b[5]), coord(b[6])) * scale + far;
    if n == 0.0 {
        return Pose::translation(translation);
    }
    let [x, y, z, w] = q.map(|c| c / n);
    let rotation = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - z * w),
            2.0 * (x * z + y * w),
        ],
        [
            2.0 * (x * y + z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - x * w),
        ],
        [
            2.0 * (x * z - y * w),
            2.0 * (y * z + x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    Pose {
        rotation,
        translation,
    }
}

/// `count` triangles from 9 bytes each; `None` when the mesh is refused (all zero-area is
/// allowed; the readers' checks apply).
fn mesh(bytes: &[u8], count: usize, scale: f64) -> Option<PreparedMesh> {
    let soup = bytes
        .chunks_exact(9)
        .take(count)
        .map(|t| {
            std::array::from_fn(|v| std::array::from_fn(|k| (coord(t[3 * v + k]) * scale) as f32))
        })
        .collect();
    Mesh::from_soup("fuzz", soup).ok().map(PreparedMesh::new)
}

/// Triangle `i` of `m` posed by `p`, as the query poses it (`Pose::apply` on the f64 vertex).
fn posed(m: &PreparedMesh, p: &Pose, i: usize) -> Tri {
    m.mesh.triangles[i].map(|v| {
        p.apply(DVec3::from_array(
            m.mesh.vertices[v as usize].map(f64::from),
        ))
    })
}

fuzz_target!(|data: &[u8]| {
    let (Some(&na), Some(&nb)) = (data.first(), data.get(1)) else {
        return;
    };
    let (na, nb) = (1 + na as usize % 4, 1 + nb as usize % 4);
    let need = 3 + 14 + 9 * (na + nb);
    if data.len() < need {
        return;
    }
    let scale = [1.0, 0.0009765625, 9.5367431640625e-7][data[2] as usize % 3]; // 2^0, 2^-10, 2^-20
    let far = [0.0, 1048576.0, 2097152.0][data[2] as usize / 3 % 3]; // 0, 2^20, 2^21
    let (pa, pb) = (
        pose(&data[3..10], scale, far),
        pose(&data[10..17], scale, far),
    );
    let tris = &data[17..];
    let (Some(a), Some(b)) = (mesh(tris, na, scale), mesh(&tris[9 * na..], nb, scale)) else {
        return;
    };
    let r = query::check(
        &a,
        pa,
        &b,
        pb,
        &CheckOptions {
            clearance: Some(0.25 * scale),
        },
    );
    let mut want = Vec::new();
    let mut nearest = f64::INFINITY;
    for i in 0..a.mesh.triangles.len() {
        for j in 0..b.mesh.triangles.len() {
            let (ta, tb) = (posed(&a, &pa, i), posed(&b, &pb, j));
            if tritri::intersect(&ta, &tb) {
                want.push((i as u32, j as u32));
            }
            nearest = nearest.min(tritri::distance(&ta, &tb).distance);
        }
    }
    let got: Vec<(u32, u32)> = r.intersect.pairs.iter().map(|p| (p.a, p.b)).collect();
    assert_eq!(got, want, "intersecting pairs");
    // Parts that do not meet are never 0 apart: a distance that rounds to 0 is reported as the
    // least positive f64 (`query::distance::apart`), so 0 keeps meaning "they meet".
    let d = if want.is_empty() {
        nearest.max(f64::from_bits(1))
    } else {
        0.0
    };
    assert_eq!(r.distance.distance, d, "distance");
    let posed_answer = &query::poses(&a, pa, &b, &[pb], Some(0.25 * scale))[0];
    assert_eq!(
        posed_answer.clearance_pairs,
        Some(r.clearance.map_or(0, |c| c.pairs.len())),
        "pairs within the clearance"
    );
    if let query::SolidDistance::Apart { report, .. } = &posed_answer.solid {
        let mut smallest = (f64::INFINITY, 0, 0);
        for i in 0..a.mesh.triangles.len() {
            for j in 0..b.mesh.triangles.len() {
                let (ta, tb) = (posed(&a, &pa, i), posed(&b, &pb, j));
                let e = tritri::separated_distance(&ta, &tb).distance;
                if (e * e, i as u32, j as u32) < smallest {
                    smallest = (e * e, i as u32, j as u32);
                }
            }
        }
        let got = (report.distance * report.distance, report.triangle_a, report.triangle_b);
        assert!(want.is_empty(), "apart, yet surfaces meet");
        assert_eq!(got, smallest, "the poses walk's pair");
    }
});

//! Closed, consistently oriented meshes generated in memory: for `demo`, tests and benches.

use super::Mesh;
use std::f64::consts::TAU;

/// Torus around the z-axis: major radius `big_r`, tube radius `r`, `nu × nv` quads, each split
/// into two triangles (`2·nu·nv` triangles), outward normals.
pub fn torus(big_r: f64, r: f64, nu: usize, nv: usize) -> Mesh {
    let nu = nu.max(3);
    let nv = nv.max(3);
    let vert = |i: usize, j: usize| {
        let (u, v) = (
            TAU * (i % nu) as f64 / nu as f64,
            TAU * (j % nv) as f64 / nv as f64,
        );
        let rr = big_r + r * v.cos();
        [
            (rr * u.cos()) as f32,
            (rr * u.sin()) as f32,
            (r * v.sin()) as f32,
        ]
    };
    let mut soup = Vec::with_capacity(2 * nu * nv);
    for i in 0..nu {
        for j in 0..nv {
            let (a, b, c, d) = (
                vert(i, j),
                vert(i + 1, j),
                vert(i + 1, j + 1),
                vert(i, j + 1),
            );
            soup.push([a, b, c]);
            soup.push([a, c, d]);
        }
    }
    Mesh::from_soup(format!("torus(R={big_r}, r={r}, {nu}x{nv})"), soup)
        .expect("a generated torus is finite and non-empty")
}

/// UV sphere of radius `r` centred at the origin: `n_lat` bands, `n_lon` segments
/// (`2·n_lon·(n_lat − 1)` triangles), outward normals.
pub fn sphere(r: f64, n_lat: usize, n_lon: usize) -> Mesh {
    let n_lat = n_lat.max(2);
    let n_lon = n_lon.max(3);
    let vert = |i: usize, j: usize| {
        let th = std::f64::consts::PI * i as f64 / n_lat as f64;
        let ph = TAU * (j % n_lon) as f64 / n_lon as f64;
        if i == 0 {
            return [0.0, 0.0, r as f32];
        }
        if i == n_lat {
            return [0.0, 0.0, -r as f32];
        }
        [
            (r * th.sin() * ph.cos()) as f32,
            (r * th.sin() * ph.sin()) as f32,
            (r * th.cos()) as f32,
        ]
    };
    let mut soup = Vec::with_capacity(2 * n_lon * n_lat);
    for i in 0..n_lat {
        for j in 0..n_lon {
            let (a, b, c, d) = (
                vert(i, j),
                vert(i + 1, j),
                vert(i + 1, j + 1),
                vert(i, j + 1),
            );
            if i != 0 {
                soup.push([a, b, d]);
            }
            if i != n_lat - 1 {
                soup.push([b, c, d]);
            }
        }
    }
    Mesh::from_soup(format!("sphere(r={r}, {n_lat}x{n_lon})"), soup)
        .expect("a generated sphere is finite and non-empty")
}

/// Grid sizes giving about `triangles` triangles for a torus with a `ratio`:1 aspect.
pub fn torus_grid(triangles: usize, ratio: usize) -> (usize, usize) {
    let quads = (triangles / 2).max(9);
    let nv = ((quads / ratio.max(1)) as f64).sqrt().round().max(3.0) as usize;
    ((quads / nv).max(3), nv)
}

/// Grid sizes giving about `triangles` triangles for a sphere.
pub fn sphere_grid(triangles: usize) -> (usize, usize) {
    let n_lat = ((triangles as f64 / 4.0).sqrt().round() as usize).max(2);
    (n_lat, (triangles / (2 * n_lat)).max(3))
}

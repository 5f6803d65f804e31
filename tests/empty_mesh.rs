//! A mesh with no triangles, built through the API (files with none are refused at load): the
//! queries on it alone find nothing, on both backends, and the queries on two parts refuse it
//! with `Error::Empty`. Before, its hierarchy's root (a count of 0) read as an inner node whose
//! children were itself, and the first ray or nearest point overflowed the stack.

mod common;

use meshclash::mesh::read::Soup;
use meshclash::query::{Hits, SphereSweep};
use meshclash::{Backend, CheckOptions, DVec3, Error, Mesh, Pose, PreparedMesh};

fn empty() -> PreparedMesh {
    PreparedMesh::new(Mesh {
        source: "nothing".into(),
        vertices: vec![],
        triangles: vec![],
        unit: None,
    })
}

fn one_triangle() -> PreparedMesh {
    let soup: Soup = vec![[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]];
    PreparedMesh::new(Mesh::from_soup("one", soup).unwrap())
}

fn queries_on_nothing_find_nothing(b: &Backend) {
    let (e, id) = (empty(), Pose::IDENTITY);
    let p = DVec3::new(0.1, 0.1, 1.0);
    let down = DVec3::new(0.0, 0.0, -1.0);
    let w = b.winding_numbers(&e, id, &[p]).unwrap();
    assert_eq!((w[0].value, w[0].inside()), (0.0, false));
    assert_eq!(
        b.closest_points(&e, id, &[p], f64::INFINITY).unwrap(),
        vec![None]
    );
    for hits in [Hits::First, Hits::Any, Hits::All] {
        let r = b
            .ray_hits(&e, id, &[(p, down)], f64::INFINITY, hits)
            .unwrap();
        assert_eq!(r, vec![vec![]], "{hits:?}");
    }
    assert_eq!(b.sphere_contacts(&e, id, &[(p, 0.5)]).unwrap(), vec![None]);
    let sweep = b.sphere_sweeps(&e, id, &[(p, 0.5, down * 2.0)], Some(1e-6));
    assert!(matches!(sweep.unwrap()[..], [SphereSweep::Clear]));
    assert!(b.self_intersections(&e).unwrap().pairs.is_empty());
    b.prepare_closest(&e, 1).unwrap();
    b.prepare_rays(&e).unwrap();
}

fn two_parts_refuse_nothing(b: &Backend) {
    let (e, one, id) = (empty(), one_triangle(), Pose::IDENTITY);
    let refused = |r: meshclash::Result<()>| match r {
        Err(Error::Empty { path }) => assert_eq!(path.to_str(), Some("nothing")),
        other => panic!("expected Error::Empty, got {other:?}"),
    };
    let opts = CheckOptions::default();
    refused(b.check(&e, id, &one, id, &opts).map(|_| ()));
    refused(b.check(&one, id, &e, id, &opts).map(|_| ()));
    refused(b.poses(&one, id, &e, &[id], Some(0.1)).map(|_| ()));
    refused(b.poses(&e, id, &one, &[id], None).map(|_| ()));
    refused(b.solid_distance(&one, id, &e, id).map(|_| ()));
    assert!(!b.interferes(&e, id, &one, id).unwrap());
}

#[test]
fn an_empty_mesh_is_answered_on_the_cpu() {
    queries_on_nothing_find_nothing(&Backend::cpu());
    two_parts_refuse_nothing(&Backend::cpu());
}

#[test]
fn an_empty_mesh_is_answered_on_the_gpu_backend() {
    let Some(ctx) = common::gpu_or_skip("an_empty_mesh_is_answered_on_the_gpu_backend") else {
        return;
    };
    let b = Backend::from_gpu(meshclash::gpu::GpuBackend::new(ctx).unwrap());
    queries_on_nothing_find_nothing(&b);
    two_parts_refuse_nothing(&b);
}

/// A mesh built field by field with a triangle naming a vertex it does not have panicked in
/// `PreparedMesh::new` (a hunt's helper); `try_new` refuses it, and a non-finite coordinate,
/// with errors naming the triangle, and takes a good mesh and an empty one.
#[test]
fn try_new_refuses_what_new_cannot_take() {
    let mesh = |vertices: Vec<[f32; 3]>, triangles| Mesh {
        source: "built".into(),
        vertices,
        triangles,
        unit: None,
    };
    let corners = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let e = PreparedMesh::try_new(mesh(corners.clone(), vec![[0, 1, 5]])).err();
    let e = e.expect("out of range").to_string();
    assert_eq!(e, "built: mesh: triangle 0 names vertex 5, but there are 3");
    let mut bad = corners.clone();
    bad[2][1] = f32::NAN;
    let e = PreparedMesh::try_new(mesh(bad.clone(), vec![[0, 1, 2]])).err();
    let e = e.expect("non-finite").to_string();
    assert_eq!(
        e,
        "built: mesh: vertex 2 has a non-finite coordinate ([0.0, NaN, 0.0])"
    );
    // Unused, it is still read (bounds, sweeps): refused too.
    bad.push([1.0, 1.0, 1.0]);
    let e = PreparedMesh::try_new(mesh(bad, vec![[0, 1, 3]])).err();
    assert!(e.is_some_and(|e| e.to_string().contains("vertex 2 has a non-finite")));
    let good = PreparedMesh::try_new(mesh(corners, vec![[0, 1, 2]])).unwrap();
    assert_eq!(good.mesh.triangles.len(), 1);
    assert!(PreparedMesh::try_new(mesh(vec![], vec![])).is_ok());
}

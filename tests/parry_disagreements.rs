//! Where parry3d 0.31 (f32) and we disagree, proved with exact arithmetic.

#[path = "../benches/support/parry_peer.rs"]
mod parry_peer;

use glam::DVec3;
use meshclash::geom::tritri;
use meshclash::mesh::{generate, Pose};
use meshclash::query::{self, Posed};
use meshclash::PreparedMesh;

/// Spheres of radii 1 and 1.01 (about 30k triangles each), the outer moved by (0.002, 0.001, 0):
/// the bench's near miss. parry3d's `intersection_test` calls them intersecting and names a
/// triangle pair; exact predicates call that pair disjoint, and Nathan's distance puts it
/// about 0.01 apart. (At 1k and 10k triangles parry3d answers "not intersecting", taking 2.5 and
/// 19 ms; at 100k it names such a pair at once, in under 1 µs.)
#[test]
fn parry3d_calls_the_near_miss_spheres_intersecting_on_a_pair_exact_predicates_call_disjoint() {
    let (lat, lon) = generate::sphere_grid(30_000);
    let inner = PreparedMesh::new(generate::sphere(1.0, lat, lon));
    let outer = PreparedMesh::new(generate::sphere(1.01, lat, lon));
    let moved = Pose::translation(DVec3::new(0.002, 0.001, 0.0));
    let (x, y) = (
        Posed::new(&inner, Pose::IDENTITY),
        Posed::new(&outer, moved),
    );
    // Ours: no pair meets, and the inner sphere is inside the outer one.
    assert!(query::intersect(&x, &y).pairs.is_empty());
    assert_eq!(
        query::containment(&x, &y),
        (Some(query::Containment::AInB), true)
    );
    let r = parry3d::query::intersection_test(
        &parry_peer::pose(&Pose::IDENTITY),
        &parry_peer::trimesh(&inner),
        &parry_peer::pose(&moved),
        &parry_peer::trimesh(&outer),
    )
    .expect("parry3d answers for two TriMesh shapes");
    if !r.intersecting {
        eprintln!(
            "parry3d 0.31 no longer calls these spheres intersecting: the disagreement is gone"
        );
        return;
    }
    let (i, j) = (r.subshape1, r.subshape2);
    let (ta, tb) = (x.tri(i), y.tri(j));
    assert!(!tritri::intersect(&ta, &tb), "parry3d's pair ({i}, {j})");
    // Every vertex of the inner polyhedron is on the unit sphere and the outer one's faces are
    // at least 1.01 cos(π/n) from its centre, 0.00224 away: the pair is at least that far apart,
    // less the sag, whatever pair parry3d named.
    let sag = 1.01 * (1.0 - (std::f64::consts::PI / lat.min(lon) as f64).cos());
    let d = tritri::distance(&ta, &tb).distance;
    assert!(d >= 0.01 - 0.00224 - sag, "({i}, {j}) {d} apart");
    eprintln!("parry3d names ({i}, {j}) as intersecting; exact: disjoint, {d:.6} apart");
}

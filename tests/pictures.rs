//! Pictures of an answer, by their properties: a PNG of the size asked for, with red pixels
//! exactly when the parts clash, both parts' colours present, orange for the clearance, the
//! closest segment's green when apart; the same bytes on every run. A GLB parsed back (by the
//! `gltf` crate and by our reader) and counted against the answer it draws.

mod common;

use common::{box_mesh, case_path, cli};
use meshclash::picture::{self, Mark, Scene};
use meshclash::{CheckOptions, DVec3, Pose, PreparedMesh};

/// Pixel counts by what their colour says.
#[derive(Debug, Default)]
struct Counts {
    red: usize,
    grey: usize,
    blue: usize,
    orange: usize,
    green: usize,
}

fn counts(png: &[u8], size: (u32, u32)) -> Counts {
    let pixmap = tiny_skia::Pixmap::decode_png(png).expect("a PNG");
    assert_eq!((pixmap.width(), pixmap.height()), size);
    let mut c = Counts::default();
    for p in pixmap.pixels() {
        let (r, g, b) = (p.red() as i32, p.green() as i32, p.blue() as i32);
        if r >= 100 && r * 2 > g * 5 && r * 2 > b * 5 {
            c.red += 1;
        } else if (r - g).abs() < 8 && (g - b).abs() < 8 && (40..245).contains(&r) {
            c.grey += 1;
        } else if b > r + 40 && b > g {
            c.blue += 1;
        } else if r > 120 && g * 10 > r * 4 && g * 10 < r * 7 && b * 5 < r {
            c.orange += 1;
        } else if g > r + 40 && g > b + 30 {
            c.green += 1;
        }
    }
    c
}

fn check_png(
    a: &PreparedMesh,
    b: &PreparedMesh,
    pose_b: Pose,
    clearance: Option<f64>,
) -> (Counts, bool, Vec<u8>) {
    let r = meshclash::query::check(a, Pose::IDENTITY, b, pose_b, &CheckOptions { clearance });
    let scene = Scene::of_check(a, Pose::IDENTITY, b, pose_b, &r);
    let png = picture::png(&scene, 320, 240).unwrap();
    (counts(&png, (320, 240)), r.interferes(), png)
}

fn shift(x: f64, y: f64, z: f64) -> Pose {
    Pose::from_euler_degrees([0.0, 0.0, 0.0], DVec3::new(x, y, z))
}

#[test]
fn red_exactly_when_the_parts_clash() {
    // A larger than B, so that a touch marks only some of A's triangles.
    let a = box_mesh([0.0; 3], [3.0; 3]);
    let b = box_mesh([0.0; 3], [1.0; 3]);
    let cases = [
        ("crossing", shift(2.5, 1.0, 1.0), true),
        ("touching faces", shift(3.0, 1.0, 1.0), true),
        ("apart", shift(3.5, 1.2, 1.0), false),
        ("far apart", shift(40.0, 0.0, 3.0), false),
    ];
    for (what, pose, clash) in cases {
        let (c, interferes, _) = check_png(&a, &b, pose, None);
        assert_eq!(interferes, clash, "{what}");
        assert_eq!(c.red > 0, clash, "{what}: {c:?}");
        assert!(c.grey > 0 && c.blue > 0, "{what}: both parts show: {c:?}");
        // Apart: the closest segment is drawn.
        assert_eq!(c.green > 0, !clash, "{what}: {c:?}");
    }
}

/// A part a few pixels across, or none (0.01 across, 40 from a part 3 across), is ringed in its
/// colour: it was hidden under the closest segment's dot (a review's helper).
#[test]
fn a_small_part_far_away_is_ringed_in_its_colour() {
    let a = box_mesh([0.0; 3], [3.0; 3]);
    let b = box_mesh([0.0; 3], [0.01; 3]);
    let (c, interferes, _) = check_png(&a, &b, shift(40.0, 0.0, 3.0), None);
    assert!(!interferes);
    assert!(c.grey > 0 && c.blue > 0, "{c:?}");
}

/// A box touching its container's +y wall from inside: the default diagonal looks from -y, so
/// the wall's red was behind grey and only the curves drawn on top showed the clash (a review's
/// helper). The camera turns to the side the clashing triangles face. The curves are taken out
/// of the scene here, so that only filled triangles can be red.
#[test]
fn a_touch_on_a_far_wall_is_seen_from_its_side() {
    let a = box_mesh([0.0; 3], [3.0; 3]);
    let b = box_mesh([0.0; 3], [1.0; 3]);
    let pose = shift(1.0, 2.0, 1.0);
    let r = meshclash::query::check(&a, Pose::IDENTITY, &b, pose, &CheckOptions::default());
    assert!(r.interferes());
    let mut scene = Scene::of_check(&a, Pose::IDENTITY, &b, pose, &r);
    assert!(scene.clash_facing().y > 0.0);
    scene.curves.clear();
    let png = picture::png(&scene, 320, 240).unwrap();
    let c = counts(&png, (320, 240));
    assert!(c.red > 1000, "{c:?}");
}

#[test]
fn a_swallowed_part_is_red_inside_its_cut_away_container() {
    let outer = box_mesh([0.0; 3], [4.0; 3]);
    let inner = box_mesh([0.0; 3], [1.0; 3]);
    let (c, interferes, _) = check_png(&outer, &inner, shift(1.5, 1.5, 1.5), None);
    assert!(interferes);
    assert!(c.red > 0, "{c:?}");
    assert!(c.grey > 0, "the container's far walls show: {c:?}");
    // Moved out of the container, nothing is red.
    let (c, interferes, _) = check_png(&outer, &inner, shift(6.0, 1.5, 1.5), None);
    assert!(!interferes);
    assert_eq!(c.red, 0, "{c:?}");
    // An inside-out container swallows it too (a hunt's helper: its near walls were kept, by
    // their winding, and hid it).
    let soup: Vec<_> = common::box_soup([0.0; 3], [4.0; 3])
        .into_iter()
        .map(|[p, q, r]| [p, r, q])
        .collect();
    let inverted = PreparedMesh::new(meshclash::Mesh::from_soup("inverted", soup).unwrap());
    // Large enough that the container's near walls are within the framed depth.
    let large = box_mesh([0.0; 3], [3.0; 3]);
    let (c, interferes, _) = check_png(&inverted, &large, shift(0.5, 0.5, 0.5), None);
    assert!(interferes);
    assert!(c.red > 0 && c.grey > 0, "{c:?}");
}

/// A hunt's helper's scenes. A small block piercing a plate of a few large triangles: the
/// picture was framed on the clashing triangles, the whole plate, and the block took 4 pixels;
/// it is framed on where the surfaces cross. A box touching a wall from inside: seen through
/// the wall's outside, it was hidden; the container is cut away as for a swallowed part (and
/// not where the box touches the wall from outside).
#[test]
fn a_small_clash_in_large_triangles_is_framed_on_where_they_cross() {
    let plate = box_mesh([0.0, 0.0, 0.0], [1000.0, 1000.0, 10.0]);
    let block = box_mesh([0.0; 3], [10.0; 3]);
    let (c, interferes, _) = check_png(&plate, &block, shift(100.0, 50.0, 8.0), None);
    assert!(interferes);
    assert!(c.blue > 320 * 240 / 50, "the block's top shows: {c:?}");

    let room = box_mesh([-5.0; 3], [5.0; 3]);
    let unit = box_mesh([-0.5; 3], [0.5; 3]);
    let containers = |x: f64| {
        let pose = shift(x, 0.0, 0.0);
        let r =
            meshclash::query::check(&room, Pose::IDENTITY, &unit, pose, &CheckOptions::default());
        assert!(r.intersects() && r.containment.is_none());
        let scene = Scene::of_check(&room, Pose::IDENTITY, &unit, pose, &r);
        scene.parts.iter().map(|p| p.container).collect::<Vec<_>>()
    };
    assert_eq!(
        containers(4.5),
        [true, false],
        "touching the wall from inside"
    );
    assert_eq!(containers(5.5), [false, false], "touching it from outside");
}

/// A body of each part inside the other (a hunt's helper): the answer names one direction, and
/// the other part's swallowed body was left plain; both are marked.
#[test]
fn both_swallowed_bodies_are_marked_where_each_part_holds_one() {
    let two = |a: ([f32; 3], [f32; 3]), b: ([f32; 3], [f32; 3])| {
        let mut soup = common::box_soup(a.0, a.1);
        soup.extend(common::box_soup(b.0, b.1));
        PreparedMesh::new(meshclash::Mesh::from_soup("two", soup).unwrap())
    };
    let a = two(([0.0; 3], [1.0; 3]), ([17.0; 3], [23.0; 3]));
    let b = two(([-3.0; 3], [4.0; 3]), ([19.5; 3], [20.5; 3]));
    let r = meshclash::query::check(
        &a,
        Pose::IDENTITY,
        &b,
        Pose::IDENTITY,
        &CheckOptions::default(),
    );
    assert!(r.containment.is_some() && !r.intersects());
    let scene = Scene::of_check(&a, Pose::IDENTITY, &b, Pose::IDENTITY, &r);
    for part in &scene.parts {
        let red = part.marks.iter().filter(|&&m| m == Mark::Clash).count();
        assert_eq!(red, 12, "{}: one box of two", part.name);
    }
}

/// A container of two bodies, one of them inside out, each swallowing a cube: its triangles
/// are turned to wind outward, body by body, so that the cut-away leaves out each body's near
/// side (judged from one point between them, one body kept its near wall over its cube; a
/// review's helper).
#[test]
fn a_container_of_several_bodies_winds_each_outward() {
    let mut outer = common::box_soup([0.0; 3], [10.0; 3]);
    let turned = common::box_soup([14.0; 3], [24.0; 3]);
    outer.extend(turned.into_iter().map(|[p, q, r]| [p, r, q]));
    let outer = PreparedMesh::new(meshclash::Mesh::from_soup("two", outer).unwrap());
    let mut inner = common::box_soup([4.0; 3], [6.0; 3]);
    inner.extend(common::box_soup([18.0; 3], [20.0; 3]));
    let inner = PreparedMesh::new(meshclash::Mesh::from_soup("cubes", inner).unwrap());
    let r = meshclash::query::check(
        &inner,
        Pose::IDENTITY,
        &outer,
        Pose::IDENTITY,
        &CheckOptions::default(),
    );
    assert!(r.containment.is_some());
    let scene = Scene::of_check(&inner, Pose::IDENTITY, &outer, Pose::IDENTITY, &r);
    let container = &scene.parts[1];
    assert!(container.container);
    for (t, &inward) in container.triangles.iter().zip(&container.inward) {
        let centre = if t[0].x < 12.0 { 5.0 } else { 19.0 };
        let n = (t[1] - t[0]).cross(t[2] - t[0]);
        let out = (t[0] + t[1] + t[2]) / 3.0 - DVec3::splat(centre);
        // The turned body is read reversed, and its triangles are left as the mesh has them.
        assert_eq!(inward, centre == 19.0, "{t:?}");
        assert_eq!(n.dot(out) > 0.0, !inward, "{t:?} read inward");
    }
}

/// An inside-out container is drawn cut away as if it wound outward, but written to the GLB as
/// it is: a review's helper opened one turned outward (its signed volume +64, the mesh's -64).
#[test]
fn an_inside_out_container_keeps_its_winding_in_the_glb() {
    let soup: Vec<_> = common::box_soup([0.0; 3], [4.0; 3])
        .into_iter()
        .map(|[p, q, r]| [p, r, q])
        .collect();
    let inverted = PreparedMesh::new(meshclash::Mesh::from_soup("inverted", soup).unwrap());
    let small = box_mesh([0.0; 3], [1.0; 3]);
    let pose = shift(1.5, 1.5, 1.5);
    let r = meshclash::query::check(&inverted, Pose::IDENTITY, &small, pose, &Default::default());
    assert!(r.containment.is_some());
    let scene = Scene::of_check(&inverted, Pose::IDENTITY, &small, pose, &r);
    assert!(scene.parts[0].container && scene.parts[0].inward.iter().all(|&i| i));
    let bytes = picture::glb(&scene).unwrap();
    let back = meshclash::mesh::read::read_gltf(&bytes, "back.glb".as_ref()).unwrap();
    // Both parts closed: the signed volumes add up wherever the GLB re-centred them.
    let volume: f64 = back
        .soup
        .iter()
        .map(|t| {
            let [p, q, r] = t.map(|v| DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64));
            p.dot(q.cross(r)) / 6.0
        })
        .sum();
    assert!((volume - (1.0 - 64.0)).abs() < 1e-3, "{volume}");
}

/// A part whose triangles are one point, inside a cube: its box has no size, and framing half
/// the smaller part zoomed in without end, a blank picture (a review's helper). It frames the
/// cube, cut away, and the point's ring.
#[test]
fn a_point_sized_part_frames_what_holds_it() {
    let cube = box_mesh([0.0; 3], [1.0; 3]);
    let p = [0.1f32; 3];
    let point = PreparedMesh::new(meshclash::Mesh::from_soup("point", vec![[p, p, p]]).unwrap());
    let (c, interferes, _) = check_png(&cube, &point, Pose::IDENTITY, None);
    assert!(interferes);
    assert!(c.grey > 1000 && c.blue > 0, "{c:?}");
}

#[test]
fn within_the_clearance_is_orange_and_not_red() {
    let a = box_mesh([0.0; 3], [1.0; 3]);
    let b = box_mesh([0.0; 3], [1.0; 3]);
    let (c, interferes, _) = check_png(&a, &b, shift(1.05, 0.2, 0.1), Some(0.1));
    assert!(!interferes);
    assert!(c.orange > 0, "{c:?}");
    assert_eq!(c.red, 0, "{c:?}");
    let (c, _, _) = check_png(&a, &b, shift(1.05, 0.2, 0.1), Some(0.01));
    assert_eq!(
        c.orange, 0,
        "a clearance below the gap marks nothing: {c:?}"
    );
}

/// Plates one over the other, 0.5 apart, with a clearance: framed on both (not on the corner
/// the closest segment joins, half the picture empty) and seen from 20° off square to the
/// segment, their faces showing (a review's helper: two orange lines, 98 % white).
#[test]
fn plates_one_over_the_other_show_their_faces() {
    let a = box_mesh([0.0; 3], [100.0, 100.0, 2.0]);
    let b = box_mesh([0.0; 3], [100.0, 100.0, 2.0]);
    let (c, interferes, _) = check_png(&a, &b, shift(0.0, 0.0, 2.5), Some(1.0));
    assert!(!interferes);
    let parts = c.grey + c.blue + c.orange;
    assert!(parts > 320 * 240 / 20, "{c:?}");
    assert!(c.orange > 0, "{c:?}");
}

#[test]
fn the_same_picture_every_time() {
    let torus = PreparedMesh::new(meshclash::mesh::generate::torus(1.0, 0.3, 48, 24));
    let pose = Pose::from_euler_degrees([90.0, 0.0, 0.0], DVec3::new(0.5, 0.0, 0.0));
    let (first, interferes, png) = check_png(&torus, &torus, pose, Some(0.02));
    assert!(interferes && first.red > 0);
    let (_, _, again) = check_png(&torus, &torus, pose, Some(0.02));
    assert!(png == again, "rendering is deterministic");
}

#[test]
fn self_intersections_are_red() {
    let teapot = PreparedMesh::new(meshclash::Mesh::load(case_path("meshes/teapot.stl")).unwrap());
    let r = meshclash::query::self_intersections(&teapot);
    assert!(!r.pairs.is_empty());
    let png = picture::png(&Scene::of_self(&teapot, Pose::IDENTITY, &r), 200, 150).unwrap();
    assert!(counts(&png, (200, 150)).red > 0);
    let torus = PreparedMesh::new(meshclash::mesh::generate::torus(1.0, 0.3, 32, 16));
    let r = meshclash::query::self_intersections(&torus);
    assert!(r.pairs.is_empty());
    let png = picture::png(&Scene::of_self(&torus, Pose::IDENTITY, &r), 200, 150).unwrap();
    let c = counts(&png, (200, 150));
    assert!(c.red == 0 && c.grey > 0, "{c:?}");
}

#[test]
fn glb_parses_back_with_every_triangle_and_mark() {
    let torus = PreparedMesh::new(meshclash::mesh::generate::torus(1.0, 0.3, 48, 24));
    let pose = Pose::from_euler_degrees([90.0, 0.0, 0.0], DVec3::new(1.0e6 + 0.5, 0.0, 0.0));
    let far = Pose::from_euler_degrees([0.0; 3], DVec3::new(1.0e6, 0.0, 0.0));
    let opts = CheckOptions {
        clearance: Some(0.02),
    };
    let r = meshclash::query::check(&torus, far, &torus, pose, &opts);
    let scene = Scene::of_check(&torus, far, &torus, pose, &r);
    let bytes = picture::glb(&scene).unwrap();

    let gltf = gltf::Gltf::from_slice(&bytes).expect("a valid GLB");
    let blob = gltf.blob.as_deref().unwrap();
    let mut by_mark = std::collections::BTreeMap::new();
    let mut lines = 0;
    let mut colour = std::collections::BTreeMap::new();
    for mesh in gltf.meshes() {
        for p in mesh.primitives() {
            let n = p.get(&gltf::Semantic::Positions).unwrap().count();
            let name = p.material().name().unwrap_or("").to_string();
            let rgba = p.material().pbr_metallic_roughness().base_color_factor();
            colour.insert(name.clone(), rgba.map(f32::to_bits));
            match p.mode() {
                gltf::mesh::Mode::Triangles => *by_mark.entry(name).or_insert(0) += n / 3,
                gltf::mesh::Mode::Lines => lines += n / 2,
                m => panic!("unexpected mode {m:?}"),
            }
        }
    }
    let marked = |m: Mark| -> usize {
        scene
            .parts
            .iter()
            .map(|p| p.marks.iter().filter(|&&k| k == m).count())
            .sum()
    };
    assert!(r.intersects() && marked(Mark::Clash) > 0 && marked(Mark::Near) > 0);
    let count = |name: &str| by_mark.get(name).copied().unwrap_or(0);
    assert_eq!(count("clashing"), marked(Mark::Clash));
    assert_eq!(count("within clearance"), marked(Mark::Near));
    assert_eq!(count("plain"), marked(Mark::Plain));
    assert_eq!(
        by_mark.values().sum::<usize>(),
        2 * torus.mesh.triangles.len()
    );
    assert_eq!(lines, r.intersect.curve_segments().len());
    // The curves show on the red faces they cross (they were the same red; a hunt's helper).
    assert_ne!(colour["intersection curves"], colour["clashing"]);
    assert!(blob.len() >= 2 * torus.mesh.triangles.len() * 36);

    // Re-centred (the parts are 1e6 from the origin): the offset is in the root's extras, and
    // our reader reads the triangles back (lines left out) within f32 of the re-centred ones.
    let root = gltf
        .nodes()
        .find(|n| n.name() == Some("meshclash"))
        .unwrap();
    let extras: serde_json::Value =
        serde_json::from_str(root.extras().as_ref().unwrap().get()).unwrap();
    let offset = extras["meshclash_offset"].as_array().unwrap();
    assert!((offset[0].as_f64().unwrap() - 1.0e6).abs() < 2.0);
    let back = meshclash::mesh::read::read_gltf(&bytes, "back.glb".as_ref()).unwrap();
    assert_eq!(back.soup.len(), 2 * torus.mesh.triangles.len());
    let extent = back
        .soup
        .iter()
        .flatten()
        .flatten()
        .fold(0f32, |m, v| m.max(v.abs()));
    assert!(extent < 4.0, "re-centred: {extent}");
}

/// A hunt's helper's scene: two 1 mm cubes 1e5 apart. Re-centred on one point, each was
/// rounded to `f32` 1e5 away from it and loaded flat; each part's coordinates are now about its
/// own centre, which its node's translation (written in full) places.
#[test]
fn small_parts_far_apart_keep_their_shape_in_the_glb() {
    let tiny = box_mesh([0.0; 3], [1e-3; 3]);
    let pose = shift(1e5, 0.0, 0.0);
    let r = meshclash::query::check(&tiny, Pose::IDENTITY, &tiny, pose, &CheckOptions::default());
    let scene = Scene::of_check(&tiny, Pose::IDENTITY, &tiny, pose, &r);
    let gltf = gltf::Gltf::from_slice(&picture::glb(&scene).unwrap()).unwrap();
    for node in gltf.nodes().filter(|n| matches!(n.name(), Some("A" | "B"))) {
        let accessor = node.mesh().unwrap().primitives().next().unwrap();
        let bounds = accessor.get(&gltf::Semantic::Positions).unwrap();
        let (min, max) = (bounds.min().unwrap(), bounds.max().unwrap());
        let x = max[0].as_f64().unwrap() - min[0].as_f64().unwrap();
        assert!((x - 1e-3).abs() < 1e-9, "{:?}: {x}", node.name());
    }
    let b = gltf.nodes().find(|n| n.name() == Some("B")).unwrap();
    let a = gltf.nodes().find(|n| n.name() == Some("A")).unwrap();
    let (ta, tb) = (a.transform().decomposed().0, b.transform().decomposed().0);
    assert!((tb[0] - ta[0] - 1e5).abs() < 0.01, "{ta:?} {tb:?}");

    // A part with a body far away keeps its coordinates about the clash, not about its own
    // centre 1e4 away, where the clash's faces were rounded (a review's helper): its node is
    // not moved from the focus, which its box holds.
    let mut soup = common::box_soup([0.0; 3], [1.0; 3]);
    soup.extend(common::box_soup([2e4; 3], [2e4 + 1.0; 3]));
    let a = PreparedMesh::new(meshclash::Mesh::from_soup("far body", soup).unwrap());
    let b = box_mesh([0.0; 3], [1.0; 3]);
    let pose = shift(0.5, 0.25, 0.25);
    let r = meshclash::query::check(&a, Pose::IDENTITY, &b, pose, &CheckOptions::default());
    let scene = Scene::of_check(&a, Pose::IDENTITY, &b, pose, &r);
    let gltf = gltf::Gltf::from_slice(&picture::glb(&scene).unwrap()).unwrap();
    let node = gltf.nodes().find(|n| n.name() == Some("A")).unwrap();
    assert_eq!(node.transform().decomposed().0, [0.0; 3]);
}

#[test]
fn cli_writes_both_pictures_and_refuses_a_bad_size() {
    let dir = std::env::temp_dir().join(format!("meshclash_pictures_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (png, glb) = (dir.join("clash.png"), dir.join("clash.glb"));
    let torus = case_path("meshes/torus.stl");
    let t = torus.to_str().unwrap();
    let out = cli(&[
        "check",
        t,
        t,
        "--rotate-b",
        "90,0,0",
        "--translate-b",
        "1.2,0,0",
        "--backend",
        "cpu",
        "--render",
        png.to_str().unwrap(),
        "--size",
        "300x200",
        "--glb",
        glb.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c = counts(&std::fs::read(&png).unwrap(), (300, 200));
    assert!(c.red > 0 && c.grey > 0 && c.blue > 0, "{c:?}");
    assert!(gltf::Gltf::from_slice(&std::fs::read(&glb).unwrap()).is_ok());
    // stdout stays the JSON answer alone.
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["intersects"], true);

    let out = cli(&[
        "check",
        t,
        t,
        "--render",
        png.to_str().unwrap(),
        "--size",
        "0x10",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("WIDTHxHEIGHT"), "{err}");
    // A name of the other format is refused, as --out refuses one (a review's helper wrote a
    // GLB named .png and a PNG named .glb).
    for (option, name, wants) in [("--glb", "x.png", ".glb"), ("--render", "x.GLB", ".png")] {
        let out = cli(&["check", t, t, option, dir.join(name).to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(option) && err.contains(wants), "{err}");
        assert!(!dir.join(name).exists());
    }
    // A size for no picture is refused, not ignored.
    let out = cli(&["check", t, t, "--size", "300x200"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--render"), "{err}");
    let out = cli(&[
        "self",
        t,
        "--glb",
        dir.join("no/such/dir.glb").to_str().unwrap(),
    ]);
    // Refused before the work, as --out is, so that a long check is not lost to the typo.
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--glb") && err.contains("dir.glb: its folder does not exist"),
        "{err}"
    );
    let out = cli(&["check", t, t, "--render", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--render") && err.contains("is a folder"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

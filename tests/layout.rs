//! Every WGSL file parses and validates (naga, no GPU needed), and every struct the shaders
//! read has the same size and field offsets as its Rust twin.

use meshclash::gpu::shaders;
use meshclash::mesh::TriRecord;

fn module(src: &str, name: &str) -> naga::Module {
    let m = naga::front::wgsl::parse_str(src)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(src)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&m)
    .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    m
}

#[test]
fn every_stage_validates_with_common_prepended() {
    for (name, src) in shaders::ALL {
        let full = if *name == "common.wgsl" {
            src.to_string()
        } else {
            format!("{}\n{}", shaders::COMMON, src)
        };
        module(&full, name);
    }
}

/// (size, [(member name, offset)]) of a WGSL struct, from naga's layouter.
fn wgsl_layout(src: &str, ty_name: &str) -> (u32, Vec<(String, u32)>) {
    let m = module(src, ty_name);
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(m.to_ctx()).unwrap();
    for (handle, ty) in m.types.iter() {
        if ty.name.as_deref() == Some(ty_name) {
            if let naga::TypeInner::Struct { members, span } = &ty.inner {
                let size = layouter[handle].size;
                assert_eq!(size, *span);
                return (
                    size,
                    members
                        .iter()
                        .map(|mb| (mb.name.clone().unwrap_or_default(), mb.offset))
                        .collect(),
                );
            }
        }
    }
    panic!("no struct {ty_name} in WGSL");
}

macro_rules! rust_offsets {
    ($t:ty, $($f:ident),*) => {
        vec![$((stringify!($f).to_string(), std::mem::offset_of!($t, $f) as u32)),*]
    };
}

#[test]
fn tri_record_layout_matches_wgsl() {
    let (size, members) = wgsl_layout(shaders::COMMON, "TriRecord");
    assert_eq!(size as usize, std::mem::size_of::<TriRecord>());
    assert_eq!(
        members,
        rust_offsets!(TriRecord, v, sphere, normal, e, edge_normal, bary)
    );
}

#[test]
fn gpu_structs_match_wgsl() {
    use meshclash::gpu::layout::{Counters, DispatchArgs, Hit, Query};
    use meshclash::octree::OctreeNode;
    let (size, members) = wgsl_layout(shaders::COMMON, "OctreeNode");
    assert_eq!(size as usize, std::mem::size_of::<OctreeNode>());
    // Rust names the padding `_pad`; WGSL `pad`.
    assert_eq!(
        members.iter().map(|m| m.1).collect::<Vec<_>>()[..7],
        rust_offsets!(
            OctreeNode,
            min,
            first_child,
            max,
            child_count,
            tri_start,
            tri_count,
            escape
        )
        .iter()
        .map(|m| m.1)
        .collect::<Vec<_>>()[..]
    );
    assert_eq!(
        members[7].1 as usize,
        std::mem::offset_of!(OctreeNode, _pad)
    );
    let (size, members) = wgsl_layout(shaders::COMMON, "Query");
    assert_eq!(size as usize, std::mem::size_of::<Query>());
    assert_eq!(
        members,
        rust_offsets!(Query, a, b, tol, chunk_start, chunk_end, capacity, mode)
    );
    let (size, members) = wgsl_layout(shaders::COMMON, "Hit");
    assert_eq!(size as usize, std::mem::size_of::<Hit>());
    assert_eq!(members, rust_offsets!(Hit, a, b, flag, dist_bits));
    let (size, members) = wgsl_layout(shaders::COMMON, "Counters");
    assert_eq!(size as usize, std::mem::size_of::<Counters>());
    assert_eq!(
        members,
        rust_offsets!(
            Counters,
            leaf_pairs,
            candidates,
            hits,
            min_dist_bits,
            walk_fault,
            live_pairs,
            deferred,
            deferred_leaves,
            paused_walks
        )
    );
    let (size, members) = wgsl_layout(shaders::COMMON, "DispatchArgs");
    assert_eq!(size as usize, std::mem::size_of::<DispatchArgs>());
    assert_eq!(members, rust_offsets!(DispatchArgs, x, y, z));
}

/// The value of a WGSL `const` (or an `override`'s default) of type u32, read through naga.
fn wgsl_u32(src: &str, name: &str) -> u32 {
    let m = module(src, name);
    let init = m
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some(name))
        .map(|(_, c)| c.init)
        .or_else(|| {
            m.overrides
                .iter()
                .find(|(_, o)| o.name.as_deref() == Some(name))
                .and_then(|(_, o)| o.init)
        })
        .unwrap_or_else(|| panic!("no constant {name} in WGSL"));
    match m.global_expressions[init] {
        naga::Expression::Literal(naga::Literal::U32(v)) => v,
        ref e => panic!("{name} = {e:?}: not a u32 literal"),
    }
}

#[test]
fn constants_shared_with_the_shaders_match() {
    use meshclash::gpu::layout::{
        CERTAIN, DISJOINT, DISPATCH_ROW, NEAREST_SAMPLE, UNSURE, WORKGROUP,
    };
    let c = shaders::COMMON;
    assert_eq!(wgsl_u32(c, "WG"), WORKGROUP);
    assert_eq!(wgsl_u32(c, "ROW"), DISPATCH_ROW);
    assert_eq!(wgsl_u32(c, "CERTAIN"), CERTAIN);
    assert_eq!(wgsl_u32(c, "UNSURE"), UNSURE);
    assert_eq!(wgsl_u32(c, "DISJOINT"), DISJOINT);
    assert_eq!(wgsl_u32(c, "NO_CHILD"), meshclash::octree::NO_CHILD);
    assert_eq!(
        wgsl_u32(c, "FAULT_STACK"),
        meshclash::gpu::layout::FAULT_STACK
    );
    assert_eq!(
        wgsl_u32(c, "FAULT_CUT_SHORT"),
        meshclash::gpu::layout::FAULT_CUT_SHORT
    );
    // One lane per triangle of a leaf of A in `cull_pairs::main`, which no leaf outgrows.
    assert_eq!(
        wgsl_u32(c, "LEAF_THREADS") as usize,
        meshclash::octree::LEAF_SIZE
    );
    // The nearest walk pushes a node's children, at most eight, where it popped the node:
    // 7 per level below the root, and the root.
    assert!(wgsl_u32(c, "STACK") > 7 * (meshclash::octree::MAX_LEVELS - 1));
    let nearest = format!("{}\n{}", c, shaders::NEAREST);
    assert_eq!(wgsl_u32(&nearest, "SAMPLE"), NEAREST_SAMPLE);
}

/// The stage table (`gpu::stages::STAGES`) against the shaders: every entry point exists, and
/// the bindings it uses are exactly the ones its table row lists (the rest of the group may be
/// other entry points'), each at its slot with the WGSL variable's name, its address space and
/// access, and the size of its struct or of one array element. Layouts are built from these
/// rows, so a binding renumbered, retyped or resized on one side only fails here, without a GPU.
#[test]
fn stage_table_matches_the_shaders_bindings() {
    use meshclash::gpu::stages::{Access, STAGES};
    use naga::{AddressSpace, StorageAccess, TypeInner};
    let mut checked = 0;
    for stage in STAGES {
        let src = format!("{}\n{}", shaders::COMMON, stage.source);
        let m = module(&src, stage.name);
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&m)
        .unwrap();
        let mut layouter = naga::proc::Layouter::default();
        layouter.update(m.to_ctx()).unwrap();
        for entry in stage.entries {
            let index = m
                .entry_points
                .iter()
                .position(|e| e.name == entry.name)
                .unwrap_or_else(|| panic!("{}: no entry point {}", stage.name, entry.name));
            let uses = info.get_entry_point(index);
            for (handle, var) in m.global_variables.iter() {
                let Some(rb) = &var.binding else {
                    continue; // workgroup and private variables
                };
                let at = format!("{}::{} binding {}", stage.name, entry.name, rb.binding);
                let row = entry.bindings.iter().find(|b| b.slot == rb.binding);
                if uses[handle].is_empty() {
                    continue;
                }
                let row = row.unwrap_or_else(|| panic!("{at}: used but not in the table"));
                assert_eq!(rb.group, 0, "{at}");
                assert_eq!(Some(row.name), var.name.as_deref(), "{at}");
                let access = match var.space {
                    AddressSpace::Uniform => Access::Uniform,
                    AddressSpace::Storage { access } if access.contains(StorageAccess::STORE) => {
                        Access::ReadWrite
                    }
                    AddressSpace::Storage { .. } => Access::Read,
                    ref other => panic!("{at}: address space {other:?}"),
                };
                assert_eq!(row.access, access, "{at}");
                let size = match m.types[var.ty].inner {
                    TypeInner::Array { stride, .. } => stride,
                    _ => layouter[var.ty].size,
                };
                assert_eq!(row.size, size as u64, "{at}: size");
                checked += 1;
            }
            // Every row is a binding of the shader (an unused one would bind for nothing).
            for row in entry.bindings {
                assert!(
                    m.global_variables
                        .iter()
                        .any(|(_, v)| v.binding.as_ref().is_some_and(|b| b.binding == row.slot)),
                    "{}::{}: table binding {} is not in the shader",
                    stage.name,
                    entry.name,
                    row.slot
                );
            }
        }
    }
    assert!(checked >= 30, "only {checked} bindings checked");
}

/// The stage table's names hold the tree's layout: `shaders/<stage>.wgsl`, the stage module
/// `src/gpu/stages/<stage>.rs` and its twin `src/gpu/twin/<stage>.rs`, the table's twin path
/// naming that module, and the table's source being that file's text.
#[test]
fn every_stage_has_its_shader_module_and_twin_under_one_name() {
    use meshclash::gpu::stages::STAGES;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for stage in STAGES {
        let shader = root.join(format!("shaders/{}.wgsl", stage.name));
        let text = std::fs::read_to_string(&shader).unwrap_or_else(|e| panic!("{shader:?}: {e}"));
        assert_eq!(text, stage.source, "{}: the table's source", stage.name);
        for dir in ["stages", "twin"] {
            let file = root.join(format!("src/gpu/{dir}/{}.rs", stage.name));
            assert!(file.is_file(), "{}: no {file:?}", stage.name);
        }
        assert_eq!(stage.twin, format!("gpu::twin::{}", stage.name));
    }
}

/// The rays stage's structs and constants, declared in `rays.wgsl` (the only stage reading them).
#[test]
fn ray_structs_and_constants_match_wgsl() {
    use meshclash::gpu::layout::{BvhNode, RayOut, RayQuery, NO_HIT, RAYS_ALL, RAYS_ANY};
    let src = format!("{}\n{}", shaders::COMMON, shaders::RAYS);
    let (size, members) = wgsl_layout(&src, "BvhNode");
    assert_eq!(size as usize, std::mem::size_of::<BvhNode>());
    assert_eq!(members, rust_offsets!(BvhNode, min, index, max, count));
    let (size, members) = wgsl_layout(&src, "RayQuery");
    assert_eq!(size as usize, std::mem::size_of::<RayQuery>());
    assert_eq!(members, rust_offsets!(RayQuery, rays, delta, mode, kept));
    let (size, members) = wgsl_layout(&src, "RayOut");
    assert_eq!(size as usize, std::mem::size_of::<RayOut>());
    assert_eq!(members, rust_offsets!(RayOut, slot, unsure));
    assert_eq!(wgsl_u32(&src, "NO_HIT"), NO_HIT);
    assert_eq!(wgsl_u32(&src, "RAYS_ANY"), RAYS_ANY);
    assert_eq!(wgsl_u32(&src, "RAYS_ALL"), RAYS_ALL);
    // A walk that would keep more is unsure, in the twin too; `Kept` holds that many (a
    // larger KEPT would drop its bottom lanes while the walk went on sure).
    let kept = wgsl_u32(&src, "KEPT") as usize;
    assert_eq!(kept, meshclash::gpu::twin::KEPT);
    assert_eq!(wgsl_layout(&src, "Kept").0 as usize, 4 * kept);
}

/// The closest stage's structs and constants, declared in `closest.wgsl`.
#[test]
fn closest_structs_and_constants_match_wgsl() {
    use meshclash::gpu::layout::{ClosestQuery, SlotsOut, CANDIDATES};
    let src = format!("{}\n{}", shaders::COMMON, shaders::CLOSEST);
    let (size, members) = wgsl_layout(&src, "ObbNode");
    assert_eq!(
        size as usize,
        std::mem::size_of::<meshclash::gpu::layout::ObbNode>()
    );
    assert_eq!(
        members,
        rust_offsets!(meshclash::gpu::layout::ObbNode, center, axes)
    );
    let (size, members) = wgsl_layout(&src, "ClosestQuery");
    assert_eq!(size as usize, std::mem::size_of::<ClosestQuery>());
    // Padded to 32 bytes after `kept` (three words in WGSL, an array in Rust).
    assert_eq!(
        members[..5],
        rust_offsets!(ClosestQuery, points, delta, err, per_thread, kept)
    );
    let (size, members) = wgsl_layout(shaders::COMMON, "SlotsOut");
    assert_eq!(size as usize, std::mem::size_of::<SlotsOut>());
    assert_eq!(members, rust_offsets!(SlotsOut, count, unsure, slots));
    assert_eq!(wgsl_u32(shaders::COMMON, "CANDIDATES") as usize, CANDIDATES);
    // common.wgsl's Eight holds a point's candidates.
    assert_eq!(CANDIDATES, 8);
}

/// The poses stage's structs and constants, declared in `poses.wgsl`.
#[test]
fn poses_structs_and_constants_match_wgsl() {
    use meshclash::gpu::layout::{
        PoseItem, PoseOut, PosePair, PosesQuery, POSE_CANDIDATES, POSE_DONE, POSE_FULL, POSE_NEAR,
    };
    use meshclash::gpu::twin::poses::{GROUP, GROUP_STACK, POSE_STACK};
    let src = format!("{}\n{}", shaders::COMMON, shaders::POSES);
    let offsets = |members: Vec<(String, u32)>| members.iter().map(|m| m.1).collect::<Vec<_>>();
    let (size, members) = wgsl_layout(&src, "PosesQuery");
    assert_eq!(size as usize, std::mem::size_of::<PosesQuery>());
    assert_eq!(offsets(members)[0], 0);
    let (size, members) = wgsl_layout(&src, "PoseItem");
    assert_eq!(size as usize, std::mem::size_of::<PoseItem>());
    assert_eq!(members, rust_offsets!(PoseItem, rows, tol));
    let (size, members) = wgsl_layout(&src, "PosePair");
    assert_eq!(size as usize, std::mem::size_of::<PosePair>());
    assert_eq!(
        offsets(members),
        offsets(rust_offsets!(PosePair, a, b, lower, _pad))
    );
    let (size, members) = wgsl_layout(&src, "PoseOut");
    assert_eq!(size as usize, std::mem::size_of::<PoseOut>());
    assert_eq!(
        members,
        rust_offsets!(PoseOut, status, count, upper, steps, pairs)
    );
    assert_eq!(wgsl_u32(&src, "POSE_CANDIDATES") as usize, POSE_CANDIDATES);
    assert_eq!(wgsl_u32(&src, "POSE_STACK") as usize, POSE_STACK);
    assert_eq!(wgsl_u32(&src, "GROUP") as usize, GROUP);
    assert_eq!(wgsl_u32(&src, "GROUP_STACK") as usize, GROUP_STACK);
    assert_eq!(
        wgsl_u32(&src, "LEAF_PAIRS") as usize,
        meshclash::bvh::LEAF_MAX * meshclash::bvh::LEAF_MAX
    );
    assert_eq!(wgsl_u32(&src, "POSE_DONE"), POSE_DONE);
    assert_eq!(wgsl_u32(&src, "POSE_NEAR"), POSE_NEAR);
    assert_eq!(wgsl_u32(&src, "POSE_FULL"), POSE_FULL);
}

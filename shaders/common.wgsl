// Structs and helpers shared by the stages; prepended to each stage's source. Rust twins:
// src/mesh/record.rs (TriRecord), src/octree/mod.rs (OctreeNode), src/gpu/layout.rs (the rest);
// sizes and offsets are checked against these by tests/layout.rs through naga.

struct TriRecord {
    v: array<vec4<f32>, 3>,           // V0, V1, V2 (w = 0)
    e: array<vec4<f32>, 3>,           // E0 = V1-V0, E1 = V2-V1, E2 = V0-V2 (w = |E_i|)
    normal: vec4<f32>,                // unit normal, w = n . V0
    edge_normal: array<vec4<f32>, 3>, // (E_i/|E_i|) x n, outward; w = en_i . V_i
    sphere: vec4<f32>,                // centroid, w = radius
    bary: vec4<f32>,                  // E0.E0, E0.E2, E2.E2, w = 1/det (0: zero area)
}

struct OctreeNode {
    min: vec3<f32>,
    first_child: u32,                 // 0xffffffff for a leaf
    max: vec3<f32>,
    child_count: u32,
    tri_start: u32,
    tri_count: u32,
    pad0: u32,
    pad1: u32,
}

struct Query {
    a: array<vec4<f32>, 3>,           // rows of [R_A | t_A] into the local frame
    b: array<vec4<f32>, 3>,
    tol: vec4<f32>,                   // d, cull pad, e_in, distance band
    chunk_start: u32,
    chunk_end: u32,
    capacity: u32,
    mode: u32,                        // 0 intersect, 1 clearance, 2 distance, 3 self
}

struct Hit {
    a: u32,
    b: u32,
    flag: u32,                        // 1 certain, 2 unsure (the CPU decides exactly)
    dist_bits: u32,
}

struct Counters {
    candidates: atomic<u32>,
    hits: atomic<u32>,
    min_dist_bits: atomic<u32>,
    stack_overflow: atomic<u32>,      // never set while the octree depth limit holds
}

struct DispatchArgs {
    x: u32,
    y: u32,
    z: u32,
}

const NO_CHILD: u32 = 0xffffffffu;
const WG: u32 = 64u;

fn to_local(m: array<vec4<f32>, 3>, p: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(dot(m[0].xyz, p) + m[0].w, dot(m[1].xyz, p) + m[1].w, dot(m[2].xyz, p) + m[2].w);
}

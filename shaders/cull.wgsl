// Cull stage: one thread per triangle i of A (this round's chunk) walks B's flattened octree
// with an explicit stack and appends every pair (i, j) whose bounding spheres pass seed 000's
// step 1 with tolerance d, padded by the f32 error bound: |C_j - C_i|^2 <= (R_i + R_j + d + pad)^2.
// Node boxes are tested against the sphere of i moved into B's record frame.
// CPU twin: gpu::twin::cull (the octree traversal of query::intersect with the same tests).

@group(0) @binding(0) var<uniform> q: Query;
@group(0) @binding(1) var<storage, read> tris_a: array<TriRecord>;
@group(0) @binding(2) var<storage, read> tris_b: array<TriRecord>;
@group(0) @binding(3) var<storage, read> nodes_b: array<OctreeNode>;
@group(0) @binding(4) var<storage, read> index_b: array<u32>;
@group(0) @binding(5) var<storage, read_write> pairs: array<vec2<u32>>;
@group(0) @binding(6) var<storage, read_write> counters: Counters;
@group(0) @binding(7) var<storage, read_write> args: DispatchArgs;

// Deep enough for the octree's depth limit (24) times seven siblings waiting per level.
const STACK: u32 = 192u;

fn to_b_frame(p: vec3<f32>) -> vec3<f32> {
    // B's record frame: R_B^T (p - t_B).
    let x = p - vec3<f32>(q.b[0].w, q.b[1].w, q.b[2].w);
    return vec3<f32>(
        q.b[0].x * x.x + q.b[1].x * x.y + q.b[2].x * x.z,
        q.b[0].y * x.x + q.b[1].y * x.y + q.b[2].y * x.z,
        q.b[0].z * x.x + q.b[1].z * x.y + q.b[2].z * x.z,
    );
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = q.chunk_start + gid.x;
    if (i >= q.chunk_end) {
        return;
    }
    let s = tris_a[i].sphere;
    let c = to_b_frame(to_local(q.a, s.xyz));
    let reach = s.w + q.tol.x + q.tol.y;
    var stack: array<u32, STACK>;
    var top = 1u;
    stack[0] = 0u;
    loop {
        if (top == 0u) {
            break;
        }
        top = top - 1u;
        let node = nodes_b[stack[top]];
        // Sphere against the node's box (seed 001: squared distance point-AABB).
        let g = max(node.min - c, vec3<f32>(0.0)) + max(c - node.max, vec3<f32>(0.0));
        if (dot(g, g) > reach * reach) {
            continue;
        }
        if (node.first_child != NO_CHILD) {
            for (var k = 0u; k < node.child_count; k = k + 1u) {
                if (top < STACK) {
                    stack[top] = node.first_child + k;
                    top = top + 1u;
                } else {
                    atomicStore(&counters.stack_overflow, 1u);
                }
            }
            continue;
        }
        for (var k = node.tri_start; k < node.tri_start + node.tri_count; k = k + 1u) {
            let j = index_b[k];
            if (q.mode == 3u && j <= i) {
                continue; // self: each unordered pair once
            }
            let sj = tris_b[j].sphere;
            let d = sj.xyz - c;
            let r = reach + sj.w;
            if (dot(d, d) <= r * r) {
                let slot = atomicAdd(&counters.candidates, 1u);
                if (slot < q.capacity) {
                    pairs[slot] = vec2<u32>(i, j);
                }
            }
        }
    }
}

// One thread: the narrow phase's indirect dispatch size, so that no readback separates them.
@compute @workgroup_size(1)
fn finish() {
    let n = min(atomicLoad(&counters.candidates), q.capacity);
    args.x = (n + WG - 1u) / WG;
    args.y = 1u;
    args.z = 1u;
}

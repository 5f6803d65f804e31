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

// How far the point c lies outside the node's box, per axis (seed 001: point to AABB).
fn box_gap(node: OctreeNode, c: vec3<f32>) -> vec3<f32> {
    return max(node.min - c, vec3<f32>(0.0)) + max(c - node.max, vec3<f32>(0.0));
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
        let g = box_gap(node, c);
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

// Nearest: one thread per triangle i of A walks B's octree nearest-first, pruning by the best
// distance any thread has found so far (counters.min_dist_bits, an atomic minimum; sphere-to-box
// and sphere-to-sphere gaps are the lower bounds), with seed 000's f32 distance at the leaves.
// Rounding can only make the minimum found slightly worse, never wrong in a way that matters:
// the exact pass that follows culls with this minimum plus the error band.
@compute @workgroup_size(64)
fn nearest(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = q.chunk_start + gid.x;
    if (i >= q.chunk_end) {
        return;
    }
    let ta = tris_a[i];
    let p = array<vec3<f32>, 3>(to_local(q.a, ta.v[0].xyz), to_local(q.a, ta.v[1].xyz), to_local(q.a, ta.v[2].xyz));
    let c = to_b_frame(to_local(q.a, ta.sphere.xyz));
    let r = ta.sphere.w;
    var best = INF;
    var stack: array<u32, STACK>;
    var top = 1u;
    stack[0] = 0u;
    loop {
        if (top == 0u) {
            break;
        }
        top = top - 1u;
        // Only the global minimum matters: prune by the best any thread has found so far.
        best = min(best, bitcast<f32>(atomicLoad(&counters.min_dist_bits)));
        let node = nodes_b[stack[top]];
        let g = box_gap(node, c);
        if (length(g) - r > best) {
            continue;
        }
        if (node.first_child != NO_CHILD) {
            // Children nearest-last on the stack, so the nearest is opened first and the bound
            // tightens early (at most eight: an insertion sort in registers).
            var kd: array<f32, 8>;
            var ki: array<u32, 8>;
            let n = node.child_count;
            for (var k = 0u; k < n; k = k + 1u) {
                let ch = nodes_b[node.first_child + k];
                let gc = box_gap(ch, c);
                kd[k] = length(gc);
                ki[k] = node.first_child + k;
                var m = k;
                loop {
                    if (m == 0u || kd[m - 1u] >= kd[m]) {
                        break;
                    }
                    let td = kd[m];
                    kd[m] = kd[m - 1u];
                    kd[m - 1u] = td;
                    let ti = ki[m];
                    ki[m] = ki[m - 1u];
                    ki[m - 1u] = ti;
                    m = m - 1u;
                }
            }
            for (var k = 0u; k < n; k = k + 1u) {
                if (kd[k] - r > best) {
                    continue;
                }
                if (top < STACK) {
                    stack[top] = ki[k];
                    top = top + 1u;
                } else {
                    atomicStore(&counters.stack_overflow, 1u);
                }
            }
            continue;
        }
        for (var k = node.tri_start; k < node.tri_start + node.tri_count; k = k + 1u) {
            let j = index_b[k];
            let sj = tris_b[j].sphere;
            if (length(sj.xyz - c) - r - sj.w > best) {
                continue;
            }
            let tb = tris_b[j];
            let t = array<vec3<f32>, 3>(to_local(q.b, tb.v[0].xyz), to_local(q.b, tb.v[1].xyz), to_local(q.b, tb.v[2].xyz));
            let dd = tri_dist(p, t);
            if (dd < best) {
                best = dd;
                atomicMin(&counters.min_dist_bits, bitcast<u32>(best));
            }
        }
    }
}

// Cull, first half: leaf pairs. One thread per node of A; each leaf of A holding triangles of
// this round's chunk (positions chunk_start .. chunk_end of A's octree order) walks B's
// flattened octree depth first (by the nodes' escapes, without a stack: lavapipe keeps a stack
// array in memory, lane by lane), testing boxes against boxes, and appends every leaf
// of B whose box comes within d + pad of its own (A's box carried into B's record frame as the
// box of the rotated box). One traversal per leaf of A instead of one per triangle: eight
// times fewer walks, the same conservative answer (a triangle lies in its leaf's box).
// A round's leaf pairs may not fit in one pass's list, nor a walk in WALK_STEPS nodes: a walk
// that finds the list full, or runs out of steps, records the node it stopped at (progress), and
// the round's next pass resumes it there (GpuBackend::rounds): the walk needs no stack, so that
// node is all its state. Once the list is full, later walks wait for the next pass without
// starting.
// CPU twin: gpu::twin::cull_leaves.

@group(0) @binding(0) var<uniform> q: Query;
@group(0) @binding(1) var<storage, read> nodes_a: array<OctreeNode>;
@group(0) @binding(2) var<storage, read> nodes_b: array<OctreeNode>;
@group(0) @binding(3) var<storage, read_write> leaf_pairs: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read_write> counters: Counters;
@group(0) @binding(5) var<storage, read_write> args: DispatchArgs; // cull_pairs::far's indirect dispatch
// Per node of A: the node of B its walk resumes at (0, the root, in a round's first pass), or
// NO_CHILD once it is done.
@group(0) @binding(6) var<storage, read_write> progress: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = thread_index(gid, nwg);
    if (n >= arrayLength(&nodes_a)) {
        return;
    }
    let leaf = nodes_a[n];
    let range = leaf_range(leaf, q.chunk_start, q.chunk_end);
    let lo = range.x;
    let hi = range.y;
    if (lo >= hi) {
        return;
    }
    var at = progress[n];
    if (at == NO_CHILD) {
        return;
    }
    if (atomicLoad(&counters.leaf_pairs) >= q.capacity) {
        atomicAdd(&counters.deferred_leaves, 1u);
        return;
    }
    let bx = box_into_b(q.a, q.b, leaf);
    let reach = q.tol.x + q.tol.y;
    // Depth first without a stack: a node's escape is where the walk goes once its subtree is
    // done or pruned.
    var steps = 0u;
    loop {
        if (at == NO_CHILD) {
            break;
        }
        if (steps == WALK_STEPS) {
            progress[n] = at;
            atomicAdd(&counters.paused_walks, 1u);
            return;
        }
        steps = steps + 1u;
        let node = nodes_b[at];
        // Self: a subtree wholly before A's triangles holds no pair (i, j) with j > i, the
        // only ones cull_pairs keeps; each unordered pair of leaves is walked once.
        if (q.mode == 3u && node.tri_start + node.tri_count <= lo) {
            at = node.escape;
            continue;
        }
        let g = box_box_gap(node, bx);
        if (dot(g, g) > reach * reach) {
            at = node.escape;
            continue;
        }
        if (node.first_child != NO_CHILD) {
            at = node.first_child;
            continue;
        }
        let slot = atomicAdd(&counters.leaf_pairs, 1u);
        if (slot >= q.capacity) {
            progress[n] = at;
            atomicAdd(&counters.deferred_leaves, 1u);
            return;
        }
        leaf_pairs[slot] = vec4<u32>(lo, hi - lo, node.tri_start, node.tri_count);
        at = node.escape;
    }
    if (at != NO_CHILD) {
        atomicOr(&counters.walk_fault, FAULT_CUT_SHORT);
    }
    progress[n] = NO_CHILD;
}

// One thread: the indirect dispatch of cull_pairs::far, one thread per listed leaf pair (the
// counter runs past the capacity by the walks that found the list full), in rows of at most ROW
// workgroups (the 65535 per dimension every adapter allows).
@compute @workgroup_size(1)
fn finish() {
    args = in_rows((min(atomicLoad(&counters.leaf_pairs), q.capacity) + WG - 1u) / WG);
}

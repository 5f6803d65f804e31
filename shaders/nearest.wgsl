// Nearest stage (distance queries): the threads of each leaf of A (its triangles at positions
// chunk_start .. chunk_end of A's octree order) walk B's octree, pruned by box-to-box gaps
// against the best f32 distance any thread has found so far (counters.min_dist_bits,
// an atomic minimum), with Nathan's f32 distance for the triangle pairs of the leaves it
// reaches. Walks pruned by the leaf's box, not each triangle's: coherent across the leaf.
//
// It also emits every pair it evaluates whose f32 distance is within 3 bands of the best so far
// (hits), so that the CPU can recompute just those in f64 (3, not 2: the f32 comparison rounds). Why that is enough: the lower bounds
// used to prune (box to box, sphere to box, sphere to sphere, the leaf pair's gap along a normal,
// common.wgsl's plane_bound and axis_bound) are padded by the
// input error bound (q.tol.y) and by the band (q.tol.w), so a pair is skipped only when its true
// distance exceeds best + band >= m + band, m being the final minimum; a pair evaluated and not
// emitted has f32 distance > best + 2 band, so true distance > m + band too. The true minimum is
// at most m + band, so every pair that could be it is emitted; query::distance on the GPU checks
// the one remaining case (f32 values of slivers are lower bounds only) and falls back to culling
// when it arises.
//
// `sample` runs first on every SAMPLE-th node without emitting: it makes the bound tight
// before `main`'s threads start, so that they neither walk far nor emit pairs a loose bound would
// let through. The sample walks nearest-first with a stack; `main` walks in any order, without a
// stack (by the nodes' escapes, as cull_leaves.wgsl), so that a walk stopped at WALK_STEPS is
// resumed in the round's next pass from the one node it records (progress): every pass starts
// from the bound the earlier ones reached and only lowers it, so the argument above holds over
// the passes as within one.
// CPU twin: gpu::twin::nearest::walk (the same walks, one thread after another); its
// all_pairs is the brute force both are held to.

@group(0) @binding(0) var<uniform> q: Query;
@group(0) @binding(1) var<storage, read> tris_a: array<TriRecord>;
@group(0) @binding(2) var<storage, read> tris_b: array<TriRecord>;
@group(0) @binding(3) var<storage, read> nodes_a: array<OctreeNode>;
@group(0) @binding(4) var<storage, read> nodes_b: array<OctreeNode>;
// Per thread of main: the node of B its walk resumes at (0, the root, in a round's first pass),
// or NO_CHILD once it is done.
@group(0) @binding(6) var<storage, read_write> progress: array<u32>;
@group(0) @binding(7) var<storage, read_write> counters: Counters;
@group(0) @binding(8) var<storage, read_write> hits: array<Hit>;

const SAMPLE: u32 = 64u;
// Threads per leaf of A (set by the backend for the adapter: gpu::backend::leaf_walkers).
override LEAF_WALKERS: u32 = 4u;

// One thread's part of a leaf of A, and what its walk tests B's nodes with. Thread s of the
// LEAF_WALKERS threads of leaf n takes the leaf's triangles s, s + LEAF_WALKERS, ...: the threads
// of one leaf walk the same nodes (pruned by the leaf's box), so they stay together, and each
// has its share of the triangle pairs at the leaves they reach.
struct Walker {
    lo: u32,
    hi: u32,
    first: u32,
    bx: Box,
    slack: f32,
    // This thread's triangles' span along the normal of the leaf's first triangle (local
    // frame), measured from that triangle's first vertex: at each leaf of B, the gap between the
    // spans bounds all its pairs from below, less the rounding of the projections (16 u of the
    // largest distance from the reference point). Where the surfaces face each other across a
    // gap, most leaves of B within the boxes' reach are settled by it before their pairs.
    origin: vec3<f32>,
    axis: vec3<f32>,
    span_a: vec3<f32>,
    use_axis: bool,
}

// Thread t's walker; lo >= hi when it has no triangles in this round's chunk.
fn walker(t: u32) -> Walker {
    var w: Walker;
    let n = t / LEAF_WALKERS;
    if (n >= arrayLength(&nodes_a)) {
        return w;
    }
    let leaf = nodes_a[n];
    let range = leaf_range(leaf, q.chunk_start, q.chunk_end);
    w.lo = range.x;
    w.hi = range.y;
    if (w.lo >= w.hi) {
        return w;
    }
    w.first = w.lo + t % LEAF_WALKERS;
    w.bx = box_into_b(q.a, q.b, leaf);
    w.slack = q.tol.y + q.tol.w;
    let first = tris_a[w.lo];
    w.axis = vec3<f32>(dot(q.a[0].xyz, first.normal.xyz), dot(q.a[1].xyz, first.normal.xyz), dot(q.a[2].xyz, first.normal.xyz));
    w.origin = to_local(q.a, first.v[0].xyz);
    w.span_a = EMPTY_SPAN;
    for (var pos = w.first; pos < w.hi; pos = pos + LEAF_WALKERS) {
        w.span_a = span_with(w.span_a, to_local(q.a, tris_a[pos].v[0].xyz) - w.origin, w.axis);
        w.span_a = span_with(w.span_a, to_local(q.a, tris_a[pos].v[1].xyz) - w.origin, w.axis);
        w.span_a = span_with(w.span_a, to_local(q.a, tris_a[pos].v[2].xyz) - w.origin, w.axis);
    }
    w.use_axis = dot(w.axis, w.axis) > 0.0 && w.span_a.x <= w.span_a.y;
    return w;
}

// The walker's triangles against those of B's leaf `node`: f32 distances of the pairs no bound
// settles, the best lowered (here and in counters.min_dist_bits), and with emit the pairs within
// 3 bands of it written to hits. Its loops' iterations are added to steps (WALK_STEPS).
fn visit_leaf(w: Walker, node: OctreeNode, best: ptr<function, f32>, steps: ptr<function, u32>, emit: bool) {
    if (w.use_axis) {
        var span_b = EMPTY_SPAN;
        for (var k = node.tri_start; k < node.tri_start + node.tri_count; k = k + 1u) {
            *steps = *steps + 1u;
            span_b = span_with(span_b, to_local(q.b, tris_b[k].v[0].xyz) - w.origin, w.axis);
            span_b = span_with(span_b, to_local(q.b, tris_b[k].v[1].xyz) - w.origin, w.axis);
            span_b = span_with(span_b, to_local(q.b, tris_b[k].v[2].xyz) - w.origin, w.axis);
        }
        if (span_gap(w.span_a, span_b) > *best + w.slack) {
            return;
        }
    }
    for (var i = w.first; i < w.hi; i = i + LEAF_WALKERS) {
        *steps = *steps + 1u;
        let sa = tris_a[i].sphere;
        let c = from_local(q.b, to_local(q.a, sa.xyz));
        let r = sa.w;
        if (length(box_gap(node, c)) - r > *best + w.slack) {
            continue;
        }
        let p = array<vec3<f32>, 3>(to_local(q.a, tris_a[i].v[0].xyz), to_local(q.a, tris_a[i].v[1].xyz), to_local(q.a, tris_a[i].v[2].xyz));
        let pl = plane_of(p);
        for (var j = node.tri_start; j < node.tri_start + node.tri_count; j = j + 1u) {
            *steps = *steps + 1u;
            let sj = tris_b[j].sphere;
            if (length(sj.xyz - c) - r - sj.w > *best + w.slack) {
                continue;
            }
            let t = array<vec3<f32>, 3>(to_local(q.b, tris_b[j].v[0].xyz), to_local(q.b, tris_b[j].v[1].xyz), to_local(q.b, tris_b[j].v[2].xyz));
            if (max(plane_bound(p, pl, t), axis_bound(p, t)) > *best + w.slack) {
                continue;
            }
            let dd = tri_dist(p, t);
            if (emit && dd <= *best + 3.0 * q.tol.w) {
                let slot = atomicAdd(&counters.hits, 1u);
                if (slot < q.capacity) {
                    hits[slot] = Hit(i, j, UNSURE, bitcast<u32>(dd));
                }
            }
            if (dd < *best) {
                *best = dd;
                atomicMin(&counters.min_dist_bits, bitcast<u32>(dd));
            }
        }
    }
}

// Nearest-first with a stack: children sorted by their box gap, nearest last on the stack, so
// that the nearest is opened first and the bound tightens early. Stops at WALK_STEPS: what it
// leaves unwalked only leaves the bound looser for main.
@compute @workgroup_size(64)
fn sample(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let s = thread_index(gid, nwg);
    let w = walker((s / LEAF_WALKERS) * SAMPLE * LEAF_WALKERS + s % LEAF_WALKERS);
    if (w.lo >= w.hi) {
        return;
    }
    var best = INF;
    var steps = 0u;
    var stack: array<u32, STACK>;
    var top = 1u;
    stack[0] = 0u;
    loop {
        if (top == 0u || steps >= WALK_STEPS) {
            break;
        }
        steps = steps + 1u;
        top = top - 1u;
        best = min(best, bitcast<f32>(atomicLoad(&counters.min_dist_bits)));
        let node = nodes_b[stack[top]];
        if (length(box_box_gap(node, w.bx)) > best + w.slack) {
            continue;
        }
        if (node.first_child == NO_CHILD) {
            visit_leaf(w, node, &best, &steps, false);
            continue;
        }
        // An insertion sort of at most eight.
        var kd: array<f32, 8>;
        var ki: array<u32, 8>;
        let nc = node.child_count;
        for (var k = 0u; k < nc; k = k + 1u) {
            steps = steps + 1u + k;
            kd[k] = length(box_box_gap(nodes_b[node.first_child + k], w.bx));
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
        for (var k = 0u; k < nc; k = k + 1u) {
            steps = steps + 1u;
            if (kd[k] > best + w.slack) {
                continue;
            }
            if (top < STACK) {
                stack[top] = ki[k];
                top = top + 1u;
            } else {
                atomicOr(&counters.walk_fault, FAULT_STACK);
            }
        }
    }
}

// Every node in depth-first order by the escapes, pruned by the box gap against the bound as it
// is when the node is reached; emits. A walk stopped at WALK_STEPS records where it stopped.
// Pruned nodes are skipped in a loop of their own: lavapipe runs the leaf's tests for every
// iteration in which any of its 8 lanes is at a leaf, so an iteration per pruned node of the
// walk made the stage 1.5-2x slower.
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = thread_index(gid, nwg);
    let w = walker(t);
    if (w.lo >= w.hi) {
        return;
    }
    var at = progress[t];
    if (at == NO_CHILD) {
        return;
    }
    var best = INF;
    var steps = 0u;
    loop {
        best = min(best, bitcast<f32>(atomicLoad(&counters.min_dist_bits)));
        var node: OctreeNode;
        var open = false;
        loop {
            if (at == NO_CHILD || steps >= WALK_STEPS) {
                break;
            }
            steps = steps + 1u;
            node = nodes_b[at];
            if (length(box_box_gap(node, w.bx)) <= best + w.slack) {
                open = true;
                break;
            }
            at = node.escape;
        }
        if (at == NO_CHILD) {
            break;
        }
        if (!open) {
            // Past WALK_STEPS by at most one node and a leaf's loops (8 + 8 x 9 iterations).
            if (steps >= WALK_STEPS) {
                progress[t] = at;
                atomicAdd(&counters.paused_walks, 1u);
            } else {
                atomicOr(&counters.walk_fault, FAULT_CUT_SHORT);
            }
            return;
        }
        if (node.first_child != NO_CHILD) {
            at = node.first_child;
            continue;
        }
        visit_leaf(w, node, &best, &steps, true);
        at = node.escape;
    }
    // The loops' one way out is the walk's end; anything else is the driver's (common.wgsl).
    if (at != NO_CHILD) {
        atomicOr(&counters.walk_fault, FAULT_CUT_SHORT);
    }
    progress[t] = NO_CHILD;
}

// Nearest stage (distance queries): the threads of each leaf of A (its triangles at positions
// chunk_start .. chunk_end of A's octree order) walk B's octree nearest-first by box-to-box
// gaps, pruning by the best f32 distance any thread has found so far (counters.min_dist_bits,
// an atomic minimum), with seed 000's f32 distance for the triangle pairs of the leaves it
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
// let through.
// CPU twin: gpu::twin::nearest (brute force over all pairs with the same f32 distance).

@group(0) @binding(0) var<uniform> q: Query;
@group(0) @binding(1) var<storage, read> tris_a: array<TriRecord>;
@group(0) @binding(2) var<storage, read> tris_b: array<TriRecord>;
@group(0) @binding(3) var<storage, read> nodes_a: array<OctreeNode>;
@group(0) @binding(4) var<storage, read> nodes_b: array<OctreeNode>;
@group(0) @binding(7) var<storage, read_write> counters: Counters;
@group(0) @binding(8) var<storage, read_write> hits: array<Hit>;

const SAMPLE: u32 = 64u;
// Threads per leaf of A (set by the backend for the adapter: gpu::backend::leaf_walkers).
override LEAF_WALKERS: u32 = 4u;

// Thread s of the LEAF_WALKERS threads of leaf n takes the leaf's triangles s,
// s + LEAF_WALKERS, ...: the threads of one leaf walk the same nodes (pruned by the leaf's box), so they stay
// together, and each has an eighth of the triangle pairs at the leaves they reach.
fn search(t: u32, emit_pairs: bool) {
    let n = t / LEAF_WALKERS;
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
    let bx = box_into_b(q.a, q.b, leaf);
    let slack = q.tol.y + q.tol.w;
    // This thread's triangles' span along the normal of the leaf's first triangle (local frame),
    // measured from that triangle's first vertex: at each leaf of B, the gap between the spans
    // bounds all its pairs from below, less the rounding of the projections (16 u of the
    // largest distance from the reference point). Where the surfaces face each other across a
    // gap, most leaves of B within the boxes' reach are settled by it before their pairs.
    let first = tris_a[lo];
    let axis = vec3<f32>(dot(q.a[0].xyz, first.normal.xyz), dot(q.a[1].xyz, first.normal.xyz), dot(q.a[2].xyz, first.normal.xyz));
    let origin = to_local(q.a, first.v[0].xyz);
    var span_a = EMPTY_SPAN;
    for (var pos = lo + t % LEAF_WALKERS; pos < hi; pos = pos + LEAF_WALKERS) {
        for (var m = 0u; m < 3u; m = m + 1u) {
            span_a = span_with(span_a, to_local(q.a, tris_a[pos].v[m].xyz) - origin, axis);
        }
    }
    let use_axis = dot(axis, axis) > 0.0 && span_a.x <= span_a.y;
    var best = INF;
    var stack: array<u32, STACK>;
    var top = 1u;
    stack[0] = 0u;
    loop {
        if (top == 0u) {
            break;
        }
        top = top - 1u;
        best = min(best, bitcast<f32>(atomicLoad(&counters.min_dist_bits)));
        let node = nodes_b[stack[top]];
        if (length(box_box_gap(node, bx)) > best + slack) {
            continue;
        }
        if (node.first_child != NO_CHILD && emit_pairs) {
            // The sample has made the bound tight: children in any order, pruned as pushed.
            for (var k = 0u; k < node.child_count; k = k + 1u) {
                if (length(box_box_gap(nodes_b[node.first_child + k], bx)) > best + slack) {
                    continue;
                }
                if (top < STACK) {
                    stack[top] = node.first_child + k;
                    top = top + 1u;
                } else {
                    atomicStore(&counters.stack_overflow, 1u);
                }
            }
            continue;
        }
        if (node.first_child != NO_CHILD) {
            // The sample starts from nothing: children nearest-last on the stack, so the nearest
            // is opened first and the bound tightens early (an insertion sort of at most eight).
            var kd: array<f32, 8>;
            var ki: array<u32, 8>;
            let nc = node.child_count;
            for (var k = 0u; k < nc; k = k + 1u) {
                kd[k] = length(box_box_gap(nodes_b[node.first_child + k], bx));
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
                if (kd[k] > best + slack) {
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
        if (use_axis) {
            var span_b = EMPTY_SPAN;
            for (var k = node.tri_start; k < node.tri_start + node.tri_count; k = k + 1u) {
                for (var m = 0u; m < 3u; m = m + 1u) {
                    span_b = span_with(span_b, to_local(q.b, tris_b[k].v[m].xyz) - origin, axis);
                }
            }
            if (span_gap(span_a, span_b) > best + slack) {
                continue;
            }
        }
        for (var i = lo + t % LEAF_WALKERS; i < hi; i = i + LEAF_WALKERS) {
            let sa = tris_a[i].sphere;
            let c = from_local(q.b, to_local(q.a, sa.xyz));
            let r = sa.w;
            if (length(box_gap(node, c)) - r > best + slack) {
                continue;
            }
            let p = array<vec3<f32>, 3>(to_local(q.a, tris_a[i].v[0].xyz), to_local(q.a, tris_a[i].v[1].xyz), to_local(q.a, tris_a[i].v[2].xyz));
            let pl = plane_of(p);
            for (var j = node.tri_start; j < node.tri_start + node.tri_count; j = j + 1u) {
                let sj = tris_b[j].sphere;
                if (length(sj.xyz - c) - r - sj.w > best + slack) {
                    continue;
                }
                let t = array<vec3<f32>, 3>(to_local(q.b, tris_b[j].v[0].xyz), to_local(q.b, tris_b[j].v[1].xyz), to_local(q.b, tris_b[j].v[2].xyz));
                if (max(plane_bound(p, pl, t), axis_bound(p, t)) > best + slack) {
                    continue;
                }
                let dd = tri_dist(p, t);
                if (emit_pairs && dd <= best + 3.0 * q.tol.w) {
                    let slot = atomicAdd(&counters.hits, 1u);
                    if (slot < q.capacity) {
                        hits[slot] = Hit(i, j, UNSURE, bitcast<u32>(dd));
                    }
                }
                if (dd < best) {
                    best = dd;
                    atomicMin(&counters.min_dist_bits, bitcast<u32>(best));
                }
            }
        }
    }
}

@compute @workgroup_size(64)
fn sample(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = thread_index(gid, nwg);
    search((t / LEAF_WALKERS) * SAMPLE * LEAF_WALKERS + t % LEAF_WALKERS, false);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    search(thread_index(gid, nwg), true);
}

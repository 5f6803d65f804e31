// Cull, second half: candidate pairs. LEAF_THREADS threads per leaf pair from cull_leaves.wgsl;
// thread s takes the pair's A triangles s, s + LEAF_THREADS, ... and tests each against every
// triangle of the B leaf by seed 000's step 1 with tolerance d, padded by the f32 error bound:
// |C_j - C_i|^2 <= (R_i + R_j + d + pad)^2 (both centres in B's record frame).
// CPU twin: gpu::twin::cull.

@group(0) @binding(0) var<uniform> q: Query;
@group(0) @binding(1) var<storage, read> tris_a: array<TriRecord>;
@group(0) @binding(2) var<storage, read> tris_b: array<TriRecord>;
@group(0) @binding(3) var<storage, read> index_a: array<u32>;
@group(0) @binding(4) var<storage, read> index_b: array<u32>;
@group(0) @binding(5) var<storage, read> leaf_pairs: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read_write> pairs: array<vec2<u32>>;
@group(0) @binding(7) var<storage, read_write> counters: Counters;
@group(0) @binding(8) var<storage, read_write> args: DispatchArgs; // the next stage's indirect dispatch

var<workgroup> wg_count: atomic<u32>;
var<workgroup> wg_base: u32;

// Triangle i's sphere centre in B's record frame, and its reach R_i + d + pad.
fn reach_of(i: u32) -> vec4<f32> {
    let sa = tris_a[i].sphere;
    return vec4<f32>(from_local(q.b, to_local(q.a, sa.xyz)), sa.w + q.tol.x + q.tol.y);
}

// Whether pair (i, j) passes: |C_j - c|^2 <= (reach + R_j)^2, c and reach being i's.
fn passes(i: u32, j: u32, c: vec3<f32>, reach: f32) -> bool {
    if (q.mode == 3u && j <= i) {
        return false; // self: each unordered pair once
    }
    let sj = tris_b[j].sphere;
    let d = sj.xyz - c;
    let r = reach + sj.w;
    return dot(d, d) <= r * r;
}

// Count, reserve the workgroup's slots with one global atomic, then write: one global atomic
// per candidate made every thread queue on one address. In the usual case (one A triangle per
// thread, at most 32 of B) the first pass keeps its answers as bits; otherwise the second
// pass repeats the tests.
@compute @workgroup_size(64)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let t = thread_index(gid, nwg);
    let lp = t / LEAF_THREADS;
    var pr = vec4<u32>(0u);
    if (lp < min(atomicLoad(&counters.leaf_pairs), q.capacity)) {
        pr = leaf_pairs[lp];
    }
    let simple = pr.y <= LEAF_THREADS && pr.w <= 32u;
    var bits = 0u;
    var n = 0u;
    for (var s = t % LEAF_THREADS; s < pr.y; s = s + LEAF_THREADS) {
        let i = index_a[pr.x + s];
        let sa = reach_of(i);
        for (var k = 0u; k < pr.w; k = k + 1u) {
            if (passes(i, index_b[pr.z + k], sa.xyz, sa.w)) {
                n = n + 1u;
                bits = bits | (1u << (k & 31u));
            }
        }
    }
    let offset = atomicAdd(&wg_count, n);
    workgroupBarrier();
    if (li == 0u) {
        wg_base = atomicAdd(&counters.candidates, atomicLoad(&wg_count));
    }
    workgroupBarrier();
    var slot = wg_base + offset;
    if (simple) {
        if (n > 0u) {
            let i = index_a[pr.x + t % LEAF_THREADS];
            for (var k = 0u; k < pr.w; k = k + 1u) {
                if ((bits & (1u << k)) != 0u) {
                    if (slot < q.capacity) {
                        pairs[slot] = vec2<u32>(i, index_b[pr.z + k]);
                    }
                    slot = slot + 1u;
                }
            }
        }
        return;
    }
    for (var s = t % LEAF_THREADS; s < pr.y; s = s + LEAF_THREADS) {
        let i = index_a[pr.x + s];
        let sa = reach_of(i);
        for (var k = 0u; k < pr.w; k = k + 1u) {
            let j = index_b[pr.z + k];
            if (passes(i, j, sa.xyz, sa.w)) {
                if (slot < q.capacity) {
                    pairs[slot] = vec2<u32>(i, j);
                }
                slot = slot + 1u;
            }
        }
    }
}

// One thread: the narrow phase's indirect dispatch size, so that no readback separates them.
@compute @workgroup_size(1)
fn finish() {
    var n = atomicLoad(&counters.candidates);
    if (n > q.capacity) {
        n = 0u; // split and run again: narrowing this round's pairs would be wasted
    }
    args.x = (n + WG - 1u) / WG;
    args.y = 1u;
    args.z = 1u;
}

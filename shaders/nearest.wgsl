// Nearest stage (distance queries).

@group(0) @binding(0) var<uniform> q: Query;
@group(0) @binding(1) var<storage, read> tris_a: array<TriRecord>;
@group(0) @binding(2) var<storage, read> tris_b: array<TriRecord>;
@group(0) @binding(3) var<storage, read> nodes_b: array<OctreeNode>;
@group(0) @binding(4) var<storage, read> index_b: array<u32>;
@group(0) @binding(5) var<storage, read_write> counters: Counters;

// Deep enough for the octree's depth limit (24) times seven siblings waiting per level.
const STACK: u32 = 192u;

// Nearest: one thread per triangle i of A walks B's octree nearest-first, pruning by the best
// distance any thread has found so far (counters.min_dist_bits, an atomic minimum; sphere-to-box
// and sphere-to-sphere gaps are the lower bounds), with seed 000's f32 distance at the leaves.
// Rounding can only make the minimum found slightly worse, never wrong in a way that matters:
// the exact pass that follows culls with this minimum plus the error band.
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = q.chunk_start + gid.x;
    if (i >= q.chunk_end) {
        return;
    }
    let p = array<vec3<f32>, 3>(to_local(q.a, tris_a[i].v[0].xyz), to_local(q.a, tris_a[i].v[1].xyz), to_local(q.a, tris_a[i].v[2].xyz));
    let sa = tris_a[i].sphere;
    let c = from_local(q.b, to_local(q.a, sa.xyz));
    let r = sa.w;
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
            let t = array<vec3<f32>, 3>(to_local(q.b, tris_b[j].v[0].xyz), to_local(q.b, tris_b[j].v[1].xyz), to_local(q.b, tris_b[j].v[2].xyz));
            let dd = tri_dist(p, t);
            if (dd < best) {
                best = dd;
                atomicMin(&counters.min_dist_bits, bitcast<u32>(best));
            }
        }
    }
}

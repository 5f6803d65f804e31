// Poses stage: many poses of B against A in one dispatch, a thread per pose (main) or a
// workgroup of GROUP lanes per pose (group, on hardware GPUs). Each walks both
// hierarchies (bvh.rs) depth first, nearer pair first, bounding node pairs by their oriented
// boxes (obb.rs; B's carried into A's record frame by the pose) and triangle pairs by their f32
// distance, and keeps every leaf pair holding a triangle pair whose lower bound is within the
// least upper bound: the host measures their triangle pairs in f64 as the CPU does, so the
// answer is the CPU's to the bit.
// Early exit: a pair that may touch (no bound proves it apart) makes the pose unsure at once,
// as does a full stack or candidate list or a walk cut short; the CPU answers those (a pose
// that interferes costs it microseconds). CPU twin: gpu::twin::poses.

struct PosesQuery {
    poses: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

// One pose: rows [M | s] taking B's record frame into A's, and its tolerances: x, how far a
// point may lie from where the CPU's f64 geometry puts it (in A's record frame); y, the band
// within which an f32 pair distance holds the f64 one; z, the growth of a box bound for x and
// its f32 evaluation.
struct PoseItem {
    rows: array<vec4<f32>, 3>,
    tol: vec4<f32>,
}

struct PosePair {
    a: u32,                           // a leaf of A's hierarchy
    b: u32,                           // a leaf of B's
    lower: f32,
    pad: u32,
}

struct PoseOut {
    status: u32,                      // POSE_DONE, or why the CPU answers
    count: u32,
    upper: f32,
    steps: u32,
    pairs: array<PosePair, POSE_CANDIDATES>,
}

@group(0) @binding(0) var<uniform> pq: PosesQuery;
@group(0) @binding(1) var<storage, read> a_nodes: array<BvhNode>;
@group(0) @binding(2) var<storage, read> a_corners: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> a_obbs: array<ObbNode>;
@group(0) @binding(4) var<storage, read> b_nodes: array<BvhNode>;
@group(0) @binding(5) var<storage, read> b_corners: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> b_obbs: array<ObbNode>;
@group(0) @binding(7) var<storage, read> items: array<PoseItem>;
@group(0) @binding(8) var<storage, read_write> poses_out: array<PoseOut>;

const POSE_STACK: u32 = 96u;
const POSE_CANDIDATES: u32 = 128u;
const POSE_DONE: u32 = 0u;
// A triangle pair no bound proves apart: they may touch or cross.
const POSE_NEAR: u32 = 1u;
// The stack or the candidate list ran out, or the walk was cut short.
const POSE_FULL: u32 = 2u;

var<private> item: PoseItem;
var<private> status: u32;
var<private> upper: f32;
var<private> count: u32;
var<private> cands: array<PosePair, POSE_CANDIDATES>;

// B's node n carried into A's record frame: centre, axes (not quite unit: the rows' rounding
// and a rotation a little off orthonormal, which the bound's final factor covers), halves.
struct Carried {
    c: vec3<f32>,
    ax: array<vec3<f32>, 3>,
    h: vec3<f32>,
}

fn rotate(m: array<vec4<f32>, 3>, v: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(dot(m[0].xyz, v), dot(m[1].xyz, v), dot(m[2].xyz, v));
}

fn carry(n: u32) -> Carried {
    let o = b_obbs[n];
    return Carried(
        to_local(item.rows, o.center.xyz),
        array<vec3<f32>, 3>(rotate(item.rows, o.axes[0].xyz), rotate(item.rows, o.axes[1].xyz), rotate(item.rows, o.axes[2].xyz)),
        vec3<f32>(o.axes[0].w, o.axes[1].w, o.axes[2].w),
    );
}

// A lower bound on the distance between A's node x and B's carried node: in each box's frame,
// the gaps to the box around the other along its three axes, each less the growth (item.tol.z),
// combined as a hypotenuse; the larger of the two and the gap along the centres' line (the
// CPU's walk takes the same three), shrunk by 1e-4 for axes a little off
// orthonormal (a rotation accepted up to 2e-6 off, rounding). Written out, not looped: a
// software adapter counts every loop iteration against one budget (see walk).
fn node_lower(x: u32, cb: Carried) -> f32 {
    let oa = a_obbs[x];
    let d = cb.c - oa.center.xyz;
    let ga = vec3<f32>(gap_a(oa.axes[0], d, cb), gap_a(oa.axes[1], d, cb), gap_a(oa.axes[2], d, cb));
    let gb = vec3<f32>(gap_b(cb.ax[0], cb.h.x, d, oa), gap_b(cb.ax[1], cb.h.y, d, oa), gap_b(cb.ax[2], cb.h.z, d, oa));
    return max(max(length(ga), length(gb)), line_gap(d, oa, cb)) * (1.0 - 1e-4);
}

// The gap along the line between the boxes' centres (d from A's to B's), less the growth:
// boxes apart along a diagonal, which no face axis separates by much. 0 for one centre.
fn line_gap(d: vec3<f32>, oa: ObbNode, cb: Carried) -> f32 {
    let len = length(d);
    if (!(len > 0.0)) {
        return 0.0;
    }
    let u = d / len;
    let ra = oa.axes[0].w * abs(dot(oa.axes[0].xyz, u)) + oa.axes[1].w * abs(dot(oa.axes[1].xyz, u)) + oa.axes[2].w * abs(dot(oa.axes[2].xyz, u));
    let rb = cb.h.x * abs(dot(cb.ax[0], u)) + cb.h.y * abs(dot(cb.ax[1], u)) + cb.h.z * abs(dot(cb.ax[2], u));
    return len - ra - rb - item.tol.z;
}

// The gap along A's axis a (w: A's half-extent) between the boxes d apart.
fn gap_a(a: vec4<f32>, d: vec3<f32>, cb: Carried) -> f32 {
    let reach_b = cb.h.x * abs(dot(cb.ax[0], a.xyz)) + cb.h.y * abs(dot(cb.ax[1], a.xyz)) + cb.h.z * abs(dot(cb.ax[2], a.xyz));
    return max(abs(dot(d, a.xyz)) - a.w - reach_b - item.tol.z, 0.0);
}

// The gap along B's carried axis u (half-extent h).
fn gap_b(u: vec3<f32>, h: f32, d: vec3<f32>, oa: ObbNode) -> f32 {
    let reach_a = oa.axes[0].w * abs(dot(oa.axes[0].xyz, u)) + oa.axes[1].w * abs(dot(oa.axes[1].xyz, u)) + oa.axes[2].w * abs(dot(oa.axes[2].xyz, u));
    return max(abs(dot(d, u)) - h - reach_a - item.tol.z, 0.0);
}

fn size_a(x: u32) -> f32 {
    let o = a_obbs[x];
    return o.axes[0].w + o.axes[1].w + o.axes[2].w;
}

fn size_b(y: u32) -> f32 {
    let o = b_obbs[y];
    return o.axes[0].w + o.axes[1].w + o.axes[2].w;
}

// Keep the leaf pair (x of A, y of B) with its lower bound, dropping those the least upper
// bound has passed when the list is full; a list still full makes the pose unsure. Leaves, not
// triangles: where a vertex is nearest, the six triangles around it tie with the six around
// the other's, 36 pairs in a few leaf pairs; the host measures every pair of those.
fn keep(sa: u32, sb: u32, lower: f32) {
    if (count == POSE_CANDIDATES) {
        var kept = 0u;
        var k = 0u;
        for (; k < POSE_CANDIDATES; k++) {
            if (!(cands[k].lower > upper)) {
                cands[kept] = cands[k];
                kept++;
            }
        }
        if (k < POSE_CANDIDATES) {
            status = POSE_FULL; // cut short: candidates lost
            return;
        }
        count = kept;
    }
    if (count == POSE_CANDIDATES) {
        status = POSE_FULL;
        return;
    }
    cands[count] = PosePair(sa, sb, lower, 0u);
    count += 1u;
}

// Triangle p of A against t of B (carried): a lower bound on their distance, INF where it
// exceeds the least upper bound. Their cheap bounds (common.wgsl, less twice the points'
// displacement, with room) either put them beyond the least upper bound, or prove them apart,
// when their f32 distance bounds them within the band both ways; or they may touch, and the
// pose is unsure.
fn tri_pair(p: array<vec3<f32>, 3>, t: array<vec3<f32>, 3>) -> f32 {
    let r = tri_bounds(p, t, upper);
    if (r.z > 0.0) {
        status = POSE_NEAR;
        return INF;
    }
    upper = min(upper, r.y);
    return r.x;
}

// tri_pair's bounds against the least upper bound u: x the lower bound and y the upper
// (both INF where the cheap bounds pass u), z 1 where the pair may touch.
fn tri_bounds(p: array<vec3<f32>, 3>, t: array<vec3<f32>, 3>, u: f32) -> vec3<f32> {
    let cheap = max(max(plane_bound(p, plane_of(p), t), plane_bound(t, plane_of(t), p)), axis_bound(p, t)) - 4.0 * item.tol.x;
    if (cheap > u) {
        return vec3<f32>(INF, INF, 0.0);
    }
    if (!(cheap > 0.0)) {
        return vec3<f32>(INF, INF, 1.0);
    }
    let d = pair_dist(p, t);
    let band = item.tol.y;
    return vec3<f32>(max(d.x - d.y - band, cheap), d.x + band, 0.0);
}

fn a_tri(s: u32) -> array<vec3<f32>, 3> {
    return array<vec3<f32>, 3>(a_corners[3u * s].xyz, a_corners[3u * s + 1u].xyz, a_corners[3u * s + 2u].xyz);
}

fn b_tri(s: u32) -> array<vec3<f32>, 3> {
    let m = item.rows;
    return array<vec3<f32>, 3>(to_local(m, b_corners[3u * s].xyz), to_local(m, b_corners[3u * s + 1u].xyz), to_local(m, b_corners[3u * s + 2u].xyz));
}

// One loop does all the work, node pairs and the triangle pairs of a leaf pair alike: lavapipe
// ends every loop of an invocation once its SIMD group has run 65535 iterations of all its
// loops together (Mesa's LP_MAX_TGSI_LOOP_ITERATIONS, one counter per invocation), so a
// nested loop per leaf pair would spend the budget four times as fast.
fn walk(i: u32) {
    item = items[i];
    status = POSE_DONE;
    upper = INF;
    count = 0u;
    var steps = 0u;
    var stack: array<vec3<u32>, POSE_STACK>;
    stack[0] = vec3<u32>(0u, 0u, bitcast<u32>(node_lower(0u, carry(0u))));
    var top = 1u;
    // The leaf pair in hand: its leaves, its next triangle pair k of n, the least lower bound.
    var leaves = vec2<u32>(0u);
    var lx: BvhNode;
    var ly: BvhNode;
    var k = 0u;
    var n = 0u;
    var low = INF;
    while (status == POSE_DONE) {
        // A walk past its budget (WALK_STEPS: a software adapter's, common.wgsl) is unsure.
        if (steps == WALK_STEPS) {
            status = POSE_FULL;
            break;
        }
        steps += 1u;
        if (k < n) {
            low = min(low, tri_pair(a_tri(lx.index + k % lx.count), b_tri(ly.index + k / lx.count)));
            k += 1u;
            if (k == n && !(low > upper)) {
                keep(leaves.x, leaves.y, low);
            }
            continue;
        }
        if (top == 0u) {
            break;
        }
        top -= 1u;
        let e = stack[top];
        if (bitcast<f32>(e.z) > upper) {
            continue;
        }
        let nx = a_nodes[e.x];
        let ny = b_nodes[e.y];
        if (nx.count > 0u && ny.count > 0u) {
            leaves = e.xy;
            lx = nx;
            ly = ny;
            k = 0u;
            n = nx.count * ny.count;
            low = INF;
            continue;
        }
        if (top + 2u > POSE_STACK) {
            status = POSE_FULL;
            break;
        }
        // Split the node that is not a leaf, or the larger.
        var c0 = vec2<u32>(e.x, ny.index);
        var c1 = vec2<u32>(e.x, ny.index + 1u);
        if (ny.count > 0u || (nx.count == 0u && size_a(e.x) >= size_b(e.y))) {
            c0 = vec2<u32>(nx.index, e.y);
            c1 = vec2<u32>(nx.index + 1u, e.y);
        }
        let l0 = node_lower(c0.x, carry(c0.y));
        let l1 = node_lower(c1.x, carry(c1.y));
        // The nearer on top, so it is taken first.
        if (l0 <= l1) {
            stack[top] = vec3<u32>(c1, bitcast<u32>(l1));
            stack[top + 1u] = vec3<u32>(c0, bitcast<u32>(l0));
        } else {
            stack[top] = vec3<u32>(c0, bitcast<u32>(l0));
            stack[top + 1u] = vec3<u32>(c1, bitcast<u32>(l1));
        }
        top += 2u;
    }
    // A walk the software adapter cut short is unsure, never an answer.
    if ((top > 0u || k < n) && status == POSE_DONE) {
        status = POSE_FULL;
    }
    var out: PoseOut;
    out.status = status;
    out.upper = upper;
    out.steps = steps;
    out.count = 0u;
    var c = 0u;
    for (; c < count; c++) {
        if (!(cands[c].lower > upper)) {
            out.pairs[out.count] = cands[c];
            out.count++;
        }
    }
    if (c < count) {
        out.status = POSE_FULL;
    }
    poses_out[i] = out;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if (i < pq.poses) {
        walk(i);
    }
}

// ---- group: a workgroup per pose ----
// A thread's walk is as long as its pose needs (tens of thousands of steps for some), and a
// dispatch of a few thousand poses leaves a GPU nearly empty, each step waiting on memory. In
// rounds, GROUP lanes take the GROUP pending node pairs on top of the pose's stack at once:
// the longest walk takes about a seventieth of the steps, for about 1.2 times the work. Every
// lane bounds against the least upper bound as the round began and the lanes' children go back
// in lane order, so the walk does not depend on which lane runs first (the twin's `group`).
// Loops whose end is not reached (a software adapter's loop budget) make the pose unsure.

const GROUP: u32 = 32u;
const GROUP_STACK: u32 = 1024u;
// Triangle pairs of a leaf pair at most: LEAF_MAX (bvh.rs) squared.
const LEAF_PAIRS: u32 = 16u;

var<workgroup> g_pairs: array<vec2<u32>, GROUP_STACK>;
var<workgroup> g_lows: array<f32, GROUP_STACK>;
var<workgroup> g_top: u32;
var<workgroup> g_go: u32;
var<workgroup> g_status: atomic<u32>;
var<workgroup> g_upper: atomic<u32>;     // a bound's bits: bounds are positive
var<workgroup> g_scan: array<u32, GROUP>;
var<workgroup> g_leaf: array<vec2<u32>, GROUP>;
var<workgroup> g_leaf_nodes: array<vec4<u32>, GROUP>;
var<workgroup> g_leaf_low: array<atomic<u32>, GROUP>;
var<workgroup> g_leaves: atomic<u32>;
var<workgroup> g_leaves_now: u32;
var<workgroup> g_keepers: atomic<u32>;
var<workgroup> g_cands: array<PosePair, POSE_CANDIDATES>;
var<workgroup> g_count: atomic<u32>;

@compute @workgroup_size(GROUP)
fn group(@builtin(local_invocation_index) lane: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = wid.x + wid.y * nwg.x;
    if (lane == 0u) {
        g_top = 0u;
        atomicStore(&g_status, POSE_DONE);
        atomicStore(&g_upper, bitcast<u32>(INF));
        atomicStore(&g_count, 0u);
    }
    if (i < pq.poses) {
        item = items[i];
        if (lane == 0u) {
            g_pairs[0] = vec2<u32>(0u);
            g_lows[0] = node_lower(0u, carry(0u));
            g_top = 1u;
        }
    }
    var rounds = 0u;
    loop {
        workgroupBarrier();
        if (lane == 0u) {
            atomicStore(&g_leaves, 0u);
            atomicStore(&g_keepers, 0u);
            let going = g_top > 0u && atomicLoad(&g_status) == POSE_DONE;
            g_go = select(0u, 1u, going);
            if (going && rounds == WALK_STEPS) {
                g_go = 0u;
                atomicMax(&g_status, POSE_FULL);
            }
        }
        if (workgroupUniformLoad(&g_go) == 0u) {
            break;
        }
        rounds += 1u;
        let top = g_top;
        let u0 = bitcast<f32>(atomicLoad(&g_upper));
        // One lane dives until a leaf pair gives a bound: GROUP lanes before that would fill
        // the stack with pairs nothing prunes.
        let taken = min(top, select(GROUP, 1u, u0 == INF));
        let kids = take_pair(lane, top, taken, u0);
        let below = lanes_below(lane, kids.n);
        let base = top - taken;
        if (kids.n > 0u && base + below + kids.n <= GROUP_STACK) {
            if (kids.n == 2u) {
                g_pairs[base + below] = kids.far.xy;
                g_lows[base + below] = bitcast<f32>(kids.far.z);
            }
            g_pairs[base + below + kids.n - 1u] = kids.near.xy;
            g_lows[base + below + kids.n - 1u] = bitcast<f32>(kids.near.z);
        }
        workgroupBarrier();
        if (lane == 0u) {
            // Lane 0's children are the topmost.
            let end = base + below + kids.n;
            if (end > GROUP_STACK) {
                atomicMax(&g_status, POSE_FULL);
            } else {
                g_top = end;
            }
            g_leaves_now = atomicLoad(&g_leaves);
        }
        let leaves = workgroupUniformLoad(&g_leaves_now);
        leaf_triangles(lane, leaves, u0);
        workgroupBarrier();
        keep_leaves(lane, leaves);
    }
    if (i < pq.poses) {
        group_out(lane, i, rounds);
    }
}

// The children a lane pushes: far below near, n of them (0, 1 or 2), each (x, y, bits of its
// lower bound).
struct Kids {
    n: u32,
    far: vec3<u32>,
    near: vec3<u32>,
}

// Lane `lane`'s node pair of the round (the lane-th from the top of `top`, if one of the `taken`):
// a leaf pair goes to the round's leaves; else its children within u, the nearer last.
fn take_pair(lane: u32, top: u32, taken: u32, u: f32) -> Kids {
    var kids = Kids(0u, vec3<u32>(0u), vec3<u32>(0u));
    if (lane >= taken) {
        return kids;
    }
    let e = g_pairs[top - 1u - lane];
    if (g_lows[top - 1u - lane] > u) {
        return kids;
    }
    let nx = a_nodes[e.x];
    let ny = b_nodes[e.y];
    if (nx.count > 0u && ny.count > 0u) {
        let q = atomicAdd(&g_leaves, 1u);
        g_leaf[q] = e;
        g_leaf_nodes[q] = vec4<u32>(nx.index, nx.count, ny.index, ny.count);
        atomicStore(&g_leaf_low[q], bitcast<u32>(INF));
        return kids;
    }
    var c0 = vec2<u32>(e.x, ny.index);
    var c1 = vec2<u32>(e.x, ny.index + 1u);
    if (ny.count > 0u || (nx.count == 0u && size_a(e.x) >= size_b(e.y))) {
        c0 = vec2<u32>(nx.index, e.y);
        c1 = vec2<u32>(nx.index + 1u, e.y);
    }
    let l0 = node_lower(c0.x, carry(c0.y));
    let l1 = node_lower(c1.x, carry(c1.y));
    var far = vec3<u32>(c1, bitcast<u32>(l1));
    var near = vec3<u32>(c0, bitcast<u32>(l0));
    if (!(l0 <= l1)) {
        far = vec3<u32>(c0, bitcast<u32>(l0));
        near = vec3<u32>(c1, bitcast<u32>(l1));
    }
    if (!(bitcast<f32>(far.z) > u)) {
        kids.n = 1u;
        kids.near = far;
    }
    if (!(bitcast<f32>(near.z) > u)) {
        kids.n += 1u;
        kids.far = kids.near;
        kids.near = near;
    }
    return kids;
}

// The children of the lanes after `lane` (a scan over the group, written out: a software
// adapter counts every loop iteration against one budget).
fn lanes_below(lane: u32, n: u32) -> u32 {
    let r = GROUP - 1u - lane;
    g_scan[r] = n;
    workgroupBarrier();
    var sum = n;
    var d = 1u;
    for (; d < GROUP; d <<= 1u) {
        let add = select(0u, g_scan[r - d], r >= d);
        workgroupBarrier();
        sum += add;
        g_scan[r] = sum;
        workgroupBarrier();
    }
    if (d < GROUP) {
        atomicMax(&g_status, POSE_FULL); // cut short: the stack's top is wrong
    }
    return sum - n;
}

// The triangle pairs of the round's leaf pairs, a lane each, bounded against u: the least
// upper bound and each leaf pair's least lower bound lowered by every one.
fn leaf_triangles(lane: u32, leaves: u32, u: f32) {
    var s = lane;
    for (; s < leaves * LEAF_PAIRS; s += GROUP) {
        let q = s / LEAF_PAIRS;
        let k = s % LEAF_PAIRS;
        let n = g_leaf_nodes[q];
        if (k < n.y * n.w) {
            let r = tri_bounds(a_tri(n.x + k % n.y), b_tri(n.z + k / n.y), u);
            if (r.z > 0.0) {
                atomicMax(&g_status, POSE_NEAR);
            } else {
                atomicMin(&g_upper, bitcast<u32>(r.y));
                atomicMin(&g_leaf_low[q], bitcast<u32>(r.x));
            }
        }
    }
    if (s < leaves * LEAF_PAIRS) {
        atomicMax(&g_status, POSE_FULL); // cut short
    }
}

// The round's leaf pairs within the least upper bound join the candidates, the list first
// rid of those past it where they would not fit.
fn keep_leaves(lane: u32, leaves: u32) {
    let u = bitcast<f32>(atomicLoad(&g_upper));
    var low = INF;
    var keeps = false;
    if (lane < leaves) {
        low = bitcast<f32>(atomicLoad(&g_leaf_low[lane]));
        keeps = !(low > u);
        if (keeps) {
            atomicAdd(&g_keepers, 1u);
        }
    }
    workgroupBarrier();
    if (lane == 0u && atomicLoad(&g_count) + atomicLoad(&g_keepers) > POSE_CANDIDATES) {
        let count = atomicLoad(&g_count);
        var kept = 0u;
        var c = 0u;
        for (; c < count; c++) {
            if (!(g_cands[c].lower > u)) {
                g_cands[kept] = g_cands[c];
                kept++;
            }
        }
        if (c < count) {
            atomicMax(&g_status, POSE_FULL); // cut short
        }
        atomicStore(&g_count, kept);
    }
    workgroupBarrier();
    if (keeps) {
        let at = atomicAdd(&g_count, 1u);
        if (at < POSE_CANDIDATES) {
            g_cands[at] = PosePair(g_leaf[lane].x, g_leaf[lane].y, low, 0u);
        } else {
            atomicMax(&g_status, POSE_FULL);
        }
    }
}

// The pose's answer, written by lane 0: as `walk`'s.
fn group_out(lane: u32, i: u32, rounds: u32) {
    if (lane != 0u) {
        return;
    }
    var st = atomicLoad(&g_status);
    if (g_top > 0u && st == POSE_DONE) {
        st = POSE_FULL; // a walk cut short is unsure, never an answer
    }
    let u = bitcast<f32>(atomicLoad(&g_upper));
    let count = min(atomicLoad(&g_count), POSE_CANDIDATES);
    var out: PoseOut;
    out.status = st;
    out.upper = u;
    out.steps = rounds;
    out.count = 0u;
    var c = 0u;
    for (; c < count; c++) {
        if (!(g_cands[c].lower > u)) {
            out.pairs[out.count] = g_cands[c];
            out.count++;
        }
    }
    if (c < count) {
        out.status = POSE_FULL;
    }
    poses_out[i] = out;
}

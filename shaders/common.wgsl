// Structs shared by the stages. Rust twins: src/mesh/record.rs (TriRecord); sizes and offsets
// are checked against these by tests/layout.rs through naga.

struct TriRecord {
    v: array<vec4<f32>, 3>,           // V0, V1, V2 (w = 0)
    e: array<vec4<f32>, 3>,           // E0 = V1-V0, E1 = V2-V1, E2 = V0-V2 (w = |E_i|)
    normal: vec4<f32>,                // unit normal, w = n . V0
    edge_normal: array<vec4<f32>, 3>, // (E_i/|E_i|) x n, outward; w = en_i . V_i
    sphere: vec4<f32>,                // centroid, w = radius
    bary: vec4<f32>,                  // E0.E0, E0.E2, E2.E2, w = 1/det (0: zero area)
}

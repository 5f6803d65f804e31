// Smoke stage: doubles every element. Proves the road to the GPU (adapter, pipeline, dispatch,
// readback) before the real stages. CPU twin: gpu::smoke::double_cpu.

@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&data)) {
        data[id.x] = data[id.x] * 2u;
    }
}

//! The road to the GPU: adapter, pipeline, dispatch, readback. Skips loudly without an
//! adapter; fails instead under MESHCLASH_REQUIRE_GPU=1 (CI).

mod common;

#[test]
fn smoke_stage_doubles_an_array_like_its_cpu_twin() {
    let Some(ctx) = common::gpu_or_skip("smoke_stage_doubles_an_array_like_its_cpu_twin") else {
        return;
    };
    // More than one workgroup, not a multiple of 64, and values that wrap.
    let data: Vec<u32> = (0..1000u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let got = meshclash::gpu::smoke::double(&ctx, &data).unwrap();
    assert_eq!(got, meshclash::gpu::smoke::double_cpu(&data));
    assert_eq!(got[3], 3u32.wrapping_mul(2_654_435_761).wrapping_mul(2));
}

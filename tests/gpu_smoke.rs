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

/// Every `GpuContext::new` in a process shares one device, made once: NVIDIA's driver crashed
/// and hung when tests on 16 threads each made and dropped their own (docs/gpu.md). Contexts
/// made and dropped on many threads at once are still that device; one with limits of its own
/// is another. Each context takes its own errors.
#[test]
fn contexts_share_the_process_device() {
    let Some(first) = common::gpu_or_skip("contexts_share_the_process_device") else {
        return;
    };
    let made: Vec<_> = std::thread::scope(|s| {
        let threads: Vec<_> = (0..8)
            .map(|_| s.spawn(|| meshclash::gpu::GpuContext::new().unwrap()))
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    assert!(made.iter().all(|c| c.same_device(&first)));
    drop(made);
    let own = meshclash::gpu::GpuContext::with_limits(wgpu::Limits::downlevel_defaults()).unwrap();
    assert!(!own.same_device(&first));
    let data = [1u32, 2, 3];
    assert_eq!(
        meshclash::gpu::smoke::double(&first, &data).unwrap(),
        [2, 4, 6]
    );
    // An error no scope catches (a buffer both mapped for reading and stored to) reaches every
    // context on the device once: each takes its own.
    let other = meshclash::gpu::GpuContext::new().unwrap();
    let _refused = first.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 4,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    for ctx in [&first, &other] {
        assert!(ctx.take_error().is_err());
        assert!(ctx.take_error().is_ok());
    }
    assert!(own.take_error().is_ok(), "another device's");
}

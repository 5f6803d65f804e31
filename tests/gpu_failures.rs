//! GPU failure paths reach the user as typed errors (or, under `--backend auto`, a CPU answer;
//! see cli.rs for the missing adapter): deliberately tiny limits, and a device that is gone.

mod common;

use glam::DVec3;
use meshclash::gpu::{GpuBackend, GpuContext};
use meshclash::mesh::{generate, Pose};
use meshclash::query::{self, CheckOptions};
use meshclash::PreparedMesh;

#[test]
fn tiny_limits_split_everything_and_still_answer_identically() {
    if common::gpu_or_skip("tiny_limits_split_everything_and_still_answer_identically").is_none() {
        return;
    }
    // An adapter allowing only 4 storage buffers per stage (WebGL-class) cannot run the stages:
    // a typed error when the pipelines are built.
    match GpuContext::with_limits(wgpu::Limits::downlevel_defaults()).and_then(GpuBackend::new) {
        Err(meshclash::Error::Gpu(msg)) => assert!(msg.contains("cull"), "{msg}"),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("pipelines with 8 storage buffers built under a limit of 4"),
    }
    // Storage bindings of 4 KiB: 21 triangle records per part, 256 candidate pairs per round.
    let limits = wgpu::Limits {
        max_storage_buffer_binding_size: 4096,
        ..wgpu::Limits::default()
    };
    let b = GpuBackend::new(GpuContext::with_limits(limits).unwrap()).unwrap();
    assert!(
        b.part_limit <= 21 && b.capacity <= 256,
        "{} {}",
        b.part_limit,
        b.capacity
    );
    let t = PreparedMesh::new(generate::torus(1.0, 0.3, 20, 8));
    let g = b.upload(&t).unwrap();
    assert!(g.parts.len() >= 15);
    let link = Pose::from_euler_degrees([90.0, 7.0, 3.0], DVec3::new(1.5, 0.03, 0.02));
    let opts = CheckOptions {
        clearance: Some(0.05),
    };
    let cpu = query::check(&t, Pose::IDENTITY, &t, link, &opts);
    let gpu = b
        .check(&t, &g, Pose::IDENTITY, &t, &g, link, &opts)
        .unwrap();
    assert_eq!(cpu.intersect.pairs, gpu.intersect.pairs);
    assert_eq!(
        cpu.distance.distance.to_bits(),
        gpu.distance.distance.to_bits()
    );
    assert_eq!(cpu.clearance.unwrap().pairs, gpu.clearance.unwrap().pairs);
}

#[test]
fn a_lost_device_is_a_typed_error_not_a_panic() {
    let Some(ctx) = common::gpu_or_skip("a_lost_device_is_a_typed_error_not_a_panic") else {
        return;
    };
    let b = GpuBackend::new(ctx).unwrap();
    let t = PreparedMesh::new(generate::torus(1.0, 0.3, 20, 8));
    let g = b.upload(&t).unwrap();
    b.ctx.device.destroy();
    let r = b.check(
        &t,
        &g,
        Pose::IDENTITY,
        &t,
        &g,
        Pose::translation(DVec3::X),
        &CheckOptions::default(),
    );
    match r {
        Err(meshclash::Error::Gpu(msg)) => eprintln!("lost device: {msg}"),
        other => panic!(
            "expected a GPU error, got {:?}",
            other.map(|r| r.intersects())
        ),
    }
    // The process's device was that one: the next context is a new one, and works.
    let again = GpuContext::new().unwrap();
    assert!(!again.same_device(&b.ctx));
    let doubled = meshclash::gpu::smoke::double(&again, &[1, 2]).unwrap();
    assert_eq!(doubled, [2, 4]);
}

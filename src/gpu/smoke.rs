//! The smoke stage (`shaders/smoke.wgsl`): double an array on the GPU and read it back.

use super::GpuContext;
use crate::error::Result;
use wgpu::util::DeviceExt;

/// CPU twin of `smoke.wgsl`.
pub fn double_cpu(data: &[u32]) -> Vec<u32> {
    data.iter().map(|x| x.wrapping_mul(2)).collect()
}

/// Run `smoke.wgsl` on `data`.
pub fn double(ctx: &GpuContext, data: &[u32]) -> Result<Vec<u32>> {
    if data.is_empty() {
        return Ok(Vec::new());
    }
    let layout = ctx
        .device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("smoke"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: false },
                    has_dynamic_offset: false,
                    min_binding_size: std::num::NonZeroU64::new(4),
                },
                count: None,
            }],
        });
    let module = ctx.shader_module("smoke", super::shaders::SMOKE)?;
    let pipeline = ctx.compute_pipeline("smoke", &module, "main", &layout)?;
    let buf = ctx
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("smoke data"),
            contents: bytemuck::cast_slice(data),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        });
    let bind = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("smoke"),
        layout: &layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: buf.as_entire_binding(),
        }],
    });
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups((data.len() as u32).div_ceil(64), 1, 1);
    }
    ctx.queue.submit([enc.finish()]);
    ctx.read_buffer(&buf, data.len())
}

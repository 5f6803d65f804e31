//! Helpers the unit tests share (built only for tests).

use crate::mesh::Mesh;

/// A small deterministic generator of numbers in [0, 1) (no dependency for a unit test).
pub fn lcg(seed: u64) -> impl FnMut() -> f64 {
    let mut s = seed;
    move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `mesh` moved by `offset` and scaled by `scale`, in f32 as a file would hold it.
pub fn placed(mesh: &Mesh, scale: f32, offset: [f32; 3]) -> Mesh {
    let mut m = mesh.clone();
    for v in &mut m.vertices {
        *v = [0, 1, 2].map(|k| v[k] * scale + offset[k]);
    }
    m
}

/// `f` with the SSE unit flushing subnormal results to zero and reading subnormal inputs as
/// zero (MXCSR's FTZ and DAZ bits, on this thread), as GPU drivers that flush do; checked to
/// have taken. The compiler does not know the mode switches change arithmetic: `f`'s inputs
/// and result (and the unflushed values compared with them) pass through `black_box`, whose
/// reads and writes stay on their side of the switches.
#[cfg(target_arch = "x86_64")]
pub fn flushing<R>(f: impl FnOnce() -> R) -> R {
    use std::hint::black_box;
    let mut saved = 0u32;
    // SAFETY: stmxcsr and ldmxcsr read and write the SSE control word through a valid pointer
    // to a u32; the mode is restored before returning (a panic in `f` fails the test anyway).
    unsafe { std::arch::asm!("stmxcsr [{}]", in(reg) &mut saved, options(nostack)) };
    let flush = saved | 0x8040;
    unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &flush, options(nostack)) };
    // The mode took: a subnormal product comes out zero.
    let canary = black_box(black_box(1e-38f32) * black_box(0.5f32));
    let r = black_box(f());
    unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &saved, options(nostack)) };
    assert_eq!(canary, 0.0, "FTZ did not take");
    assert_ne!(
        black_box(1e-38f32) * black_box(0.5f32),
        0.0,
        "FTZ stayed on"
    );
    r
}

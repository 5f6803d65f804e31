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
/// zero (MXCSR's FTZ and DAZ bits, on this thread), as GPU drivers that flush do: the twins run
/// under it show what such a driver makes of a stage. `None` where either mode did not take,
/// or was not undone. The compiler does not know the mode switches change arithmetic: `f`'s
/// inputs and result (and the unflushed values compared with them) must pass through
/// `black_box`, whose reads and writes stay on their side of the switches.
#[cfg(target_arch = "x86_64")]
pub fn flushing<R>(f: impl FnOnce() -> R) -> Option<R> {
    use std::hint::black_box;
    /// Puts the saved control word back, on return and on unwinding alike.
    struct Restore(u32);
    impl Drop for Restore {
        fn drop(&mut self) {
            // SAFETY: ldmxcsr reads the control word through a valid pointer to a u32.
            unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &self.0, options(nostack)) };
        }
    }
    // Flushing: a subnormal product comes out zero, and a subnormal input reads as zero.
    let flushed =
        || black_box(black_box(1e-38f32) * black_box(0.5f32)) == 0.0 && black_box(1e-40f32) == 0.0;
    let mut saved = 0u32;
    // SAFETY: stmxcsr and ldmxcsr write and read the control word through valid pointers to
    // u32s; `Restore` puts the saved one back.
    unsafe { std::arch::asm!("stmxcsr [{}]", in(reg) &mut saved, options(nostack)) };
    let r = {
        let _restore = Restore(saved);
        let flush = saved | 0x8040;
        unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &flush, options(nostack)) };
        let took = flushed();
        let r = black_box(f());
        took.then_some(r)
    };
    r.filter(|_| !flushed())
}

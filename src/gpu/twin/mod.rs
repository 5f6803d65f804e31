//! CPU twins of the WGSL stages: the same functions in `f32`, line by line, so the stage tests
//! can hold each GPU stage equal to its twin.
mod legacy;
pub use legacy::*;

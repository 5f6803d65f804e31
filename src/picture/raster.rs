//! A PNG of a [`Scene`], drawn on the CPU: deterministic and headless. Triangles are filled by
//! a z-buffered rasteriser of our own (flat shading by a headlight); curves, the closest
//! segment and points are stroked on top by tiny-skia, anti-aliased, never hidden.
//!
//! The camera is orthographic, framed on the scene's focus (padded), and looks along a
//! diagonal, turned on each axis towards the side the clashing triangles clearly face, or 20°
//! off square to the closest segment when there is one, so that it shows at nearly its full
//! length and faces square to it are not edge-on. Everything nearer
//! to the camera than the framed region is cut away, so a clash deep inside a part is seen, and
//! a container is drawn without its faces that face the camera.
//! The nearest surface shows: clashing triangles inside the other part are hidden, as they
//! should be; the intersection curves, drawn on top, show where they are.

use super::{Mark, Scene};
use crate::error::{Error, Result};
use crate::geom::DVec3;

/// Colours, RGB. A clash is the only red: tests count red pixels to tell a clash.
pub const BACKGROUND: [u8; 3] = [255, 255, 255];
pub const PART_A: [u8; 3] = [175, 175, 175];
pub const PART_B: [u8; 3] = [70, 130, 210];
pub const CLASH: [u8; 3] = [225, 25, 25];
pub const NEAR: [u8; 3] = [255, 150, 0];
/// Darker than any shade of [`CLASH`] (its darkest, seen edge-on, is about (101, 11, 11): a
/// review's helper lost the curves on dark red faces at (110, 0, 0)).
pub const CURVE: [u8; 3] = [60, 0, 0];
pub const CLOSEST: [u8; 3] = [0, 150, 60];

/// The largest picture side drawn: an 8192 × 8192 picture takes about 1.5 GB while it is drawn
/// (colour, depth, the RGBA pixmap and its PNG).
pub const MAX_SIDE: u32 = 8192;

/// An orthographic camera: `center` maps to the picture's centre, `scale` pixels per unit.
struct Camera {
    center: DVec3,
    right: DVec3,
    up: DVec3,
    /// Towards the viewer.
    back: DVec3,
    scale: f64,
    /// Depth (along `back`, from `center`) beyond which nothing is drawn: the cut-away.
    near: f64,
    size: (u32, u32),
}

impl Camera {
    fn framing(scene: &Scene, width: u32, height: u32) -> Camera {
        let mut back = DVec3::new(1.0, -1.3, 0.9);
        // From the side the clash faces, where one side clearly does: a box touching a wall
        // from inside was seen through the wall's outside, its red behind grey (a review's
        // helper), the curves alone showing where.
        let facing = scene.clash_facing();
        for k in 0..3 {
            if facing[k].abs() > 0.25 * facing.length() {
                back[k] = back[k].abs().copysign(facing[k]);
            }
        }
        let mut back = back.normalize();
        if let Some((p, q)) = scene.closest {
            // Nearly square to the segment, so it shows at 94 % of its length; not quite, so
            // that faces square to it (plates one over the other, their clearance faces) are
            // seen at 20°, not edge-on as lines (a review's helper). Tilted the way the
            // diagonal leaned.
            let s = (p - q).normalize_or_zero();
            let square = back - s * back.dot(s);
            if square.length() > 1e-3 {
                let (sin, cos) = 20f64.to_radians().sin_cos();
                back = (square.normalize() * cos + s * sin.copysign(back.dot(s))).normalize();
            }
        }
        let world_up = if back.z.abs() > 0.95 {
            DVec3::Y
        } else {
            DVec3::Z
        };
        let right = world_up.cross(back).normalize();
        let up = back.cross(right);
        let center = scene.focus.center();
        // Padded, and at least the scene's context: a point focus (a touch) still shows its
        // surroundings.
        let radius = (scene.focus.diagonal() * 0.5 * 1.4)
            .max(scene.context)
            .max(1e-300);
        let scale = width.min(height) as f64 / (2.0 * radius);
        Camera {
            center,
            right,
            up,
            back,
            scale,
            near: radius,
            size: (width, height),
        }
    }

    /// Pixel x, pixel y (down), depth (towards the viewer).
    fn project(&self, p: DVec3) -> [f64; 3] {
        let d = p - self.center;
        [
            self.size.0 as f64 * 0.5 + d.dot(self.right) * self.scale,
            self.size.1 as f64 * 0.5 - d.dot(self.up) * self.scale,
            d.dot(self.back),
        ]
    }
}

/// The scene as a PNG of `width × height` pixels.
pub fn png(scene: &Scene, width: u32, height: u32) -> Result<Vec<u8>> {
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
        return Err(Error::Argument(format!(
            "picture size {width}x{height}: each side must be 1 to {MAX_SIDE} pixels"
        )));
    }
    let cam = Camera::framing(scene, width, height);
    let mut canvas = Canvas::new(width, height);
    for (k, part) in scene.parts.iter().enumerate() {
        let base = if k == 0 { PART_A } else { PART_B };
        for (i, (t, &mark)) in part.triangles.iter().zip(&part.marks).enumerate() {
            let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize_or_zero();
            let facing = n.dot(cam.back);
            // A container's triangles facing the camera, read outward (`inward` says which
            // wind the other way; a part made without it winds outward), are its near side,
            // left out.
            let inward = part.inward.get(i).copied().unwrap_or(false);
            let outward = if inward { -facing } else { facing };
            if part.container && outward > 0.0 {
                continue;
            }
            let colour = match mark {
                Mark::Plain => base,
                Mark::Near => NEAR,
                Mark::Clash => CLASH,
            };
            let shade = 0.45 + 0.55 * facing.abs();
            canvas.fill(&cam, t, colour.map(|c| (c as f64 * shade) as u8));
        }
    }
    let mut pixmap = canvas.into_pixmap()?;
    let project = |p: DVec3| {
        let [x, y, _] = cam.project(p);
        (x as f32, y as f32)
    };
    ring_small_parts(&mut pixmap, scene, &cam);
    let mut lines = tiny_skia::PathBuilder::new();
    for &(p, q) in &scene.curves {
        let ((x0, y0), (x1, y1)) = (project(p), project(q));
        lines.move_to(x0, y0);
        lines.line_to(x1, y1);
    }
    stroke(&mut pixmap, lines, CURVE, 2.0);
    if let Some((p, q)) = scene.closest {
        let ((x0, y0), (x1, y1)) = (project(p), project(q));
        let mut seg = tiny_skia::PathBuilder::new();
        seg.move_to(x0, y0);
        seg.line_to(x1, y1);
        stroke(&mut pixmap, seg, CLOSEST, 2.5);
        for (x, y) in [(x0, y0), (x1, y1)] {
            if let Some(dot) = tiny_skia::PathBuilder::from_circle(x, y, 5.0) {
                let mut paint = tiny_skia::Paint::default();
                paint.set_color_rgba8(CLOSEST[0], CLOSEST[1], CLOSEST[2], 255);
                pixmap.fill_path(
                    &dot,
                    &paint,
                    tiny_skia::FillRule::Winding,
                    tiny_skia::Transform::identity(),
                    None,
                );
            }
        }
    }
    pixmap
        .encode_png()
        .map_err(|e| Error::Output(std::io::Error::other(e.to_string())))
}

/// A ring in its colour around each part drawn smaller than a few pixels: parts far apart,
/// framed with the closest segment between them, or a small part beside a large one, were a
/// dozen pixels or none, under the segment's dots (a review's helper).
fn ring_small_parts(pixmap: &mut tiny_skia::Pixmap, scene: &Scene, cam: &Camera) {
    const SMALL: f64 = 16.0;
    for (k, part) in scene.parts.iter().enumerate() {
        let b = super::bounds(part);
        if !(b.min.is_finite() && b.max.is_finite()) {
            continue;
        }
        // The box's picture, orthographic: each side's pixels from the half extents.
        let h = b.half_extent();
        let across = |axis: DVec3| 2.0 * cam.scale * h.dot(axis.abs());
        if across(cam.right).max(across(cam.up)) >= SMALL {
            continue;
        }
        let [x, y, _] = cam.project(b.center());
        let mut ring = tiny_skia::PathBuilder::new();
        ring.push_circle(x as f32, y as f32, 14.0);
        stroke(pixmap, ring, if k == 0 { PART_A } else { PART_B }, 2.0);
    }
}

fn stroke(pixmap: &mut tiny_skia::Pixmap, path: tiny_skia::PathBuilder, c: [u8; 3], width: f32) {
    let Some(path) = path.finish() else { return };
    let mut paint = tiny_skia::Paint::default();
    paint.set_color_rgba8(c[0], c[1], c[2], 255);
    paint.anti_alias = true;
    let stroke = tiny_skia::Stroke {
        width,
        line_cap: tiny_skia::LineCap::Round,
        ..Default::default()
    };
    pixmap.stroke_path(
        &path,
        &paint,
        &stroke,
        tiny_skia::Transform::identity(),
        None,
    );
}

/// The pixel columns of row centre `y` that may lie inside the projected triangle `t` (of
/// signed doubled area `area`): where its three edge functions are all ≥ 0, padded by a pixel
/// so that rounding here cannot drop one; the exact test is made per pixel. Without it a long
/// thin triangle across the picture (a CAD cylinder's side) would test its whole bounding box.
fn span(t: &[[f64; 3]; 3], area: f64, y: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
    for k in 0..3 {
        let (p, q) = (t[(k + 1) % 3], t[(k + 2) % 3]);
        // The edge function along the row: slope·x + intercept, divided by the area.
        let slope = -(q[1] - p[1]) / area;
        let intercept = ((q[0] - p[0]) * (y - p[1]) + (q[1] - p[1]) * p[0]) / area;
        if slope > 0.0 {
            lo = lo.max(-intercept / slope);
        } else if slope < 0.0 {
            hi = hi.min(-intercept / slope);
        } else if intercept < 0.0 {
            return (0.0, 0.0);
        }
    }
    if lo.is_nan() || hi.is_nan() || lo > hi {
        return (0.0, 0.0);
    }
    ((lo - 1.5).floor().max(0.0), (hi + 1.5).ceil().max(0.0))
}

/// Colour and depth buffers.
struct Canvas {
    width: u32,
    height: u32,
    rgb: Vec<[u8; 3]>,
    /// `f32`: depths relative to the framed centre, where `f32` is ample.
    depth: Vec<f32>,
}

impl Canvas {
    fn new(width: u32, height: u32) -> Canvas {
        let n = width as usize * height as usize;
        Canvas {
            width,
            height,
            rgb: vec![BACKGROUND; n],
            depth: vec![f32::NEG_INFINITY; n],
        }
    }

    /// Fills triangle `t` where it is nearer than what is drawn and not cut away: pixel centres
    /// inside it by edge functions (either winding), depth interpolated.
    fn fill(&mut self, cam: &Camera, t: &[DVec3; 3], colour: [u8; 3]) {
        let [a, b, c] = t.map(|p| cam.project(p));
        let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        if area == 0.0 || !area.is_finite() || a[2].min(b[2]).min(c[2]) > cam.near {
            return;
        }
        let lo = |k: usize| a[k].min(b[k]).min(c[k]).floor().max(0.0);
        let hi = |k: usize, max: u32| a[k].max(b[k]).max(c[k]).ceil().min(max as f64);
        let (x0, x1) = (lo(0) as u32, hi(0, self.width) as u32);
        let (y0, y1) = (lo(1) as u32, hi(1, self.height) as u32);
        let edge = |p: [f64; 3], q: [f64; 3], x: f64, y: f64| {
            ((q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0])) / area
        };
        for py in y0..y1 {
            let (sx0, sx1) = span(&[a, b, c], area, py as f64 + 0.5);
            let (sx0, sx1) = ((sx0.max(x0 as f64)) as u32, (sx1.min(x1 as f64)) as u32);
            for px in sx0..sx1 {
                let (x, y) = (px as f64 + 0.5, py as f64 + 0.5);
                let (wa, wb, wc) = (edge(b, c, x, y), edge(c, a, x, y), edge(a, b, x, y));
                if wa < 0.0 || wb < 0.0 || wc < 0.0 {
                    continue;
                }
                let z = (wa * a[2] + wb * b[2] + wc * c[2]) as f32;
                let i = py as usize * self.width as usize + px as usize;
                if z as f64 > cam.near || z <= self.depth[i] {
                    continue;
                }
                self.depth[i] = z;
                self.rgb[i] = colour;
            }
        }
    }

    fn into_pixmap(self) -> Result<tiny_skia::Pixmap> {
        let mut pixmap = tiny_skia::Pixmap::new(self.width, self.height)
            .ok_or_else(|| Error::Argument("picture too large".into()))?;
        for (dst, src) in pixmap.pixels_mut().iter_mut().zip(&self.rgb) {
            *dst = tiny_skia::ColorU8::from_rgba(src[0], src[1], src[2], 255).premultiply();
        }
        Ok(pixmap)
    }
}

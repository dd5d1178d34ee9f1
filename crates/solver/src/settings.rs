//! The solver's distances and budgets (docs/solver.md §2, §4).

use mockup_ccd::QueryOptions;
use mockup_ccd::glide::GlideOptions;

/// Which continuous test checks each move (in scene documents as `Exact` or `Glide`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum NarrowPhase {
    /// Redon's exact CCD; bodies move along his screws (seed 001 §2).
    #[default]
    Exact,
    /// Buss' glide screen (`SolverSettings::glide`); bodies move along constant-velocity
    /// screws, the motion the screen computes for, and collisions below the properness
    /// threshold are ignored (seed 002).
    Glide,
}

/// The seed's environment width for its distances (seed 001 §4).
pub const REFERENCE_SCENE_SIZE: f64 = 50.0;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolverSettings {
    /// εr: below this a contact triggers a repositioning cycle.
    pub repositioning: f64,
    /// εs: the distance kept between contacting parts.
    pub security: f64,
    /// εb: contacts farther than this are dropped.
    pub breaking: f64,
    /// Sub-steps (solve + CCD move) per `drag` call.
    pub max_substeps: u32,
    /// Repositioning cycles per `drag` call.
    pub max_repositioning: u32,
    /// After a first contact at t, the pairs touching before `t + contact_window` are added at
    /// once (near-simultaneous contacts, seed 002 §3); a fraction of the sub-step.
    pub contact_window: f64,
    /// The CCD queries' settings (BM-culling on by default).
    pub query: QueryOptions,
    pub narrow_phase: NarrowPhase,
    /// The glide screen's options, when it is the narrow phase.
    pub glide: GlideOptions,
    /// A drag pushes other movable parts in its way (false: only the grabbed part moves;
    /// every other part is an obstacle).
    pub push_others: bool,
    /// How long one `drag` may take (an interactive frame's share); when it runs out, the
    /// part has moved as far as was proven free, and `StepReport::out_of_time` asks for
    /// another call with the same target. `None`: until done.
    pub time_budget: Option<std::time::Duration>,
    /// The same as a count of box tests (CCD and proximity): a budget that does not depend on
    /// the machine, for tests. `None`: no limit.
    pub work_budget: Option<u64>,
    /// Every pair is an obstacle to be kept εs apart, also pairs that touch or interfere when
    /// a drag starts (false: those may leave or slide, never go deeper;
    /// docs/contact-from-start.md).
    pub strict: bool,
}

impl Default for SolverSettings {
    /// The seed's distances for an environment 50 units wide.
    fn default() -> Self {
        SolverSettings {
            repositioning: 0.0044,
            security: 0.01,
            breaking: 0.023,
            max_substeps: 8,
            max_repositioning: 4,
            contact_window: 1e-3,
            query: QueryOptions::default(),
            narrow_phase: NarrowPhase::Exact,
            glide: GlideOptions::default(),
            push_others: false,
            time_budget: None,
            work_budget: None,
            strict: false,
        }
    }
}

impl SolverSettings {
    /// The seed's distances scaled to an environment `size` wide (its bounding box's largest
    /// side); `size` that is not positive and finite, or so small that the distances round to
    /// zero, gives the defaults.
    pub fn for_scene_size(size: f64) -> SolverSettings {
        let mut s = SolverSettings::default();
        if size.is_finite() && size > 0.0 {
            s.scale_distances(size / REFERENCE_SCENE_SIZE);
        }
        if s.validate().is_ok() { s } else { SolverSettings::default() }
    }

    pub fn scale_distances(&mut self, factor: f64) {
        self.repositioning *= factor;
        self.security *= factor;
        self.breaking *= factor;
    }

    /// εr < εs < εb, all positive and finite.
    pub fn validate(&self) -> Result<(), String> {
        let (r, s, b) = (self.repositioning, self.security, self.breaking);
        if !(r.is_finite() && s.is_finite() && b.is_finite() && 0.0 < r && r < s && s < b) {
            return Err(format!("distances must satisfy 0 < εr < εs < εb (got εr = {r}, εs = {s}, εb = {b})"));
        }
        if !(self.contact_window >= 0.0 && self.contact_window < 1.0) {
            return Err(format!("contact window must be in [0, 1) (got {})", self.contact_window));
        }
        Ok(())
    }
}

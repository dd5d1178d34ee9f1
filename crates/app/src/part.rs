//! A part of the open scene is an entity with these components, and a body of the solver's
//! world ([`crate::solver::Solver`]) with the same id: the body owns the part's collider, its
//! pose and whether it is fixed; the entity owns what the document says about it besides
//! (name, file, colour, shown). Nothing pairs the two by position: the entity carries its
//! body's id. The windowed plugins add the mesh, material and transform to the same entity.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use mockup_scene::PartDocument;

/// The part's body in the solver's world, and its index in the scene document.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PartId(pub usize);

/// Whether the part is shown. A hidden part cannot be picked and is not measured, but it is
/// still an obstacle to the solver.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shown(pub bool);

/// The part's colour, linear RGB (as the document stores it, and as the colour picker edits
/// it; the renderer takes it as linear too).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct PartColor(pub [f32; 3]);

/// Where the part's mesh comes from, as the document says (rewritten when a save moves the
/// scene to another folder).
#[derive(Component, Clone, Debug, PartialEq)]
pub struct PartFile {
    pub mesh: String,
    pub object: Option<String>,
    pub scale: mockup_scene::MeshScale,
}

/// What a part's entity holds, read together (ordered by id).
#[derive(Clone, Debug, PartialEq)]
pub struct PartView {
    pub id: usize,
    pub entity: Entity,
    pub name: String,
    pub shown: bool,
    pub color: [f32; 3],
}

/// The part entities, read.
#[derive(SystemParam)]
pub struct Parts<'w, 's> {
    query: Query<'w, 's, (Entity, &'static PartId, &'static Name, &'static Shown, &'static PartColor)>,
}

impl Parts<'_, '_> {
    /// Every part, by id.
    pub fn views(&self) -> Vec<PartView> {
        let mut v: Vec<PartView> = self
            .query
            .iter()
            .map(|(entity, id, name, shown, color)| PartView {
                id: id.0,
                entity,
                name: name.as_str().to_string(),
                shown: shown.0,
                color: color.0,
            })
            .collect();
        v.sort_by_key(|p| p.id);
        v
    }

    /// Whether each part is shown, indexed by id (`n` entries: parts without an entity are
    /// not shown).
    pub fn shown(&self, n: usize) -> Vec<bool> {
        let mut shown = vec![false; n];
        for (_, id, _, s, _) in &self.query {
            if let Some(x) = shown.get_mut(id.0) {
                *x = s.0;
            }
        }
        shown
    }

    /// (shown, colour) indexed by id.
    pub fn props(&self, n: usize) -> Vec<(bool, [f32; 3])> {
        let mut out = vec![(false, [0.0; 3]); n];
        for (_, id, _, s, c) in &self.query {
            if let Some(x) = out.get_mut(id.0) {
                *x = (s.0, c.0);
            }
        }
        out
    }

    pub fn name(&self, id: usize) -> String {
        self.query.iter().find(|p| p.1.0 == id).map(|p| p.2.as_str().to_string()).unwrap_or_else(|| "?".into())
    }

    /// Names indexed by id.
    pub fn names(&self, n: usize) -> Vec<String> {
        let mut names = vec![String::from("?"); n];
        for (_, id, name, _, _) in &self.query {
            if let Some(x) = names.get_mut(id.0) {
                *x = name.as_str().to_string();
            }
        }
        names
    }

    pub fn entity(&self, id: usize) -> Option<Entity> {
        self.query.iter().find(|p| p.1.0 == id).map(|p| p.0)
    }

    pub fn len(&self) -> usize {
        self.query.iter().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The part entities' shown and colour, written (edits, undo).
#[derive(SystemParam)]
pub struct PartsMut<'w, 's> {
    query: Query<'w, 's, (&'static PartId, &'static mut Shown, &'static mut PartColor)>,
}

impl PartsMut<'_, '_> {
    /// Sets what changed (so change detection sees only real changes).
    pub fn set(&mut self, id: usize, shown: bool, color: [f32; 3]) {
        for (pid, mut s, mut c) in &mut self.query {
            if pid.0 == id {
                if s.0 != shown {
                    s.0 = shown;
                }
                if c.0 != color {
                    c.0 = color;
                }
            }
        }
    }

    /// (shown, colour) indexed by id.
    pub fn props(&self, n: usize) -> Vec<(bool, [f32; 3])> {
        let mut out = vec![(false, [0.0; 3]); n];
        for (id, s, c) in &self.query {
            if let Some(x) = out.get_mut(id.0) {
                *x = (s.0, c.0);
            }
        }
        out
    }
}

/// The components of a part from its document entry.
pub fn bundle(id: usize, part: &PartDocument) -> impl Bundle {
    (
        PartId(id),
        Name::new(part.name.clone()),
        Shown(part.visible),
        PartColor(part.color),
        PartFile { mesh: part.mesh.clone(), object: part.object.clone(), scale: part.scale },
    )
}

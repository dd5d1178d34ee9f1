use crate::Mesh;
use crate::bvh::ObbTree;

/// Default triangles per leaf; docs/benchmarks.md has the measurement behind it.
pub const DEFAULT_LEAF_SIZE: usize = 1;

/// A mesh with its OBB tree: what every query takes.
#[derive(Clone, Debug)]
pub struct Collider {
    mesh: Mesh,
    tree: ObbTree,
}

impl Collider {
    pub fn new(mesh: Mesh) -> Collider {
        Collider::with_leaf_size(mesh, DEFAULT_LEAF_SIZE)
    }

    pub fn with_leaf_size(mesh: Mesh, leaf_size: usize) -> Collider {
        let tree = ObbTree::build(&mesh, leaf_size);
        Collider { mesh, tree }
    }

    pub fn mesh(&self) -> &Mesh {
        &self.mesh
    }

    pub fn tree(&self) -> &ObbTree {
        &self.tree
    }
}

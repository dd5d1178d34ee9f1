use crate::Mesh;
use crate::bvh::{BmCones, ConeSettings, ObbTree, is_solid};

/// Default triangles per leaf; docs/benchmarks.md has the measurement behind it.
pub const DEFAULT_LEAF_SIZE: usize = 1;

/// How a collider is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColliderOptions {
    pub leaf_size: usize,
    /// BM-cones for backward-motion culling (docs/bm-culling.md). Built only for solids
    /// ([`is_solid`]); `None` builds none.
    pub cones: Option<ConeSettings>,
    /// Threads the tree and cones of a large mesh may be built on (0: all cores). Small
    /// meshes are built on the calling thread; the result never depends on it.
    pub threads: usize,
}

impl Default for ColliderOptions {
    fn default() -> Self {
        ColliderOptions { leaf_size: DEFAULT_LEAF_SIZE, cones: Some(ConeSettings::default()), threads: 0 }
    }
}

/// A mesh with its OBB tree and BM-cones: what every query takes.
#[derive(Clone, Debug)]
pub struct Collider {
    mesh: Mesh,
    tree: ObbTree,
    cones: BmCones,
    /// Whether any node has a cone (then the mesh is a solid and culling applies).
    culls: bool,
}

impl Collider {
    pub fn new(mesh: Mesh) -> Collider {
        Collider::with_options(mesh, &ColliderOptions::default())
    }

    pub fn with_leaf_size(mesh: Mesh, leaf_size: usize) -> Collider {
        Collider::with_options(mesh, &ColliderOptions { leaf_size, ..ColliderOptions::default() })
    }

    pub fn with_options(mesh: Mesh, options: &ColliderOptions) -> Collider {
        let tree = ObbTree::build_with_threads(&mesh, options.leaf_size, options.threads);
        let cones = match options.cones {
            Some(settings) if is_solid(&mesh) => BmCones::build_with_threads(&mesh, &tree, &settings, options.threads),
            _ => BmCones::none(&tree),
        };
        let culls = cones.cone_count() > 0;
        Collider { mesh, tree, cones, culls }
    }

    pub fn mesh(&self) -> &Mesh {
        &self.mesh
    }

    pub fn tree(&self) -> &ObbTree {
        &self.tree
    }

    /// BM-cones per tree node (none for open or inward-oriented meshes).
    pub fn cones(&self) -> &BmCones {
        &self.cones
    }

    /// Whether backward-motion culling applies to this collider: it is a solid with cones
    /// (docs/bm-culling.md §1).
    pub fn culls(&self) -> bool {
        self.culls
    }
}

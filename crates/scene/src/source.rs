//! Where scene and mesh files come from: the file system, or files embedded in the binary
//! (the default scene).

use std::collections::HashMap;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Reads files by path.
pub trait Source: Sync {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
}

/// The file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct FileSystem;

impl Source for FileSystem {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }
}

/// Files held in memory, by path (`/`-separated, relative, normalised).
#[derive(Clone, Debug, Default)]
pub struct Embedded {
    files: HashMap<PathBuf, &'static [u8]>,
}

impl Embedded {
    pub fn new(files: impl IntoIterator<Item = (&'static str, &'static [u8])>) -> Embedded {
        Embedded { files: files.into_iter().map(|(p, b)| (normalize(Path::new(p)), b)).collect() }
    }
}

impl Source for Embedded {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.files
            .get(&normalize(path))
            .map(|b| b.to_vec())
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "not among the embedded files"))
    }
}

/// `a/./b/../c` → `a/c`, without touching the file system.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    // "." (or "a/..") is the folder itself, not an empty path.
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

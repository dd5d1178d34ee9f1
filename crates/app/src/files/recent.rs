//! The recent files: the last 8 opened or saved, kept in `recent.ron` in the user's
//! configuration (`$MOCKUP_CONFIG_DIR`, `$XDG_CONFIG_HOME/mockup` or `~/.config/mockup`).

use bevy::prelude::*;
use std::path::{Path, PathBuf};

#[derive(Resource)]
pub struct RecentFiles {
    pub list: Vec<PathBuf>,
    /// Where the list is kept; `None`: not kept.
    dir: Option<PathBuf>,
}

impl Default for RecentFiles {
    fn default() -> Self {
        let dir = std::env::var_os("MOCKUP_CONFIG_DIR")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("XDG_CONFIG_HOME").map(|d| PathBuf::from(d).join("mockup")))
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config/mockup")));
        let list = dir.as_deref().map(read).unwrap_or_default();
        RecentFiles { list, dir }
    }
}

impl RecentFiles {
    pub fn remember(&mut self, path: &Path) {
        let path = std::path::absolute(path).unwrap_or(path.to_path_buf());
        self.list.retain(|p| *p != path);
        self.list.insert(0, path);
        self.list.truncate(8);
        if let Some(dir) = &self.dir
            && let Err(e) = write(dir, &self.list)
        {
            warn!("could not keep the recent files in {}: {e}", dir.display());
        }
    }
}

fn read(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_to_string(dir.join("recent.ron"))
        .ok()
        .and_then(|t| ron::from_str::<Vec<PathBuf>>(&t).ok())
        .unwrap_or_default()
}

fn write(dir: &Path, recent: &[PathBuf]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let text = ron::to_string(recent).map_err(std::io::Error::other)?;
    mockup_scene::document::write_atomic(&dir.join("recent.ron"), text.as_bytes())
}

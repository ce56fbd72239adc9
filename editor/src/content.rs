//! The content in play, as every view reads it: the mods of the last good load with their catalog,
//! problems and warnings, the problems of a reload that was refused, and the folders they come
//! from. Only the editor's reload changes it; views get it read-only.

use hexforge_content::{Diagnostic, LoadedMods};
use hexforge_core::Catalog;
use std::path::{Path, PathBuf};

/// The loaded mods and where they come from, read-only for the views.
#[derive(Debug)]
pub struct Content {
    /// The mods, their catalog and problems (the last good load).
    pub(crate) loaded: LoadedMods,
    /// The problems of the last reload that was refused (the last good content stayed in play).
    pub(crate) refused: Vec<Diagnostic>,
    /// The folders the content is loaded from.
    pub(crate) roots: Vec<PathBuf>,
    /// Where new mods of the user go (`None`: there is no such folder).
    pub(crate) user_mods: Option<PathBuf>,
}

impl Content {
    /// The mods in play: their catalog, problems, warnings and the mods skipped.
    pub fn loaded(&self) -> &LoadedMods {
        &self.loaded
    }

    /// The tiles and armies of the mods in play.
    pub fn catalog(&self) -> &Catalog {
        &self.loaded.catalog
    }

    /// The problems the editor shows and counts: those of the reload that was refused while one
    /// is (the last good content stays in play), else those of the content loaded.
    pub fn problems(&self) -> &[Diagnostic] {
        if self.refused.is_empty() {
            &self.loaded.problems.0
        } else {
            &self.refused
        }
    }

    /// The problems of the last reload that was refused (empty once a reload is adopted).
    pub fn refused(&self) -> &[Diagnostic] {
        &self.refused
    }

    /// The folders the content is loaded from.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Where new mods of the user go (`None`: there is no such folder).
    pub fn user_mods(&self) -> Option<&Path> {
        self.user_mods.as_deref()
    }

    /// The id of the loaded mod in `dir` (empty when none is).
    pub fn mod_id(&self, dir: &Path) -> String {
        self.loaded
            .mods
            .iter()
            .find(|m| m.dir == dir)
            .map_or_else(String::new, |m| m.id.clone())
    }
}

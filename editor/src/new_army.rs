//! New armies and abilities on disk: an army made from nothing (a valid starter army) or as a
//! copy of a loaded army with its ids renamed so it does not clash, in an existing mod or a new
//! one (in the user mods folder or beside the checkout's mods); a new Lua ability from the
//! documented template; and the mod manifest updates they need (`[provides]`). Every file is
//! written atomically; the form that asks for the army's id, name and mod is here too.

use crate::document::set_in;
use hexforge_content::scaffold::{ability_template, new_empty_mod, starter_army, valid_id};
use hexforge_content::{LoadedMods, write_atomically};
use std::path::{Path, PathBuf};
use toml_edit::{DocumentMut, Item};

/// Where a new army goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A loaded mod, by id.
    Mod(String),
    /// A new mod of this id, in the user mods folder (`true`) or beside the first mods folder.
    NewMod {
        /// The new mod's id (its folder's name).
        id: String,
        /// In the user mods folder (`true`) or beside the first mods folder.
        user_folder: bool,
    },
}

/// What the designer asks for in the "New army" form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Form {
    /// The army to copy, by id; `None` starts from a starter army.
    pub from: Option<String>,
    /// The new army's id (snake_case, unused by the loaded armies).
    pub id: String,
    /// The new army's name as players see it.
    pub name: String,
    /// The mod the army goes in.
    pub target: Target,
    /// Why the last attempt failed.
    pub error: Option<String>,
}

impl Form {
    /// A form to copy the army `from` (or start from nothing), with free ids filled in.
    pub fn new(loaded: &LoadedMods, from: Option<&str>, user_folder: bool) -> Form {
        let base = from.map_or("fan_army".to_string(), |a| format!("{a}_fan"));
        let taken =
            |id: &str| loaded.catalog.army(id).is_some() || loaded.mods.iter().any(|m| m.id == id);
        let id = std::iter::once(base.clone())
            .chain((2..100).map(|n| format!("{base}_{n}")))
            .find(|id| !taken(id))
            .unwrap_or(base);
        let name = match from.and_then(|a| loaded.catalog.army(a)) {
            Some(a) => format!("{} (fan)", a.name),
            None => "Fan army".to_string(),
        };
        Form {
            from: from.map(str::to_string),
            target: Target::NewMod {
                id: id.clone(),
                user_folder,
            },
            id,
            name,
            error: None,
        }
    }
}

/// A new army written to disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Created {
    /// The army file written.
    pub file: PathBuf,
    /// The folder of the mod it was written in.
    pub mod_dir: PathBuf,
    /// The new mod's folder when it is in no folder the editor loads yet (add it to the roots).
    pub new_root: Option<PathBuf>,
    /// Something the designer should know (the Lua files copied with the army).
    pub note: Option<String>,
}

/// The army file of the army `id` and the folder of its mod, when the army has a file of its
/// own (an army a patch made has none).
pub fn army_file(loaded: &LoadedMods, id: &str) -> Option<(PathBuf, PathBuf)> {
    loaded.mods.iter().find_map(|m| {
        let a = m.armies.iter().find(|a| a.id == id)?;
        a.at.file
            .starts_with(m.dir.join("armies"))
            .then(|| (a.at.file.clone(), m.dir.clone()))
    })
}

/// The army file's text for `form`: a copy of its source with the army's id and name changed
/// (comments and layout kept), or a starter army.
fn army_text(loaded: &LoadedMods, form: &Form) -> Result<String, String> {
    let Some(from) = &form.from else {
        return Ok(starter_army(&form.id, &form.name));
    };
    let (file, _) = army_file(loaded, from).ok_or_else(|| {
        format!("army `{from}` has no army file of its own to copy (a patch makes it)")
    })?;
    let text = crate::disk::read(&file).map_err(|e| e.to_string())?;
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e| format!("{} does not read as TOML: {e}", file.display()))?;
    let army = doc
        .get_mut("army")
        .and_then(Item::as_table_mut)
        .ok_or_else(|| format!("{} has no [army] table", file.display()))?;
    // In place, so the comments written about them stay.
    set_in(
        army,
        &["id"],
        Some(toml_edit::Value::from(form.id.as_str())),
    );
    set_in(
        army,
        &["name"],
        Some(toml_edit::Value::from(form.name.as_str())),
    );
    // The translations were the copied army's names.
    set_in(army, &["names"], None);
    let prefix = army
        .decor()
        .prefix()
        .and_then(|p| p.as_str())
        .unwrap_or("")
        .to_string();
    army.decor_mut().set_prefix(format!(
        "# `{}`: a copy of `{from}`, made in the editor.\n{prefix}",
        form.id
    ));
    Ok(doc.to_string())
}

/// Adds `army` to the `[provides] armies` of the manifest in `mod_dir`, when it lists them;
/// with `remove`, takes it out instead.
pub fn declare_army(mod_dir: &Path, army: &str, remove: bool) -> Result<(), String> {
    edit_manifest(mod_dir, |provides| {
        let Some(list) = provides.get_mut("armies").and_then(Item::as_array_mut) else {
            return;
        };
        let listed = list.iter().position(|v| v.as_str() == Some(army));
        match (listed, remove) {
            (None, false) => list.push(army),
            (Some(i), true) => {
                list.remove(i);
            }
            _ => {}
        }
    })
}

/// Sets `scripts = true` in the `[provides]` of the manifest in `mod_dir`, when it has one.
fn declare_scripts(mod_dir: &Path) -> Result<(), String> {
    edit_manifest(mod_dir, |provides| {
        // In place: a comment about it stays.
        set_in(provides, &["scripts"], Some(toml_edit::Value::from(true)));
    })
}

fn edit_manifest(mod_dir: &Path, f: impl FnOnce(&mut toml_edit::Table)) -> Result<(), String> {
    let path = mod_dir.join("mod.toml");
    let text = crate::disk::read(&path).map_err(|e| e.to_string())?;
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e| format!("{} does not read as TOML: {e}", path.display()))?;
    let Some(provides) = doc.get_mut("provides").and_then(Item::as_table_mut) else {
        return Ok(());
    };
    f(provides);
    let new = doc.to_string();
    if new != text {
        write_atomically(&path, &new)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

/// Whether files can be written in `dir`.
fn writable(dir: &Path) -> bool {
    std::fs::metadata(dir).is_ok_and(|m| !m.permissions().readonly())
}

/// The folder new mods go in beside the loaded ones: the first root (its parent when the root
/// is a mod itself).
pub fn beside_folder(roots: &[PathBuf]) -> Option<PathBuf> {
    let root = roots.first()?;
    if root.join("mod.toml").is_file() {
        root.parent().map(Path::to_path_buf)
    } else {
        Some(root.clone())
    }
}

/// Writes the army `form` asks for (and its new mod, if it asks for one).
pub fn create(
    loaded: &LoadedMods,
    roots: &[PathBuf],
    user_mods: Option<&Path>,
    form: &Form,
) -> Result<Created, String> {
    if !valid_id(&form.id) {
        return Err(format!(
            "army id `{}` must be snake_case: lowercase letters, digits and _, starting with a letter",
            form.id
        ));
    }
    if loaded.catalog.army(&form.id).is_some() {
        return Err(format!(
            "there is already an army `{}`: choose another id",
            form.id
        ));
    }
    if form.name.trim().is_empty() {
        return Err("give the army a name".to_string());
    }
    let text = army_text(loaded, form)?;
    let (mod_dir, made) = match &form.target {
        Target::Mod(id) => {
            let m = loaded
                .mods
                .iter()
                .find(|m| &m.id == id)
                .ok_or_else(|| format!("no mod `{id}` is loaded"))?;
            if !writable(&m.dir) {
                return Err(format!(
                    "the mod folder {} cannot be written: pick another mod or a new one",
                    m.dir.display()
                ));
            }
            (m.dir.clone(), false)
        }
        Target::NewMod { id, user_folder } => {
            if loaded.mods.iter().any(|m| &m.id == id) {
                return Err(format!(
                    "there is already a mod `{id}`: choose another id, or pick that mod"
                ));
            }
            let into = if *user_folder {
                user_mods.map(Path::to_path_buf).ok_or(
                    "there is no user mods folder (set HEXFORGE_USER_MODS or HOME): put the mod beside the others",
                )?
            } else {
                beside_folder(roots).ok_or("no mods folder is loaded to put the mod beside")?
            };
            std::fs::create_dir_all(&into)
                .map_err(|e| format!("cannot create {}: {e}", into.display()))?;
            let dir = new_empty_mod(&into, id, "Fan armies made in the Hexforge editor.")
                .map_err(|e| e.to_string())?;
            (dir, true)
        }
    };
    let scripts = match scripts_to_copy(loaded, form, &mod_dir) {
        Ok(s) => s,
        Err(e) => {
            if made {
                // Nothing of the new mod is left behind.
                let _ = std::fs::remove_dir_all(&mod_dir);
            }
            return Err(e);
        }
    };
    let armies = mod_dir.join("armies");
    std::fs::create_dir_all(&armies)
        .map_err(|e| format!("cannot create {}: {e}", armies.display()))?;
    let file = armies.join(format!("{}.toml", form.id));
    if file.exists() {
        return Err(format!(
            "{} already exists: choose another id",
            file.display()
        ));
    }
    if !made {
        declare_army(&mod_dir, &form.id, false)?;
    }
    write_atomically(&file, &text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    let mut probe = Vec::new();
    let known = hexforge_content::mod_dirs(roots, &mut probe);
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let new_root = (!known.iter().any(|d| canon(d) == canon(&mod_dir))).then(|| mod_dir.clone());
    for (path, text) in &scripts {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        write_atomically(path, text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if !scripts.is_empty() {
        declare_scripts(&mod_dir)?;
    }
    let note = (!scripts.is_empty()).then(|| {
        let names: Vec<String> = scripts
            .iter()
            .filter_map(|(p, _)| p.strip_prefix(&mod_dir).ok())
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .collect();
        format!(
            "its abilities' Lua files were copied too: {}",
            names.join(", ")
        )
    });
    Ok(Created {
        file,
        mod_dir,
        new_root,
        note,
    })
}

/// The ability names `text` (a Lua file) defines with `ability("name", ...)`.
fn defined_hooks(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let rest = l.trim_start().strip_prefix("ability(")?.trim_start();
            let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
            let name = rest[1..].split(quote).next()?;
            (!name.is_empty()).then(|| name.to_string())
        })
        .collect()
}

/// The Lua files a copy of the army of `form` needs in `mod_dir` to play as the original does,
/// with their text: when a tile of the army has an ability its mod's own scripts define (not the
/// shared library, which every mod binds), that mod's scripts, which load together into one Lua
/// state, at the same places in `mod_dir` (files already there with the same text are left
/// alone). An error, before anything is written, when `mod_dir` has another file at one of those
/// places or already defines one of their abilities.
fn scripts_to_copy(
    loaded: &LoadedMods,
    form: &Form,
    mod_dir: &Path,
) -> Result<Vec<(PathBuf, String)>, String> {
    let Some(from) = &form.from else {
        return Ok(Vec::new());
    };
    let Some(source) = loaded
        .mods
        .iter()
        .find(|m| m.armies.iter().any(|a| &a.id == from))
    else {
        return Ok(Vec::new());
    };
    if source.dir == mod_dir {
        return Ok(Vec::new());
    }
    let catalog = &loaded.catalog;
    let own_hook = catalog.army(from).is_some_and(|army| {
        army.tiles.iter().any(|&t| {
            catalog.get(t).abilities.iter().any(|a| {
                hexforge_script::hook_source(&loaded.mods, &source.id, &a.hook)
                    .is_some_and(|s| Path::new(&s.file).starts_with(&source.dir))
            })
        })
    });
    if !own_hook {
        return Ok(Vec::new());
    }
    let target = loaded.mods.iter().find(|m| m.dir == mod_dir);
    let taken: Vec<String> = target
        .map(|m| {
            m.scripts
                .iter()
                .flat_map(|s| defined_hooks(&s.text))
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    for script in &source.scripts {
        let Ok(rel) = script.path.strip_prefix(&source.dir) else {
            continue;
        };
        let path = mod_dir.join(rel);
        match crate::disk::read(&path) {
            Ok(there) if there == script.text => continue,
            Ok(_) => {
                return Err(format!(
                    "{} already exists, and the copy needs `{}`'s own {} there: copy the army into a new mod",
                    path.display(),
                    source.id,
                    rel.display()
                ));
            }
            // Nothing there: the copy writes it.
            Err(e) if e.is_missing() => {}
            // Something there that cannot be read is never written over.
            Err(e) => {
                return Err(format!(
                    "{e}: the copy needs that file, so nothing was made"
                ));
            }
        }
        let clash: Vec<String> = defined_hooks(&script.text)
            .into_iter()
            .filter(|h| taken.contains(h))
            .collect();
        if !clash.is_empty() {
            return Err(format!(
                "the mod already defines the abilities {} that the copy brings from `{}`: copy the army into a new mod",
                clash.join(", "),
                source.id
            ));
        }
        out.push((path, script.text.clone()));
    }
    Ok(out)
}

/// Writes a new ability `hook` from the documented template to `scripts/<hook>.lua` of the mod
/// in `mod_dir` (declaring the scripts in its manifest when it lists what it provides); returns
/// the file.
pub fn new_ability(mod_dir: &Path, hook: &str, known: &[String]) -> Result<PathBuf, String> {
    if !valid_id(hook) {
        return Err(format!(
            "ability name `{hook}` must be snake_case: lowercase letters, digits and _"
        ));
    }
    if known.iter().any(|k| k == hook) {
        return Err(format!(
            "an ability `{hook}` already exists: pick it from the list, or choose another name"
        ));
    }
    let dir = mod_dir.join("scripts");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let file = dir.join(format!("{hook}.lua"));
    if file.exists() {
        return Err(format!(
            "{} already exists: choose another name",
            file.display()
        ));
    }
    declare_scripts(mod_dir)?;
    write_atomically(&file, ability_template(hook))
        .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    Ok(file)
}

/// Deletes the army file `file` of the mod in `mod_dir` (and its autosave), and takes it out of
/// the manifest's `[provides]`.
pub fn delete_army(file: &Path, mod_dir: &Path, id: &str) -> Result<(), String> {
    declare_army(mod_dir, id, true)?;
    std::fs::remove_file(file).map_err(|e| format!("cannot delete {}: {e}", file.display()))?;
    crate::autosave::remove(file).map_err(|e| format!("cannot delete the autosave: {e}"))
}

/// The "New army" form; true when the designer asked to create the army.
pub fn form_ui(
    ui: &mut egui::Ui,
    form: &mut Form,
    loaded: &LoadedMods,
    roots: &[PathBuf],
    user_mods: Option<&Path>,
) -> Option<bool> {
    let mut answer = None;
    ui.heading("New army");
    egui::Grid::new("new_army").num_columns(2).show(ui, |ui| {
        let l = ui.label("start from");
        let shown = match &form.from {
            Some(a) => format!("a copy of {a}"),
            None => "nothing (a starter army)".to_string(),
        };
        egui::ComboBox::from_id_salt("new_army_from")
            .selected_text(shown)
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut form.from, None, "nothing (a starter army)");
                for a in loaded.catalog.armies() {
                    let from = Some(a.id.clone());
                    ui.selectable_value(&mut form.from, from, format!("a copy of {}", a.id));
                }
            })
            .response
            .labelled_by(l.id);
        ui.end_row();
        let l = ui.label("army id");
        ui.text_edit_singleline(&mut form.id).labelled_by(l.id);
        ui.end_row();
        let l = ui.label("army name");
        ui.text_edit_singleline(&mut form.name).labelled_by(l.id);
        ui.end_row();
        ui.label("in the mod");
        ui.vertical(|ui| {
            for m in &loaded.mods {
                if writable(&m.dir) {
                    let t = Target::Mod(m.id.clone());
                    ui.radio_value(
                        &mut form.target,
                        t,
                        format!("{} ({})", m.id, m.dir.display()),
                    );
                }
            }
            let new_id = match &form.target {
                Target::NewMod { id, .. } => id.clone(),
                Target::Mod(_) => form.id.clone(),
            };
            let folders = [
                (
                    true,
                    user_mods.map(Path::to_path_buf),
                    "in the user mods folder",
                ),
                (false, beside_folder(roots), "beside the others"),
            ];
            for (user_folder, dir, where_) in folders {
                let Some(dir) = dir else {
                    continue;
                };
                let on = matches!(
                    form.target,
                    Target::NewMod { user_folder: u, .. } if u == user_folder
                );
                if ui
                    .radio(on, format!("a new mod {where_} ({})", dir.display()))
                    .clicked()
                {
                    form.target = Target::NewMod {
                        id: new_id.clone(),
                        user_folder,
                    };
                }
            }
        });
        ui.end_row();
        if let Target::NewMod { id, .. } = &mut form.target {
            let l = ui.label("new mod id");
            ui.text_edit_singleline(id).labelled_by(l.id);
            ui.end_row();
        }
    });
    if let Some(e) = &form.error {
        ui.colored_label(egui::Color32::LIGHT_RED, e);
    }
    ui.horizontal(|ui| {
        if ui.button("Create the army").clicked() {
            answer = Some(true);
        }
        if ui.button("Cancel").clicked() {
            answer = Some(false);
        }
    });
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base_copy(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hexforge-new-army-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/base");
        let to = dir.join("base/armies");
        std::fs::create_dir_all(&to).expect("create the copy");
        let manifest = std::fs::read_to_string(base.join("mod.toml"))
            .expect("read mod.toml")
            .replace(
                r#"["borgo", "hegemony", "moloch", "outpost"]"#,
                r#"["borgo"]"#,
            );
        std::fs::write(dir.join("base/mod.toml"), manifest).expect("write mod.toml");
        std::fs::copy(base.join("armies/borgo.toml"), to.join("borgo.toml")).expect("copy borgo");
        dir
    }

    #[test]
    fn a_copy_gets_its_own_ids_in_a_new_mod_and_loads() {
        let dir = base_copy("copy");
        let loaded = hexforge_content::load_mods(std::slice::from_ref(&dir));
        assert!(loaded.problems.is_empty(), "{}", loaded.problems);
        let form = Form::new(&loaded, Some("borgo"), false);
        assert_eq!(form.id, "borgo_fan");
        assert_eq!(form.name, "Borgo (fan)");
        let c = create(&loaded, std::slice::from_ref(&dir), None, &form)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.file, dir.join("borgo_fan/armies/borgo_fan.toml"));
        assert_eq!(c.new_root, None, "beside the others: already loaded");
        let text = std::fs::read_to_string(&c.file).expect("read the copy");
        assert!(text.contains("id = \"borgo_fan\"") && text.contains("# `borgo_fan`: a copy"));
        let again = hexforge_content::load_mods(std::slice::from_ref(&dir));
        assert!(again.problems.is_empty(), "{}", again.problems);
        let fan = again.catalog.army("borgo_fan").expect("the copy loads");
        let borgo = again.catalog.army("borgo").expect("the original stays");
        assert_eq!(fan.tiles.len(), borgo.tiles.len());
        assert_eq!(again.catalog.get(fan.tiles[0]).army, "borgo_fan");
        // The same id again is refused, and so is a bad one.
        let e = create(&again, std::slice::from_ref(&dir), None, &form).expect_err("taken");
        assert!(e.contains("already an army"), "{e}");
        let bad = Form {
            id: "Bad".into(),
            ..form.clone()
        };
        assert!(create(&again, std::slice::from_ref(&dir), None, &bad).is_err());
        // A starter army in the existing mod is declared in its manifest when it lists armies.
        let starter = Form {
            from: None,
            id: "raiders".into(),
            name: "Raiders".into(),
            target: Target::Mod("base".into()),
            error: None,
        };
        create(&again, std::slice::from_ref(&dir), None, &starter)
            .unwrap_or_else(|e| panic!("{e}"));
        let last = hexforge_content::load_mods(std::slice::from_ref(&dir));
        assert!(last.problems.is_empty(), "{}", last.problems);
        assert!(last.catalog.army("raiders").is_some());
        // Deleting takes the army out of the manifest too, so the mod still loads.
        let raiders = dir.join("base/armies/raiders.toml");
        delete_army(&raiders, &dir.join("base"), "raiders").unwrap_or_else(|e| panic!("{e}"));
        assert!(!raiders.exists());
        let manifest = std::fs::read_to_string(dir.join("base/mod.toml")).expect("read");
        assert!(manifest.contains(r#"armies = ["borgo"]"#), "{manifest}");
        let gone = hexforge_content::load_mods(std::slice::from_ref(&dir));
        assert!(gone.problems.is_empty(), "{}", gone.problems);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_copy_into_an_existing_mod_brings_the_lua_once_and_never_overwrites_it() {
        let dir = base_copy("scripts");
        // The whole example mod, whatever armies and scripts it holds.
        fn copy_tree(from: &Path, to: &Path) {
            std::fs::create_dir_all(to).expect("create");
            for e in std::fs::read_dir(from).expect("read the folder").flatten() {
                let path = e.path();
                if path.is_dir() {
                    copy_tree(&path, &to.join(e.file_name()));
                } else {
                    std::fs::copy(&path, to.join(e.file_name())).expect("copy");
                }
            }
        }
        let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/examples");
        copy_tree(&examples, &dir.join("examples"));
        let problems = |dir: &Path| {
            let mut r = hexforge_script::Reloader::new(hexforge_script::Limits::default());
            let loaded = r
                .reload(std::slice::from_ref(&dir.to_path_buf()), None)
                .loaded;
            assert!(loaded.mods.problems.is_empty(), "{}", loaded.mods.problems);
            loaded.mods
        };
        let loaded = problems(&dir);
        let form = |id: &str| Form {
            from: Some("scrappers".into()),
            id: id.into(),
            name: id.into(),
            target: Target::Mod("base".into()),
            error: None,
        };
        let c = create(
            &loaded,
            std::slice::from_ref(&dir),
            None,
            &form("scrap_two"),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let lua = dir.join("base/scripts/scrappers.lua");
        assert!(lua.is_file());
        assert!(c.note.is_some_and(|n| n.contains("scripts/scrappers.lua")));
        let manifest = std::fs::read_to_string(dir.join("base/mod.toml")).expect("read");
        assert!(manifest.contains("scripts = true"), "{manifest}");
        let loaded = problems(&dir);
        assert!(loaded.catalog.army("scrap_two").is_some());
        // Again: the same file is there already, and left alone.
        create(
            &loaded,
            std::slice::from_ref(&dir),
            None,
            &form("scrap_three"),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let loaded = problems(&dir);
        // A different file in its place is never overwritten: nothing is written.
        std::fs::write(&lua, "-- the mod's own\n").expect("write");
        let e = create(
            &loaded,
            std::slice::from_ref(&dir),
            None,
            &form("scrap_four"),
        )
        .expect_err("a different file is there");
        assert!(e.contains("already exists"), "{e}");
        assert!(!dir.join("base/armies/scrap_four.toml").exists());
        assert_eq!(
            std::fs::read_to_string(&lua).expect("read"),
            "-- the mod's own\n"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_new_ability_file_is_declared_and_never_overwritten() {
        let dir = base_copy("ability");
        let m = dir.join("base");
        let file = new_ability(&m, "harpoon_pull", &[]).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            std::fs::read_to_string(&file)
                .expect("read")
                .contains("ability(\"harpoon_pull\"")
        );
        let manifest = std::fs::read_to_string(m.join("mod.toml")).expect("read");
        assert!(manifest.contains("scripts = true"), "{manifest}");
        assert!(new_ability(&m, "harpoon_pull", &[]).is_err());
        assert!(new_ability(&m, "line_shot", &["line_shot".into()]).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

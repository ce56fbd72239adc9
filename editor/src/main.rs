//! The `hexforge-editor` window: the editor's views (the `hexforge_editor` library) in an eframe
//! window, over this checkout's `mods/` and the user mods folder (or the folders given as
//! arguments); closing it with unsaved changes asks first.

use anyhow::{Result, bail};
use hexforge_editor::Editor;
use std::path::PathBuf;

struct App(Editor);

impl eframe::App for App {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.0.poll(std::time::Instant::now());
        if self.0.reload_waiting() {
            ui.ctx()
                .request_repaint_after(hexforge_editor::reload::SETTLE);
        }
        if self.0.autosave_waiting() {
            ui.ctx()
                .request_repaint_after(hexforge_editor::autosave::DELAY);
        }
        // Closing with unsaved changes asks first (in the designer); they stay autosaved.
        if ui.ctx().input(|i| i.viewport().close_requested()) && !self.0.may_close() {
            ui.ctx()
                .send_viewport_cmd(egui::ViewportCommand::CancelClose);
        }
        self.0.ui(ui);
    }
}

const USAGE: &str = "usage: hexforge-editor [--army ARMY] [--tile ARMY/TILE] [--scenario FILE [--battle]] [--replay FILE [--step N]] [--play] [--balance] [MODS_DIR...]

  --army ARMY        show that army in the designer (e.g. moloch)
  --tile ARMY/TILE   show that tile in the designer (e.g. moloch/gauss_cannon)
  --scenario FILE    open a scenario file's board on the sandbox
  --battle           and fight its battle at once (shown phase by phase)
  --replay FILE      open a replay file in the replay viewer
  --step N           at its step N (after N actions)
  --play             show the Play tab (set a game up: people and bots)
  --balance          show the Balance tab (series of bot games for --army ARMY or the first army)";

fn main() -> Result<()> {
    let mut roots = Vec::new();
    let (mut army, mut tile, mut scenario, mut replay) = (None, None, None, None);
    let (mut battle, mut play, mut balance) = (false, false, false);
    let mut step = None;
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--army") => army = Some(value(args.next(), "--army")?),
            Some("--tile") => tile = Some(value(args.next(), "--tile")?),
            Some("--scenario") => scenario = Some(PathBuf::from(value(args.next(), "--scenario")?)),
            Some("--battle") => battle = true,
            Some("--play") => play = true,
            Some("--balance") => balance = true,
            Some("--step") => {
                let n = value(args.next(), "--step")?;
                step = Some(n.parse::<usize>().map_err(|_| {
                    anyhow::anyhow!("--step needs a step number, not {n:?}\n{USAGE}")
                })?);
            }
            Some("--replay") => replay = Some(PathBuf::from(value(args.next(), "--replay")?)),
            Some("-h" | "--help") => {
                println!("{USAGE}");
                return Ok(());
            }
            Some(a) if a.starts_with('-') => bail!("unknown option {a}\n{USAGE}"),
            _ => roots.push(PathBuf::from(arg)),
        }
    }
    if roots.is_empty() {
        roots.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../mods"));
        roots.extend(
            hexforge_content::user_mods_dir(|k| std::env::var_os(k)).filter(|d| d.is_dir()),
        );
    }
    let mut editor = Editor::load(roots);
    if let Some(id) = army {
        editor.open_army(&id).map_err(anyhow::Error::msg)?;
    }
    if let Some(id) = tile {
        editor.open_tile(&id).map_err(anyhow::Error::msg)?;
    }
    if battle && scenario.is_none() {
        bail!("--battle fights the battle of a --scenario FILE: give one\n{USAGE}");
    }
    if let Some(path) = scenario {
        editor.open_scenario(&path).map_err(anyhow::Error::msg)?;
        if battle {
            editor
                .start_battle()
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        }
    }
    if step.is_some() && replay.is_none() {
        bail!("--step N opens a --replay FILE at that step: give one\n{USAGE}");
    }
    if let Some(path) = replay {
        editor.open_replay(&path)?;
        if let (Some(n), Some(viewer)) = (step, editor.replays_mut().viewer_mut()) {
            if n > viewer.len() {
                bail!(
                    "{} has {} steps: --step {n} is past its end",
                    path.display(),
                    viewer.len()
                );
            }
            viewer.go(hexforge_editor::replays::viewer::Position {
                step: n,
                phase: None,
            });
        }
    }
    if play {
        editor.show(hexforge_editor::Tab::Play);
    }
    if balance {
        editor.show(hexforge_editor::Tab::Balance);
    }
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default().with_inner_size([1280.0, 800.0]),
        ..Default::default()
    };
    eframe::run_native(
        "Hexforge editor",
        options,
        Box::new(|cc| {
            // A change on disk wakes the window, which then waits for the files to settle.
            let ctx = cc.egui_ctx.clone();
            editor.set_waker(Box::new(move || ctx.request_repaint()));
            Ok(Box::new(App(editor)))
        }),
    )
    .map_err(|e| anyhow::anyhow!("the editor window could not open: {e}"))
}

fn value(v: Option<std::ffi::OsString>, flag: &str) -> Result<String> {
    match v.map(|v| v.into_string()) {
        Some(Ok(v)) => Ok(v),
        _ => bail!("{flag} needs a value\n{USAGE}"),
    }
}

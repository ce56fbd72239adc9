//! The rules of a sandbox battle or of a match to play: a preset (a built-in edition or a mod's
//! preset) and overrides written `KEY=VALUE`, as `hexforge rules --rules NAME --option KEY=VALUE`
//! takes them. Every key is listed as `hexforge rules` lists it (`hexforge_content::rule_lines`:
//! its value, where the value comes from, the engine or the mod that owns it, its rule and its
//! doc), each with a widget for its type. A value is set only when the engine accepts the whole
//! table with it (`hexforge_content::table_rules`); a refused value is shown with the engine's
//! message and not applied. Declared options that games do not play yet are shown disabled with
//! the engine's reason. Beside it, the board and the seed of a table to play
//! ([`board_and_seed`]), as "Play a match" and the Play tab pick them.

use hexforge_content::{
    LoadedMods, RuleInfo, RuleKind, RuleLine, RulesError, ValueSource, key_value, mod_presets,
    option_text,
};
use hexforge_core::tile::ParamValue;
use hexforge_core::{GameError, Preset, Rules};
use std::collections::BTreeMap;

/// The rules picked: a preset and the overrides on top of it.
#[derive(Clone, Debug, PartialEq)]
pub struct RulesPanel {
    /// A built-in edition (`classic`, `v3`, `v2025`) or a loaded mod's preset id.
    pub preset: String,
    /// The overrides, `KEY=VALUE` as `--option` and a replay's `option` lines write them, one per
    /// key, in the order they were set.
    pub options: Vec<String>,
    /// The last value the engine refused: the key and the engine's message.
    pub refused: Option<(String, String)>,
    /// Text being typed for a key of text or list values, by key, until it is accepted.
    drafts: BTreeMap<String, String>,
    /// The rules this panel last gave or took from its owner ([`RulesPanel::follow`]).
    last: Option<Rules>,
}

impl Default for RulesPanel {
    fn default() -> Self {
        RulesPanel {
            preset: Preset::V3.as_str().to_string(),
            options: Vec::new(),
            refused: None,
            drafts: BTreeMap::new(),
            last: None,
        }
    }
}

/// The presets that can be picked with `loaded`: the editions, then the mods' presets, each with
/// a line to show (a mod preset's name and description).
pub fn presets(loaded: &LoadedMods) -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> = Preset::VALUES
        .iter()
        .map(|p| (p.to_string(), format!("the {p} edition")))
        .collect();
    all.extend(mod_presets(&loaded.mods).into_iter().map(|p| {
        let line = if p.description.is_empty() {
            p.name.clone()
        } else {
            format!("{}: {}", p.name, p.description)
        };
        (p.id, line)
    }));
    all
}

impl RulesPanel {
    /// The rules of this table, as the engine sets them up for a match.
    pub fn rules(&self, loaded: &LoadedMods) -> Result<Rules, RulesError> {
        loaded.table_rules(&self.preset, &self.options)
    }

    /// Every key with its value and source, as `hexforge rules` prints them.
    pub fn lines(&self, loaded: &LoadedMods) -> Result<Vec<RuleLine>, RulesError> {
        loaded.rule_lines(&self.preset, &self.options)
    }

    /// The overrides without the one of `key` (written with its key or a former one).
    fn without(&self, key: &str) -> Vec<String> {
        self.options
            .iter()
            .filter(|o| key_value(o).map_or(true, |(k, _)| Rules::canonical_key(k) != key))
            .cloned()
            .collect()
    }

    /// Sets `key` to `value` when the engine accepts it: an override, or none when the value is
    /// what the preset gives. A refused value is kept in [`RulesPanel::refused`] with the engine's
    /// message and nothing changes. Returns whether the rules changed.
    pub fn set(&mut self, loaded: &LoadedMods, key: &str, value: &ParamValue) -> bool {
        self.set_text(loaded, &option_text(key, value))
    }

    /// [`RulesPanel::set`] with the override written `KEY=VALUE` (`--option`'s form; a former key
    /// is written as the key it became).
    pub fn set_text(&mut self, loaded: &LoadedMods, option: &str) -> bool {
        let (key, value) = match key_value(option) {
            Ok((k, v)) => (Rules::canonical_key(k).to_string(), v),
            Err(e) => {
                self.refused = Some((option.to_string(), e.to_string()));
                return false;
            }
        };
        let mut next = RulesPanel {
            options: self.without(&key),
            ..self.clone()
        };
        let Ok(base) = next.rules(loaded) else {
            return false;
        };
        // Written under the key's own name, as `hexforge rules` lists it.
        next.options.push(option_text(&key, &value));
        let rules = match next.rules(loaded) {
            Ok(r) => r,
            Err(e) => {
                self.refused = Some((key, e.to_string()));
                return false;
            }
        };
        let declared = loaded.catalog.options();
        let value = |r: &Rules| r.get(&key).or_else(|| r.option(declared, &key));
        if value(&rules) == value(&base) {
            // What the preset gives: no override, so the source says the preset or the default.
            next.options.pop();
        }
        self.refused = None;
        self.drafts.remove(&key);
        let changed = next.options != self.options;
        self.options = next.options;
        changed
    }

    /// Picks the preset `preset`; the overrides stay.
    pub fn pick_preset(&mut self, preset: &str) {
        self.preset = preset.to_string();
        self.refused = None;
    }

    /// Follows `rules` when its owner's rules changed elsewhere (an undo, a scenario loaded, a
    /// replay's step opened): the panel shows them as their edition and the keys that differ
    /// from it. Rules the panel gave itself are left as picked.
    pub fn follow(&mut self, rules: &Rules, loaded: &LoadedMods) {
        if self.last.as_ref() == Some(rules) {
            return;
        }
        self.last = Some(rules.clone());
        if self.rules(loaded).ok().as_ref() == Some(rules) {
            return;
        }
        let preset = rules.preset.as_str();
        let edition = Rules::preset(rules.preset);
        let declared = loaded.catalog.options();
        let mut options: Vec<String> = Rules::KEYS
            .iter()
            .filter_map(|k| {
                let v = rules.get(k)?;
                (Some(&v) != edition.get(k).as_ref()).then(|| option_text(k, &v))
            })
            .collect();
        for (k, d) in declared {
            if let Some(v) = rules.option(declared, k)
                && v != *d.value_for(preset)
            {
                options.push(option_text(k, &v));
            }
        }
        self.preset = preset.to_string();
        self.options = options;
        self.refused = None;
        self.drafts.clear();
    }

    /// Makes the next [`RulesPanel::follow`] show its owner's rules whatever was picked (after
    /// the owner refused the rules the panel gave).
    pub fn resync(&mut self) {
        self.last = None;
    }

    /// Notes `rules` as the ones its owner now uses, so [`RulesPanel::follow`] leaves them be.
    pub fn gave(&mut self, rules: &Rules) {
        self.last = Some(rules.clone());
    }

    /// The panel in `ui` (`salt` keeps two panels' widgets apart); returns the new rules when the
    /// designer changed them.
    pub fn ui(&mut self, ui: &mut egui::Ui, loaded: &LoadedMods, salt: &str) -> Option<Rules> {
        let before = (self.preset.clone(), self.options.clone());
        let all = presets(loaded);
        ui.horizontal(|ui| {
            let named = ui.label("rules");
            let mut picked = self.preset.clone();
            egui::ComboBox::from_id_salt((salt, "preset"))
                .selected_text(picked.as_str())
                .show_ui(ui, |ui| {
                    for (id, line) in &all {
                        ui.selectable_value(&mut picked, id.clone(), id.as_str())
                            .on_hover_text(line);
                    }
                })
                .response
                .labelled_by(named.id);
            if picked != self.preset {
                self.pick_preset(&picked);
            }
            if !self.options.is_empty() {
                ui.weak(format!("{} changed", self.options.len()));
                if ui
                    .small_button("Reset")
                    .on_hover_text("Drop the changed keys: every key takes the preset's value")
                    .clicked()
                {
                    self.options.clear();
                    self.refused = None;
                    self.drafts.clear();
                }
            }
        });
        if let Some((key, message)) = &self.refused {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("not applied: {message}"),
            )
            .on_hover_text(format!("the value of `{key}` the engine refused"));
        }
        match self.lines(loaded) {
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e.to_string());
            }
            Ok(lines) => {
                egui::CollapsingHeader::new("Rule options")
                    .id_salt((salt, "options"))
                    .show(ui, |ui| {
                        egui::ScrollArea::vertical()
                            .id_salt((salt, "options_scroll"))
                            .max_height(320.0)
                            .show(ui, |ui| {
                                for line in &lines {
                                    self.line_ui(ui, loaded, salt, line);
                                }
                            });
                    });
            }
        }
        let after = (self.preset.clone(), self.options.clone());
        if after == before {
            return None;
        }
        let rules = self.rules(loaded).ok()?;
        self.last = Some(rules.clone());
        Some(rules)
    }

    /// One key: its name (its doc and rule on hover), a widget for its value, its rule and
    /// where the value comes from.
    fn line_ui(&mut self, ui: &mut egui::Ui, loaded: &LoadedMods, salt: &str, line: &RuleLine) {
        let Some(info) = loaded.rule_info(&line.key) else {
            return;
        };
        let owner = match &line.declared_by {
            None => "engine".to_string(),
            Some(m) => format!("mod {m}"),
        };
        let rule = if info.rule.is_empty() {
            String::new()
        } else {
            format!(" ({})", info.rule)
        };
        let mut hover = format!("{}{rule}\n{}, {owner}", info.doc, line.source);
        let why_not = (!info.played).then(|| {
            GameError::Unsupported {
                key: line.key.clone(),
            }
            .to_string()
        });
        if let Some(why) = &why_not {
            hover.push('\n');
            hover.push_str(why);
        }
        ui.horizontal_wrapped(|ui| {
            let named = if line.source == ValueSource::Override {
                ui.strong(&line.key)
            } else {
                ui.label(&line.key)
            }
            .on_hover_text(&hover);
            ui.add_enabled_ui(info.played, |ui| {
                let id = (salt, line.key.as_str());
                let picked = self.widget_ui(ui, id, named.id, line, &info);
                if let Some(v) = picked {
                    self.set(loaded, &line.key, &v);
                }
            })
            .response
            .on_disabled_hover_text(&hover);
            let at = if info.rule.is_empty() {
                format!("{}, {owner}", line.source)
            } else {
                format!("{} · {}, {owner}", info.rule, line.source)
            };
            ui.weak(at).on_hover_text(&hover);
        });
        if let Some(why) = why_not {
            ui.weak(format!("  disabled: {why}"));
        }
    }

    /// The widget of one key's value; returns a value the designer picked or typed.
    fn widget_ui(
        &mut self,
        ui: &mut egui::Ui,
        id: (&str, &str),
        named: egui::Id,
        line: &RuleLine,
        info: &RuleInfo,
    ) -> Option<ParamValue> {
        match (&info.kind, &line.value) {
            (RuleKind::Bool, ParamValue::Bool(b)) => {
                let mut on = *b;
                ui.checkbox(&mut on, "")
                    .labelled_by(named)
                    .changed()
                    .then_some(ParamValue::Bool(on))
            }
            (RuleKind::Integer { min, max }, ParamValue::Int(n)) => {
                let mut v = *n;
                let lo = min.unwrap_or(i64::from(i32::MIN));
                let hi = max.unwrap_or(i64::from(i32::MAX));
                ui.add(egui::DragValue::new(&mut v).range(lo..=hi))
                    .labelled_by(named)
                    .changed()
                    .then_some(ParamValue::Int(v))
            }
            (RuleKind::Enum(values), ParamValue::Str(s)) => {
                let mut v = s.clone();
                egui::ComboBox::from_id_salt(id)
                    .selected_text(v.as_str())
                    .show_ui(ui, |ui| {
                        for value in values {
                            ui.selectable_value(&mut v, value.clone(), value.as_str());
                        }
                    })
                    .response
                    .labelled_by(named);
                (v != *s).then_some(ParamValue::Str(v))
            }
            _ => {
                // Text and lists: typed, and set when Enter is pressed or the field is left.
                let shown = match &line.value {
                    ParamValue::Str(s) if info.kind == RuleKind::String => s.clone(),
                    v => v.to_string(),
                };
                let text = self
                    .drafts
                    .entry(line.key.clone())
                    .or_insert_with(|| shown.clone());
                let r = ui
                    .add(egui::TextEdit::singleline(text).desired_width(120.0))
                    .labelled_by(named);
                if r.lost_focus() && *text != shown {
                    let typed = text.clone();
                    return key_value(&format!("{}={typed}", line.key))
                        .ok()
                        .map(|(_, v)| match (&info.kind, v) {
                            // Any text is a string option's value, numbers and `true` included.
                            (RuleKind::String, _) => ParamValue::Str(typed),
                            (_, v) => v,
                        });
                }
                if !r.has_focus() && *text == shown {
                    self.drafts.remove(&line.key);
                }
                None
            }
        }
    }
}

/// The ids of the loaded armies, in the catalog's order: what a table's seats choose from.
pub fn army_ids(loaded: &LoadedMods) -> Vec<&str> {
    loaded
        .catalog
        .armies()
        .iter()
        .map(|a| a.id.as_str())
        .collect()
}

/// The seats of a table, a row each: `Seat N`, then what `row` draws of the seat, then "Remove"
/// while there are more than two; then "Add a seat" up to four, the new seat made by `new_seat`
/// with the next army of `armies` in turn.
pub fn seat_rows<T>(
    ui: &mut egui::Ui,
    seats: &mut Vec<T>,
    armies: &[&str],
    mut row: impl FnMut(&mut egui::Ui, usize, &mut T),
    new_seat: impl Fn(&str) -> T,
) {
    let mut remove = None;
    let can_remove = seats.len() > 2;
    for (i, seat) in seats.iter_mut().enumerate() {
        ui.horizontal(|ui| {
            ui.label(format!("Seat {}", i + 1));
            row(ui, i, seat);
            if can_remove && ui.small_button("Remove").clicked() {
                remove = Some(i);
            }
        });
    }
    if let Some(i) = remove {
        seats.remove(i);
    }
    if seats.len() < 4 && !armies.is_empty() && ui.button("Add a seat").clicked() {
        seats.push(new_seat(armies[seats.len() % armies.len()]));
    }
}

/// Checks a table to play against the loaded content: the seed as typed (a whole number, given
/// back), 2 to 4 seats of loaded armies, the rules and the board; the error says what to change.
pub fn check_table(
    loaded: &LoadedMods,
    (rules, board, seed): (&RulesPanel, &str, &str),
    armies: &[&str],
) -> Result<u64, String> {
    let seed = seed.trim().parse::<u64>().map_err(|_| {
        format!(
            "the seed `{}` is not a whole number from 0 to {}",
            seed.trim(),
            u64::MAX
        )
    })?;
    if !(2..=4).contains(&armies.len()) {
        return Err("a game has 2 to 4 seats".to_string());
    }
    for a in armies {
        if loaded.catalog.army(a).is_none() {
            return Err(format!("no army {a:?} is loaded"));
        }
    }
    rules.rules(loaded).map_err(|e| e.to_string())?;
    loaded.board(board).map_err(|e| e.to_string())?;
    Ok(seed)
}

/// The board of a table (built in or a loaded mod's, each with its name, origin and doc on
/// hover) and its seed as typed, one row each; `salt` keeps the board list's id apart.
pub fn board_and_seed(
    ui: &mut egui::Ui,
    loaded: &LoadedMods,
    (board, seed): (&mut String, &mut String),
    salt: &str,
) {
    ui.horizontal(|ui| {
        let named = ui.label("board");
        egui::ComboBox::from_id_salt(salt)
            .selected_text(board.as_str())
            .show_ui(ui, |ui| {
                for b in loaded.boards() {
                    ui.selectable_value(board, b.id.clone(), b.id.as_str())
                        .on_hover_text(format!("{} ({}): {}", b.name, b.origin(), b.doc));
                }
            })
            .response
            .labelled_by(named.id);
    });
    ui.horizontal(|ui| {
        let label = ui.label("Seed");
        ui.add(egui::TextEdit::singleline(seed).desired_width(120.0))
            .labelled_by(label.id);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn loaded() -> LoadedMods {
        hexforge_content::load_mods(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods")])
    }

    #[test]
    fn a_value_is_set_when_the_engine_takes_it_and_refused_with_its_message_otherwise() {
        let loaded = loaded();
        let mut p = RulesPanel::default();
        assert!(p.set(&loaded, "hq_hp", &ParamValue::Int(12)));
        assert_eq!(p.options, ["hq_hp=12"]);
        assert_eq!(p.rules(&loaded).expect("rules").hq_hp, 12);
        assert!(p.set(&loaded, "hq_hp", &ParamValue::Int(15)));
        assert_eq!(p.options, ["hq_hp=15"], "one override per key");
        assert!(!p.set_text(&loaded, "one_vs_team_hq_hp=[20]"));
        let (key, message) = p.refused.clone().expect("refused");
        assert_eq!(key, "one_vs_team_hq_hp");
        assert!(message.contains("expects two whole numbers"), "{message}");
        assert_eq!(p.options, ["hq_hp=15"], "nothing applied");
        // Back to the preset's value: no override is left.
        assert!(p.set(&loaded, "hq_hp", &ParamValue::Int(20)));
        assert!(p.options.is_empty() && p.refused.is_none());
        // A former key sets the key it became.
        assert!(p.set_text(&loaded, "moloch_team_exception=off"));
        assert_eq!(p.options, ["ally_attack_rule=\"off\""]);
        assert!(p.set(
            &loaded,
            "ally_attack_rule",
            &ParamValue::Str("optional".into())
        ));
        assert_eq!(p.options, ["ally_attack_rule=\"optional\""]);
    }

    #[test]
    fn rules_changed_elsewhere_are_shown_as_their_edition_and_the_keys_that_differ() {
        let loaded = loaded();
        let mut p = RulesPanel::default();
        let mut rules = Rules::preset(Preset::Classic);
        rules.hq_hp = 9;
        p.follow(&rules, &loaded);
        assert_eq!(p.preset, "classic");
        assert_eq!(p.options, ["hq_hp=9"]);
        let mine = p.rules(&loaded).expect("rules");
        assert_eq!(mine.hq_hp, 9);
        p.follow(&mine, &loaded);
        assert_eq!(p.options, ["hq_hp=9"], "its own rules are kept as picked");
    }
}

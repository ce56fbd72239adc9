//! The Play view: a game set up with 2 to 4 seats, each an army of the loaded mods played by a
//! person at this window or by a bot, on any rules preset with options and any board; then played
//! on the table ([`table`]) while the engine and the bots run on a worker ([`worker`]), so the
//! window never waits for a bot. Every action is recorded as it is played into a replay file of
//! the replay folder: a game left, closed or stopped is resumed from its file ("Resume"), and a
//! finished one opens in the replay viewer. A game may also be hosted over the network (seats
//! played by `remote` joiners) or joined (docs/NETWORK.md), through `hexforge_net` on the same
//! worker.

pub mod aim;
pub mod table;
pub mod worker;

use crate::msg::Msg;
use crate::replays::folder;
use crate::rules_panel::RulesPanel;
use hexforge_content::LoadedMods;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use table::Table;
use worker::{JoinAt, Running, Start, Who};

/// The bots a seat may be played by, after a person.
pub const BOTS: &[&str] = &["greedy", "random", "mc", "search"];

/// Where a game is played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Every seat at this window: people (hot-seat) and bots.
    #[default]
    Here,
    /// Hosted over the network: remote seats are played by joiners (docs/NETWORK.md).
    Host,
    /// A match hosted elsewhere, joined to play a seat.
    Join,
}

/// One seat as set up: its army and who plays it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatSetup {
    /// The army's id.
    pub army: String,
    /// A person or a bot.
    pub who: Who,
}

/// The Play view: the set-up, or the game on the table.
pub struct Play {
    /// The seats in play order.
    pub seats: Vec<SeatSetup>,
    /// The rules: a preset (a built-in edition or a mod's) and options.
    pub rules: RulesPanel,
    /// The board's id.
    pub board: String,
    /// The seed as typed.
    pub seed: String,
    /// Why the last game could not start.
    pub status: String,
    /// Where the game is played.
    pub mode: Mode,
    /// The port a hosted match listens on, as typed (0: any free port).
    pub port: String,
    /// The host's `HOST:PORT` to join, as typed.
    pub address: String,
    /// The seat to ask for when joining, as typed (from 1; empty: any free one).
    pub join_seat: String,
    /// When joining, fetch the host's mods that differ from those loaded here (asked first).
    pub fetch_mods: bool,
    /// The mod portal to fetch them from, as typed (empty: from the host).
    pub portal: String,
    /// Mods were installed from the host: join again once the content is loaded again.
    rejoin: bool,
    folder: Option<PathBuf>,
    table: Option<Table>,
    /// Games of the replay folder that can be resumed, as last listed.
    resumable: Option<Vec<PathBuf>>,
}

impl Default for Play {
    fn default() -> Self {
        Play {
            seats: Vec::new(),
            rules: RulesPanel::default(),
            board: hexforge_content::boards::DEFAULT_BOARD.to_string(),
            seed: "1".to_string(),
            status: String::new(),
            mode: Mode::Here,
            port: "4717".to_string(),
            address: String::new(),
            join_seat: String::new(),
            fetch_mods: true,
            portal: String::new(),
            rejoin: false,
            folder: folder::replay_dir(|k| std::env::var_os(k)),
            table: None,
            resumable: None,
        }
    }
}

impl Play {
    /// Records games into (and resumes them from) `dir` (`None`: no replay folder).
    pub fn set_folder(&mut self, dir: Option<PathBuf>) {
        self.folder = dir;
        self.resumable = None;
    }

    /// The game on the table, if one is being played.
    pub fn table(&self) -> Option<&Table> {
        self.table.as_ref()
    }

    /// The game on the table, to play it.
    pub fn table_mut(&mut self) -> Option<&mut Table> {
        self.table.as_mut()
    }

    /// Leaves the game on the table: its worker stops; the file keeps every action played.
    pub fn leave(&mut self) {
        self.table = None;
        self.resumable = None;
    }

    /// Two seats when none are set: the first two armies, a person against the greedy bot.
    fn default_seats(&mut self, loaded: &LoadedMods) {
        let armies = crate::rules_panel::army_ids(loaded);
        if self.seats.is_empty() && !armies.is_empty() {
            self.seats = vec![
                SeatSetup {
                    army: armies[0].to_string(),
                    who: Who::Person,
                },
                SeatSetup {
                    army: armies[1 % armies.len()].to_string(),
                    who: Who::Bot(BOTS[0].to_string()),
                },
            ];
        }
    }

    /// Starts a new game as set up; the error says what to change.
    pub fn start(&mut self, loaded: &LoadedMods) -> Result<(), String> {
        self.default_seats(loaded);
        let armies: Vec<&str> = self.seats.iter().map(|s| s.army.as_str()).collect();
        let seed = crate::rules_panel::check_table(
            loaded,
            (&self.rules, &self.board, &self.seed),
            &armies,
        )?;
        let dir = self
            .folder
            .clone()
            .ok_or("no replay folder to save the game in: set HEXFORGE_REPLAYS or HOME")?;
        let armies: Vec<String> = self.seats.iter().map(|s| s.army.clone()).collect();
        let (game_seed, _) = hexforge_bots::match_seeds(seed, armies.len());
        let header = hexforge_replay::header(
            (&self.rules.preset, &self.rules.options, &self.board),
            &loaded.mods,
            armies.clone(),
            game_seed,
            seed,
        );
        let stem = format!("play-{}-seed{seed}", armies.join("-vs-"));
        let who: Vec<Who> = self.seats.iter().map(|s| s.who.clone()).collect();
        let start = match self.mode {
            Mode::Host => {
                if !who.contains(&Who::Remote) {
                    return Err(
                        "a hosted match needs a seat played by `remote` (a friend who joins)"
                            .to_string(),
                    );
                }
                let port = self.port.trim().parse::<u16>().map_err(|_| {
                    format!(
                        "the port `{}` is not a number from 0 to 65535",
                        self.port.trim()
                    )
                })?;
                Start::Host {
                    header: Box::new(header),
                    dir,
                    stem,
                    listen: ("0.0.0.0".to_string(), port),
                }
            }
            _ if who.contains(&Who::Remote) => {
                return Err(
                    "a seat played by `remote` is a friend over the network: choose \"Host a network match\""
                        .to_string(),
                );
            }
            _ => Start::New {
                header: Box::new(header),
                dir,
                stem,
            },
        };
        self.open_table(start, loaded, (who, armies), seed);
        Ok(())
    }

    /// Hands `start` to a worker with the content `loaded` and puts its game on the table, its
    /// seats played by `who` with `armies` (a joiner learns them from the host).
    fn open_table(
        &mut self,
        start: Start,
        loaded: &LoadedMods,
        (who, armies): (Vec<Who>, Vec<String>),
        seed: u64,
    ) {
        let running = Running::spawn(
            start,
            loaded.mods.clone(),
            loaded.catalog.clone(),
            who.clone(),
        );
        self.table = Some(Table::new(
            running,
            (who, armies),
            seed,
            Arc::new(loaded.catalog.clone()),
        ));
    }

    /// Joins the match hosted at [`Play::address`], asking for [`Play::join_seat`]: its seat is
    /// played by the person here; the error says what to change.
    pub fn join(&mut self, loaded: &LoadedMods, user_mods: Option<&Path>) -> Result<(), String> {
        let address = self.address.trim().to_string();
        if address.is_empty() || !address.contains(':') {
            return Err(format!(
                "`{address}` is not an address: give the host's HOST:PORT, e.g. 192.168.1.20:4717"
            ));
        }
        let seat = match self.join_seat.trim() {
            "" | "any" => None,
            n => Some(
                n.parse::<usize>()
                    .ok()
                    .filter(|n| (1..=4).contains(n))
                    .ok_or_else(|| format!("the seat `{n}` is not 1 to 4 (or empty: any)"))?
                    - 1,
            ),
        };
        let dir = self
            .folder
            .clone()
            .ok_or("no replay folder to save the game in: set HEXFORGE_REPLAYS or HOME")?;
        let fetch_into = user_mods
            .filter(|_| self.fetch_mods && !self.rejoin)
            .map(Path::to_path_buf);
        let portal = Some(self.portal.trim())
            .filter(|p| !p.is_empty())
            .map(str::to_string);
        self.open_table(
            Start::Join(JoinAt {
                address,
                seat,
                dir,
                fetch_into,
                portal,
            }),
            loaded,
            (Vec::new(), Vec::new()),
            0,
        );
        Ok(())
    }

    /// Resumes the unfinished game of the replay file `path`, its seats played as the seats set
    /// up say (a person, or a bot) in seat order; the error says why it cannot.
    pub fn resume(&mut self, path: &Path, loaded: &LoadedMods) -> Result<(), String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let replay = hexforge_replay::parse(&text, &loaded.catalog)
            .map_err(|e| format!("{}:{e}", path.display()))?;
        let armies = replay.header.armies.clone();
        self.default_seats(loaded);
        let who: Vec<Who> = (0..armies.len())
            .map(|i| self.seats.get(i).map_or(Who::Person, |s| s.who.clone()))
            .collect();
        let seed = replay.header.match_seed.unwrap_or(replay.header.seed);
        self.open_table(
            Start::Resume(path.to_path_buf()),
            loaded,
            (who, armies),
            seed,
        );
        Ok(())
    }

    /// The view in `ui`: the set-up, or the game on the table. `user_mods` is where mods
    /// fetched from a host go.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        loaded: &LoadedMods,
        user_mods: Option<&Path>,
        out: &mut Vec<Msg>,
    ) {
        if self.rejoin {
            // The content was loaded again with the mods fetched: join again, without fetching,
            // the new table's log opening with what the first one said of the fetch.
            let said: Vec<String> = self
                .table
                .as_ref()
                .map(|t| {
                    t.log()
                        .iter()
                        .filter(|l| l.starts_with("net: "))
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            let r = self.join(loaded, user_mods);
            self.rejoin = false;
            match r {
                Ok(()) => {
                    if let Some(t) = &mut self.table {
                        t.carry(said);
                    }
                }
                Err(e) => {
                    self.table = None;
                    self.status = e;
                }
            }
        }
        if let Some(t) = &mut self.table {
            if t.installed().is_some() && t.ended() {
                if let Some(dir) = user_mods {
                    out.push(Msg::WatchFolder(dir.to_path_buf()));
                }
                self.rejoin = true;
                return;
            }
            if t.ui(ui, out) {
                self.leave();
            }
            return;
        }
        egui::Panel::right("play_resume")
            .default_size(380.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| self.resume_ui(ui, loaded))
            });
        egui::CentralPanel::default().show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| self.setup_ui(ui, loaded, user_mods))
        });
    }

    fn setup_ui(&mut self, ui: &mut egui::Ui, loaded: &LoadedMods, user_mods: Option<&Path>) {
        ui.heading("Play");
        ui.label(
            "Each seat is an army played by a person at this window or by a bot. Two people or \
             more play hot-seat: the hand of the player on turn shows once they say they are \
             ready. The game is saved after every action into the replay folder.",
        );
        ui.horizontal(|ui| {
            ui.radio_value(&mut self.mode, Mode::Here, "At this window");
            ui.radio_value(&mut self.mode, Mode::Host, "Host a network match");
            ui.radio_value(&mut self.mode, Mode::Join, "Join a network match");
        });
        if self.mode == Mode::Join {
            ui.label(
                "The host sets the match up; the seat it gives you is played here. Your mods \
                 must be the host's (`hexforge join ADDRESS --fetch-mods` fetches them).",
            );
            ui.horizontal(|ui| {
                let label = ui.label("Host address");
                ui.add(egui::TextEdit::singleline(&mut self.address).hint_text("HOST:PORT"))
                    .labelled_by(label.id);
            });
            ui.horizontal(|ui| {
                let label = ui.label("Seat");
                ui.add(
                    egui::TextEdit::singleline(&mut self.join_seat)
                        .hint_text("any")
                        .desired_width(60.0),
                )
                .labelled_by(label.id);
            });
            ui.add_enabled(
                user_mods.is_some(),
                egui::Checkbox::new(
                    &mut self.fetch_mods,
                    "Fetch the host's mods that differ (you are asked first)",
                ),
            )
            .on_disabled_hover_text("no user mods folder: set HEXFORGE_USER_MODS or HOME");
            ui.add_enabled_ui(user_mods.is_some() && self.fetch_mods, |ui| {
                ui.horizontal(|ui| {
                    let label = ui.label("Fetch them from the portal");
                    ui.add(
                        egui::TextEdit::singleline(&mut self.portal)
                            .hint_text("empty: from the host (http://HOST:PORT)"),
                    )
                    .labelled_by(label.id)
                    .on_hover_text(
                        "A mod portal that has the exact versions the host plays \
                         (`hexforge join --fetch-mods --portal URL` does the same)",
                    );
                });
            });
            if ui.button("Join the match").clicked() {
                match self.join(loaded, user_mods) {
                    Ok(()) => self.status.clear(),
                    Err(e) => self.status = e,
                }
            }
            if !self.status.is_empty() {
                ui.colored_label(ui.visuals().error_fg_color, &self.status);
            }
            return;
        }
        self.default_seats(loaded);
        let armies = crate::rules_panel::army_ids(loaded);
        let mut whos = vec![Who::Person];
        whos.extend(BOTS.iter().map(|b| Who::Bot(b.to_string())));
        if self.mode == Mode::Host {
            whos.push(Who::Remote);
        }
        crate::rules_panel::seat_rows(
            ui,
            &mut self.seats,
            &armies,
            |ui, i, seat| {
                let named = ui.label("army");
                egui::ComboBox::from_id_salt(("play_seat_army", i))
                    .selected_text(seat.army.as_str())
                    .show_ui(ui, |ui| {
                        for a in &armies {
                            ui.selectable_value(&mut seat.army, a.to_string(), *a);
                        }
                    })
                    .response
                    .labelled_by(named.id);
                let named = ui.label("played by");
                egui::ComboBox::from_id_salt(("play_seat_who", i))
                    .selected_text(seat.who.word())
                    .show_ui(ui, |ui| {
                        for w in &whos {
                            ui.selectable_value(&mut seat.who, w.clone(), w.word());
                        }
                    })
                    .response
                    .labelled_by(named.id);
            },
            |army| SeatSetup {
                army: army.to_string(),
                who: Who::Bot(BOTS[0].to_string()),
            },
        );
        self.rules.ui(ui, loaded, "play_rules");
        crate::rules_panel::board_and_seed(
            ui,
            loaded,
            (&mut self.board, &mut self.seed),
            "play_board",
        );
        if self.mode == Mode::Host {
            ui.horizontal(|ui| {
                let label = ui.label("Port");
                ui.add(egui::TextEdit::singleline(&mut self.port).desired_width(80.0))
                    .labelled_by(label.id);
                ui.label("(joiners connect to this machine's address and this port)");
            });
        }
        if ui.button("Start the game").clicked() {
            match self.start(loaded) {
                Ok(()) => self.status.clear(),
                Err(e) => self.status = e,
            }
        }
        if !self.status.is_empty() {
            ui.colored_label(ui.visuals().error_fg_color, &self.status);
        }
    }

    /// The unfinished games of the replay folder, each resumed with a click.
    fn resume_ui(&mut self, ui: &mut egui::Ui, loaded: &LoadedMods) {
        ui.label(egui::RichText::new("Resume a game").strong());
        let Some(dir) = self.folder.clone() else {
            ui.label("No replay folder: set HEXFORGE_REPLAYS or HOME.");
            return;
        };
        let again = ui.small_button("List again").clicked();
        if self.resumable.is_none() || again {
            self.resumable = Some(unfinished(&dir));
        }
        let files = self.resumable.clone().unwrap_or_default();
        if files.is_empty() {
            ui.label(format!("No unfinished game in {}.", dir.display()));
        }
        let mut resume = None;
        for f in &files {
            let name = f
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            if ui
                .button(format!("Resume {name}"))
                .on_hover_text("its seats are played as the seats are set up, in seat order")
                .clicked()
            {
                resume = Some(f.clone());
            }
        }
        if let Some(f) = resume
            && let Err(e) = self.resume(&f, loaded)
        {
            self.status = e;
        }
    }
}

/// The replay files of `dir` whose game did not end (no `end` line), by name.
pub fn unfinished(dir: &Path) -> Vec<PathBuf> {
    folder::list(dir)
        .unwrap_or_default()
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(p).is_ok_and(|t| {
                t.starts_with("hexforge-replay") && t.lines().last().map(str::trim) != Some("end")
            })
        })
        .collect()
}

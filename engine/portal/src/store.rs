//! What the portal keeps: an SQLite database (authors, mods, versions, download counts) and the
//! archives as files beside it (`archives/ID/VERSION.hexmod`). A version, once published, is
//! never overwritten; an archive is checked (read, unpacked and loaded, its content hash
//! recomputed) before anything is written, and written before its row, so that a failure leaves
//! neither.

use crate::error::PortalError;
use hexforge_content::archive;
use semver::Version;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The database file's name in the data folder.
pub const DATABASE: &str = "portal.sqlite3";

/// A dependency of a published version: another mod's id and the versions it needs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Dep {
    /// The other mod's id.
    pub id: String,
    /// Its version requirement, as the manifest writes it (`^1`).
    pub req: String,
}

/// One tile of an army as a mod's page draws it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct TileCard {
    /// Its id within the army.
    pub id: String,
    /// Its printed name.
    pub name: String,
    /// `hq`, `soldier`, `module` or `instant`.
    pub kind: String,
    /// Copies in the army.
    pub count: u8,
    /// Its initiative values.
    pub initiative: Vec<u8>,
    /// Its toughness icons.
    pub toughness: u8,
    /// Whether it has Mobility.
    pub mobile: bool,
    /// Per edge from the front, clockwise: melee and ranged strengths, armor, net, link.
    pub edges: Vec<(u8, u8, bool, bool, bool)>,
}

/// An army of a published version, its tiles in file order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ArmyCard {
    /// The army's id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its tiles.
    pub tiles: Vec<TileCard>,
}

/// One published version of a mod.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct VersionInfo {
    /// Its semantic version.
    pub version: String,
    /// Its content hash, 16 hexadecimal digits.
    pub hash: String,
    /// The archive's size in bytes.
    pub size: u64,
    /// The mods it needs.
    pub dependencies: Vec<Dep>,
    /// The ids of the armies it defines.
    pub armies: Vec<String>,
    /// How many times its archive was downloaded.
    pub downloads: u64,
    /// When it was published, in seconds since 1970.
    pub published: u64,
    /// Its armies with their tiles, for the pictures of its page.
    #[serde(default)]
    pub cards: Vec<ArmyCard>,
}

/// A mod as a search lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ModSummary {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its one-paragraph description.
    pub description: String,
    /// The author who published it first, who alone publishes its versions.
    pub author: String,
    /// Its newest version.
    pub latest: String,
    /// The downloads of all its versions.
    pub downloads: u64,
}

/// A mod with every version, newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ModDetail {
    /// What a search shows of it.
    pub summary: ModSummary,
    /// Every version, newest first.
    pub versions: Vec<VersionInfo>,
}

/// What a publication made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Published {
    /// The mod's id.
    pub id: String,
    /// The version published.
    pub version: String,
    /// Its content hash.
    pub hash: String,
}

/// The portal's database and archives.
pub struct Store {
    db: Mutex<rusqlite::Connection>,
    dir: PathBuf,
    /// Numbers the folders archives are checked in.
    checks: AtomicU64,
}

/// An SQLite error, worded.
fn db(e: rusqlite::Error) -> PortalError {
    PortalError::Database(e.to_string())
}

/// The SHA-256 of a token, in hexadecimal: what the database keeps of it.
fn token_hash(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Seconds since 1970.
fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Store {
    /// Opens the portal's data folder `dir` (made when missing): its database, made with its
    /// tables the first time, and its archives.
    pub fn open(dir: &Path) -> Result<Store, PortalError> {
        let io = |e: std::io::Error| PortalError::Io(format!("{}: {e}", dir.display()));
        std::fs::create_dir_all(dir.join("archives")).map_err(io)?;
        let conn = rusqlite::Connection::open(dir.join(DATABASE)).map_err(db)?;
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA foreign_keys = ON;
             CREATE TABLE IF NOT EXISTS authors (
                 name TEXT PRIMARY KEY,
                 token_sha256 TEXT NOT NULL UNIQUE,
                 created INTEGER NOT NULL
             );
             CREATE TABLE IF NOT EXISTS mods (
                 id TEXT PRIMARY KEY,
                 name TEXT NOT NULL,
                 description TEXT NOT NULL,
                 author TEXT NOT NULL REFERENCES authors(name)
             );
             CREATE TABLE IF NOT EXISTS versions (
                 mod_id TEXT NOT NULL REFERENCES mods(id),
                 version TEXT NOT NULL,
                 hash TEXT NOT NULL,
                 size INTEGER NOT NULL,
                 dependencies TEXT NOT NULL,
                 armies TEXT NOT NULL,
                 downloads INTEGER NOT NULL DEFAULT 0,
                 published INTEGER NOT NULL,
                 cards TEXT NOT NULL DEFAULT '[]',
                 PRIMARY KEY (mod_id, version)
             );",
        )
        .map_err(db)?;
        Ok(Store {
            db: Mutex::new(conn),
            dir: dir.to_path_buf(),
            checks: AtomicU64::new(0),
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, rusqlite::Connection> {
        self.db.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds an author and returns their token (shown once: the database keeps only its hash).
    pub fn add_author(&self, name: &str) -> Result<String, PortalError> {
        if !hexforge_content::scaffold::valid_id(name) {
            return Err(PortalError::Refused(format!(
                "author name `{name}`: use lowercase letters, digits and `_`, starting with a letter"
            )));
        }
        let mut bytes = [0u8; 24];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
            .map_err(|e| PortalError::Io(format!("/dev/urandom: {e}")))?;
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let added = self
            .conn()
            .execute(
                "INSERT INTO authors (name, token_sha256, created) VALUES (?1, ?2, ?3)
                 ON CONFLICT (name) DO NOTHING",
                rusqlite::params![name, token_hash(&token), now() as i64],
            )
            .map_err(db)?;
        if added == 0 {
            return Err(PortalError::Refused(format!(
                "the author `{name}` exists already: pick another name"
            )));
        }
        Ok(token)
    }

    /// The author whose token this is.
    fn author_of(&self, token: &str) -> Result<String, PortalError> {
        self.conn()
            .query_row(
                "SELECT name FROM authors WHERE token_sha256 = ?1",
                [token_hash(token)],
                |r| r.get(0),
            )
            .map_err(|_| PortalError::Unauthorized)
    }

    /// Publishes the archive `bytes` as the author of `token`: read and checked (its files
    /// unpacked in a folder of their own and the mod loaded there, its content hash
    /// recomputed), refused when the mod belongs to another author or the version exists.
    pub fn publish(&self, token: &str, bytes: &[u8]) -> Result<Published, PortalError> {
        let author = self.author_of(token)?;
        let archive = archive::read(bytes).map_err(|e| PortalError::BadArchive(e.to_string()))?;
        let (info, armies, cards) = self.check(&archive)?;
        let version = info.version.to_string();
        let deps: Vec<Dep> = info
            .dependencies
            .iter()
            .filter(|d| d.kind == hexforge_content::manifest::DepKind::Required)
            .map(|d| Dep {
                id: d.id.clone(),
                req: d.req.to_string(),
            })
            .collect();
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(db)?;
        let owner: Option<String> = tx
            .query_row(
                "SELECT author FROM mods WHERE id = ?1",
                [&archive.id],
                |r| r.get(0),
            )
            .ok();
        match owner {
            Some(o) if o != author => {
                return Err(PortalError::Forbidden(format!(
                    "the mod `{}` is published by `{o}`: only they publish its versions; give yours another id",
                    archive.id
                )));
            }
            Some(_) => {
                tx.execute(
                    "UPDATE mods SET name = ?2, description = ?3 WHERE id = ?1",
                    rusqlite::params![archive.id, info.name, info.description],
                )
                .map_err(db)?;
            }
            None => {
                tx.execute(
                    "INSERT INTO mods (id, name, description, author) VALUES (?1, ?2, ?3, ?4)",
                    rusqlite::params![archive.id, info.name, info.description, author],
                )
                .map_err(db)?;
            }
        }
        let exists: bool = tx
            .query_row(
                "SELECT COUNT(*) FROM versions WHERE mod_id = ?1 AND version = ?2",
                [&archive.id, &version],
                |r| r.get::<_, i64>(0),
            )
            .map_err(db)?
            > 0;
        if exists {
            return Err(PortalError::Conflict(format!(
                "`{}` {version} is published already, and a version is never overwritten: raise `version` in mod.toml and publish again",
                archive.id
            )));
        }
        let file = self.archive_path(&archive.id, &version);
        let io = |e: std::io::Error| PortalError::Io(format!("{}: {e}", file.display()));
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        hexforge_content::write_atomically(&file, bytes)
            .map_err(|e| PortalError::Io(format!("{}: {e}", file.display())))?;
        let hash = format!("{:016x}", archive.hash);
        let inserted = tx
            .execute(
                "INSERT INTO versions (mod_id, version, hash, size, dependencies, armies, published, cards)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                rusqlite::params![
                    archive.id,
                    version,
                    hash,
                    bytes.len() as i64,
                    serde_json::to_string(&deps).unwrap_or_default(),
                    serde_json::to_string(&armies).unwrap_or_default(),
                    now() as i64,
                    serde_json::to_string(&cards).unwrap_or_default()
                ],
            )
            .map_err(db)
            .and_then(|_| tx.commit().map_err(db));
        if let Err(e) = inserted {
            let _ = std::fs::remove_file(&file);
            return Err(e);
        }
        Ok(Published {
            id: archive.id,
            version,
            hash,
        })
    }

    /// Unpacks `archive` in a folder of its own and loads the mod there (refused unless it
    /// loads and its content hash is the archive's); its manifest and army ids.
    fn check(
        &self,
        archive: &archive::Archive,
    ) -> Result<(hexforge_content::Manifest, Vec<String>, Vec<ArmyCard>), PortalError> {
        let n = self.checks.fetch_add(1, Ordering::Relaxed);
        let dir = self
            .dir
            .join(format!(".checking-{}-{n}", std::process::id()));
        let checked = archive::install(archive, &dir, None)
            .map_err(|e| PortalError::BadArchive(e.to_string()))
            .and_then(|installed| {
                hexforge_content::load_mod(&installed.dir)
                    .map_err(|d| PortalError::BadArchive(d.to_string()))
            });
        let _ = std::fs::remove_dir_all(&dir);
        let info = checked?;
        if info.manifest.version.to_string() != archive.version {
            return Err(PortalError::BadArchive(format!(
                "the archive says version {}, its mod.toml {}",
                archive.version, info.manifest.version
            )));
        }
        let armies = info.armies.iter().map(|a| a.id.clone()).collect();
        let cards = info
            .armies
            .iter()
            .map(|a| ArmyCard {
                id: a.id.clone(),
                name: a.name.clone(),
                tiles: a
                    .tiles
                    .iter()
                    .map(|t| TileCard {
                        id: t.id.clone(),
                        name: t.name.clone(),
                        kind: t.kind.name().to_string(),
                        count: t.count,
                        initiative: t.initiative.values().to_vec(),
                        toughness: t.toughness,
                        mobile: t.mobile,
                        edges: t
                            .edges
                            .iter()
                            .map(|e| (e.melee, e.ranged, e.armor, e.net, e.link))
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        Ok((info.manifest, armies, cards))
    }

    /// Where the archive of `id` `version` is kept.
    fn archive_path(&self, id: &str, version: &str) -> PathBuf {
        self.dir
            .join("archives")
            .join(id)
            .join(format!("{version}.{}", archive::EXTENSION))
    }

    /// The mods whose id, name or description holds `text` (every mod for an empty text),
    /// most downloaded first, then by id.
    pub fn search(&self, text: &str) -> Result<Vec<ModSummary>, PortalError> {
        let like = format!(
            "%{}%",
            text.replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        );
        let ids: Vec<String> = {
            let conn = self.conn();
            let mut q = conn
                .prepare(
                    "SELECT id FROM mods WHERE id LIKE ?1 ESCAPE '\\'
                     OR name LIKE ?1 ESCAPE '\\' OR description LIKE ?1 ESCAPE '\\'",
                )
                .map_err(db)?;
            q.query_map([like], |r| r.get(0))
                .map_err(db)?
                .collect::<Result<_, _>>()
                .map_err(db)?
        };
        let mut found: Vec<ModSummary> = ids
            .iter()
            .filter_map(|id| self.detail_of(id, false).ok().flatten())
            .map(|d| d.summary)
            .collect();
        found.sort_by(|a, b| b.downloads.cmp(&a.downloads).then(a.id.cmp(&b.id)));
        Ok(found)
    }

    /// A mod with every version, newest first; `None` when no mod has that id.
    pub fn detail(&self, id: &str) -> Result<Option<ModDetail>, PortalError> {
        self.detail_of(id, true)
    }

    /// [`Self::detail`], its versions' tile cards read only when `cards`.
    fn detail_of(&self, id: &str, cards: bool) -> Result<Option<ModDetail>, PortalError> {
        let conn = self.conn();
        let Ok((name, description, author)) = conn.query_row(
            "SELECT name, description, author FROM mods WHERE id = ?1",
            [id],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            },
        ) else {
            return Ok(None);
        };
        let mut q = conn
            .prepare(if cards {
                "SELECT version, hash, size, dependencies, armies, downloads, published, cards
                     FROM versions WHERE mod_id = ?1"
            } else {
                "SELECT version, hash, size, dependencies, armies, downloads, published, '[]'
                     FROM versions WHERE mod_id = ?1"
            })
            .map_err(db)?;
        let mut versions: Vec<VersionInfo> = q
            .query_map([id], |r| {
                Ok(VersionInfo {
                    version: r.get(0)?,
                    hash: r.get(1)?,
                    size: r.get::<_, i64>(2)? as u64,
                    dependencies: serde_json::from_str(&r.get::<_, String>(3)?).unwrap_or_default(),
                    armies: serde_json::from_str(&r.get::<_, String>(4)?).unwrap_or_default(),
                    downloads: r.get::<_, i64>(5)? as u64,
                    published: r.get::<_, i64>(6)? as u64,
                    cards: serde_json::from_str(&r.get::<_, String>(7)?).unwrap_or_default(),
                })
            })
            .map_err(db)?
            .collect::<Result<_, _>>()
            .map_err(db)?;
        versions.sort_by(|a, b| {
            let v = |s: &str| Version::parse(s).ok();
            v(&b.version).cmp(&v(&a.version))
        });
        let Some(latest) = versions.first() else {
            return Ok(None);
        };
        Ok(Some(ModDetail {
            summary: ModSummary {
                id: id.to_string(),
                name,
                description,
                author,
                latest: latest.version.clone(),
                downloads: versions.iter().map(|v| v.downloads).sum(),
            },
            versions,
        }))
    }

    /// The archive of `id` `version`, counted as one download; `None` when it is not published.
    pub fn download(&self, id: &str, version: &str) -> Result<Option<Vec<u8>>, PortalError> {
        let known = self
            .conn()
            .execute(
                "UPDATE versions SET downloads = downloads + 1 WHERE mod_id = ?1 AND version = ?2",
                [id, version],
            )
            .map_err(db)?;
        if known == 0 {
            return Ok(None);
        }
        let file = self.archive_path(id, version);
        std::fs::read(&file)
            .map(Some)
            .map_err(|e| PortalError::Io(format!("{}: {e}", file.display())))
    }
}

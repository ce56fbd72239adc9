//! A mod portal to measure (docs/PERFORMANCE.md, "The mod portal"): a real server on a free port
//! of the loopback over an SQLite database in a temporary folder, holding the generated fan mods
//! of [`crate::mods`] (1,000 for the bench) and one mod of about 1 MB, all published through the
//! store before the timing.

use hexforge_content::archive;
use hexforge_portal::{Portal, Store, VersionInfo};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{SystemTime, UNIX_EPOCH};

/// The id of the large mod.
pub const BIG: &str = "big_mod";

/// Bytes of padding in the large mod (a text file of its own), so that its archive is about 1 MB.
pub const BIG_BYTES: usize = 1024 * 1024;

/// A portal serving `mods` generated fan mods and the large mod, removed when dropped.
pub struct PortalBench {
    /// The portal's client.
    pub portal: Portal,
    /// The large mod's newest version, as the portal lists it.
    pub big: VersionInfo,
    /// The folder holding the data folder, the mods' sources and the install targets.
    pub dir: PathBuf,
}

impl PortalBench {
    /// Writes and publishes everything, then serves it.
    ///
    /// # Panics
    /// If a mod cannot be written, loaded, packed or published, or no port is free.
    pub fn new(mods: usize) -> PortalBench {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "hexforge-bench-portal-{mods}-{}-{nanos}",
            std::process::id()
        ));
        let src = dir.join("src");
        let folders = crate::mods::write_mods(&src, mods).expect("the generated mods");
        let big = src.join(BIG);
        let first = folders.first().expect("at least one mod");
        copy_dir(first, &big);
        let manifest = std::fs::read_to_string(big.join("mod.toml")).expect("its manifest");
        let manifest = manifest
            .lines()
            .filter(|l| !l.starts_with("id = "))
            .collect::<Vec<_>>()
            .join("\n");
        let army = crate::mods::army_id(0);
        let manifest = manifest.replace(&format!("\"{army}\""), "\"big_army\"");
        std::fs::write(
            big.join("mod.toml"),
            format!("id = \"{BIG}\"\n{manifest}\n"),
        )
        .expect("written");
        // Its army takes another id, so that it is a mod of its own.
        let army_file = big.join("armies").join(format!("{army}.toml"));
        let text = std::fs::read_to_string(&army_file).expect("its army");
        std::fs::write(
            &army_file,
            text.replacen(&format!("\"{army}\""), "\"big_army\"", 1),
        )
        .expect("written");
        let line = "The padding of a mod the size of a real one with pictures and notes.\n";
        let padding = line.repeat(BIG_BYTES / line.len() + 1);
        std::fs::write(big.join("notes.txt"), padding).expect("written");
        let store = Arc::new(Store::open(&dir.join("data")).expect("the store"));
        let token = store.add_author("bench").expect("an author");
        for folder in folders.iter().chain(std::iter::once(&big)) {
            let info = hexforge_content::load_mod(folder)
                .unwrap_or_else(|d| panic!("{}: {d}", folder.display()));
            let bytes = archive::pack(&info).expect("packed").to_bytes();
            store
                .publish(&token, &bytes)
                .unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
        }
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let address = format!("http://{}", listener.local_addr().expect("its address"));
        let served = store.clone();
        std::thread::spawn(move || {
            hexforge_portal::server::serve(listener, served, Arc::new(AtomicBool::new(false)))
        });
        let portal = Portal::new(&address);
        let big = portal
            .detail(BIG)
            .expect("the large mod")
            .versions
            .remove(0);
        PortalBench { portal, big, dir }
    }

    /// Downloads the large mod (checked against its listed hash) and installs it into the folder
    /// `into` (unpacked aside, loaded, renamed in place), as `hexforge mods install` does.
    ///
    /// # Panics
    /// If the download or the install fails.
    pub fn install_big(&self, into: &std::path::Path) {
        let a = self.portal.download(BIG, &self.big).expect("downloaded");
        archive::install(&a, into, Some(a.hash)).expect("installed");
    }
}

impl Drop for PortalBench {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Copies the folder `from` (files and folders, no links) to `to`.
fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for e in std::fs::read_dir(from).expect("readable").flatten() {
        let p = e.path();
        let target = to.join(e.file_name());
        if p.is_dir() {
            copy_dir(&p, &target);
        } else {
            std::fs::copy(&p, &target).expect("copied");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bench_portal_serves_its_mods_and_installs_the_large_one() {
        let bench = PortalBench::new(3);
        assert_eq!(bench.portal.search("").expect("every mod").len(), 4);
        assert!(bench.big.size as usize > BIG_BYTES, "{}", bench.big.size);
        let into = bench.dir.join("installed");
        bench.install_big(&into);
        bench.install_big(&into);
        assert!(into.join(BIG).join("notes.txt").is_file());
    }
}

//! The portal for real: a server on a free port over an SQLite database in a temporary folder,
//! archives of real mods published, refused, searched, downloaded and planned for install.

use hexforge_content::archive;
use hexforge_portal::{Portal, PortalError, Store, plan};
use semver::VersionReq;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// A fresh folder under the system's temporary folder.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hexforge-portal-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// A new mod `id` at `version` in `root`, needing `needs` (`(id, requirement)`): its archive.
fn archive_of(root: &Path, id: &str, version: &str, needs: &[(&str, &str)]) -> Vec<u8> {
    let dir = root.join(id);
    let _ = std::fs::remove_dir_all(&dir);
    hexforge_content::scaffold::new_mod(root, id).expect("a new mod");
    let manifest = dir.join("mod.toml");
    let mut text = std::fs::read_to_string(&manifest).expect("its manifest");
    text = text.replace("version = \"0.1.0\"", &format!("version = \"{version}\""));
    assert!(text.contains(&format!("version = \"{version}\"")), "{text}");
    if !needs.is_empty() {
        text.push_str("\n[dependencies]\n");
        for (d, req) in needs {
            text.push_str(&format!("{d} = \"{req}\"\n"));
        }
    }
    std::fs::write(&manifest, text).expect("written");
    let info = hexforge_content::load_mod(&dir).unwrap_or_else(|d| panic!("{d}"));
    archive::pack(&info).expect("packed").to_bytes()
}

/// A portal serving `dir` on a free port of the loopback.
fn start(dir: &Path) -> (Portal, Arc<Store>) {
    let store = Arc::new(Store::open(dir).expect("the store"));
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let address = format!("http://{}", listener.local_addr().expect("its address"));
    let served = store.clone();
    std::thread::spawn(move || {
        hexforge_portal::server::serve(listener, served, Arc::new(AtomicBool::new(false)))
    });
    (Portal::new(&address), store)
}

#[test]
fn mods_are_published_searched_downloaded_and_planned_with_their_dependencies() {
    let dir = temp("publish");
    let (portal, store) = start(&dir.join("data"));
    let alice = store.add_author("alice").expect("an author");
    let bob = store.add_author("bob").expect("another");
    assert!(store.add_author("alice").is_err(), "a name is taken once");
    let mods = dir.join("mods");
    std::fs::create_dir_all(&mods).expect("a folder");
    let lib = archive_of(&mods, "siege_lib", "1.0.0", &[]);
    let army1 = archive_of(&mods, "war_wagons", "1.0.0", &[("siege_lib", "^1")]);
    let army2 = archive_of(&mods, "war_wagons", "1.1.0", &[("siege_lib", "^1")]);

    assert_eq!(
        portal.publish(&alice, &lib).expect("published").version,
        "1.0.0"
    );
    portal.publish(&alice, &army1).expect("published");
    portal.publish(&alice, &army2).expect("published");
    // A version is never overwritten; another author cannot publish the mod; a bad token is
    // refused; a damaged archive too. None of these changes what is published.
    let again = portal.publish(&alice, &army2).expect_err("exists");
    assert!(
        matches!(&again, PortalError::Conflict(m) if m.contains("never overwritten")),
        "{again}"
    );
    let theirs = portal.publish(&bob, &army2).expect_err("alice's");
    assert!(
        matches!(&theirs, PortalError::Forbidden(m) if m.contains("published by `alice`")),
        "{theirs}"
    );
    assert_eq!(
        portal.publish("not-a-token", &lib).expect_err("no author"),
        PortalError::Unauthorized
    );
    let mut damaged = army2.clone();
    let i = damaged.len() / 2;
    damaged[i] ^= 0x20;
    let bad = portal.publish(&alice, &damaged).expect_err("damaged");
    assert!(matches!(bad, PortalError::Refused(_)), "{bad}");

    let found = portal.search("wagons").expect("a search");
    assert_eq!(found.len(), 1);
    assert_eq!(
        (found[0].id.as_str(), found[0].latest.as_str()),
        ("war_wagons", "1.1.0")
    );
    assert_eq!(portal.search("").expect("every mod").len(), 2);
    let detail = portal.detail("war_wagons").expect("its page");
    let versions: Vec<&str> = detail.versions.iter().map(|v| v.version.as_str()).collect();
    assert_eq!(versions, ["1.1.0", "1.0.0"]);
    assert_eq!(detail.versions[0].dependencies[0].id, "siege_lib");
    assert_eq!(detail.versions[0].armies.len(), 1);
    // The pictures of its page come from its army's tiles, as published.
    let cards = &detail.versions[0].cards;
    assert_eq!(cards.len(), 1);
    assert_eq!(cards[0].id, "war_wagons");
    assert_eq!(cards[0].tiles.len(), 8);
    assert_eq!(cards[0].tiles[0].kind, "hq");
    assert!(matches!(
        portal.detail("nothing_here").expect_err("none"),
        PortalError::NotFound(_)
    ));

    // The plan: the library first, then the newest wagons; a library already there is kept.
    let nothing = |_: &str, _: &VersionReq| false;
    let steps = plan(&portal, "war_wagons", &VersionReq::STAR, &nothing).expect("a plan");
    let picked: Vec<(&str, &str)> = steps
        .iter()
        .map(|s| (s.id.as_str(), s.version.version.as_str()))
        .collect();
    assert_eq!(picked, [("siege_lib", "1.0.0"), ("war_wagons", "1.1.0")]);
    let has_lib = |id: &str, _: &VersionReq| id == "siege_lib";
    let steps = plan(
        &portal,
        "war_wagons",
        &VersionReq::parse("=1.0.0").expect("a req"),
        &has_lib,
    )
    .expect("a plan");
    assert_eq!(steps.len(), 1);
    assert_eq!(steps[0].version.version, "1.0.0");
    // Downloads are checked against the listed hash and counted.
    let a = portal
        .download("war_wagons", &steps[0].version)
        .expect("downloaded");
    assert_eq!(a.version, "1.0.0");
    let detail = portal.detail("war_wagons").expect("its page");
    assert_eq!(detail.summary.downloads, 1);

    // Pages: the list with its search, a mod's page with its install command.
    let (status, page) = hexforge_portal::http::send(
        "GET",
        &format!("{}/?q=siege", portal.address()),
        &[],
        &[],
        1 << 20,
    )
    .expect("the list page");
    let page = String::from_utf8(page).expect("text");
    assert_eq!(status, 200);
    assert!(page.contains("href=\"/mods/siege_lib\""), "{page}");
    assert!(!page.contains("/mods/war_wagons"), "{page}");
    let (status, page) = hexforge_portal::http::send(
        "GET",
        &format!("{}/mods/war_wagons", portal.address()),
        &[],
        &[],
        1 << 20,
    )
    .expect("the mod's page");
    let page = String::from_utf8(page).expect("text");
    assert_eq!(status, 200);
    assert!(
        page.contains("hexforge mods install war_wagons --portal"),
        "{page}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_dependency_cycle_is_refused_with_its_chain() {
    let dir = temp("cycle");
    let (portal, store) = start(&dir.join("data"));
    let token = store.add_author("carol").expect("an author");
    let mods = dir.join("mods");
    std::fs::create_dir_all(&mods).expect("a folder");
    // Each is published before the other exists: the portal checks a mod on its own.
    portal
        .publish(
            &token,
            &archive_of(&mods, "ying", "1.0.0", &[("yang", "^1")]),
        )
        .expect("published");
    portal
        .publish(
            &token,
            &archive_of(&mods, "yang", "1.0.0", &[("ying", "^1")]),
        )
        .expect("published");
    let nothing = |_: &str, _: &VersionReq| false;
    let e = plan(&portal, "ying", &VersionReq::STAR, &nothing).expect_err("a cycle");
    assert_eq!(
        e.to_string(),
        "a dependency cycle: ying needs yang needs ying: nothing was installed"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_store_keeps_what_was_published_across_a_restart() {
    let dir = temp("restart");
    let data = dir.join("data");
    let token = {
        let store = Store::open(&data).expect("the store");
        let token = store.add_author("dana").expect("an author");
        let mods = dir.join("mods");
        std::fs::create_dir_all(&mods).expect("a folder");
        store
            .publish(&token, &archive_of(&mods, "keep_me", "2.0.0", &[]))
            .expect("published");
        token
    };
    let store = Store::open(&data).expect("opened again");
    let d = store.detail("keep_me").expect("read").expect("kept");
    assert_eq!(d.summary.latest, "2.0.0");
    let bytes = store
        .download("keep_me", "2.0.0")
        .expect("read")
        .expect("its archive");
    assert_eq!(archive::read(&bytes).expect("an archive").id, "keep_me");
    assert!(store.publish(&token, &bytes).is_err(), "still published");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_exact_version_is_fetched_and_one_the_portal_lacks_is_refused_with_what_it_has() {
    let dir = temp("exact");
    let (portal, store) = start(&dir.join("data"));
    let alice = store.add_author("alice").expect("an author");
    let mods = dir.join("mods");
    std::fs::create_dir_all(&mods).expect("a folder");
    for v in ["1.0.0", "1.1.0"] {
        portal
            .publish(&alice, &archive_of(&mods, "war_wagons", v, &[]))
            .expect("published");
    }
    let a = portal.exact("war_wagons", "1.0.0").expect("that version");
    assert_eq!((a.id.as_str(), a.version.as_str()), ("war_wagons", "1.0.0"));
    let e = portal
        .exact("war_wagons", "2.0.0")
        .expect_err("no such version");
    assert!(
        matches!(&e, PortalError::NotFound(m) if m.ends_with("has no version 2.0.0 of `war_wagons` (it has 1.1.0, 1.0.0)")),
        "{e}"
    );
    assert!(portal.exact("nothing", "1.0.0").is_err(), "no such mod");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_portal_over_tls_is_reached_with_https_and_an_untrusted_certificate_is_refused() {
    let dir = temp("tls");
    let cert =
        rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).expect("a certificate");
    let (cert_file, key_file, ca) = (
        dir.join("cert.pem"),
        dir.join("key.pem"),
        dir.join("ca.pem"),
    );
    std::fs::create_dir_all(&dir).expect("a folder");
    std::fs::write(&cert_file, cert.cert.pem()).expect("the certificate");
    std::fs::write(&key_file, cert.key_pair.serialize_pem()).expect("its key");
    // Self-signed: the certificate is its own authority.
    std::fs::write(&ca, cert.cert.pem()).expect("the authority");
    let store = Arc::new(Store::open(&dir.join("data")).expect("the store"));
    let tls = hexforge_portal::tls::server_config(&cert_file, &key_file).expect("served over TLS");
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let address = format!(
        "https://localhost:{}",
        listener.local_addr().expect("its address").port()
    );
    let served = store.clone();
    std::thread::spawn(move || {
        hexforge_portal::server::serve_with(
            listener,
            served,
            Arc::new(AtomicBool::new(false)),
            Some(Arc::new(tls)),
        )
    });
    let alice = store.add_author("alice").expect("an author");
    let mods = dir.join("mods");
    std::fs::create_dir_all(&mods).expect("a folder");
    let lib = archive_of(&mods, "siege_lib", "1.0.0", &[]);
    // Trusting only Mozilla's roots: refused, with what to do.
    let refused = Portal::new(&address)
        .search("siege")
        .expect_err("an untrusted certificate");
    assert!(
        refused.to_string().contains("invalid peer certificate")
            && refused
                .to_string()
                .contains("name its authority's PEM file in HEXFORGE_CA_FILE"),
        "{refused}"
    );
    // Trusting its authority: published, found and downloaded over TLS.
    let config = hexforge_portal::tls::config_with(Some(&ca)).expect("a configuration");
    let portal = Portal::new(&address).with_tls(Arc::new(config));
    assert_eq!(
        portal.publish(&alice, &lib).expect("published").version,
        "1.0.0"
    );
    let found = portal.search("siege").expect("found");
    assert_eq!(found.len(), 1, "{found:?}");
    let a = portal.exact("siege_lib", "1.0.0").expect("downloaded");
    assert_eq!(a.id, "siege_lib");
    // A plain HTTP request to the TLS port is told to use https.
    let plain = Portal::new(&address.replace("https://", "http://"))
        .search("siege")
        .expect_err("not TLS");
    assert!(
        plain
            .to_string()
            .contains("this portal speaks TLS: give its address as https://HOST:PORT"),
        "{plain}"
    );
    // Files that are not what they should be are refused with the file and what it is for.
    let e = hexforge_portal::tls::server_config(&key_file, &key_file).expect_err("a key as a cert");
    assert!(e.to_string().contains("--tls-cert names a PEM file"), "{e}");
    let e = hexforge_portal::tls::config_with(Some(&key_file)).expect_err("no certificate");
    assert!(
        e.to_string().contains("HEXFORGE_CA_FILE names a PEM file"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

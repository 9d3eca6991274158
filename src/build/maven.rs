//! Runs Maven as untrusted code: scrubbed environment (no tokens), a time limit that kills
//! the whole process group, and capped, redacted output.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;

use super::disk;
use super::egress::{self, EgressProxy};
use super::jdk::Jdk;
use super::sandbox::{self, EGRESS_SETTINGS, Isolation, Network, Spec};
pub use crate::evidence::BuildRun;
use crate::redact::redact;

/// Variables a build may see; everything else (tokens, keys) is withheld. In the sandbox,
/// `HOME`, `TMPDIR` and `USER` are the sandbox's own.
const ENV_ALLOWLIST: &[&str] = &[
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "TMPDIR",
    "USER",
    "MAVEN_OPTS",
    "MAVEN_HOME",
    "M2_HOME",
];
/// Variables naming directories the build must be able to read.
const ENV_DIRS: &[&str] = &["MAVEN_HOME", "M2_HOME"];

#[derive(Debug, Clone)]
pub struct MavenRequest<'a> {
    pub root: &'a Path,
    pub jdk: &'a Jdk,
    pub goals: &'a [&'a str],
    pub user_args: &'a [String],
    /// `-Dname=value` overrides added by the engine (e.g. a raised baseline level).
    pub properties: Vec<(String, String)>,
    pub timeout: Duration,
    pub max_output_bytes: usize,
    /// The run's disk budget; a build past it is killed.
    pub disk: &'a disk::Budget,
    /// The sandbox and what of the host it shows; `None` runs Maven directly on the host
    /// (the CLI where bubblewrap is missing, or the app's explicit unsafe escape hatch).
    pub isolation: Option<&'a Isolation>,
}

#[derive(Debug, thiserror::Error)]
pub enum MavenError {
    #[error("`mvn` was not found on PATH; install Maven 3.6+ or add it to PATH")]
    NotFound,
    #[error("could not start Maven: {0}")]
    Spawn(std::io::Error),
}

fn find_mvn() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("mvn"))
        .find(|p| p.is_file())
}

#[derive(Debug, Default)]
struct Capture {
    bytes: usize,
    truncated: bool,
    errors: Vec<String>,
    deprecations: Vec<String>,
    tail: VecDeque<String>,
}

const TAIL_LINES: usize = 80;
pub const MAX_DEPRECATIONS: usize = 200;
/// Maven properties that make maven-compiler-plugin print javac's deprecation and removal
/// warnings (it hides them by default), so every build records what is still deprecated.
pub const SHOW_DEPRECATIONS: [(&str, &str); 2] = [
    ("maven.compiler.showDeprecation", "true"),
    ("maven.compiler.showWarnings", "true"),
];
/// Bytes kept of one output line; a build can print a line of any length (or none at all).
const MAX_LINE_BYTES: usize = 4096;

impl Capture {
    /// One output line: its kept prefix (at most [`MAX_LINE_BYTES`]) and its true length.
    fn line(&mut self, kept: &[u8], len: usize, cap: usize) {
        self.bytes += len + 1;
        if self.bytes > cap {
            self.truncated = true;
        }
        let mut line = String::from_utf8_lossy(kept)
            .trim_end_matches('\r')
            .to_string();
        if len > kept.len() {
            line.push_str(&format!(" … [{} more bytes]", len - kept.len()));
        }
        if line.starts_with("[ERROR]") && self.errors.len() < 30 {
            self.errors.push(redact(&line));
        }
        if let Some(w) = deprecation(&line)
            && self.deprecations.len() < MAX_DEPRECATIONS
        {
            let w = redact(w);
            if !self.deprecations.contains(&w) {
                self.deprecations.push(w);
            }
        }
        if self.tail.len() == TAIL_LINES {
            self.tail.pop_front();
        }
        self.tail.push_back(line);
    }
}

/// `[WARNING] /p/A.java:[12,5] stop() in java.lang.Thread has been deprecated ...` ->
/// the part after the level.
fn deprecation(line: &str) -> Option<&str> {
    let w = line.strip_prefix("[WARNING] ")?;
    (w.contains(".java:[") && w.contains(" has been deprecated")).then_some(w)
}

/// Reads a stream to its end whatever it carries (any bytes, lines of any length), keeping at
/// most [`MAX_LINE_BYTES`] of a line in memory: stopping early would close the pipe and kill
/// the build, so everything is drained and only the kept part is bounded.
async fn pump(mut stream: impl AsyncRead + Unpin, capture: Arc<Mutex<Capture>>, cap: usize) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut line: Vec<u8> = Vec::new();
    let mut line_len = 0usize;
    loop {
        let n = match stream.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut chunk = &buf[..n];
        while !chunk.is_empty() {
            let (part, rest, end) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], &chunk[i + 1..], true),
                None => (chunk, &[][..], false),
            };
            let room = MAX_LINE_BYTES.saturating_sub(line.len());
            line.extend_from_slice(&part[..part.len().min(room)]);
            line_len += part.len();
            if end {
                capture
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .line(&line, line_len, cap);
                line.clear();
                line_len = 0;
            }
            chunk = rest;
        }
    }
    if line_len > 0 {
        capture
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .line(&line, line_len, cap);
    }
}

/// An argument as the record shows it: a path of the operator's machine outside the project
/// (`-s /etc/uplift/settings.xml`, `-Dx=/srv/...`) by its file name only, since the record
/// reaches check runs and PR bodies; paths inside the project relative to it.
fn shown_arg(arg: &str, root: &Path) -> String {
    let (prefix, value) = match arg.split_once('=') {
        Some((k, v)) if k.starts_with("-D") => (format!("{k}="), v),
        _ => (String::new(), arg),
    };
    let path = Path::new(value);
    if !path.is_absolute() {
        return arg.to_string();
    }
    match path.strip_prefix(root) {
        Ok(inside) => format!("{prefix}{}", inside.display()),
        Err(_) => format!(
            "{prefix}…/{}",
            path.file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned())
        ),
    }
}

/// Kills a build's whole process group (Maven, forked test JVMs) when the build times out or
/// the run is abandoned mid-build (cancelled, lease lost): dropping the future must not leave
/// builds running.
struct GroupKill(Option<i32>);

impl Drop for GroupKill {
    fn drop(&mut self) {
        if let Some(pgid) = self.0 {
            // SAFETY: signalling the process group our own child leads.
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
        }
    }
}

pub async fn run(req: MavenRequest<'_>) -> Result<BuildRun, MavenError> {
    let mvn = find_mvn().ok_or(MavenError::NotFound)?;
    let mut args: Vec<String> = vec!["-B".into()];
    args.extend(req.user_args.iter().cloned());
    args.extend(req.properties.iter().map(|(k, v)| format!("-D{k}={v}")));
    args.extend(req.goals.iter().map(|g| g.to_string()));
    let env: Vec<(String, OsString)> = ENV_ALLOWLIST
        .iter()
        .filter_map(|k| std::env::var_os(k).map(|v| (k.to_string(), v)))
        .chain([("JAVA_HOME".to_string(), req.jdk.home.clone().into())])
        .collect();
    // Kept until the build ends: the sandbox's /tmp and home.
    let scratch = tempfile::Builder::new()
        .prefix("uplift-build-")
        .tempdir()
        .map_err(MavenError::Spawn)?;
    let mut egress = None;
    // The work tree's git directories: read-only to the build, and none may be added.
    let git_before = sandbox::git_entries(req.root);
    let git_read_only = sandbox::git_read_only(req.root, &git_before);
    let mut cmd = match req.isolation {
        Some(iso) => {
            let network = match &iso.access.egress {
                None => Network::None,
                Some(allow) => {
                    let socket = scratch.path().join("egress.sock");
                    let settings = scratch.path().join("egress-settings.xml");
                    std::fs::write(&settings, egress::maven_proxy_settings())
                        .map_err(MavenError::Spawn)?;
                    egress = Some(
                        EgressProxy::start(&socket, allow.clone()).map_err(MavenError::Spawn)?,
                    );
                    args.splice(1..1, ["-gs".to_string(), EGRESS_SETTINGS.to_string()]);
                    Network::Proxy { socket, settings }
                }
            };
            let mut read_only = vec![req.jdk.home.clone()];
            read_only.extend(mvn.canonicalize().ok().and_then(|m| {
                // <maven home>/bin/mvn: the whole installation must be readable.
                m.parent().and_then(Path::parent).map(Path::to_path_buf)
            }));
            read_only.extend(
                ENV_DIRS
                    .iter()
                    .filter_map(|k| std::env::var_os(k).map(PathBuf::from)),
            );
            let spec = Spec {
                work_tree: req.root,
                read_only_inside: &git_read_only,
                scratch: scratch.path(),
                read_only,
                access: &iso.access,
                network,
                program: &mvn,
                args: &args,
                env,
            };
            iso.sandbox.command(&spec).map_err(MavenError::Spawn)?
        }
        None => {
            let mut cmd = Command::new(&mvn);
            cmd.args(&args).current_dir(req.root).env_clear().envs(env);
            cmd
        }
    };
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    // A build is batch work: the webhook edge and the worker come first.
    // SAFETY: `yield_cpu` only makes an async-signal-safe syscall between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            super::yield_cpu();
            Ok(())
        });
    }
    let started = Instant::now();
    let mut child = cmd.spawn().map_err(MavenError::Spawn)?;
    let mut group = GroupKill(child.id().map(|p| p as i32));
    let capture = Arc::new(Mutex::new(Capture::default()));
    let out = tokio::spawn(pump(
        child.stdout.take().expect("piped"),
        capture.clone(),
        req.max_output_bytes,
    ));
    let err = tokio::spawn(pump(
        child.stderr.take().expect("piped"),
        capture.clone(),
        req.max_output_bytes,
    ));
    let waited = tokio::select! {
        status = tokio::time::timeout(req.timeout, child.wait()) => Ok(status),
        exceeded = req.disk.exceeded(scratch.path()) => Err(exceeded),
    };
    let (exit_code, timed_out, disk_exceeded) = match waited {
        Ok(Ok(status)) => {
            group.0 = None;
            (status.ok().and_then(|s| s.code()), false, None)
        }
        Ok(Err(_)) => {
            drop(group);
            let _ = child.wait().await;
            (None, true, None)
        }
        Err(exceeded) => {
            drop(group);
            let _ = child.wait().await;
            (None, false, Some(exceeded))
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(5), async {
        let _ = out.await;
        let _ = err.await;
    })
    .await;
    let git_removed = sandbox::remove_planted_git(req.root, &git_before);
    let c = capture.lock().unwrap_or_else(|e| e.into_inner());
    // Paths relative to the project, as every other report line names files: the server's
    // work directory is nobody's business and differs between runs.
    let root = format!("{}/", req.root.display());
    let relative = |line: &String| line.replace(&root, "");
    Ok(BuildRun {
        command: redact(&format!(
            "mvn {}",
            args.iter()
                .map(|a| shown_arg(a, req.root))
                .collect::<Vec<_>>()
                .join(" ")
        )),
        jdk: req.jdk.release,
        exit_code,
        timed_out,
        duration_ms: started.elapsed().as_millis() as u64,
        errors: c.errors.iter().map(relative).collect(),
        tail: c.tail.iter().map(|l| redact(&relative(l))).collect(),
        output_bytes: c.bytes,
        output_truncated: c.truncated,
        sandbox: req
            .isolation
            .map(|iso| iso.sandbox.describe(iso.access.egress.is_some())),
        egress_refused: egress.map(|p| p.refused()).unwrap_or_default(),
        deprecations: c.deprecations.iter().map(relative).collect(),
        git_removed,
        disk_exceeded,
    })
}

#[cfg(test)]
mod tests {

    #[test]
    fn operator_paths_show_by_file_name_project_paths_relative() {
        let root = Path::new("/srv/work/job-1");
        assert_eq!(
            shown_arg("/etc/uplift/settings.xml", root),
            "…/settings.xml"
        );
        assert_eq!(
            shown_arg("-Dmaven.repo.local=/home/op/.m2/repository", root),
            "-Dmaven.repo.local=…/repository"
        );
        assert_eq!(shown_arg("/srv/work/job-1/pom.xml", root), "pom.xml");
        assert_eq!(shown_arg("-o", root), "-o");
        assert_eq!(shown_arg("-Dtest=!Slow", root), "-Dtest=!Slow");
    }

    use super::*;

    async fn capture(bytes: Vec<u8>, cap: usize) -> Capture {
        let capture = Arc::new(Mutex::new(Capture::default()));
        pump(&bytes[..], capture.clone(), cap).await;
        Arc::try_unwrap(capture).unwrap().into_inner().unwrap()
    }

    #[tokio::test]
    async fn javac_deprecation_warnings_are_kept_once_each() {
        let out = b"[WARNING] /w/src/A.java:[4,15] stop() in java.lang.Thread has been deprecated and marked for removal\n\
[WARNING] /w/src/A.java:[4,15] stop() in java.lang.Thread has been deprecated and marked for removal\n\
[WARNING] Using platform encoding\n[INFO] /w/src/B.java:[1,1] x has been deprecated\n"
            .to_vec();
        let c = capture(out, 1 << 20).await;
        assert_eq!(
            c.deprecations,
            [
                "/w/src/A.java:[4,15] stop() in java.lang.Thread has been deprecated and marked for removal"
            ]
        );
    }

    #[tokio::test]
    async fn a_300_mb_line_is_drained_and_kept_bounded() {
        let mut out = b"[INFO] start\n".to_vec();
        out.extend(std::iter::repeat_n(b'x', 300 << 20));
        out.extend(b"\n[ERROR] after the long line\n");
        let c = capture(out, 4 << 20).await;
        assert_eq!(c.bytes, 13 + (300 << 20) + 1 + 28);
        assert!(c.truncated);
        let kept: usize = c.tail.iter().map(String::len).sum();
        assert!(kept < 2 * MAX_LINE_BYTES, "kept {kept} bytes");
        assert!(c.tail[1].ends_with(&format!("[{} more bytes]", (300 << 20) - MAX_LINE_BYTES)));
        assert_eq!(c.errors, vec!["[ERROR] after the long line"]);
        assert!(c.deprecations.is_empty());
    }

    #[tokio::test]
    async fn non_utf8_output_is_read_lossily_to_the_end() {
        let c = capture(b"[ERROR] bad \xff\xfe byte\r\nlast line".to_vec(), 1 << 20).await;
        assert_eq!(c.errors, vec!["[ERROR] bad \u{fffd}\u{fffd} byte"]);
        assert_eq!(c.tail.back().map(String::as_str), Some("last line"));
        assert!(!c.truncated);
    }
}

//! Runs Maven as untrusted code: scrubbed environment (no tokens), a time limit that kills
//! the whole process group, and capped, redacted output.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::Command;

use super::jdk::Jdk;
use crate::redact::redact;

/// Variables a build may see; everything else (tokens, keys) is withheld.
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
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BuildRun {
    pub command: String,
    pub jdk: u32,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub duration_ms: u64,
    /// `[ERROR]` lines (first 30), redacted.
    pub errors: Vec<String>,
    /// Last lines of output, redacted.
    pub tail: Vec<String>,
    pub output_bytes: usize,
    pub output_truncated: bool,
}

impl BuildRun {
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out
    }
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

#[derive(Default)]
struct Capture {
    bytes: usize,
    truncated: bool,
    errors: Vec<String>,
    tail: VecDeque<String>,
}

const TAIL_LINES: usize = 80;

async fn pump(stream: impl AsyncRead + Unpin, capture: Arc<Mutex<Capture>>, cap: usize) {
    let mut lines = BufReader::new(stream).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let mut c = capture.lock().unwrap_or_else(|e| e.into_inner());
        c.bytes += line.len() + 1;
        if c.bytes > cap {
            c.truncated = true;
        }
        if line.starts_with("[ERROR]") && c.errors.len() < 30 {
            c.errors.push(redact(&line));
        }
        if c.tail.len() == TAIL_LINES {
            c.tail.pop_front();
        }
        c.tail.push_back(line);
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
    let mut cmd = Command::new(&mvn);
    cmd.args(&args)
        .current_dir(req.root)
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    for key in ENV_ALLOWLIST {
        if let Some(v) = std::env::var_os(key) {
            cmd.env(key, v);
        }
    }
    cmd.env("JAVA_HOME", &req.jdk.home);
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
    let (exit_code, timed_out) = match tokio::time::timeout(req.timeout, child.wait()).await {
        Ok(status) => {
            group.0 = None;
            (status.ok().and_then(|s| s.code()), false)
        }
        Err(_) => {
            drop(group);
            let _ = child.wait().await;
            (None, true)
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(5), async {
        let _ = out.await;
        let _ = err.await;
    })
    .await;
    let c = capture.lock().unwrap_or_else(|e| e.into_inner());
    Ok(BuildRun {
        command: redact(&format!("mvn {}", args.join(" "))),
        jdk: req.jdk.release,
        exit_code,
        timed_out,
        duration_ms: started.elapsed().as_millis() as u64,
        errors: c.errors.clone(),
        tail: c.tail.iter().map(|l| redact(l)).collect(),
        output_bytes: c.bytes,
        output_truncated: c.truncated,
    })
}

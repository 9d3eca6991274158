//! The build sandbox. A repository's pom, plugins and tests are untrusted code, so every build
//! runs under bubblewrap (`bwrap`, the sandbox Flatpak uses; Debian package `bubblewrap`)
//! rather than hand-rolled namespace syscalls: bwrap is small, audited and maintained, and it
//! does the fiddly parts (uid maps, pivot_root, a reaping init, dying with its parent).
//!
//! What a build gets:
//! - its own user (uid 1000 inside, no capabilities, no nested user namespaces), PID namespace
//!   (the worker's `/proc` is not there; every process, `setsid` ones included, dies with the
//!   sandbox), IPC/UTS/cgroup namespaces and network namespace (no host loopback: no database,
//!   no app, no other service; see [`Network`]);
//! - a filesystem of `/usr` and the JDK, Maven and TLS configuration read-only, a synthetic
//!   `/etc/passwd`, and writable only the work tree, a per-build temporary directory (`/tmp`
//!   and `HOME`) and the Maven local repositories the operator configured; the app's data
//!   dir, key file, home and other work trees are simply absent;
//! - resource limits (processes, file size, memory per process, no core dumps) and no
//!   inherited file descriptor beyond stdio; the caller adds the time limit.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde::{Deserialize, Serialize};

use super::egress::Allowlist;

/// Host `/etc` entries a JVM and Maven need; nothing else of `/etc` is visible.
const ETC_ALLOWLIST: &[&str] = &[
    "/etc/alternatives",
    "/etc/maven",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/ca-certificates.conf",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/nsswitch.conf",
    "/etc/host.conf",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/mime.types",
];

/// Top-level host directories that are symlinks into `/usr` on merged-usr systems and real
/// directories elsewhere.
const SYSTEM_DIRS: &[&str] = &["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/// uid/gid of the build inside its user namespace: not root, not the app's.
const BUILD_ID: &str = "1000";
/// The build's home inside the sandbox (backed by the per-build temporary directory).
pub const BUILD_HOME: &str = "/home/build";

/// Per-process resource limits inside the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// Processes and threads of the build's user (counted per user namespace).
    pub max_processes: u64,
    /// Largest file a build may write.
    pub max_file_bytes: u64,
    /// Committed memory per process (`RLIMIT_DATA`: heap and private writable mappings;
    /// address-space reservations such as the JVM's do not count).
    pub max_memory_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_processes: 4096,
            max_file_bytes: 4 << 30,
            max_memory_bytes: 8 << 30,
        }
    }
}

/// A build's network. The sandbox never shares the host's network namespace.
#[derive(Debug, Clone, PartialEq)]
pub enum Network {
    /// Only the sandbox's own loopback: offline builds.
    None,
    /// The allow-listing proxy ([`super::egress`]) listening on this host socket, reached
    /// through a relay on the sandbox's `127.0.0.1:3128`; Maven is pointed at it by the
    /// global settings file `settings`.
    Proxy { socket: PathBuf, settings: PathBuf },
}

/// Where the proxy's socket and settings appear inside the sandbox.
pub const EGRESS_SOCKET: &str = "/run/uplift/egress.sock";
pub const EGRESS_SETTINGS: &str = "/run/uplift/egress-settings.xml";

#[derive(Debug, thiserror::Error)]
pub enum Unavailable {
    #[error(
        "bubblewrap (`bwrap`) is not installed; install the `bubblewrap` package to run builds in a sandbox"
    )]
    NotInstalled,
    #[error("bubblewrap cannot create a sandbox on this machine: {0}")]
    Broken(String),
}

/// A working bubblewrap, checked once at start-up.
#[derive(Debug, Clone)]
pub struct Sandbox {
    bwrap: PathBuf,
    /// Relays the build's proxy port to the egress socket (online builds only).
    socat: Option<PathBuf>,
    version: String,
    pub limits: Limits,
}

/// What of the host the operator lets builds see beyond the system: the files and Maven
/// repositories named in the operator's own Maven arguments (never the repository's: a
/// repository naming `-Dmaven.repo.local=/home/app/.ssh` gets nothing bound), the
/// operator's `~/.m2/settings.xml` read-only, and a local repository for the build's
/// `~/.m2/repository`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostAccess {
    pub read_only: Vec<PathBuf>,
    pub writable: Vec<PathBuf>,
    /// The host directory that is the build's `~/.m2/repository`.
    pub local_repo: Option<PathBuf>,
    /// The operator's `~/.m2/settings.xml`, shown as the build's.
    pub user_settings: Option<PathBuf>,
    /// Where builds may connect; `None` when the operator builds offline.
    pub egress: Option<Allowlist>,
}

impl HostAccess {
    /// Reads the paths out of the operator's Maven arguments: `-s`/`-gs` files (read-only)
    /// and the local repositories they or `-Dmaven.repo.local` name (read-write).
    pub fn from_operator_args(args: &[String], local_repo: Option<PathBuf>) -> Self {
        let mut access = Self {
            local_repo,
            ..Self::default()
        };
        let mut settings: Vec<PathBuf> = Vec::new();
        let mut it = args.iter().peekable();
        while let Some(arg) = it.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
                _ => (arg.as_str(), None),
            };
            match flag {
                "-s" | "--settings" | "-gs" | "--global-settings" => {
                    if let Some(v) = inline.or_else(|| it.next().cloned()) {
                        settings.push(PathBuf::from(v));
                    }
                }
                _ => {
                    if let Some(dir) = arg.strip_prefix("-Dmaven.repo.local=") {
                        access.writable.push(PathBuf::from(dir));
                    }
                }
            }
        }
        access.user_settings = std::env::var_os("HOME")
            .map(|home| Path::new(&home).join(".m2/settings.xml"))
            .filter(|f| f.is_file());
        for file in settings.iter().chain(&access.user_settings) {
            let Ok(xml) = std::fs::read_to_string(file) else {
                continue;
            };
            // The build can read these files: whatever it prints of them is masked.
            register_credentials(&xml);
            if let Some(repo) = setting(&xml, "localRepository") {
                access.writable.push(PathBuf::from(repo));
            }
        }
        let all_settings: Vec<PathBuf> = settings
            .iter()
            .chain(&access.user_settings)
            .cloned()
            .collect();
        let offline = args.iter().any(|a| a == "-o" || a == "--offline")
            || all_settings.iter().any(|f| {
                std::fs::read_to_string(f)
                    .is_ok_and(|xml| setting(&xml, "offline").as_deref() == Some("true"))
            });
        access.egress = (!offline).then(|| Allowlist::from_settings(&all_settings));
        access.read_only.extend(settings);
        access
    }
}

/// Registers the credentials of a Maven settings file (servers' and proxies' passwords and
/// passphrases) as secrets for redaction.
fn register_credentials(xml: &str) {
    let Ok(doc) = roxmltree::Document::parse(xml) else {
        return;
    };
    for node in doc
        .descendants()
        .filter(|n| matches!(n.tag_name().name(), "password" | "passphrase"))
    {
        if let Some(value) = node.text() {
            crate::redact::register(value);
        }
    }
}

/// A top-level value of a Maven settings file (`localRepository`, `offline`).
fn setting(xml: &str, name: &str) -> Option<String> {
    let doc = roxmltree::Document::parse(xml).ok()?;
    let node = doc
        .root_element()
        .children()
        .find(|n| n.tag_name().name() == name)?;
    let text = node.text()?.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// A sandbox and the host access its builds get.
#[derive(Debug, Clone)]
pub struct Isolation {
    pub sandbox: Sandbox,
    pub access: HostAccess,
}

/// One sandboxed command: what it runs and what of the host it may see.
#[derive(Debug, Clone)]
pub struct Spec<'a> {
    /// Read-write, at the same path inside (paths in errors and reports stay true).
    pub work_tree: &'a Path,
    /// Entries inside the work tree bound read-only over it: its git directories
    /// ([`git_entries`]), whose config and hooks git runs on the host.
    pub read_only_inside: &'a [PathBuf],
    /// Per-build scratch directory: `/tmp` and the build's home inside.
    pub scratch: &'a Path,
    /// Read-only host paths the command itself needs (JDK and Maven homes).
    pub read_only: Vec<PathBuf>,
    pub access: &'a HostAccess,
    pub network: Network,
    pub program: &'a Path,
    pub args: &'a [String],
    /// The complete environment of the build; nothing else of the worker's is passed.
    pub env: Vec<(String, OsString)>,
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

impl Sandbox {
    /// Finds `bwrap` and proves it can build a sandbox here (namespaces may be disabled).
    pub fn detect(limits: Limits) -> Result<Self, Unavailable> {
        let bwrap = find_on_path("bwrap").ok_or(Unavailable::NotInstalled)?;
        let version = std::process::Command::new(&bwrap)
            .arg("--version")
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        let sandbox = Self {
            bwrap,
            socat: find_on_path("socat"),
            version,
            limits,
        };
        let broken = |e: std::io::Error| Unavailable::Broken(e.to_string());
        let scratch = tempfile::tempdir().map_err(broken)?;
        prepare_scratch(scratch.path()).map_err(broken)?;
        let probe = std::process::Command::new(&sandbox.bwrap)
            .args(sandbox.bwrap_args(&Spec {
                work_tree: scratch.path(),
                read_only_inside: &[],
                scratch: scratch.path(),
                read_only: Vec::new(),
                access: &HostAccess::default(),
                network: Network::None,
                program: Path::new("/bin/sh"),
                args: &["-c".into(), "exit 0".into()],
                env: Vec::new(),
            }))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(broken)?;
        if !probe.status.success() {
            return Err(Unavailable::Broken(
                String::from_utf8_lossy(&probe.stderr).trim().to_string(),
            ));
        }
        Ok(sandbox)
    }

    /// What the journal says about a sandboxed build.
    pub fn describe(&self, online: bool) -> String {
        let net = if online {
            "network only to the operator's Maven repositories"
        } else {
            "no network"
        };
        format!(
            "{}: user, pid, mount, ipc, uts and network namespaces; {net}",
            if self.version.is_empty() {
                "bubblewrap"
            } else {
                &self.version
            }
        )
    }

    /// The sandboxed command, ready for stdio and spawning.
    pub fn command(&self, spec: &Spec) -> std::io::Result<tokio::process::Command> {
        if matches!(spec.network, Network::Proxy { .. }) && self.socat.is_none() {
            return Err(std::io::Error::other(
                "online builds need socat in the sandbox (Debian package `socat`); \
                 or build offline (`-o` with a local repository)",
            ));
        }
        prepare_scratch(spec.scratch)?;
        if let Some(repo) = &spec.access.local_repo {
            std::fs::create_dir_all(repo)?;
        }
        let mut cmd = tokio::process::Command::new(&self.bwrap);
        cmd.args(self.bwrap_args(spec));
        cmd.env_clear();
        let limits = self.limits;
        // SAFETY: only async-signal-safe calls (setrlimit, close_range) between fork and exec.
        unsafe {
            cmd.pre_exec(move || apply_limits(&limits));
        }
        Ok(cmd)
    }

    fn bwrap_args(&self, spec: &Spec) -> Vec<OsString> {
        let mut a: Vec<OsString> = [
            "--unshare-all",
            "--unshare-user",
            "--disable-userns",
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
            "--uid",
            BUILD_ID,
            "--gid",
            BUILD_ID,
            "--clearenv",
            "--ro-bind",
            "/usr",
            "/usr",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
        ]
        .map(OsString::from)
        .into();
        for dir in SYSTEM_DIRS {
            let p = Path::new(dir);
            match std::fs::read_link(p) {
                Ok(target) => a.extend([o("--symlink"), o(&target), o(p)]),
                Err(_) if p.is_dir() => a.extend([o("--ro-bind"), o(p), o(p)]),
                Err(_) => {}
            }
        }
        for etc in ETC_ALLOWLIST {
            a.extend([o("--ro-bind-try"), o(etc), o(etc)]);
        }
        if let Ok(entries) = std::fs::read_dir("/etc") {
            // JDK configuration (`/usr/lib/jvm/*/conf` links into `/etc/java-*`).
            for e in entries.flatten() {
                if e.file_name().to_string_lossy().starts_with("java-") {
                    a.extend([o("--ro-bind"), o(&e.path()), o(&e.path())]);
                }
            }
        }
        a.extend([
            o("--ro-bind"),
            o(&spec.scratch.join("passwd")),
            o("/etc/passwd"),
            o("--ro-bind"),
            o(&spec.scratch.join("group")),
            o("/etc/group"),
            o("--bind"),
            o(&spec.scratch.join("tmp")),
            o("/tmp"),
            o("--bind"),
            o(&spec.scratch.join("home")),
            o(BUILD_HOME),
        ]);
        for p in spec.read_only.iter().chain(&spec.access.read_only) {
            bind_path(&mut a, "--ro-bind-try", p);
        }
        for p in &spec.access.writable {
            bind_path(&mut a, "--bind-try", p);
        }
        let m2 = |leaf: &str| format!("{BUILD_HOME}/.m2/{leaf}");
        if let Some(repo) = &spec.access.local_repo {
            a.extend([o("--bind"), o(repo), o(&m2("repository"))]);
        }
        if let Some(file) = &spec.access.user_settings {
            a.extend([o("--ro-bind"), o(file), o(&m2("settings.xml"))]);
        }
        bind_path(&mut a, "--bind", spec.work_tree);
        for p in spec.read_only_inside {
            // Through its real path, which is where the work tree's bind put it.
            let real = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
            a.extend([o("--ro-bind"), o(&real), o(&real)]);
        }
        for (k, v) in &spec.env {
            a.extend([o("--setenv"), o(k), o(v)]);
        }
        for (k, v) in [("HOME", BUILD_HOME), ("TMPDIR", "/tmp"), ("USER", "build")] {
            a.extend([o("--setenv"), o(k), o(v)]);
        }
        let mut relay = Vec::new();
        if let (Network::Proxy { socket, settings }, Some(socat)) = (&spec.network, &self.socat) {
            // Bound after everything else so the build's binds cannot cover them.
            a.extend([
                o("--bind"),
                o(socket),
                o(EGRESS_SOCKET),
                o("--ro-bind"),
                o(settings),
                o(EGRESS_SETTINGS),
            ]);
            relay = vec![
                o("/bin/sh"),
                o("-c"),
                o(&format!(
                    "{} TCP-LISTEN:{},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:{EGRESS_SOCKET} & exec \"$@\"",
                    socat.display(),
                    super::egress::RELAY_PORT
                )),
                o("sh"),
            ];
        }
        // bubblewrap makes `/` (with the parents of every bind) and `/dev` tmpfs the build's
        // user owns: writable, they would hold whatever a build parks there in memory, where
        // no disk budget looks. Once every mount is in place, both become read-only.
        a.extend([o("--remount-ro"), o("/"), o("--remount-ro"), o("/dev")]);
        a.extend([o("--chdir"), o(spec.work_tree), o("--")]);
        a.extend(relay);
        a.push(o(spec.program));
        a.extend(spec.args.iter().map(OsString::from));
        a
    }
}

/// A `.git` entry of a work tree as it was before a build.
#[derive(Debug, Clone, PartialEq)]
pub struct GitEntry {
    pub path: PathBuf,
    /// The link's target when the entry is a link (a CLI user's `.git -> ...`): a link cannot
    /// be bound read-only, so a build could replace it with a directory of its own.
    pub link: Option<PathBuf>,
}

/// Every `.git` entry below a work tree (the checkout's own, a nested repository's, a
/// submodule's link file), not descending into them. git on the host trusts what is in
/// them (`core.fsmonitor`, hooks, `remote.origin.url` for the app's push with its token),
/// and a checkout never brings them: only a build could write them.
pub fn git_entries(work_tree: &Path) -> Vec<GitEntry> {
    let mut found = Vec::new();
    let mut walk = walkdir::WalkDir::new(work_tree).into_iter();
    while let Some(entry) = walk.next() {
        let Ok(e) = entry else { continue };
        if e.depth() > 0 && e.file_name() == ".git" {
            if e.file_type().is_dir() {
                walk.skip_current_dir();
            }
            let link = e
                .path_is_symlink()
                .then(|| std::fs::read_link(e.path()).ok())
                .flatten();
            found.push(GitEntry {
                path: e.into_path(),
                link,
            });
        }
    }
    found
}

/// What of `entries` the sandbox binds read-only: the directories and files, and the target
/// of a link when it lies inside the work tree (the work tree's bind would leave it writable).
pub fn git_read_only(work_tree: &Path, entries: &[GitEntry]) -> Vec<PathBuf> {
    let root = std::fs::canonicalize(work_tree).unwrap_or_else(|_| work_tree.to_path_buf());
    entries
        .iter()
        .filter_map(|e| match &e.link {
            None => Some(e.path.clone()),
            Some(_) => std::fs::canonicalize(&e.path)
                .ok()
                .filter(|target| target.starts_with(&root)),
        })
        .collect()
}

/// Removes the `.git` entries a build created in its work tree (anything named `.git` that
/// `before` does not list; links are removed, not followed), and puts back a `.git` link the
/// build replaced; returns them relative to the work tree. What was there before was
/// read-only to the build.
pub fn remove_planted_git(work_tree: &Path, before: &[GitEntry]) -> Vec<String> {
    let mut removed = Vec::new();
    for path in git_entries(work_tree).into_iter().map(|e| e.path) {
        let was = before.iter().find(|b| b.path == path);
        let replaced_link = was
            .and_then(|b| b.link.as_ref())
            .filter(|target| std::fs::read_link(&path).ok().as_ref() != Some(*target));
        if was.is_some() && replaced_link.is_none() {
            continue;
        }
        let gone = match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
        let restored = match replaced_link {
            Some(target) if gone.is_ok() => std::os::unix::fs::symlink(target, &path),
            _ => gone,
        };
        if restored.is_ok() {
            removed.push(
                path.strip_prefix(work_tree)
                    .unwrap_or(&path)
                    .display()
                    .to_string(),
            );
        }
    }
    removed
}

fn o<S: AsRef<OsStr> + ?Sized>(s: &S) -> OsString {
    s.as_ref().to_owned()
}

/// The bind sources in the scratch directory must exist before bwrap mounts them.
fn prepare_scratch(scratch: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(scratch.join("tmp"))?;
    std::fs::create_dir_all(scratch.join("home"))?;
    std::fs::write(
        scratch.join("passwd"),
        format!("build:x:{BUILD_ID}:{BUILD_ID}:build:{BUILD_HOME}:/bin/sh\n"),
    )?;
    std::fs::write(scratch.join("group"), format!("build:x:{BUILD_ID}:\n"))
}

/// Binds a host path at the same place, through its canonical form: a symlinked path (e.g.
/// `/opt/jdk/17 -> /usr/lib/jvm/...`) is recreated as the same symlink inside.
fn bind_path(a: &mut Vec<OsString>, how: &str, p: &Path) {
    let canonical = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    a.extend([o(how), o(&canonical), o(&canonical)]);
    if canonical != p {
        a.extend([o("--symlink"), o(&canonical), o(p)]);
    }
}

fn apply_limits(limits: &Limits) -> std::io::Result<()> {
    let set = |resource, value: u64| {
        let lim = libc::rlimit {
            rlim_cur: value as libc::rlim_t,
            rlim_max: value as libc::rlim_t,
        };
        // SAFETY: plain syscall on a valid struct.
        if unsafe { libc::setrlimit(resource, &lim) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    };
    set(libc::RLIMIT_NPROC, limits.max_processes)?;
    set(libc::RLIMIT_FSIZE, limits.max_file_bytes)?;
    set(libc::RLIMIT_DATA, limits.max_memory_bytes)?;
    set(libc::RLIMIT_CORE, 0)?;
    // No descriptor of the worker (database, sockets, the key file) survives the exec.
    // SAFETY: close_range with CLOEXEC only marks descriptors; stdio (0-2) is untouched.
    unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        )
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_access_comes_from_the_operators_maven_arguments() {
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join("settings.xml");
        std::fs::write(
            &settings,
            "<settings><localRepository> /srv/m2 </localRepository></settings>",
        )
        .unwrap();
        let args: Vec<String> = [
            "-o",
            "-s",
            settings.to_str().unwrap(),
            "--global-settings=/etc/mvn/global.xml",
            "-Dmaven.repo.local=/var/cache/m2",
            "-DskipITs",
        ]
        .map(String::from)
        .into();
        let access = HostAccess::from_operator_args(&args, Some("/cache/m2".into()));
        assert!(access.read_only.contains(&settings));
        assert!(
            access
                .read_only
                .contains(&PathBuf::from("/etc/mvn/global.xml"))
        );
        assert!(access.writable.contains(&PathBuf::from("/var/cache/m2")));
        assert!(access.writable.contains(&PathBuf::from("/srv/m2")));
        assert_eq!(access.local_repo, Some(PathBuf::from("/cache/m2")));
        assert_eq!(
            HostAccess::from_operator_args(&[], None).read_only.len(),
            0,
            "nothing is bound that the operator did not name"
        );
    }

    /// The operator's settings files are readable in the sandbox (Maven needs them), so a
    /// build can print their credentials: every one is registered for redaction, and what
    /// the build printed reaches the journal, PR and check runs masked.
    #[test]
    fn credentials_in_the_operators_settings_are_redacted() {
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join("settings.xml");
        std::fs::write(
            &settings,
            "<settings><servers><server><id>nexus</id><username>ci</username>\
             <password>Nx-9f2Q</password><passphrase>pp-77Lk</passphrase></server></servers>\
             <proxies><proxy><password>px-3Rr8</password></proxy></proxies></settings>",
        )
        .unwrap();
        let args: Vec<String> = ["-s", settings.to_str().unwrap()].map(String::from).into();
        HostAccess::from_operator_args(&args, None);
        let printed = crate::redact::redact(
            "<password>Nx-9f2Q</password> <passphrase>pp-77Lk</passphrase> px-3Rr8 user ci",
        );
        for secret in ["Nx-9f2Q", "pp-77Lk", "px-3Rr8"] {
            assert!(!printed.contains(secret), "{printed}");
        }
        assert!(printed.contains("user ci"), "{printed}");
    }

    /// A CLI user's `.git` that is a link cannot be bound read-only: a build replacing it with
    /// a repository of its own (hooks, `core.fsmonitor`) has it removed and the link put back;
    /// a link to a directory inside the work tree has that directory bound read-only.
    #[test]
    fn a_git_link_the_build_replaced_is_put_back() {
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().join("tree");
        std::fs::create_dir_all(tree.join("gitdir")).unwrap();
        std::fs::create_dir_all(tree.join("sub")).unwrap();
        std::os::unix::fs::symlink("../elsewhere/.git", tree.join(".git")).unwrap();
        std::os::unix::fs::symlink("../gitdir", tree.join("sub/.git")).unwrap();
        let before = git_entries(&tree);
        assert_eq!(before.len(), 2, "{before:?}");
        assert_eq!(
            git_read_only(&tree, &before),
            [tree.join("gitdir").canonicalize().unwrap()],
            "the link inside the tree protects its target; the one outside binds nothing"
        );
        // The build replaces the outer link with a repository of its own.
        std::fs::remove_file(tree.join(".git")).unwrap();
        std::fs::create_dir_all(tree.join(".git/hooks")).unwrap();
        std::fs::write(tree.join(".git/config"), "[core]\nfsmonitor = evil\n").unwrap();
        assert_eq!(remove_planted_git(&tree, &before), [".git"]);
        assert_eq!(
            std::fs::read_link(tree.join(".git")).unwrap(),
            PathBuf::from("../elsewhere/.git")
        );
        assert_eq!(remove_planted_git(&tree, &before), Vec::<String>::new());
    }

    #[test]
    fn symlinked_paths_are_bound_through_their_target() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("jdk-real");
        std::fs::create_dir(&real).unwrap();
        let link = dir.path().join("jdk");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let mut args = Vec::new();
        bind_path(&mut args, "--ro-bind", &link);
        let real = real.canonicalize().unwrap();
        assert_eq!(
            args,
            [
                o("--ro-bind"),
                o(&real),
                o(&real),
                o("--symlink"),
                o(&real),
                o(&link)
            ]
        );
    }
}

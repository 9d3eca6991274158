//! The build sandbox against a hostile repository (`tests/fixtures/hostile`, a git checkout
//! here): its test tries to read the worker's environment and memory, a key file and the
//! journal database, to write outside the work tree or into its `.git` (whose config and
//! hooks git runs on the host), to reach loopback services, to leave a process behind and to
//! plant a git repository of its own in the work tree, and fails with what it found. Under `uplift migrate` it must find nothing; run directly
//! on the host (the control) the same test must find the escapes, so the probe is proven.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::Ordering;

use serde_json::Value;

mod support;
use support::support_file;

struct Hostile {
    dir: tempfile::TempDir,
    project: PathBuf,
    outside: PathBuf,
    canary: String,
    sleeper: String,
    /// Stands for the app (or any loopback service): a build must not reach it.
    listener: TcpListener,
}

fn hostile() -> Hostile {
    hostile_with("")
}

/// The hostile project; `extra` adds lines to its targets file.
fn hostile_with(extra: &str) -> Hostile {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    support::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile"),
        &project,
    );
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let canary = format!("canary-{}", uuid::Uuid::new_v4().simple());
    std::fs::write(outside.join("key.pem"), format!("{canary}\n")).unwrap();
    // A checkout, as the app's clones and most CLI users' projects are.
    git2::Repository::init(&project).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    // Unique per test: the control's sleeper must not be taken for the sandbox's.
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let sleeper = format!(
        "{}",
        30_000_000 + (std::process::id() % 100_000) * 10 + NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let resources = project.join("src/test/resources");
    std::fs::create_dir_all(&resources).unwrap();
    std::fs::write(
        resources.join("hostile-targets.properties"),
        format!(
            "canary={canary}\nsleeper={sleeper}\nread.key={key}\nread.journal={journal}\n\
             write.outside={outside}\nwrite.git={git}\nplant.repository={src}\n\
             connect.app=127.0.0.1:{port}\nconnect.postgres=127.0.0.1:5432\n{extra}",
            key = outside.join("key.pem").display(),
            journal = dir.path().join("journal.db").display(),
            outside = outside.display(),
            git = project.join(".git").display(),
            src = project.join("src").display(),
            port = listener.local_addr().unwrap().port(),
        ),
    )
    .unwrap();
    Hostile {
        dir,
        project,
        outside,
        canary,
        sleeper,
        listener,
    }
}

fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().to_path_buf(), std::fs::read(e.path()).unwrap()))
        .collect()
}

/// Host processes whose command line is `sleep <seconds>`.
fn sleepers(seconds: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c == format!("sleep\0{seconds}\0").as_bytes())
        })
        .collect()
}

fn findings(project: &Path) -> String {
    std::fs::read_to_string(project.join("target/escape-findings.txt"))
        .expect("the hostile test ran and wrote its findings")
}

/// Runs `uplift migrate` on the hostile project with the canary in the worker's environment
/// (and so in its memory) and checks that the build found nothing and left nothing behind.
fn migrate_in_sandbox(h: &Hostile, settings: &str) -> Value {
    let before = snapshot(&h.outside);
    let git_before = snapshot(&h.project.join(".git"));
    let report = h.dir.path().join("report.json");
    let out = Command::new(env!("CARGO_BIN_EXE_uplift"))
        .arg("--db")
        .arg(h.dir.path().join("journal.db"))
        .arg("migrate")
        .arg(&h.project)
        .args(["--config", &support_file("offline.yml")])
        .args([
            "--maven-arg=-s".to_string(),
            format!("--maven-arg={settings}"),
            "--maven-arg=-DforkCount=0".to_string(),
        ])
        .arg("--report-json")
        .arg(&report)
        .env("HOSTILE_CANARY", &h.canary)
        .env("XDG_CACHE_HOME", h.dir.path().join("cache"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(findings(&h.project), "", "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("Builds: sandboxed (bubblewrap"), "{stderr}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    for side in ["before", "after"] {
        let tests = report["tests"][side].as_object().unwrap();
        for method in ["cannotEscape", "proxyLetsOnly"] {
            let (_, status) = tests
                .iter()
                .find(|(k, _)| k.contains(method))
                .unwrap_or_else(|| panic!("no {method} {side}: {tests:?}"));
            assert_eq!(status, "passed", "{method} {side}");
        }
    }
    assert_eq!(
        snapshot(&h.outside),
        before,
        "nothing outside the work tree changes"
    );
    assert_eq!(
        snapshot(&h.project.join(".git")),
        git_before,
        "the work tree's git directory is the same"
    );
    assert!(
        !h.project.join("src/.git").exists(),
        "the repository the build planted is gone"
    );
    // Every build (baseline, validation) planted it and had it removed, as its record says.
    let builds: Vec<&Value> = report["entries"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| [&e["result"]["run"], &e["result"]["build"]["run"]])
        .filter(|run| run.is_object())
        .collect();
    assert!(builds.len() >= 2, "{report}");
    for run in builds {
        assert_eq!(run["git_removed"], serde_json::json!(["src/.git"]), "{run}");
    }
    assert!(
        h.listener.accept().is_err(),
        "no connection reached the host's loopback"
    );
    assert_eq!(
        sleepers(&h.sleeper),
        Vec::<u32>::new(),
        "no process outlives the build"
    );
    report
}

#[test]
fn a_hostile_build_finds_nothing_inside_the_sandbox() {
    let h = hostile();
    migrate_in_sandbox(&h, &support_file("maven-settings-offline.xml"));
}

/// `--dry-run` writes nothing, but it still builds the untouched project (the baseline):
/// that build runs the repository's code, in the sandbox like every other.
#[test]
fn a_dry_run_builds_in_the_sandbox_too() {
    let h = hostile();
    let out = Command::new(env!("CARGO_BIN_EXE_uplift"))
        .arg("--db")
        .arg(h.dir.path().join("journal.db"))
        .arg("migrate")
        .arg(&h.project)
        .arg("--dry-run")
        .args(["--config", &support_file("offline.yml")])
        .args([
            "--maven-arg=-s".to_string(),
            format!("--maven-arg={}", support_file("maven-settings-offline.xml")),
            "--maven-arg=-DforkCount=0".to_string(),
        ])
        .env("HOSTILE_CANARY", &h.canary)
        .env("XDG_CACHE_HOME", h.dir.path().join("cache"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Builds: sandboxed (bubblewrap"), "{stderr}");
    assert_eq!(findings(&h.project), "", "{stderr}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("+import org.junit.jupiter.api.Test;"),
        "the dry run still prints its diff"
    );
}

/// Online, the build reaches the repository the operator's settings name, through the
/// egress proxy, and nothing else; what was refused is in the journal.
#[test]
fn an_online_build_reaches_only_the_operators_repository() {
    let repository = TcpListener::bind("127.0.0.1:0").unwrap();
    let allowed = repository.local_addr().unwrap();
    std::thread::spawn(move || {
        for mut s in repository.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let _ = s.write_all(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok");
        }
    });
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    let denied = format!("http://{}/exfiltrate", other.local_addr().unwrap());
    let h = hostile_with(&format!(
        "fetch.allowed=http://{allowed}/junit/junit/maven-metadata.xml\nfetch.denied={denied}\n"
    ));
    // Not offline: Maven may download, but only from this mirror (everything it needs is
    // already in Debian's local repository).
    let settings = h.dir.path().join("online-settings.xml");
    std::fs::write(
        &settings,
        format!(
            "<settings><localRepository>/usr/share/maven-repo</localRepository><mirrors>\
             <mirror><id>operator</id><mirrorOf>*</mirrorOf><url>http://{allowed}/</url></mirror>\
             </mirrors></settings>"
        ),
    )
    .unwrap();
    let report = migrate_in_sandbox(&h, settings.to_str().unwrap());
    let text = report.to_string();
    assert!(
        text.contains("network only to the operator's Maven repositories"),
        "{text}"
    );
    assert!(
        text.contains(&format!("\"egress_refused\":[\"{denied}\"]")),
        "{text}"
    );
}

/// The control: the same test run by Maven directly on the host, under a parent that holds
/// the canary, finds each kind of escape; so an empty list above means the sandbox held.
#[test]
fn the_same_build_escapes_on_the_host() {
    let h = hostile();
    let settings = support_file("maven-settings-offline.xml");
    let status = Command::new("sh")
        .arg("-c")
        // `; true` keeps sh alive as the JVM's parent, with the canary in its environment.
        .arg(format!(
            "mvn -B -q -s {settings} -DforkCount=0 -Dmaven.test.failure.ignore=true test; true"
        ))
        .current_dir(&h.project)
        .env("HOSTILE_CANARY", &h.canary)
        .output()
        .unwrap();
    let found = findings(&h.project);
    for pid in sleepers(&h.sleeper) {
        // The escape the sandbox prevents, cleaned up here.
        let _ = Command::new("kill").arg(pid.to_string()).status();
    }
    let log = String::from_utf8_lossy(&status.stdout);
    let wrote_git = format!(
        "wrote {}",
        h.project.join(".git/planted-by-hostile-test").display()
    );
    for kind in [
        "holds the canary",
        "read ",
        "wrote ",
        &wrote_git,
        "connected to 127.0.0.1",
    ] {
        assert!(found.contains(kind), "{kind} not found in: {found}\n{log}");
    }
    assert!(h.project.join("src/.git/config").is_file(), "{found}");
}

/// bubblewrap builds the sandbox's `/` and `/dev` on tmpfs owned by the build's user: left
/// writable, a build could park gigabytes in memory there (beside the work tree's parents,
/// where no disk budget looks) and `/dev/shm`. Only the work tree and `/tmp` take writes.
#[tokio::test]
async fn only_the_work_tree_and_tmp_are_writable() {
    use uplift::build::sandbox::{HostAccess, Limits, Network, Sandbox, Spec};
    let sandbox = Sandbox::detect(Limits::default()).expect("bubblewrap works here");
    // Outside the host's /tmp, as the app's work directory is: the tree's parents are then
    // made by bubblewrap on its own root.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let tree = dir.path().join("work/job/tree");
    let scratch = dir.path().join("scratch");
    std::fs::create_dir_all(&tree).unwrap();
    let parent = tree.parent().unwrap().display().to_string();
    let script = format!(
        "for d in / /dev /dev/shm /etc /usr {parent} /tmp .; do \
           if echo x > $d/probe 2>/dev/null; then echo \"writable $d\"; fi; done; \
         echo x > /dev/null && echo null-ok"
    );
    let args = ["-c".to_string(), script];
    let spec = Spec {
        work_tree: &tree,
        read_only_inside: &[],
        scratch: &scratch,
        read_only: Vec::new(),
        access: &HostAccess::default(),
        network: Network::None,
        program: Path::new("/bin/sh"),
        args: &args,
        env: Vec::new(),
    };
    let out = sandbox.command(&spec).unwrap().output().await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        ["writable /tmp", "writable .", "null-ok"],
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

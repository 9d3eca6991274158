//! Builds are batch work: Maven runs at a lower CPU priority than the process that starts
//! it (the webhook edge and the worker), so a migration never starves webhook intake. A
//! stand-in `mvn` on PATH reports the niceness it was started with. (A file of its own: it
//! sets PATH for the whole test process.)

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use uplift::build::jdk::Jdk;
use uplift::build::maven::{self, MavenRequest};

#[tokio::test]
async fn maven_runs_below_the_priority_of_the_process_that_starts_it() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let mvn = bin.join("mvn");
    std::fs::write(&mvn, "#!/bin/sh\necho \"[INFO] niceness $(nice)\"\n").unwrap();
    std::fs::set_permissions(&mvn, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // SAFETY: this test binary has this one test; nothing else reads the environment now.
    unsafe { std::env::set_var("PATH", path) };
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let jdk = Jdk {
        release: 17,
        home: dir.path().to_path_buf(),
    };
    let run = maven::run(MavenRequest {
        root: &project,
        jdk: &jdk,
        goals: &["test"],
        user_args: &[],
        properties: Vec::new(),
        timeout: Duration::from_secs(30),
        max_output_bytes: 1 << 20,
        disk: &uplift::build::disk::Budget {
            roots: vec![project.clone()],
            held_before: 0,
            bytes: 1 << 30,
        },
        isolation: None,
    })
    .await
    .unwrap();
    // SAFETY: getpriority takes no pointers.
    let own = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    let expected = (own + uplift::build::BATCH_NICENESS).min(19);
    let line = format!("[INFO] niceness {expected}");
    assert!(run.tail.contains(&line), "{line} not in {:?}", run.tail);
}

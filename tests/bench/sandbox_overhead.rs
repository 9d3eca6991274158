//! What the build sandbox costs per build: the same short command (`java -version` on the
//! JDK builds use, then `/bin/true`) run directly and through `Sandbox::command`, each
//! repeated; prints the median and p90 of both and their difference. Target: < 300 ms.
//! Run: `cargo bench --bench sandbox_overhead`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use uplift::build::sandbox::{HostAccess, Limits, Network, Sandbox, Spec};

const RUNS: usize = 20;

fn percentile(mut xs: Vec<Duration>, p: f64) -> Duration {
    xs.sort();
    xs[((xs.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let sandbox = Sandbox::detect(Limits::default()).expect("bubblewrap works here");
    let java_home = std::env::var_os("JAVA_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/jvm/java-17-openjdk-amd64"));
    let java = java_home.join("bin/java");
    let work = tempfile::tempdir().unwrap();
    let access = HostAccess::default();
    for (name, program, args) in [
        (
            "java -version",
            java.as_path(),
            vec!["-version".to_string()],
        ),
        ("/bin/true", Path::new("/bin/true"), Vec::new()),
    ] {
        let mut direct = Vec::new();
        let mut boxed = Vec::new();
        for _ in 0..RUNS {
            let t = Instant::now();
            let ok = std::process::Command::new(program)
                .args(&args)
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok);
            direct.push(t.elapsed());
            let scratch = tempfile::tempdir().unwrap();
            let t = Instant::now();
            let out = rt.block_on(async {
                sandbox
                    .command(&Spec {
                        work_tree: work.path(),
                        read_only_inside: &[],
                        scratch: scratch.path(),
                        read_only: vec![java_home.clone()],
                        access: &access,
                        network: Network::None,
                        program,
                        args: &args,
                        env: Vec::new(),
                    })
                    .unwrap()
                    .output()
                    .await
                    .unwrap()
            });
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            boxed.push(t.elapsed());
        }
        let (d50, b50) = (
            percentile(direct.clone(), 0.5),
            percentile(boxed.clone(), 0.5),
        );
        println!(
            "{name:>14}: direct p50 {:>7.1} ms p90 {:>7.1} ms | sandboxed p50 {:>7.1} ms p90 {:>7.1} ms | overhead p50 {:>6.1} ms",
            d50.as_secs_f64() * 1e3,
            percentile(direct, 0.9).as_secs_f64() * 1e3,
            b50.as_secs_f64() * 1e3,
            percentile(boxed, 0.9).as_secs_f64() * 1e3,
            (b50.as_secs_f64() - d50.as_secs_f64()) * 1e3,
        );
    }
}

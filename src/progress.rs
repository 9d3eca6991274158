//! Watching a run: the [`Observer`] the pipeline reports to, and [`Progress`], its terminal
//! rendering (stage, task n/m, elapsed; silent when not a terminal).

use std::io::{IsTerminal, Write};
use std::time::Instant;

use crate::journal::Journal;

pub trait Observer: Send {
    fn stage(&mut self, stage: &'static str);
    fn task(&mut self, n: usize, total: usize);
    /// The rewrite is on disk and validation comes next. The GitHub App commits and pushes
    /// here, so its checks sit on the very commit being validated. An error stops the run.
    fn written(&mut self, _journal: &Journal) -> impl Future<Output = anyhow::Result<()>> + Send {
        async { Ok(()) }
    }
    fn finish(&mut self) {}
}

pub struct Progress {
    enabled: bool,
    started: Instant,
    stage: &'static str,
}

impl Progress {
    pub fn new(enabled: bool) -> Self {
        Self {
            enabled: enabled && std::io::stderr().is_terminal(),
            started: Instant::now(),
            stage: "",
        }
    }

    fn draw(&self, detail: &str) {
        if self.enabled {
            let mut err = std::io::stderr().lock();
            let _ = write!(
                err,
                "\r\x1b[2K[{:>8}]{detail}  {:.1}s",
                self.stage,
                self.started.elapsed().as_secs_f64()
            );
            let _ = err.flush();
        }
    }
}

impl Observer for Progress {
    fn stage(&mut self, stage: &'static str) {
        self.stage = stage;
        self.draw("");
    }

    fn task(&mut self, n: usize, total: usize) {
        self.draw(&format!(" task {n}/{total}"));
    }

    fn finish(&mut self) {
        if self.enabled {
            let _ = writeln!(std::io::stderr());
        }
    }
}

//! Live progress on a terminal: stage, task n/m, elapsed. Silent when not a terminal.

use std::io::{IsTerminal, Write};
use std::time::Instant;

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

    pub fn stage(&mut self, stage: &'static str) {
        self.stage = stage;
        self.draw("");
    }

    pub fn task(&mut self, n: usize, total: usize) {
        self.draw(&format!(" task {n}/{total}"));
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

    pub fn finish(&self) {
        if self.enabled {
            let _ = writeln!(std::io::stderr());
        }
    }
}

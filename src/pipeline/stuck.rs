//! Signature-based stuck detection for the fix loop. An action is (what was tried, a hash
//! of its argument, the category of its result). The same failing action three times
//! within the last ten is stuck; five actions without progress is stuck; progress clears
//! both. Repeating an action with different arguments is healthy, not stuck.

use std::collections::VecDeque;

use serde::Serialize;

const WINDOW: usize = 10;
const SAME_FAILURES: usize = 3;
const NO_PROGRESS: usize = 5;

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Action {
    pub kind: String,
    pub argument_hash: u64,
    pub result: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stuck {
    /// The same failing action kept coming back.
    Repeating,
    /// Nothing improved for too long.
    NoProgress,
}

/// The escalation ladder once stuck: a different approach, then rewriting the whole
/// section, then skipping the task (marked SKIPPED with its reason), then a human.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Escalation {
    DifferentApproach,
    RewriteSection,
    SkipTask,
    Human,
}

#[derive(Debug, Default)]
pub struct Detector {
    recent: VecDeque<Action>,
    since_progress: usize,
    escalations: usize,
}

impl Detector {
    /// Records an action and whether it made progress; returns whether the loop is stuck.
    pub fn record(&mut self, action: Action, progress: bool) -> Option<Stuck> {
        if progress {
            self.recent.clear();
            self.since_progress = 0;
            return None;
        }
        self.since_progress += 1;
        self.recent.push_back(action.clone());
        if self.recent.len() > WINDOW {
            self.recent.pop_front();
        }
        let repeats = self.recent.iter().filter(|a| **a == action).count();
        if repeats >= SAME_FAILURES {
            Some(Stuck::Repeating)
        } else if self.since_progress >= NO_PROGRESS {
            Some(Stuck::NoProgress)
        } else {
            None
        }
    }

    /// The next rung of the ladder (each call climbs one); the detector starts afresh.
    pub fn escalate(&mut self) -> Escalation {
        self.escalations += 1;
        self.recent.clear();
        self.since_progress = 0;
        match self.escalations {
            1 => Escalation::DifferentApproach,
            2 => Escalation::RewriteSection,
            3 => Escalation::SkipTask,
            _ => Escalation::Human,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn act(arg: u64) -> Action {
        Action {
            kind: "llm_fix".into(),
            argument_hash: arg,
            result: "compile".into(),
        }
    }

    #[test]
    fn the_third_identical_failure_is_stuck() {
        let mut d = Detector::default();
        assert_eq!(d.record(act(1), false), None);
        assert_eq!(d.record(act(1), false), None);
        assert_eq!(d.record(act(1), false), Some(Stuck::Repeating));
    }

    #[test]
    fn different_arguments_are_healthy_until_five_without_progress() {
        let mut d = Detector::default();
        for i in 0..4 {
            assert_eq!(d.record(act(i), false), None, "attempt {i}");
        }
        assert_eq!(d.record(act(4), false), Some(Stuck::NoProgress));
    }

    #[test]
    fn progress_clears_both_and_escalation_climbs() {
        let mut d = Detector::default();
        d.record(act(1), false);
        d.record(act(1), false);
        assert_eq!(d.record(act(9), true), None);
        assert_eq!(d.record(act(1), false), None, "history cleared by progress");
        assert_eq!(d.escalate(), Escalation::DifferentApproach);
        assert_eq!(d.escalate(), Escalation::RewriteSection);
        assert_eq!(d.escalate(), Escalation::SkipTask);
        assert_eq!(d.escalate(), Escalation::Human);
    }
}

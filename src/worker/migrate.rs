//! One migration job: clone, run the engine, commit and push the branch, open, update, close
//! or reopen the PR, and keep the status comment and both check runs current. Restart-safe:
//! what was already published (comment, pushed commit, PR, check runs) is kept in the job's
//! checkpoint and reused, and an identical tree is never pushed again.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use tokio::sync::{Mutex, mpsc, watch};

use super::{Context, Ended, MigrateRequest};
use crate::build::sandbox::{HostAccess, Isolation};
use crate::config::{Config, REPO_CONFIG_PATH};
use crate::github::api::RepoApi;
use crate::github::client::ApiError;
use crate::github::render::{self, INVARIANCE_CHECK, MIGRATION_CHECK, Phase, RunContext};
use crate::journal::Journal;
use crate::pipeline::{self, RunOptions};
use crate::progress::Observer;
use crate::repo_path::{Gate, Origin};
use crate::store::jobs::{FinalState, JobRow};
use crate::workspace::{self, Author, RemoteBranch};

/// What this job already published, so a restarted attempt reuses it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Checkpoint {
    status_comment: Option<u64>,
    pushed: Option<String>,
    pr: Option<u64>,
    pr_url: Option<String>,
    /// (migration, invariance) check run ids and the commit they are on.
    checks: Option<(u64, u64, String)>,
    /// The engine run of the latest attempt and the commit it started from: a later
    /// attempt on the same commit resumes from its journal.
    run: Option<(String, String)>,
}

/// The engine run of a migration job: the one its result names once it finished, or,
/// while it runs, the one its latest attempt started (its journal is what the PR shows as
/// soon as that run has published, before the job records its end).
pub fn engine_run(job: &JobRow) -> Option<String> {
    if job.state == "running" {
        let checkpoint: Checkpoint = serde_json::from_value(job.checkpoint.clone()).ok()?;
        return checkpoint.run.map(|(id, _)| id);
    }
    job.result
        .as_deref()?
        .split(" run ")
        .nth(1)
        .map(str::to_string)
}

/// The job's publishing state, shared by the observer and the job.
struct Publisher {
    ctx: Context,
    api: RepoApi,
    job_id: String,
    request: MigrateRequest,
    run: RunContext,
    /// The repository's default branch, which the PR targets.
    base_branch: String,
    /// Where the repository was cloned from: the only URL pushed to.
    clone_url: String,
    checkpoint: Checkpoint,
    started: Instant,
    /// Looked up at the first publish when no PR is open: the PR the app closed because an
    /// earlier run kept nothing, if it can be reopened.
    parked: Option<Option<crate::github::api::PullRequest>>,
    /// A commit not pushed yet (see [`Publisher::publish`]).
    pending: Option<git2::Oid>,
    /// Whether the PR in the checkpoint is open.
    pr_open: bool,
    /// The migration branch when the job started.
    start: RemoteBranch,
}

impl Publisher {
    async fn save(&self) -> anyhow::Result<()> {
        self.ctx
            .store
            .save_checkpoint(&self.job_id, &serde_json::to_value(&self.checkpoint)?)
            .await
    }

    /// Writes the status comment (created once, then edited in place).
    async fn status(&mut self, phase: &Phase, journal: Option<&Journal>) -> anyhow::Result<()> {
        let Some(issue) = self.request.issue else {
            return Ok(());
        };
        let body = render::status_comment(
            &self.job_id,
            self.run.target,
            &self.run.slug,
            phase,
            journal,
        );
        if self.checkpoint.status_comment.is_none() {
            self.checkpoint.status_comment = self
                .api
                .find_comment(issue, &render::status_marker(&self.job_id))
                .await?;
        }
        match self.checkpoint.status_comment {
            Some(id) => self.api.edit_comment(id, &body).await?,
            None => {
                self.checkpoint.status_comment = Some(self.api.comment(issue, &body).await?);
                self.save().await?;
            }
        }
        Ok(())
    }

    async fn stage(&mut self, stage: &str) -> anyhow::Result<()> {
        let elapsed_secs = self.started.elapsed().as_secs();
        self.status(
            &Phase::Running {
                stage: stage.into(),
                elapsed_secs,
            },
            None,
        )
        .await?;
        if let Some((m, i, _)) = self.checkpoint.checks.clone() {
            for (id, name) in [(m, MIGRATION_CHECK), (i, INVARIANCE_CHECK)] {
                let run = render::check_in_progress(name, &self.run, None, stage, elapsed_secs);
                self.api.update_check(id, &run).await?;
            }
        }
        Ok(())
    }

    /// Commit, push (unless the same tree is already there), open or update the PR and put
    /// the two check runs on the new head: what a first run does, so that its PR shows the
    /// validation. When the branch was already there when the job started, or its PR is one
    /// the app closed because nothing could be kept, or this commit keeps nothing and no PR is
    /// open, the commit waits for [`Publisher::finish`] instead and the checks run on the
    /// branch's current head: a run whose result has the branch's tree pushes nothing, a PR
    /// sees no intermediate (fix-loop, rolled-back) commit, and a closed one is reopened only
    /// for a result that keeps something.
    async fn publish(
        &mut self,
        workdir: &Path,
        journal: &Journal,
        force: bool,
    ) -> anyhow::Result<()> {
        let author = Author::for_app(&self.run.slug);
        let message = commit_message(journal, self.run.target);
        let files = journal.written_files().unwrap_or_default();
        let files = files.as_slice();
        let repo = git2::Repository::open(workdir)?;
        let Some(commit) = tokio::task::block_in_place(|| {
            workspace::commit_files(&repo, files, &message, &author)
        })?
        else {
            return Ok(());
        };
        let remote = workspace::remote_branch(
            &repo,
            &self.run.branch,
            repo.find_commit(commit)?.parent_id(0)?,
            &author,
        )?;
        let open = self.api.open_pull(&self.run.branch).await?;
        if open.is_none() && self.parked.is_none() {
            self.parked = Some(self.closed_by_app(&remote).await?);
        }
        let parked = self.parked.clone().flatten().filter(|_| open.is_none());
        let existing = matches!(self.start, RemoteBranch::Ours { .. });
        if existing || parked.is_some() || (open.is_none() && journal.restored_all()) {
            self.pending = Some(commit);
            self.pr_open = open.is_some();
            if let Some(pr) = open.or(parked) {
                self.checkpoint.pr = Some(pr.number);
                self.checkpoint.pr_url = Some(pr.html_url.clone());
            }
            if let RemoteBranch::Ours { head } | RemoteBranch::Edited { head, .. } = remote {
                self.put_checks(&head.to_string()).await?;
            }
            self.save().await?;
            return self.stage("validate").await;
        }
        let head = self.push(&repo, commit, &remote, force)?;
        self.checkpoint.pushed = Some(head.clone());
        self.save().await?;
        let body = render::pr_body(journal, &self.run);
        let title = render::pr_title(self.run.target);
        let pr = match open {
            Some(pr) => {
                self.api.update_pull(pr.number, &title, &body).await?;
                pr
            }
            None => {
                self.api
                    .create_pull(&title, &self.run.branch, &self.base_branch, &body)
                    .await?
            }
        };
        self.checkpoint.pr = Some(pr.number);
        self.checkpoint.pr_url = Some(pr.html_url.clone());
        self.pr_open = true;
        self.put_checks(&head).await?;
        self.save().await?;
        self.stage("validate").await
    }

    /// Pushes `commit` unless the branch already holds the same tree; returns the head.
    fn push(
        &self,
        repo: &git2::Repository,
        commit: git2::Oid,
        remote: &RemoteBranch,
        force: bool,
    ) -> anyhow::Result<String> {
        Ok(match remote {
            RemoteBranch::Ours { head } if workspace::same_tree(repo, *head, commit)? => *head,
            _ => {
                let token = self.api.token.clone();
                tokio::task::block_in_place(|| {
                    workspace::push(
                        repo,
                        &self.clone_url,
                        &token,
                        &self.run.branch,
                        commit,
                        force || *remote != RemoteBranch::Absent,
                    )
                })?;
                commit
            }
        }
        .to_string())
    }

    /// The PR the app closed on an earlier run because nothing could be kept, while it can be
    /// reopened: unmerged, and its branch still at the commit it was closed with.
    async fn closed_by_app(
        &self,
        remote: &RemoteBranch,
    ) -> anyhow::Result<Option<crate::github::api::PullRequest>> {
        let RemoteBranch::Ours { head } = remote else {
            return Ok(None);
        };
        let pr = self.api.closed_pull(&self.run.branch).await?;
        Ok(pr.filter(|pr| {
            pr.merged_at.is_none()
                && pr.head.sha == head.to_string()
                && pr
                    .body
                    .as_deref()
                    .is_some_and(|b| b.contains(render::CLOSED_MARKER))
        }))
    }

    /// Both check runs on `head`, created anew when the head changed (the old ones end
    /// neutral, not pending).
    async fn put_checks(&mut self, head: &str) -> anyhow::Result<()> {
        if self.checkpoint.checks.as_ref().is_some_and(|c| c.2 == head) {
            return Ok(());
        }
        if let Some((m, i, _)) = self.checkpoint.checks.clone() {
            for (id, name) in [(m, MIGRATION_CHECK), (i, INVARIANCE_CHECK)] {
                let done = render::check_superseded(name, &self.run, head);
                self.api.update_check(id, &done).await?;
            }
        }
        let mut ids = Vec::new();
        for name in [MIGRATION_CHECK, INVARIANCE_CHECK] {
            let mut run = render::check_in_progress(name, &self.run, Some(head), "queued", 0);
            run.status = crate::github::api::CheckStatus::Queued;
            ids.push(self.api.create_check(&run).await?);
        }
        self.checkpoint.checks = Some((ids[0], ids[1], head.to_string()));
        Ok(())
    }

    /// The commit that waited in [`Publisher::publish`], published now: the PR the app closed
    /// is reopened first for a result that keeps something (GitHub never reopens a PR whose
    /// branch was force-pushed while it was closed), then the commit is pushed unless the
    /// branch holds its tree, a PR is opened if there is none, and the checks move to the head.
    async fn publish_pending(&mut self, workdir: &Path, journal: &Journal) -> anyhow::Result<()> {
        let Some(commit) = self.pending.take() else {
            return Ok(());
        };
        let repo = git2::Repository::open(workdir)?;
        let author = Author::for_app(&self.run.slug);
        let remote = workspace::remote_branch(
            &repo,
            &self.run.branch,
            repo.find_commit(commit)?.parent_id(0)?,
            &author,
        )?;
        if !self.pr_open
            && let Some(pr) = self.parked.clone().flatten()
        {
            match self.api.set_pull_state(pr.number, "open").await {
                Ok(()) => self.pr_open = true,
                // Someone moved the branch or opened another PR meanwhile: a new PR instead.
                Err(ApiError::Status { status: 422, .. }) => {}
                Err(e) => return Err(e.into()),
            }
        }
        let head = self.push(&repo, commit, &remote, false)?;
        self.checkpoint.pushed = Some(head.clone());
        if !self.pr_open {
            let pr = self
                .api
                .create_pull(
                    &render::pr_title(self.run.target),
                    &self.run.branch,
                    &self.base_branch,
                    &render::pr_body(journal, &self.run),
                )
                .await?;
            self.checkpoint.pr = Some(pr.number);
            self.checkpoint.pr_url = Some(pr.html_url);
            self.pr_open = true;
        }
        self.put_checks(&head).await?;
        self.save().await
    }

    /// Final PR body, completed checks and the final status comment. A waiting commit is
    /// published if it keeps something, or if it is the restore an open PR needs; an open PR
    /// whose run kept nothing is then closed, its body saying why.
    async fn finish(&mut self, workdir: &Path, journal: &Journal) -> anyhow::Result<()> {
        let restored = journal.restored_all();
        if restored && self.pr_open {
            // Closed by someone else meanwhile: theirs to explain, and never reopened.
            let open = self.api.open_pull(&self.run.branch).await?;
            self.pr_open = open.is_some_and(|p| Some(p.number) == self.checkpoint.pr);
        }
        if !restored || self.pr_open {
            self.publish_pending(workdir, journal).await?;
        }
        if let Some(number) = self.checkpoint.pr {
            let parked = self.parked.iter().flatten().any(|p| p.number == number);
            if !restored || self.pr_open || parked {
                let body = render::pr_body(journal, &self.run);
                self.api
                    .update_pull(number, &render::pr_title(self.run.target), &body)
                    .await?;
            }
            if restored && self.pr_open {
                self.api.set_pull_state(number, "closed").await?;
                self.pr_open = false;
            }
        }
        if let Some((m, i, _)) = self.checkpoint.checks.clone() {
            let details = self.checkpoint.pr_url.clone().unwrap_or_default();
            let (migration, invariance) = render::checks_completed(journal, &self.run, &details);
            self.api.update_check(m, &migration).await?;
            self.api.update_check(i, &invariance).await?;
        }
        let phase = Phase::Finished {
            pr_url: self.checkpoint.pr_url.clone(),
        };
        self.status(&phase, Some(journal)).await
    }
}

fn commit_message(journal: &Journal, target: u32) -> String {
    let mut msg = format!("Migrate to Java {target}: recipe tier\n\n");
    for r in journal
        .latest_task_records()
        .filter(|r| r.status == crate::journal::TaskStatus::Done)
    {
        let title = journal
            .tasks()
            .iter()
            .find(|t| t.id == r.task_id)
            .map_or(r.task_id.as_str(), |t| t.title.as_str());
        msg.push_str(&format!("- {title}\n"));
    }
    msg.push_str(&format!("\nUplift-Run: {}\n", journal.run_id));
    msg
}

/// Reports stages through a channel (the pipeline's callbacks are synchronous) and publishes
/// when the rewrite is on disk.
struct AppObserver {
    publisher: Arc<Mutex<Publisher>>,
    stages: mpsc::UnboundedSender<&'static str>,
    workdir: PathBuf,
    force: bool,
}

impl Observer for AppObserver {
    fn stage(&mut self, stage: &'static str) {
        let _ = self.stages.send(stage);
    }
    fn task(&mut self, _n: usize, _total: usize) {}
    async fn written(&mut self, journal: &Journal) -> anyhow::Result<()> {
        self.publisher
            .lock()
            .await
            .publish(&self.workdir, journal, self.force)
            .await
    }
}

pub async fn run(
    ctx: &Context,
    job: &JobRow,
    mut cancel: watch::Receiver<bool>,
) -> anyhow::Result<Ended> {
    let request: MigrateRequest = serde_json::from_value(job.payload.clone())?;
    let api = ctx.github.repo(job.installation_id, &job.repo).await?;
    if let Some(comment) = request.comment_id {
        api.react(comment, "rocket").await?;
    }
    let info = api.info().await?;
    let workdir = ctx.settings.work_dir.join(&job.id);
    if workdir.exists() {
        // A previous attempt died here: start from a clean clone.
        std::fs::remove_dir_all(&workdir)
            .with_context(|| format!("cannot clear {}", workdir.display()))?;
    }
    std::fs::create_dir_all(&ctx.settings.work_dir)?;
    let branch = workspace::branch_for(request.target);
    let author = Author::for_app(&ctx.github.slug);
    // git2 handles are not Sync: everything git needs before the run happens here.
    let (base, remote) = tokio::task::block_in_place(|| -> anyhow::Result<_> {
        let repo = workspace::clone(&info.clone_url, &api.token, &workdir)?;
        let base = workspace::head_sha(&repo)?;
        Ok((
            base,
            workspace::remote_branch(&repo, &branch, base, &author)?,
        ))
    })?;
    let run_ctx = RunContext {
        repo: job.repo.clone(),
        slug: ctx.github.slug.clone(),
        target: request.target,
        base_sha: base.to_string(),
        job_id: job.id.clone(),
        branch: branch.clone(),
    };
    let checkpoint: Checkpoint = serde_json::from_value(job.checkpoint.clone()).unwrap_or_default();
    let publisher = Arc::new(Mutex::new(Publisher {
        ctx: ctx.clone(),
        api,
        job_id: job.id.clone(),
        request: request.clone(),
        run: run_ctx,
        base_branch: info.default_branch.clone(),
        clone_url: info.clone_url.clone(),
        checkpoint,
        started: Instant::now(),
        parked: None,
        pending: None,
        pr_open: false,
        start: remote.clone(),
    }));
    let result = migrate(
        ctx,
        &publisher,
        remote,
        &workdir,
        &request,
        job.installation_id,
        &mut cancel,
    )
    .await;
    let _ = std::fs::remove_dir_all(&workdir);
    match result {
        Ok(ended) => Ok(ended),
        Err(e) if job.attempts < job.max_attempts => Err(e),
        Err(e) => {
            // Last attempt: tell the user instead of failing silently.
            let error = format!("{e:#}");
            let mut p = publisher.lock().await;
            p.status(
                &Phase::Failed {
                    error: error.clone(),
                },
                None,
            )
            .await?;
            Ok(Ended::Finished(FinalState::Failed, error))
        }
    }
}

async fn migrate(
    ctx: &Context,
    publisher: &Arc<Mutex<Publisher>>,
    remote: RemoteBranch,
    workdir: &Path,
    request: &MigrateRequest,
    installation_id: i64,
    cancel: &mut watch::Receiver<bool>,
) -> anyhow::Result<Ended> {
    if !request.dry_run
        && let RemoteBranch::Edited { foreign, .. } = remote
        && !request.recreate
    {
        publisher
            .lock()
            .await
            .status(&Phase::BranchEdited { foreign }, None)
            .await?;
        return Ok(Ended::Finished(
            FinalState::Done,
            "branch edited by others; nothing pushed".into(),
        ));
    }
    // Through the repository gate: a link planted there would quote a server file.
    let read = Gate::new(workdir, Origin::Repository).read_to_string(Path::new(REPO_CONFIG_PATH));
    let parsed = match read {
        Ok(text) => Config::parse(&text)
            .and_then(|c| c.validate().map(|_| c))
            .map_err(|e| format!("`{REPO_CONFIG_PATH}` is invalid: {e:#}")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
        Err(e) => Err(format!("`{REPO_CONFIG_PATH}` is not read: {e}")),
    };
    let mut config = match parsed {
        Ok(c) => c,
        Err(error) => {
            publisher
                .lock()
                .await
                .status(
                    &Phase::Failed {
                        error: error.clone(),
                    },
                    None,
                )
                .await?;
            return Ok(Ended::Finished(FinalState::Failed, error));
        }
    };
    config.target = request.target;
    let notices = config.drop_operator_settings().into_iter().collect();
    let day_ago = crate::store::now_ms() - 24 * 3600 * 1000;
    let spent_today = ctx.store.spend_since(installation_id, day_ago).await?;
    let config = ctx.settings.govern(config, spent_today);
    let (repo, resume, run_id) = {
        let mut p = publisher.lock().await;
        let base = p.run.base_sha.clone();
        let resume = p
            .checkpoint
            .run
            .take()
            .filter(|(_, at)| *at == base)
            .map(|(id, _)| id);
        let run_id = uuid::Uuid::new_v4().to_string();
        p.checkpoint.run = Some((run_id.clone(), base));
        p.save().await?;
        (p.run.repo.clone(), resume, run_id)
    };
    let opts = RunOptions {
        root: workdir.to_path_buf(),
        config,
        build: !request.plan_only,
        dry_run: request.dry_run,
        isolation: ctx.sandbox.clone().map(|sandbox| Isolation {
            sandbox,
            // One Maven repository per repository: a build cannot plant artifacts another
            // repository's build would use.
            access: HostAccess::from_operator_args(
                &ctx.settings.maven_args,
                Some(
                    ctx.settings
                        .work_dir
                        .join("m2")
                        .join(repo.replace('/', "__")),
                ),
            ),
        }),
        notices,
        // A human accepts the app's work by merging its PR; learning waits for that.
        learn_on_success: false,
        run_id: Some(run_id),
        resume,
        replay: None,
    };
    let (stages_tx, mut stages_rx) = mpsc::unbounded_channel();
    let reporter = {
        let publisher = publisher.clone();
        tokio::spawn(async move {
            while let Some(stage) = stages_rx.recv().await {
                if let Err(e) = publisher.lock().await.stage(stage).await {
                    tracing::warn!(error = %e, "cannot report progress");
                }
            }
        })
    };
    let mut observer = AppObserver {
        publisher: publisher.clone(),
        stages: stages_tx,
        workdir: workdir.to_path_buf(),
        force: request.recreate,
    };
    let journal = tokio::select! {
        j = pipeline::run(&opts, &ctx.store, &mut observer) => Some(j?),
        _ = cancel.wait_for(|c| *c) => None,
    };
    drop(observer);
    let _ = reporter.await;
    let mut p = publisher.lock().await;
    let Some(journal) = journal else {
        p.status(&Phase::Cancelled, None).await?;
        if let Some((m, i, _)) = p.checkpoint.checks.clone() {
            for (id, name) in [(m, MIGRATION_CHECK), (i, INVARIANCE_CHECK)] {
                let mut run = render::check_in_progress(name, &p.run, None, "cancelled", 0);
                run.status = crate::github::api::CheckStatus::Completed;
                run.conclusion = Some(crate::github::api::Conclusion::Cancelled);
                run.actions = render::buttons(false);
                p.api.update_check(id, &run).await?;
            }
        }
        return Ok(Ended::Finished(FinalState::Cancelled, "cancelled".into()));
    };
    let outcome = journal
        .outcome()
        .map_or("UNCLASSIFIED", |o| o.outcome.as_str())
        .to_string();
    if journal.cost_usd() > 0.0 {
        ctx.store
            .record_spend(installation_id, &journal.run_id, journal.cost_usd())
            .await?;
    }
    if request.dry_run {
        let diff = journal.diff().unwrap_or_default().to_string();
        let phase = if request.plan_only {
            Phase::Plan {
                estimate: plan_estimate(&journal, &opts.config),
            }
        } else {
            Phase::DryRun { diff }
        };
        p.status(&phase, Some(&journal)).await?;
        return Ok(Ended::Finished(
            FinalState::Done,
            format!("{outcome} (dry run)"),
        ));
    }
    p.finish(workdir, &journal).await?;
    Ok(Ended::Finished(
        FinalState::Done,
        format!("{outcome} run {}", journal.run_id),
    ))
}

/// What a full migration would cost, from a dry run's plan: recipe tasks cost nothing; the
/// rest would need the LLM tier (bounded by the budgets) or a person.
fn plan_estimate(journal: &Journal, config: &Config) -> String {
    let records: Vec<_> = journal.task_records().collect();
    let recipe = records.iter().filter(|r| r.status.is_done()).count();
    let rest = records.len() - recipe;
    format!(
        "{recipe} of {} tasks by recipes ($0.00, no LLM calls); {rest} would need the LLM tier or a person \
         (at most {} LLM calls and {} by this repository's budgets). Builds: 2 Maven runs \
         (baseline and validation), each capped at {} min.",
        records.len(),
        config.budgets.max_llm_calls,
        crate::money::usd(config.budgets.max_cost_usd),
        config.budgets.build_timeout_secs / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(state: &str, result: Option<&str>, checkpoint: serde_json::Value) -> JobRow {
        JobRow {
            id: "j".into(),
            kind: "migrate".into(),
            installation_id: 1,
            repo: "o/r".into(),
            target: 17,
            payload: serde_json::Value::Null,
            state: state.into(),
            attempts: 1,
            max_attempts: 3,
            cancel_requested: false,
            checkpoint,
            result: result.map(str::to_string),
            created_at: 0,
            started_at: Some(0),
            finished_at: None,
        }
    }

    /// A PR merged while its job is still finishing is learnt from that job's run, which
    /// only the checkpoint names until the job records its end.
    #[test]
    fn a_jobs_engine_run_comes_from_its_result_or_while_it_runs_its_checkpoint() {
        let checkpoint = serde_json::to_value(Checkpoint {
            run: Some(("run-2".into(), "abc".into())),
            ..Default::default()
        })
        .unwrap();
        let running = job("running", Some("attempt 1 failed"), checkpoint.clone());
        assert_eq!(engine_run(&running).as_deref(), Some("run-2"));
        let done = job("done", Some("SUCCESS run run-1"), checkpoint);
        assert_eq!(engine_run(&done).as_deref(), Some("run-1"));
        let queued = job("queued", Some("attempt 1 failed"), serde_json::Value::Null);
        assert_eq!(engine_run(&queued), None);
    }
}

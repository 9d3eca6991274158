//! One migration run: the router picks each step, each step appends a typed journal entry.

pub mod execute;
pub mod failure;
mod fix;
pub mod fold;
mod handover;
mod invariance;
pub mod plan;
pub mod replay;
pub mod rollback;
pub mod router;
pub mod stuck;
pub mod validate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::analyze::{self, Fingerprint};
use crate::build::sandbox::Isolation;
use crate::build::{classfile, disk, flaky, jdk, maven, reports};
use crate::config::Config;
use crate::journal::outcome::classify;
use crate::journal::{
    Analysis, BuildOutcome, Category, Entry, Journal, ModuleSummary, Stage, StepResult, TaskStatus,
};
use crate::llm::AnyProvider;
use crate::llm::budget::Budget;
use crate::llm::embeddings::Embeddings;
use crate::llm::search::{self, Tavily};
use crate::progress::Observer;
use crate::recipes::overlay::Overlay;
use crate::recipes::registry::Registry;
use crate::repo_path::Refusal;
use crate::store::Store;
use router::{State, Step};

#[derive(Debug, Clone)]
pub struct RunOptions {
    pub root: PathBuf,
    pub config: Config,
    pub build: bool,
    pub dry_run: bool,
    /// The build sandbox; `None` builds on the host (said in every build's journal entry).
    pub isolation: Option<Isolation>,
    /// What the caller set aside from the settings and why (e.g. a repository naming its
    /// own LLM endpoint); recorded with the analysis warnings.
    pub notices: Vec<String>,
    /// Learn from this run if it ends SUCCESS with test invariance passed (the CLI: the
    /// operator ran it and the gate checked it). The app leaves this off and learns when a
    /// human merges the PR (`knowledge::learn`).
    pub learn_on_success: bool,
    /// The run's id (a new one when `None`): the app names it so that a later attempt of
    /// the same job can find it.
    pub run_id: Option<String>,
    /// An earlier attempt of the same job on the same commit: when it was started with the
    /// same options, what it completed is not redone (today its baseline).
    pub resume: Option<String>,
    /// Replay: builds, model answers, retrieval and the clock come from this recording
    /// (`replay --execute`), never from the world.
    pub replay: Option<std::sync::Arc<replay::Recording>>,
}

/// Drives one run to its outcome. Errors returned here are failures of Uplift itself
/// (e.g. the journal database); problems with the project end up in the journal.
pub async fn run<O: Observer>(
    opts: &RunOptions,
    store: &Store,
    progress: &mut O,
) -> anyhow::Result<Journal> {
    let run_id = opts
        .run_id
        .clone()
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    // Providers first: creating them registers their keys for redaction before anything
    // about this run is stored.
    let llm = match (&opts.config.llm, &opts.replay) {
        (Some(settings), Some(recording)) => {
            Some(AnyProvider::Recorded(recording.provider(&settings.model)))
        }
        (Some(settings), None) => Some(AnyProvider::from_settings(settings)?),
        (None, _) => None,
    };
    let live = opts.replay.is_none();
    let search = match &opts.config.search {
        Some(s) if live => Some(Tavily::from_settings(s)?),
        _ => None,
    };
    let embeddings = match &opts.config.embeddings {
        Some(s) if live => Some(Embeddings::from_settings(s)?),
        _ => None,
    };
    let options = crate::redact::redacted(
        json!({"build": opts.build, "dry_run": opts.dry_run, "config": opts.config, "notices": opts.notices}),
    )?;
    let prior = match &opts.resume {
        Some(id) => earlier_attempt(store, id, &options).await?,
        None => None,
    };
    store
        .start_run(
            &run_id,
            Path::new(&crate::redact::redact(&opts.root.to_string_lossy())),
            opts.config.target,
            &options,
        )
        .await?;
    let mut run = Run {
        opts,
        store,
        journal: Journal {
            run_id,
            entries: Vec::new(),
        },
        state: State::default(),
        prior,
        fingerprint: None,
        registry: None,
        overlay: None,
        jdks: jdk::discover(&opts.config.jdks),
        started: Instant::now(),
        llm,
        budget: Budget::new(
            opts.config.budgets.max_llm_calls,
            opts.config.budgets.max_cost_usd,
            Duration::from_secs(opts.config.budgets.max_wall_secs),
        ),
        fix: fix::FixLoop::default(),
        pending_cost: 0.0,
        pending_answer: None,
        search,
        search_cache: search::Cache::default(),
        embeddings,
        originals: BTreeMap::new(),
        pristine: BTreeMap::new(),
        handover: None,
        disk: tokio::sync::OnceCell::new(),
    };
    let mut facts = fold::RunFacts {
        build: opts.build,
        dry_run: opts.dry_run,
        model: opts.config.llm.is_some(),
        reusable_baseline: run
            .prior
            .as_ref()
            .is_some_and(|p| reusable_baseline(p).is_some()),
        out_of_time: false,
    };
    loop {
        facts.out_of_time = match &opts.replay {
            Some(recording) => recording.clock_stops_at(run.journal.entries.len() as u32 + 1),
            None => run.started.elapsed() > Duration::from_secs(opts.config.budgets.max_wall_secs),
        };
        // What the run knows is what its journal says: the steps below only append to it.
        run.state = fold::fold(&run.journal, &facts);
        let (step, rule) = router::next(&run.state);
        progress.stage(step_name(step));
        match step {
            Step::Analyze => run.analyze(rule).await?,
            Step::Baseline => run.baseline(rule).await?,
            Step::ReuseBaseline => run.reuse_baseline(rule).await?,
            Step::SkipBaseline => {
                let why = run.no_build_reason();
                run.skip(Stage::Baseline, rule, why.into()).await?
            }
            Step::Plan => run.plan(rule).await?,
            Step::Execute => run.execute(rule, progress).await?,
            Step::Write => {
                run.write(rule).await?;
                if run.journal.written_files().is_some() {
                    progress.written(&run.journal).await?;
                }
            }
            Step::Validate => run.validate(rule).await?,
            Step::Fix => {
                if run.fix(rule).await? {
                    progress.written(&run.journal).await?;
                }
            }
            Step::Handover => {
                if run.handover(rule).await? {
                    progress.written(&run.journal).await?;
                }
            }
            Step::Rollback => {
                run.rollback(rule).await?;
                if fold::fold(&run.journal, &facts).restored {
                    progress.written(&run.journal).await?;
                }
            }
            Step::SkipValidation => {
                let why = if opts.dry_run {
                    "dry run: nothing was written"
                } else {
                    run.no_build_reason()
                };
                run.skip(Stage::Validate, rule, why.into()).await?
            }
            Step::StopOnLimit => {
                let limit = format!(
                    "wall-clock budget of {} s",
                    opts.config.budgets.max_wall_secs
                );
                run.record(
                    Stage::Classify,
                    rule,
                    "run exceeded its time budget",
                    "stop",
                    json!({}),
                    StepResult::LimitReached { limit },
                    Category::Error,
                    Instant::now(),
                )
                .await?;
            }
            Step::Classify => {
                let t = Instant::now();
                let outcome = classify(&run.journal);
                let known = format!("{} entries", run.journal.entries.len());
                let label = outcome.outcome.as_str().to_string();
                run.record(
                    Stage::Classify,
                    rule,
                    &known,
                    "outcome class",
                    json!({}),
                    StepResult::Classified(outcome),
                    Category::Success,
                    t,
                )
                .await?;
                store.finish_run(&run.journal.run_id, &label).await?;
                if opts.learn_on_success {
                    run.learn_if_passed().await?;
                }
            }
            Step::Done => break,
        }
    }
    progress.finish();
    Ok(run.journal)
}

fn step_name(step: Step) -> &'static str {
    match step {
        Step::Analyze => "analyze",
        Step::Baseline | Step::ReuseBaseline | Step::SkipBaseline => "baseline",
        Step::Plan => "plan",
        Step::Execute => "execute",
        Step::Write => "write",
        Step::Validate | Step::SkipValidation => "validate",
        Step::Fix | Step::Handover => "fix",
        Step::Rollback => "rollback",
        Step::StopOnLimit | Step::Classify | Step::Done => "classify",
    }
}

struct Run<'a> {
    opts: &'a RunOptions,
    store: &'a Store,
    journal: Journal,
    /// This turn's router input, folded from `journal` at the start of the turn; read,
    /// never written, by the steps.
    state: State,
    fingerprint: Option<Fingerprint>,
    /// Recipes for this run: the built-in catalog plus the repository's own.
    registry: Option<Registry>,
    overlay: Option<Overlay>,
    jdks: Vec<jdk::Jdk>,
    started: Instant,
    /// The LLM tier, when configured.
    llm: Option<AnyProvider>,
    budget: Budget,
    fix: fix::FixLoop,
    /// Cost of the LLM call the next journal entry records.
    pending_cost: f64,
    /// A failed model call's error, for the next fix-attempt entry.
    pending_answer: Option<crate::journal::ModelAnswer>,
    search: Option<Tavily>,
    search_cache: search::Cache,
    /// Semantic vectors for hybrid/deep retrieval, when configured.
    embeddings: Option<Embeddings>,
    /// Original text of every Java file any tier changed, for the invariance check.
    originals: BTreeMap<PathBuf, String>,
    /// Original bytes of every file any tier wrote (`None`: the run created it), so the
    /// never-red tier can give each back exactly.
    pristine: BTreeMap<PathBuf, Option<Vec<u8>>>,
    /// The task the next tier is working on, once the tree is green.
    handover: Option<handover::Current>,
    /// The journal of an earlier attempt of this job whose work may be reused.
    prior: Option<Journal>,
    /// The run's disk budget, against what the tree held when its first build started:
    /// what one build leaves behind counts against the next.
    disk: tokio::sync::OnceCell<disk::Budget>,
}

impl Run<'_> {
    #[allow(clippy::too_many_arguments)]
    async fn record(
        &mut self,
        stage: Stage,
        rule: &str,
        known: &str,
        intent: &str,
        inputs: serde_json::Value,
        result: StepResult,
        category: Category,
        started: Instant,
    ) -> anyhow::Result<()> {
        // Redacted before it is stored or rendered anywhere: a build log, a provider's
        // error or a diff may quote a secret.
        let entry = crate::redact::redacted(Entry {
            seq: self.journal.entries.len() as u32 + 1,
            stage,
            known: known.to_string(),
            intent: intent.to_string(),
            rule: rule.to_string(),
            inputs,
            result,
            category,
            duration_ms: started.elapsed().as_millis() as u64,
            cost_usd: std::mem::take(&mut self.pending_cost),
        })?;
        self.store.append(&self.journal.run_id, &entry).await?;
        self.journal.entries.push(entry);
        Ok(())
    }

    /// One journal entry for the paths the repository gate refused, if any.
    async fn refused(
        &mut self,
        stage: Stage,
        rule: &str,
        refusals: Vec<Refusal>,
    ) -> anyhow::Result<()> {
        if refusals.is_empty() {
            return Ok(());
        }
        self.record(
            stage,
            rule,
            "paths named by the repository or proposed by a tier",
            "keep reads and writes inside the repository",
            json!({"refused": refusals.len()}),
            StepResult::Refused { refusals },
            Category::Error,
            Instant::now(),
        )
        .await
    }

    async fn skip(&mut self, stage: Stage, rule: &str, reason: String) -> anyhow::Result<()> {
        self.record(
            stage,
            rule,
            "",
            "build",
            json!({}),
            StepResult::BuildSkipped { reason },
            Category::Empty,
            Instant::now(),
        )
        .await
    }

    /// Why no build runs: the user said so, or the build is Gradle.
    fn no_build_reason(&self) -> &'static str {
        if self
            .fingerprint
            .as_ref()
            .is_some_and(|f| f.gradle.is_some())
        {
            "validation unavailable: a Gradle build, and Uplift runs Maven only"
        } else {
            "builds disabled (--no-build)"
        }
    }

    async fn analyze(&mut self, rule: &str) -> anyhow::Result<()> {
        let t = Instant::now();
        let root = self.opts.root.clone();
        let skip = self.opts.config.skip_modules.clone();
        let recipes = &self.opts.config.recipes;
        let result = tokio::task::block_in_place(|| {
            let fp = analyze::analyze(&root, &skip).map_err(|e| e.to_string())?;
            let registry = Registry::load(Some(&root), recipes).map_err(|e| format!("{e:#}"))?;
            Ok::<_, String>((fp, registry))
        });
        let inputs = json!({"root": root, "skip_modules": skip});
        match result {
            Ok((fp, registry)) => {
                let refusals: Vec<_> = fp
                    .refused
                    .iter()
                    .chain(registry.refused())
                    .cloned()
                    .collect();
                self.registry = Some(registry);
                // Uplift runs Maven only: the analysis records a Gradle build, and the
                // fold turns builds off for the rest of the run.
                let mut analysis = summarize(&fp);
                analysis.warnings.extend(self.opts.notices.iter().cloned());
                let category = if fp.java_files == 0 && fp.modules.len() <= 1 {
                    Category::Empty
                } else {
                    Category::Success
                };
                self.fingerprint = Some(fp);
                self.record(
                    Stage::Analyze,
                    rule,
                    "project directory",
                    "fingerprint: modules, Java level, platform, JUnit, javax, tests",
                    inputs,
                    StepResult::Analyzed(Box::new(analysis)),
                    category,
                    t,
                )
                .await?;
                self.refused(Stage::Analyze, rule, refusals).await
            }
            Err(e) => {
                self.record(
                    Stage::Analyze,
                    rule,
                    "project directory",
                    "fingerprint",
                    inputs,
                    StepResult::AnalysisFailed { error: e },
                    Category::Error,
                    t,
                )
                .await
            }
        }
    }

    /// One Maven `test` on cleared outputs, with results and class versions; shared by
    /// baseline and validation. Failing test classes then run once more on their own, and
    /// a failure that does not repeat is recorded as flaky (`build::flaky`).
    async fn build(&self, jdk: &jdk::Jdk, properties: Vec<(String, String)>) -> BuildOutcome {
        if let Some(recording) = &self.opts.replay {
            return recording.next_build();
        }
        let root = &self.opts.root;
        let mut outcome = BuildOutcome {
            jdk: Some(jdk.release),
            raised_level: None,
            run: None,
            tests: Default::default(),
            error: None,
        };
        if let Err(e) = reports::clear_outputs(root) {
            outcome.error = Some(format!("cannot clear previous build output: {e}"));
            return outcome;
        }
        let mut props = vec![("maven.test.failure.ignore".to_string(), "true".to_string())];
        props.extend(
            maven::SHOW_DEPRECATIONS
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        props.extend(properties);
        match self.maven_test(jdk, props.clone()).await {
            Ok(run) => {
                outcome.run = Some(run);
                outcome.tests = tokio::task::block_in_place(|| reports::collect(root));
            }
            Err(e) => outcome.error = Some(e.to_string()),
        }
        let again = flaky::classes_to_rerun(&outcome.tests);
        if outcome.compiled() && !again.is_empty() && reports::clear_reports(root).is_ok() {
            props.extend(flaky::rerun_properties(&again));
            if let Ok(run) = self.maven_test(jdk, props).await
                && run.succeeded()
            {
                let rerun = tokio::task::block_in_place(|| reports::collect(root));
                outcome.tests.flaky = flaky::flipped(&outcome.tests, &rerun);
            }
        }
        outcome
    }

    async fn maven_test(
        &self,
        jdk: &jdk::Jdk,
        properties: Vec<(String, String)>,
    ) -> Result<maven::BuildRun, maven::MavenError> {
        let budgets = &self.opts.config.budgets;
        let disk = self
            .disk
            .get_or_init(|| async {
                let isolation = self.opts.isolation.as_ref();
                let roots = disk::roots(
                    &self.opts.root,
                    isolation.and_then(|i| i.access.local_repo.as_deref()),
                );
                disk::Budget {
                    held_before: disk::measure(roots.clone()).await,
                    roots,
                    bytes: budgets.max_build_disk_bytes,
                }
            })
            .await;
        maven::run(maven::MavenRequest {
            root: &self.opts.root,
            jdk,
            goals: &["test"],
            user_args: &self.opts.config.maven_args,
            properties,
            timeout: Duration::from_secs(budgets.build_timeout_secs),
            max_output_bytes: budgets.max_build_output_bytes,
            disk,
            isolation: self.opts.isolation.as_ref(),
        })
        .await
    }

    async fn baseline(&mut self, rule: &str) -> anyhow::Result<()> {
        let t = Instant::now();
        let fp = self
            .fingerprint
            .as_ref()
            .expect("router runs baseline after analysis");
        let level = fp.java_level;
        let Some((jdk, raised)) = jdk::choose(&self.jdks, level) else {
            let cause = format!("no JDK found that can build Java {}", level.unwrap_or(8));
            let remedy = "install one, or name it under `jdks` in the config (e.g. `{17: /usr/lib/jvm/java-17-openjdk-amd64}`)";
            return self.unresolvable(rule, t, cause, remedy.into()).await;
        };
        // Raise the level through the properties that define it (user properties win).
        let props: Vec<(String, String)> = raised
            .map(|r| {
                fp.level_sites
                    .iter()
                    .filter_map(|s| match &s.location {
                        analyze::LevelLocation::Property(p) => Some((p.clone(), r.to_string())),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut outcome = self.build(&jdk, props.clone()).await;
        outcome.raised_level = raised;
        let category = match (&outcome.error, outcome.compiled()) {
            (Some(_), _) => Category::Error,
            (None, true) => Category::Success,
            (None, false) => Category::Error,
        };
        let known = format!(
            "declared Java level {level:?}; JDKs {:?}",
            self.jdks.iter().map(|j| j.release).collect::<Vec<_>>()
        );
        let intent = match raised {
            Some(r) => format!(
                "baseline on JDK {} with the level raised to {r} (no JDK accepts {level:?})",
                jdk.release
            ),
            None => format!("baseline on JDK {}", jdk.release),
        };
        let cause = outcome
            .run
            .as_ref()
            .and_then(failure::unresolvable)
            .map(str::to_string);
        self.record(
            Stage::Baseline,
            rule,
            &known,
            &intent,
            json!({"jdk": jdk, "properties": props}),
            StepResult::Built(Box::new(outcome)),
            category,
            t,
        )
        .await?;
        match cause {
            Some(cause) => {
                let remedy = "nothing was changed. Give Maven what it needs: a mirror or settings file that reaches the project's repositories (`--maven-arg=-s --maven-arg=FILE`, or `maven_args` in the config), or a machine that reaches Maven Central";
                self.unresolvable(rule, Instant::now(), cause, remedy.into())
                    .await
            }
            None => Ok(()),
        }
    }

    /// The baseline an earlier attempt of this job recorded for the same untouched tree and
    /// options, recorded again in this journal with where it came from; Maven is not run.
    async fn reuse_baseline(&mut self, rule: &str) -> anyhow::Result<()> {
        let t = Instant::now();
        let Some((entry, outcome)) = self.prior.as_ref().and_then(reusable_baseline) else {
            // The router chooses this step only when there is one (`RunFacts`).
            anyhow::bail!("the earlier attempt's baseline is not in its journal");
        };
        let (outcome, category, inputs) = (outcome.clone(), entry.category, entry.inputs.clone());
        let known = format!(
            "run {} entry {}: {}",
            self.prior.as_ref().map_or("", |p| p.run_id.as_str()),
            entry.seq,
            entry.intent
        );
        self.record(
            Stage::Baseline,
            rule,
            &known,
            "reuse the baseline of an earlier attempt (same commit, same options); not rebuilt",
            inputs,
            StepResult::Built(Box::new(outcome)),
            category,
            t,
        )
        .await
    }

    /// The untouched project cannot be built here: stop before any edit and say why.
    async fn unresolvable(
        &mut self,
        rule: &str,
        t: Instant,
        cause: String,
        remedy: String,
    ) -> anyhow::Result<()> {
        self.record(
            Stage::Baseline,
            rule,
            "the untouched project's build",
            "stop before any edit: the project cannot be built here",
            json!({}),
            StepResult::BaselineUnresolvable { cause, remedy },
            Category::Error,
            t,
        )
        .await
    }

    async fn plan(&mut self, rule: &str) -> anyhow::Result<()> {
        let t = Instant::now();
        let fp = self.fingerprint.as_ref().expect("analysis precedes plan");
        let registry = self.registry.as_ref().expect("loaded with the analysis");
        let plan::Plan { tasks, decisions } =
            plan::plan(fp, &self.opts.config, registry, self.journal.baseline());
        let category = if tasks.is_empty() {
            Category::Empty
        } else {
            Category::Success
        };
        let known = format!(
            "fingerprint of {} modules, {} Java files",
            fp.modules.len(),
            fp.java_files
        );
        self.record(
            Stage::Plan,
            rule,
            &known,
            "ordered task list",
            json!({"target": self.opts.config.target}),
            StepResult::Planned { tasks, decisions },
            category,
            t,
        )
        .await
    }

    async fn execute<O: Observer>(&mut self, rule: &str, progress: &mut O) -> anyhow::Result<()> {
        let t = Instant::now();
        let fp = self
            .fingerprint
            .as_ref()
            .expect("analysis precedes execute");
        let tasks = self.journal.tasks().to_vec();
        let total = tasks.len();
        let kept = self.journal.kept_files();
        let (overlay, records) = tokio::task::block_in_place(|| {
            let registry = self.registry.as_ref().expect("loaded with the analysis");
            let inputs = execute::Inputs {
                root: &self.opts.root,
                fingerprint: fp,
                config: &self.opts.config,
                registry,
                kept: &kept,
            };
            execute::execute(&inputs, &tasks, |i| progress.task(i + 1, total))
        });
        self.overlay = Some(overlay);
        for (task, rec) in tasks.iter().zip(records) {
            let category = match rec.status {
                TaskStatus::Done => Category::Success,
                TaskStatus::NoChange => Category::NoMatch,
                TaskStatus::LeftForNextTier => Category::Empty,
                TaskStatus::Failed => Category::Error,
            };
            let inputs = json!({"task": task.id, "recipes": task.recipes, "files": task.files});
            self.record(
                Stage::Execute,
                rule,
                &task.reason,
                &task.title,
                inputs,
                StepResult::Task(rec),
                category,
                t,
            )
            .await?;
        }
        Ok(())
    }

    async fn write(&mut self, rule: &str) -> anyhow::Result<()> {
        let t = Instant::now();
        let mut overlay = self
            .overlay
            .take()
            .unwrap_or_else(|| Overlay::new(&self.opts.root));
        let refusals = overlay.take_refused();
        self.refused(Stage::Write, rule, refusals).await?;
        let diff = overlay.diff();
        let files: Vec<PathBuf> = overlay.changed().map(|(p, _, _)| p.to_path_buf()).collect();
        // What the run leaves (the overlay's texts; on disk once committed).
        let mut rewritten: BTreeMap<PathBuf, Option<String>> = BTreeMap::new();
        for (path, before, after) in overlay.changed() {
            if let Some(before) = before {
                invariance::remember(&mut self.originals, path, before);
                rewritten.insert(path.to_path_buf(), after.map(str::to_string));
            }
        }
        let inputs = json!({"files": files.len(), "dry_run": self.opts.dry_run});
        if self.opts.dry_run {
            let category = if files.is_empty() {
                Category::Empty
            } else {
                Category::Success
            };
            self.record(
                Stage::Write,
                rule,
                "pending edits",
                "show the diff",
                inputs,
                StepResult::Written {
                    files,
                    dry_run: true,
                    diff,
                },
                category,
                t,
            )
            .await?;
            return self
                .check_invariance(Stage::Write, rule, |p| rewritten.get(p).cloned().flatten())
                .await;
        }
        let (result, category) = match self.commit(&overlay) {
            Ok(written) => {
                let category = if written.is_empty() {
                    Category::Empty
                } else {
                    Category::Success
                };
                let files = written;
                (
                    StepResult::Written {
                        files,
                        dry_run: false,
                        diff,
                    },
                    category,
                )
            }
            Err(crate::recipes::overlay::CommitError::Partial {
                written,
                failed,
                source,
            }) => {
                let error = source.to_string();
                (
                    StepResult::WriteFailed {
                        written,
                        failed,
                        error,
                    },
                    Category::Exception,
                )
            }
        };
        self.record(
            Stage::Write,
            rule,
            "pending edits",
            "write every changed file atomically",
            inputs,
            result,
            category,
            t,
        )
        .await?;
        let current = self.on_disk();
        self.check_invariance(Stage::Write, rule, current).await
    }

    async fn validate(&mut self, rule: &str) -> anyhow::Result<()> {
        let t = Instant::now();
        let target = self.opts.config.target;
        let Some(jdk) = jdk::for_target(&self.jdks, target) else {
            let reason = format!(
                "no JDK >= {target} installed (found {:?}); configure `jdks` to validate",
                self.jdks.iter().map(|j| j.release).collect::<Vec<_>>()
            );
            return self.skip(Stage::Validate, rule, reason).await;
        };
        let outcome = self.build(&jdk, Vec::new()).await;
        let root = self.opts.root.clone();
        let skip = self.opts.config.skip_modules.clone();
        let after = tokio::task::block_in_place(|| analyze::analyze(&root, &skip));
        let after_inventory = match after {
            Ok(fp) => fp.inventory(),
            Err(e) => {
                let result = StepResult::AnalysisFailed {
                    error: format!("after migration: {e}"),
                };
                return self
                    .record(
                        Stage::Validate,
                        rule,
                        "",
                        "re-read migrated sources",
                        json!({}),
                        result,
                        Category::Exception,
                        t,
                    )
                    .await;
            }
        };
        let majors = match &self.opts.replay {
            Some(recording) => recording.next_majors(),
            None => tokio::task::block_in_place(|| classfile::majors(&root)),
        };
        let before_inventory = self
            .fingerprint
            .as_ref()
            .map(|f| f.inventory())
            .unwrap_or_default();
        let validation = validate::compare(
            &before_inventory,
            &after_inventory,
            self.journal.baseline(),
            outcome,
            majors,
            classfile::major_for_release(target),
        );
        let green = validation.invariant() && validation.build.compiled();
        let category = if green {
            Category::Success
        } else {
            Category::Error
        };
        let known = format!("baseline: {} tests green", validation.green_before);
        self.record(
            Stage::Validate,
            rule,
            &known,
            &format!(
                "rebuild on JDK {} and compare with the baseline",
                jdk.release
            ),
            json!({"jdk": jdk}),
            StepResult::Validated(Box::new(validation)),
            category,
            t,
        )
        .await
    }
}

/// The journal of run `id` when it was started with exactly these `options` (the same
/// config, builds and dry run; the caller vouches for the same commit).
async fn earlier_attempt(
    store: &Store,
    id: &str,
    options: &serde_json::Value,
) -> anyhow::Result<Option<Journal>> {
    if store.run_options(id).await?.as_ref() != Some(options) {
        return Ok(None);
    }
    Ok(Some(store.journal(id).await?.1))
}

/// An earlier attempt's baseline that stands for this run: it built (green or red), was
/// neither cut by the time limit nor unable to resolve what the project needs (either may
/// differ on another try).
fn reusable_baseline(prior: &Journal) -> Option<(&Entry, &BuildOutcome)> {
    prior
        .entries
        .iter()
        .find_map(|e| match (&e.stage, &e.result) {
            (Stage::Baseline, StepResult::Built(b))
                if b.run
                    .as_ref()
                    .is_some_and(|r| !r.timed_out && failure::unresolvable(r).is_none()) =>
            {
                Some((e, b.as_ref()))
            }
            _ => None,
        })
}

fn summarize(fp: &Fingerprint) -> Analysis {
    let modules = fp
        .modules
        .iter()
        .enumerate()
        .map(|(i, m)| ModuleSummary {
            pom: m.pom.path.clone(),
            artifact_id: m.pom.artifact_id.clone(),
            parent: m.parent.map(|p| fp.modules[p].pom.path.clone()),
            level: fp.module_level(i),
            skipped: m.skipped,
            java_files: m.java_files.len(),
        })
        .collect();
    let level_sites = fp
        .level_sites
        .iter()
        .map(|s| {
            format!(
                "{}: {:?} = {}",
                fp.modules[s.module].pom.path.display(),
                s.location,
                s.raw
            )
        })
        .collect();
    Analysis {
        modules,
        java_level: fp.java_level,
        level_sites,
        spring_boot: fp.spring_boot.clone(),
        spring_framework: fp.spring_framework.clone(),
        junit4_version: fp.junit4_version.clone(),
        files_by_junit: fp.files_by_junit.clone(),
        junit4_constructs: fp.junit4_constructs.clone(),
        javax_jakarta_ee: fp.javax_jakarta_ee.iter().cloned().collect(),
        javax_jdk: fp.javax_jdk.iter().cloned().collect(),
        removed_java_ee_modules: fp
            .removed_modules
            .iter()
            .map(|m| format!("{m:?}"))
            .collect(),
        syntax_errors: fp.syntax_errors.clone(),
        warnings: fp.warnings.clone(),
        java_files: fp.java_files,
        java_bytes: fp.java_bytes,
        inventory: fp.inventory(),
        gradle: fp.gradle.is_some(),
    }
}

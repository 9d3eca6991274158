//! The fix loop, one attempt per call: classify the red validation, then the tiers in
//! order — a solved example applied as is (no LLM), the example as a few-shot for the
//! LLM, the LLM alone — and write what validates as edits. A retry never re-reads
//! retrieval: it carries a fenced summary of why the last attempt failed, rebuilt from the
//! latest build (after an applied edit the failure may have changed kind). Signature-based
//! stuck detection climbs the escalation ladder; budgets stop the run as INCOMPLETE.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::json;

use crate::journal::outcome::Outcome;
use crate::journal::{
    Category, FixAttempt, FixResult, Invariance, ModelAnswer, RetrievalRecord, SearchRecord, Stage,
    StepResult,
};
use crate::knowledge::bm25::Index;
use crate::knowledge::plan::{self, DowngradeReason, PlanKind, Query};
use crate::knowledge::signature::ProjectNames;
use crate::knowledge::{self, Verdict};
use crate::llm::edits::{self, Block};
use crate::llm::embeddings;
use crate::llm::prompt::{self, DATA_RULE, Data, SourceKind};
use crate::llm::search::{self, Hit};
use crate::llm::{CallError, ChatRequest, metered};
use crate::recipes::overlay::Overlay;
use crate::repo_path::{Gate, Origin};
use crate::store::knowledge::Example;

use super::Run;
use super::failure::{Failure, FailureKind, classify};
use super::stuck::{Action, Escalation};

/// Bytes of the last failure a retry carries.
const PRIOR_FAILURE_CAP: usize = 4 * 1024;
const FILE_CAP: usize = 24 * 1024;
const LOG_CAP: usize = 8 * 1024;
const MAX_TOKENS: u32 = 2048;

/// What the loop remembers between attempts.
#[derive(Default)]
pub struct FixLoop {
    pub stuck: super::stuck::Detector,
    /// (error signature, edit hash) pairs already tried.
    pub tried: std::collections::HashSet<(String, u64)>,
    /// What the last attempt did, for the next prompt.
    pub last: Option<LastAttempt>,
    pub last_signature: Option<String>,
    pub last_edit_hash: u64,
    pub guidance: Option<&'static str>,
}

/// The last attempt as the next one needs it. What the build says now is read from the
/// latest validation when the next prompt is compiled, never remembered from before.
pub enum LastAttempt {
    /// Nothing changed on disk (no answer, or the answer was refused), with the reason.
    NotApplied { kind: FailureKind, reason: String },
    /// Edits were written and the tree validated again.
    Applied {
        kind: FailureKind,
        diff: String,
        files: Vec<PathBuf>,
    },
}

impl LastAttempt {
    fn kind(&self) -> FailureKind {
        match self {
            Self::NotApplied { kind, .. } | Self::Applied { kind, .. } => *kind,
        }
    }
}

/// What one attempt works on: a red build's failure, or a task the recipe tier left.
pub(super) struct Job {
    pub failure: Failure,
    /// Files shown to the tier.
    pub files: Vec<PathBuf>,
    /// Files the tier may edit.
    pub editable: Vec<PathBuf>,
    /// What the tier is asked to do, the prompt's first line.
    pub ask: String,
}

/// Where a fix came from, for the journal.
struct Provenance {
    tier: &'static str,
    /// Whose edits these are, for the repository gate.
    origin: Origin,
    retrieval: Option<RetrievalRecord>,
    prompt_chars: usize,
    model: Option<String>,
    usage: Option<crate::llm::Usage>,
    search: Option<SearchRecord>,
    answer: Option<ModelAnswer>,
}

fn hash(text: &str) -> u64 {
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

fn blocks_text(blocks: &[Block]) -> String {
    blocks
        .iter()
        .map(|b| {
            format!(
                "FILE: {}\n<<<<<<< SEARCH\n{}=======\n{}>>>>>>> REPLACE\n",
                b.path.display(),
                b.search,
                b.replace
            )
        })
        .collect()
}

impl Run<'_> {
    /// One attempt; returns true when files were changed on disk.
    pub(super) async fn fix(&mut self, rule: &str) -> anyhow::Result<bool> {
        let t = Instant::now();
        let attempt = self.state.fix_attempts + 1;
        let Some(failure) = self
            .latest_failure()
            .filter(|f| f.kind != FailureKind::Environment)
        else {
            let reason =
                "nothing the fix loop can act on (environment failure, or tests lost from source)";
            return self.no_answer(rule, attempt, None, reason, true, t).await;
        };
        if let Some(escalation) = self.check_stuck(&failure) {
            match escalation {
                Escalation::DifferentApproach => {
                    self.fix.guidance =
                        Some("Earlier attempts failed the same way: take a different approach.")
                }
                Escalation::RewriteSection => {
                    self.fix.guidance = Some(
                        "Rewrite the whole failing method or section rather than patching lines.",
                    )
                }
                Escalation::SkipTask | Escalation::Human => {
                    let reason = format!(
                        "stuck on {}: escalated to a human ({escalation:?})",
                        failure.signature
                    );
                    return self
                        .no_answer(rule, attempt, Some(failure), &reason, true, t)
                        .await;
                }
            }
        }
        let job = Job {
            files: self.relevant_files(&failure),
            editable: self.editable_files(),
            ask: format!(
                "After migrating to Java {} the build fails ({:?}). Fix the failure with the smallest change.",
                self.opts.config.target, failure.kind
            ),
            failure,
        };
        self.attempt(rule, attempt, job, t).await
    }

    /// One pass of the tiers over `job`: retrieval (first attempt only), a confident
    /// solved example applied as is, else the LLM; what passes the gate is written and the
    /// tree is judged again. Returns true when files were changed on disk.
    pub(super) async fn attempt(
        &mut self,
        rule: &str,
        attempt: u32,
        job: Job,
        t: Instant,
    ) -> anyhow::Result<bool> {
        let Job {
            failure,
            files,
            editable,
            ask,
        } = job;
        // Retrieval on the first attempt only; a retry carries the last failure instead.
        let (retrieval, example) = if attempt == 1 {
            self.retrieve(&failure).await?
        } else {
            let last_kind = self
                .fix
                .last
                .as_ref()
                .map_or(failure.kind, LastAttempt::kind);
            self.record(
                Stage::Fix,
                rule,
                &format!("attempt {attempt}"),
                "retry without retrieval",
                json!({}),
                StepResult::RagSkippedOnRetry {
                    attempt,
                    last_failure_kind: last_kind,
                },
                Category::Empty,
                Instant::now(),
            )
            .await?;
            (None, None)
        };
        // A confident solved example whose edits apply to this project needs no LLM.
        if let Some(ex) = example
            .as_ref()
            .filter(|(_, c)| *c >= self.opts.config.retrieval.high_confidence)
            && let Some(first) = files.first()
            && let Ok(mut blocks) = edits::parse(&ex.0.diff)
        {
            for b in &mut blocks {
                b.path = first.clone();
            }
            let gate =
                Gate::new(&self.opts.root, Origin::Example).only(std::slice::from_ref(first));
            if let Ok(out) = edits::apply(&blocks, &gate, &self.junit3_bases()) {
                return self
                    .write_fix(
                        rule,
                        attempt,
                        failure,
                        Provenance {
                            tier: "retrieval",
                            origin: Origin::Example,
                            retrieval,
                            prompt_chars: 0,
                            model: None,
                            usage: None,
                            search: None,
                            answer: None,
                        },
                        (blocks, out),
                        t,
                    )
                    .await;
            }
        }
        if self.llm.is_none() {
            return self
                .no_answer(rule, attempt, Some(failure), "no LLM configured", true, t)
                .await;
        }
        // After a failed attempt, search is mandatory when a provider is configured.
        let (hits, search_record) = self.search(&failure, attempt).await;
        let provider = self.llm.as_ref().expect("checked above");
        let user = self.prompt(
            &ask,
            &failure,
            &files,
            example.as_ref().map(|e| &e.0),
            &hits,
        );
        let request = ChatRequest {
            system: format!(
                "{DATA_RULE}\nYou fix Java builds after an automated migration. Answer only with edit blocks."
            ),
            user,
            max_tokens: MAX_TOKENS,
            temperature: 0.0,
        };
        let prompt_chars = request.system.len() + request.user.len();
        let tier = if example.is_some() {
            "retrieval+llm"
        } else {
            "llm"
        };
        let answer = metered(
            provider,
            &self.opts.config.prices,
            &mut self.budget,
            &request,
        )
        .await;
        let m = match answer {
            Ok(m) => m,
            Err(CallError::Budget(stop)) => {
                return self
                    .record(
                        Stage::Fix,
                        rule,
                        &format!("attempt {attempt}"),
                        "LLM budget check",
                        json!({"spent_usd": self.budget.spent_usd(), "calls": self.budget.calls()}),
                        StepResult::LimitReached {
                            limit: format!("LLM budget: {stop}"),
                        },
                        Category::Error,
                        t,
                    )
                    .await
                    .map(|()| false);
            }
            Err(CallError::Llm(e)) if e.is_auth() => {
                // Wrong or foreign credentials: the tier stops here, nothing is retried.
                self.llm = None;
                let reason = format!("the LLM provider refused the credentials, tier stopped: {e}");
                return self
                    .no_answer(rule, attempt, Some(failure), &reason, true, t)
                    .await;
            }
            Err(CallError::Llm(e)) => {
                self.fix.last = Some(LastAttempt::NotApplied {
                    kind: failure.kind,
                    reason: format!("the model gave no answer: {e}"),
                });
                self.pending_answer = Some(ModelAnswer::Error(e.to_string()));
                return self
                    .no_answer(rule, attempt, Some(failure), &e.to_string(), false, t)
                    .await;
            }
        };
        self.pending_cost = m.cost_usd;
        let answer = Some(ModelAnswer::Text(m.response.text.clone()));
        let model = Some(m.response.model.clone());
        let usage = Some(m.response.usage);
        let checked = edits::parse(&m.response.text).and_then(|blocks| {
            let key = (failure.signature.clone(), hash(&blocks_text(&blocks)));
            if self.fix.tried.contains(&key) {
                return Err(edits::Rejected::Malformed {
                    line: 0,
                    why: "the same fix was already tried for this error".into(),
                });
            }
            self.fix.tried.insert(key);
            self.fix.last_edit_hash = hash(&blocks_text(&blocks));
            let gate = Gate::new(&self.opts.root, Origin::Model).only(&editable);
            let out = edits::apply(&blocks, &gate, &self.junit3_bases())?;
            Ok((blocks, out))
        });
        match checked {
            Ok((blocks, out)) => {
                self.write_fix(
                    rule,
                    attempt,
                    failure,
                    Provenance {
                        tier,
                        origin: Origin::Model,
                        retrieval,
                        prompt_chars,
                        model,
                        usage,
                        search: search_record,
                        answer,
                    },
                    (blocks, out),
                    t,
                )
                .await
            }
            Err(rejected) => {
                let reason = rejected.to_string();
                self.fix.last = Some(LastAttempt::NotApplied {
                    kind: failure.kind,
                    reason: format!("the last answer was refused, nothing changed: {reason}"),
                });
                let attempt_record = FixAttempt {
                    attempt,
                    failure,
                    tier: tier.into(),
                    retrieval,
                    prompt_chars,
                    model,
                    usage,
                    search: search_record,
                    result: FixResult::Rejected { reason },
                    answer,
                    gave_up: false,
                };
                self.record(
                    Stage::Fix,
                    rule,
                    &format!("attempt {attempt}"),
                    "apply the model's edits",
                    json!({}),
                    StepResult::Fixed(Box::new(attempt_record)),
                    Category::Error,
                    t,
                )
                .await
                .map(|()| false)
            }
        }
    }

    /// Progress is a new failure signature; the same one again feeds the detector.
    fn check_stuck(&mut self, failure: &Failure) -> Option<Escalation> {
        let previous = self.fix.last_signature.replace(failure.signature.clone())?;
        let progress = previous != failure.signature;
        let action = Action {
            kind: "fix".into(),
            argument_hash: self.fix.last_edit_hash,
            result: failure.signature.clone(),
        };
        self.fix
            .stuck
            .record(action, progress)
            .map(|_| self.fix.stuck.escalate())
    }

    /// The files a model may edit: the build files, sources and resources the analysis
    /// found, and whatever this run has written.
    fn editable_files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = self.fingerprint.as_ref().map_or(Vec::new(), |fp| {
            fp.modules
                .iter()
                .flat_map(|m| {
                    std::iter::once(m.pom.path.clone())
                        .chain(m.java_files.iter().map(|f| f.path.clone()))
                        .chain(m.resource_files.iter().cloned())
                })
                .collect()
        });
        files.extend(self.journal.written_files().unwrap_or_default());
        files
    }

    /// What the latest validation's build failed on, classified (`None`: it built and no
    /// test newly fails, or nothing was validated).
    pub(super) fn latest_failure(&self) -> Option<Failure> {
        let v = self.journal.validation()?;
        classify(
            v.build.run.as_ref()?,
            &v.newly_failing,
            &self.project_names(),
        )
    }

    /// The project's own packages and types, kept out of signatures and search queries.
    pub(super) fn project_names(&self) -> ProjectNames {
        let files = || self.fingerprint.iter().flat_map(|fp| fp.java_files());
        ProjectNames::new(
            files().map(|f| f.package.clone()),
            files().flat_map(|f| f.top_level_types.iter().cloned()),
        )
    }

    /// The files the failure points at, relative to the project.
    fn relevant_files(&self, failure: &Failure) -> Vec<PathBuf> {
        let root = &self.opts.root;
        let rel = |p: &str| -> Option<PathBuf> {
            let path = Path::new(p.split(":[").next().unwrap_or(p));
            let rel = path.strip_prefix(root).unwrap_or(path).to_path_buf();
            root.join(&rel).is_file().then_some(rel)
        };
        match failure.kind {
            FailureKind::Compile => failure
                .errors
                .iter()
                .filter_map(|l| l.split_whitespace().find(|w| w.contains(".java:[")))
                .filter_map(|w| rel(w.trim_start_matches("[ERROR]")))
                .fold(Vec::new(), |mut acc, p| {
                    if !acc.contains(&p) {
                        acc.push(p);
                    }
                    acc
                }),
            FailureKind::Test => {
                let classes: Vec<&str> = failure
                    .errors
                    .iter()
                    .filter_map(|t| t.split_once('#'))
                    .filter_map(|(c, _)| c.rsplit('.').next())
                    .collect();
                self.fingerprint
                    .as_ref()
                    .map(|fp| {
                        fp.java_files()
                            .filter(|f| {
                                f.path
                                    .file_stem()
                                    .is_some_and(|s| classes.iter().any(|c| s == *c))
                            })
                            .map(|f| f.path.clone())
                            .collect()
                    })
                    .unwrap_or_default()
            }
            _ => vec![PathBuf::from("pom.xml")],
        }
    }

    /// Lexical retrieval over the solved examples, under the plan the selector picks.
    async fn retrieve(
        &mut self,
        failure: &Failure,
    ) -> anyhow::Result<(Option<RetrievalRecord>, Option<(Example, f64)>)> {
        let started = Instant::now();
        let examples = self.store.examples().await?;
        if let Some(recording) = &self.opts.replay {
            // The recorded choice, and the example it names as the store holds it.
            let record = recording.next_retrieval();
            let best = record
                .as_ref()
                .and_then(|r| r.example.clone())
                .and_then(|(id, c)| examples.iter().find(|e| e.id == id).map(|e| (e.clone(), c)));
            return Ok((record, best));
        }
        let docs: Vec<String> = examples
            .iter()
            .map(|e| format!("{} {}", e.signature, e.features))
            .collect();
        let index = Index::new(docs.iter().map(String::as_str));
        let query = format!("{} {}", failure.signature, self.features());
        let intent = plan::intent(&failure.signature);
        // One lexical pass at the widest fan-out; each plan takes its prefix.
        let ranked = index.search(&query, PlanKind::SemanticDeep.limits().0);
        let confidence = ranked
            .first()
            .map_or(0.0, |h| index.confidence(&failure.signature, h.0));
        let thresholds = self.opts.config.retrieval;
        let semantic_available = self.embeddings.is_some() && !examples.is_empty();
        let (selected, rule) = plan::select(
            &Query {
                intent,
                lexical_confidence: confidence,
                semantic_available,
                override_plan: None,
            },
            &thresholds,
        );
        let (mut ran, mut reason) =
            plan::executable(selected, semantic_available, selected.limits().1, None);
        let mut lexical = ranked;
        lexical.truncate(ran.limits().0);
        let mut hits = match (&self.embeddings, ran) {
            (Some(embedder), PlanKind::HybridStandard | PlanKind::SemanticDeep) => {
                // Recent examples first; the plan's fan-out caps what is embedded.
                let pool: Vec<usize> = (0..examples.len()).rev().take(ran.limits().0).collect();
                let mut inputs = vec![query.clone()];
                inputs.extend(pool.iter().map(|&i| docs[i].clone()));
                match embedder.embed(&inputs).await {
                    Ok(vectors) => {
                        let semantic: Vec<(usize, f64)> = pool
                            .iter()
                            .zip(&vectors[1..])
                            .map(|(&i, v)| (i, embeddings::cosine(&vectors[0], v)))
                            .collect();
                        embeddings::merge(&lexical, &semantic, ran.limits().0)
                    }
                    Err(_) => {
                        reason = reason.or(Some(DowngradeReason::SemanticUnavailable));
                        ran = PlanKind::LexicalFast;
                        lexical
                    }
                }
            }
            _ => lexical,
        };
        let (fanout, budget_ms) = ran.limits();
        hits.truncate(fanout);
        // Equally relevant examples rank by their standing (merged up, declined down).
        let best = hits
            .iter()
            .map(|(i, s)| (*i, s * examples[*i].standing()))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| (examples[i].clone(), index.confidence(&failure.signature, i)))
            .filter(|(_, c)| *c >= thresholds.low_confidence);
        let record = RetrievalRecord {
            query_plan_selected: format!("{selected:?}"),
            query_plan_rule: rule.into(),
            query_plan_downgraded: (ran != selected).then(|| format!("{ran:?}")),
            query_plan_downgrade_reason: reason.map(|r| format!("{r:?}")),
            query_plan_budget_used: started.elapsed().as_millis() as f64 / budget_ms as f64,
            candidates: hits.len(),
            example: best.as_ref().map(|(e, c)| (e.id.clone(), *c)),
        };
        Ok((Some(record), best))
    }

    /// Fingerprint features for the knowledge store: what makes two projects alike.
    pub(super) fn features(&self) -> String {
        let fp = self.fingerprint.as_ref();
        let mut f = vec![format!("target{}", self.opts.config.target)];
        if let Some(l) = fp.and_then(|f| f.java_level) {
            f.push(format!("java{l}"));
        }
        if let Some(b) = fp.and_then(|f| f.spring_boot.as_deref()) {
            f.push(format!("boot{}", b.split('.').next().unwrap_or(b)));
        }
        f.push(
            if fp.is_some_and(|f| f.gradle.is_some()) {
                "gradle"
            } else {
                "maven"
            }
            .into(),
        );
        f.join(" ")
    }

    /// The CLI's learning: a run that ended SUCCESS with test invariance passed teaches
    /// its fixes and recipes (`knowledge::learn`); anything less teaches nothing.
    pub(super) async fn learn_if_passed(&mut self) -> anyhow::Result<()> {
        let success = self
            .journal
            .outcome()
            .is_some_and(|o| o.outcome == Outcome::Success);
        if success && matches!(self.journal.invariance(), Invariance::Passed) {
            let origin = format!("run:{}", self.journal.run_id);
            let features = self.features();
            knowledge::learn(
                self.store,
                &self.journal,
                &features,
                &origin,
                Verdict::Passed,
            )
            .await?;
        }
        Ok(())
    }

    /// Compiled fresh from what this attempt knows; every repository or log text fenced.
    async fn search(
        &mut self,
        failure: &Failure,
        attempt: u32,
    ) -> (Vec<Hit>, Option<SearchRecord>) {
        let recorded = self
            .opts
            .replay
            .as_ref()
            .filter(|_| self.opts.config.search.is_some());
        if attempt < 2 {
            return (Vec::new(), None);
        }
        let boot = self
            .fingerprint
            .as_ref()
            .and_then(|f| f.spring_boot.clone());
        let query = search::query(
            &failure.signature,
            Some(self.opts.config.target),
            boot.as_deref(),
        );
        let (hits, cache_hits, cache_misses) = match (recorded, &self.search) {
            (Some(recording), _) => {
                let r = recording.next_search().unwrap_or_default();
                (r.hits, r.cache_hits, r.cache_misses)
            }
            (None, Some(provider)) => {
                let hits = match self.search_cache.search(provider, &query).await {
                    Ok(hits) => hits,
                    Err(e) => {
                        if e.is_auth() {
                            // Refused credentials: no further searches this run.
                            self.search = None;
                        }
                        Vec::new()
                    }
                };
                (hits, self.search_cache.hits, self.search_cache.misses)
            }
            (None, None) => return (Vec::new(), None),
        };
        let record = SearchRecord {
            query,
            results: hits.len(),
            cache_hits,
            cache_misses,
            hits: hits.clone(),
        };
        (hits, Some(record))
    }

    fn prompt(
        &self,
        ask: &str,
        failure: &Failure,
        files: &[PathBuf],
        example: Option<&Example>,
        search_hits: &[Hit],
    ) -> String {
        let mut instructions = format!(
            "{ask}\n\
             Answer only with edit blocks:\nFILE: <path relative to the project>\n<<<<<<< SEARCH\n<exact lines to replace>\n=======\n<new lines>\n>>>>>>> REPLACE\n\
             The SEARCH text must match the file exactly once. Never delete, disable or weaken a test or an assertion."
        );
        if let Some(g) = self.fix.guidance {
            instructions.push('\n');
            instructions.push_str(g);
        }
        let log = failure.errors.join("\n");
        // After an applied attempt the files it edited are shown as they are now.
        let mut files = files.to_vec();
        if let Some(LastAttempt::Applied { files: edited, .. }) = &self.fix.last {
            for f in edited {
                if !files.contains(f) {
                    files.push(f.clone());
                }
            }
        }
        let texts: Vec<(PathBuf, String)> = files
            .iter()
            .filter_map(|p| {
                let text = Gate::new(&self.opts.root, Origin::Repository)
                    .read_to_string(p)
                    .ok()?;
                Some((p.clone(), text))
            })
            .collect();
        let labels: Vec<String> = texts.iter().map(|(p, _)| p.display().to_string()).collect();
        let mut data = vec![Data {
            kind: SourceKind::BuildLog,
            label: "errors",
            text: &log,
            cap: LOG_CAP,
        }];
        for ((_, text), label) in texts.iter().zip(&labels) {
            data.push(Data {
                kind: SourceKind::RepositoryFile,
                label,
                text,
                cap: FILE_CAP,
            });
        }
        if let Some(e) = example {
            data.push(Data {
                kind: SourceKind::SolvedExample,
                label: &e.signature,
                text: &e.diff,
                cap: FILE_CAP,
            });
        }
        for hit in search_hits {
            data.push(Data {
                kind: SourceKind::SearchResult,
                label: &hit.url,
                text: &hit.content,
                cap: search::MAX_RESULT_BYTES,
            });
        }
        let summary = self.fix.last.as_ref().map(|last| match last {
            LastAttempt::NotApplied { reason, .. } => reason.clone(),
            LastAttempt::Applied { kind, diff, .. } => format!(
                "The last attempt's edits (for a {kind:?} failure) were applied and the build is \
                 still red. The latest build fails ({:?}) with:\n{log}\n\nThe edits applied:\n{diff}\n\
                 The edited files follow as they are now.",
                failure.kind
            ),
        });
        if let Some(summary) = &summary {
            data.push(Data {
                kind: SourceKind::PriorFailureSummary,
                label: "why the last attempt failed",
                text: summary,
                cap: PRIOR_FAILURE_CAP,
            });
        }
        prompt::compile(&instructions, &data, hash(&self.journal.run_id))
    }

    async fn write_fix(
        &mut self,
        rule: &str,
        attempt: u32,
        failure: Failure,
        from: Provenance,
        (blocks, out): (Vec<Block>, std::collections::BTreeMap<PathBuf, String>),
        t: Instant,
    ) -> anyhow::Result<bool> {
        let mut overlay = Overlay::new(&self.opts.root);
        overlay.set_author(from.origin);
        for (path, text) in &out {
            let before = overlay.read(path)?.to_string();
            super::invariance::remember(&mut self.originals, path, &before);
            overlay.write(path, before, text.clone());
        }
        let diff = overlay.diff();
        let files = self.commit(&overlay)?;
        self.fix.last = Some(LastAttempt::Applied {
            kind: failure.kind,
            diff: diff.clone(),
            files: out.keys().cloned().collect(),
        });
        let edits = blocks_text(&blocks);
        let record = FixAttempt {
            attempt,
            failure,
            tier: from.tier.into(),
            retrieval: from.retrieval,
            prompt_chars: from.prompt_chars,
            model: from.model,
            usage: from.usage,
            search: from.search,
            result: FixResult::Applied { files, diff, edits },
            answer: from.answer,
            gave_up: false,
        };
        self.record(
            Stage::Fix,
            rule,
            &format!("attempt {attempt}"),
            "apply edits, then validate again",
            json!({}),
            StepResult::Fixed(Box::new(record)),
            Category::Success,
            t,
        )
        .await?;
        let current = self.on_disk();
        self.check_invariance(Stage::Fix, rule, current).await?;
        Ok(true)
    }

    /// An attempt that changed nothing; `gave_up`: the loop has nothing more to try.
    async fn no_answer(
        &mut self,
        rule: &str,
        attempt: u32,
        failure: Option<Failure>,
        reason: &str,
        gave_up: bool,
        t: Instant,
    ) -> anyhow::Result<bool> {
        let result = match failure {
            Some(failure) => StepResult::Fixed(Box::new(FixAttempt {
                attempt,
                failure,
                tier: "none".into(),
                retrieval: None,
                prompt_chars: 0,
                model: None,
                usage: None,
                search: None,
                result: FixResult::NoAnswer {
                    reason: reason.into(),
                },
                answer: self.pending_answer.take(),
                gave_up,
            })),
            None => StepResult::BuildSkipped {
                reason: reason.into(),
            },
        };
        self.record(
            Stage::Fix,
            rule,
            &format!("attempt {attempt}"),
            "fix loop",
            json!({}),
            result,
            Category::Empty,
            t,
        )
        .await
        .map(|()| false)
    }
}

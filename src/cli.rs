//! The command line: `uplift migrate|runs|report|replay|recipes|setup|serve|worker`.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};

use crate::build::sandbox::{HostAccess, Isolation, Limits, Sandbox};
use crate::config::{Config, REPO_CONFIG_PATH};
use crate::github::GitHub;
use crate::journal::{Journal, render};
use crate::pipeline::{self, RunOptions};
use crate::progress::Progress;
use crate::repo_path::{Gate, Origin};
use crate::settings::Settings;
use crate::store::{self, Store};
use crate::{redact, terminal};
use crate::{server, worker};
use std::sync::Arc;
use tokio::sync::{Notify, watch};

#[derive(Parser, Debug)]
#[command(
    name = "uplift",
    version,
    about = "Migrates Java/Maven projects and proves the result"
)]
pub struct Cli {
    /// Journal database (default: $UPLIFT_DB or ~/.local/share/uplift/uplift.db).
    #[arg(long, global = true)]
    pub db: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Migrate the Maven project in DIR in place.
    ///
    /// Exit codes: 0 SUCCESS, 2 PARTIAL_SUCCESS, 3 FAILURE, 4 INCOMPLETE, 1 usage or internal error.
    Migrate {
        dir: PathBuf,
        /// Target Java release (17 or 21); overrides the config file.
        #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(["17", "21"]))]
        target_java: Option<String>,
        /// Also move Spring Boot 2 to this major line (3); overrides the config file.
        #[arg(long, value_parser = clap::value_parser!(u32).range(3..=3))]
        spring_boot: Option<u32>,
        /// Also move Jakarta-EE-owned javax.* to jakarta.* (Jakarta EE 10) when no platform
        /// requires it; the same as `jakarta: true` in the config file.
        #[arg(long)]
        jakarta: bool,
        /// Also rewrite modern idioms the target release has: all (the bare flag), or a
        /// comma-separated list (pattern-instanceof, switch-expressions, text-blocks, var,
        /// collection-factories, stream-tolist, string-formatted, sequenced-collections).
        #[arg(long, num_args = 0..=1, default_missing_value = "all", value_delimiter = ',')]
        modernize: Vec<String>,
        /// Rewrite without building (no baseline, no validation: outcome INCOMPLETE).
        #[arg(long)]
        no_build: bool,
        /// Print the diff instead of writing files.
        #[arg(long)]
        dry_run: bool,
        /// Argument passed to every Maven run (repeatable), e.g. `--maven-arg=-o`.
        #[arg(long = "maven-arg", allow_hyphen_values = true)]
        maven_args: Vec<String>,
        /// The operator's settings file (same format as .github/uplift.yml), used instead of
        /// the repository's; the only file besides ~/.config/uplift/config.yml that may name
        /// LLM, search and embeddings endpoints, their key variables and prices.
        #[arg(long)]
        config: Option<PathBuf>,
        #[arg(long)]
        report_json: Option<PathBuf>,
        #[arg(long)]
        report_md: Option<PathBuf>,
    },
    /// List past runs.
    Runs {
        #[arg(long, default_value_t = 20)]
        limit: i64,
    },
    /// Re-render a past run's report from its journal.
    Report {
        run: String,
        #[arg(long, default_value = "md", value_parser = ["md", "json"])]
        format: String,
    },
    /// Replay a past run step by step from its journal: what was known, what was chosen
    /// and by which rule, the evidence, the cost, and why it stopped. With `--execute DIR`
    /// (the project as the run found it), the run is executed again against what it
    /// recorded (builds, model answers, retrieval, the clock) and the new journal is
    /// compared with the recorded one; exit 0 when they are the same, 1 with the differences.
    Replay {
        run: String,
        #[arg(long, value_name = "DIR")]
        execute: Option<PathBuf>,
    },
    /// Describe the recipe catalog (built-in plus the project's own recipes).
    Recipes {
        #[command(subcommand)]
        action: RecipesAction,
    },
    /// Register the GitHub App from its manifest: serves a local page with one button that
    /// sends the manifest to GitHub, receives GitHub's redirect, exchanges the code and writes
    /// the app's credentials to a file only you can read (deploy/README.md, step 1).
    Setup {
        /// Where Uplift will be served, e.g. https://uplift.fly.dev: the app's URL, and its
        /// webhook at /webhook.
        #[arg(long)]
        public_url: String,
        /// Register the app for this organization (default: your personal account).
        #[arg(long)]
        org: Option<String>,
        /// GitHub's address; a GitHub Enterprise Server's is https://HOST (API: /api/v3).
        #[arg(long, default_value = "https://github.com")]
        github_url: String,
        /// Address of the local page; GitHub sends the browser back to it.
        #[arg(long, default_value = "127.0.0.1:3000")]
        listen: std::net::SocketAddr,
        /// The credentials file: created with mode 0600, never overwritten.
        #[arg(long, default_value = "uplift-app.env")]
        out: PathBuf,
        /// A manifest other than the built-in app-manifest.yml.
        #[arg(long)]
        manifest: Option<PathBuf>,
    },
    /// Run the GitHub App: webhook server plus (unless --no-worker) an in-process worker.
    /// Settings come from the environment (deploy/README.md).
    Serve {
        /// Only answer webhooks; `uplift worker` processes run the jobs.
        #[arg(long)]
        no_worker: bool,
    },
    /// Run workers only, against the shared DATABASE_URL.
    Worker,
}

#[derive(Subcommand, Debug)]
pub enum RecipesAction {
    /// One line per recipe: id, kind, origin, description.
    List {
        /// Project whose `.uplift/recipes` and config recipes are included.
        #[arg(long, default_value = ".")]
        project: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// A recipe's description, preconditions and declaration.
    Show {
        id: String,
        #[arg(long, default_value = ".")]
        project: PathBuf,
    },
}

/// The explicit settings file, else the project's `.github/uplift.yml` (read through the
/// repository gate: a link there is refused, not followed), else defaults.
fn project_config(root: &std::path::Path, explicit: Option<PathBuf>) -> anyhow::Result<Config> {
    let Some(path) = explicit else {
        let gate = Gate::new(root, Origin::Repository);
        return match gate.read_to_string(std::path::Path::new(REPO_CONFIG_PATH)) {
            Ok(text) => Config::parse(&text).with_context(|| format!("invalid {REPO_CONFIG_PATH}")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(anyhow::anyhow!("cannot read {REPO_CONFIG_PATH}: {e}")),
        };
    };
    Config::load(&path)
}

/// Text for stderr, which people read: secrets masked, and the control characters of the
/// repository's, the build's or the model's text shown rather than obeyed by the terminal.
pub fn for_stderr(text: &str) -> String {
    terminal::inert(&redact::redact(text))
}

/// Text for stdout: as for stderr on a terminal; byte for byte (a diff applies as a patch)
/// when it goes to a file or a pipe.
fn for_stdout(text: &str) -> String {
    use std::io::IsTerminal;
    let text = redact::redact(text);
    if std::io::stdout().is_terminal() {
        terminal::inert(&text)
    } else {
        text
    }
}

/// The CLI sandboxes builds when bubblewrap works here, and says so when it cannot.
fn cli_isolation(operator_args: &[String]) -> Option<Isolation> {
    match Sandbox::detect(Limits::default()) {
        Ok(sandbox) => Some(Isolation {
            sandbox,
            access: HostAccess::from_operator_args(
                operator_args,
                Some(store::cache_dir().join("m2")),
            ),
        }),
        Err(e) => {
            eprintln!("warning: builds run WITHOUT a sandbox: {e}");
            None
        }
    }
}

/// The app runs builds only in a working sandbox, unless the operator explicitly opts out
/// for development.
fn app_sandbox(unsafe_no_sandbox: bool) -> anyhow::Result<Option<Sandbox>> {
    match Sandbox::detect(Limits::default()) {
        Ok(sandbox) => {
            tracing::info!(sandbox = %sandbox.describe(false), "builds run sandboxed");
            Ok(Some(sandbox))
        }
        Err(e) if unsafe_no_sandbox => {
            tracing::error!(
                error = %e,
                "UPLIFT_UNSAFE_NO_SANDBOX=1: builds run repositories' code UNSANDBOXED, with \
                 access to this machine; never do this with real installations"
            );
            Ok(None)
        }
        Err(e) => anyhow::bail!(
            "{e}. Builds run untrusted repository code and need the sandbox \
             (set UPLIFT_UNSAFE_NO_SANDBOX=1 for local development only)"
        ),
    }
}

/// The user's own settings file: `$XDG_CONFIG_HOME/uplift/config.yml`, else
/// `~/.config/uplift/config.yml`.
fn user_config_path() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .map(|d| d.join("uplift/config.yml"))
}

/// Settings for `migrate`, and notices of what was ignored. `--config FILE` is the
/// operator's and used whole; without it the repository's `.github/uplift.yml` decides the
/// migration, but providers, key variables and prices — only the operator's — come from
/// the user's config file, whose `budgets` (else the defaults) cap the repository's. `UPLIFT_LLM_*`, `UPLIFT_EMBEDDINGS_*` and `UPLIFT_SEARCH_*`
/// variables override either.
fn migrate_config(
    root: &std::path::Path,
    explicit: Option<PathBuf>,
) -> anyhow::Result<(Config, Vec<String>)> {
    let (mut cfg, notices) = match explicit {
        Some(path) => (Config::load(&path)?, Vec::new()),
        None => {
            let mut cfg = project_config(root, None)?;
            let notices = cfg.drop_operator_settings().into_iter().collect();
            let user = match user_config_path().filter(|p| p.is_file()) {
                Some(path) => Config::load(&path)?,
                None => Config::default(),
            };
            cfg.llm = user.llm;
            cfg.search = user.search;
            cfg.embeddings = user.embeddings;
            cfg.prices = user.prices;
            // The repository may lower the user's limits (time, output, model calls and
            // spend on the user's key), never raise them.
            cfg.budgets = cfg.budgets.within(&user.budgets);
            (cfg, notices)
        }
    };
    let env = crate::settings::Providers::from_env()?;
    cfg.llm = env.llm.or(cfg.llm);
    cfg.search = env.search.or(cfg.search);
    cfg.embeddings = env.embeddings.or(cfg.embeddings);
    Ok((cfg, notices))
}

async fn open_store(db: Option<PathBuf>) -> anyhow::Result<Store> {
    Store::open(&db.unwrap_or_else(store::default_path)).await
}

/// Runs the CLI; returns the process exit code.
pub async fn main(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        Command::Migrate {
            dir,
            target_java,
            spring_boot,
            jakarta,
            modernize,
            no_build,
            dry_run,
            maven_args,
            config,
            report_json,
            report_md,
        } => {
            let root = dir
                .canonicalize()
                .with_context(|| format!("{} does not exist", dir.display()))?;
            let explicit_config = config.is_some();
            let (mut cfg, notices) = migrate_config(&root, config)?;
            for n in &notices {
                eprintln!("warning: {}", for_stderr(n));
            }
            // Paths the sandbox may show come from the operator (flags, their own file),
            // never from the repository's `.github/uplift.yml`.
            let mut operator_args = if explicit_config {
                cfg.maven_args.clone()
            } else {
                Vec::new()
            };
            operator_args.extend(maven_args.iter().cloned());
            if let Some(t) = target_java {
                cfg.target = t.parse()?;
            }
            if spring_boot.is_some() {
                cfg.spring_boot = spring_boot;
            }
            cfg.jakarta |= jakarta;
            cfg.modernize.extend(modernize);
            cfg.maven_args.extend(maven_args);
            cfg.validate()?;
            let store = open_store(cli.db).await?;
            // A dry run builds the untouched project too: in the sandbox like any other.
            let isolation = if no_build {
                None
            } else {
                cli_isolation(&operator_args)
            };
            let opts = RunOptions {
                root,
                config: cfg,
                build: !no_build,
                dry_run,
                isolation,
                notices,
                learn_on_success: true,
                run_id: None,
                resume: None,
                replay: None,
            };
            let mut progress = Progress::new(true);
            let journal = pipeline::run(&opts, &store, &mut progress).await?;
            if dry_run && let Some(diff) = journal.diff() {
                print!("{}", for_stdout(diff));
            }
            write_reports(&journal, report_json, report_md)?;
            eprint!("{}", for_stderr(&render::summary(&journal)));
            Ok(journal.outcome().map_or(1, |o| o.outcome.exit_code()))
        }
        Command::Runs { limit } => {
            let store = open_store(cli.db).await?;
            for r in store.runs(limit).await? {
                println!(
                    "{}",
                    for_stdout(&format!(
                        "{}  {}  java {}  {}  {}",
                        r.id,
                        r.started_at,
                        r.target,
                        r.outcome.as_deref().unwrap_or("(unfinished)"),
                        r.project
                    ))
                );
            }
            Ok(0)
        }
        Command::Report { run, format } => {
            let store = open_store(cli.db).await?;
            let (_, journal) = store.journal(&run).await?;
            match format.as_str() {
                "json" => println!("{}", serde_json::to_string_pretty(&render::json(&journal))?),
                _ => print!("{}", for_stdout(&render::markdown(&journal))),
            }
            Ok(0)
        }
        Command::Replay { run, execute: None } => {
            let store = open_store(cli.db).await?;
            let (_, journal) = store.journal(&run).await?;
            print!("{}", for_stdout(&render::replay(&journal)));
            Ok(0)
        }
        Command::Replay {
            run,
            execute: Some(root),
        } => {
            let store = open_store(cli.db).await?;
            let (row, recorded) = store.journal(&run).await?;
            let options = store
                .run_options(&row.id)
                .await?
                .context("the run's options are not recorded")?;
            let field = |k: &str| options.get(k).cloned().unwrap_or_default();
            let opts = RunOptions {
                root,
                config: serde_json::from_value(field("config"))
                    .context("the run's recorded config does not match this version")?,
                build: field("build").as_bool().unwrap_or(true),
                dry_run: field("dry_run").as_bool().unwrap_or(false),
                isolation: None,
                notices: serde_json::from_value(field("notices")).unwrap_or_default(),
                learn_on_success: false,
                run_id: None,
                resume: None,
                replay: Some(std::sync::Arc::new(
                    pipeline::replay::Recording::from_journal(&recorded),
                )),
            };
            let replayed = pipeline::run(&opts, &store, &mut Progress::new(false)).await?;
            let differences = pipeline::replay::compare(&recorded, &replayed);
            if differences.is_empty() {
                println!(
                    "replayed run {} as {}: the same journal, {} entries",
                    recorded.run_id,
                    replayed.run_id,
                    replayed.entries.len()
                );
                return Ok(0);
            }
            println!(
                "replayed run {} as {}: {} entries differ",
                recorded.run_id,
                replayed.run_id,
                differences.len()
            );
            for d in &differences {
                println!("{}", for_stdout(d));
            }
            Ok(1)
        }
        Command::Setup {
            public_url,
            org,
            github_url,
            listen,
            out,
            manifest,
        } => {
            let manifest = match manifest {
                Some(path) => std::fs::read_to_string(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?,
                None => server::setup::MANIFEST.to_string(),
            };
            let setup = server::setup::Setup::bind(server::setup::Options {
                public_url,
                org,
                github_url,
                listen,
                out,
                manifest,
            })
            .await?;
            println!(
                "Open {}/ in a browser signed in to GitHub and press the button.",
                setup.url()
            );
            let app = tokio::select! {
                app = setup.run() => app?,
                _ = shutdown_signal() => anyhow::bail!("setup interrupted; no credentials were saved"),
            };
            print!("{}", redact::redact(&setup_summary(&app)));
            Ok(0)
        }
        Command::Serve { no_worker } => run_app(true, !no_worker).await,
        Command::Worker => run_app(false, true).await,
        Command::Recipes { action } => {
            use crate::recipes::registry::Registry;
            let (project, show) = match action {
                RecipesAction::List { project, json } => (project, Err(json)),
                RecipesAction::Show { id, project } => (project, Ok(id)),
            };
            let cfg = project_config(&project, None)?;
            let all = Registry::load(Some(&project), &cfg.recipes)?.describe();
            match show {
                Err(true) => println!("{}", serde_json::to_string_pretty(&all)?),
                Err(false) => {
                    for r in &all {
                        println!(
                            "{}",
                            for_stdout(&format!(
                                "{:<30} {:<10} {:<10} {}",
                                r.id, r.kind, r.origin, r.description
                            ))
                        );
                    }
                }
                Ok(id) => {
                    let r = all
                        .iter()
                        .find(|r| r.id == id)
                        .with_context(|| format!("no recipe {id:?}; see `uplift recipes list`"))?;
                    println!(
                        "{}",
                        for_stdout(&format!(
                            "{}\n\n{}\n\nkind: {}\norigin: {}",
                            r.id, r.description, r.kind, r.origin
                        ))
                    );
                    let p = &r.preconditions;
                    if p != &Default::default() {
                        println!("preconditions: {}", serde_json::to_string(p)?);
                    }
                    if let Some(src) = &r.source {
                        println!("\n{}", for_stdout(src));
                    }
                }
            }
            Ok(0)
        }
    }
}

/// Starts the server and/or workers and runs until SIGINT/SIGTERM.
async fn run_app(serve: bool, work: bool) -> anyhow::Result<i32> {
    let settings = Arc::new(Settings::from_env()?);
    let store = Store::connect(&settings.database_url).await?;
    let wake = Arc::new(Notify::new());
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut tasks = Vec::new();
    if work {
        // The recipe tier's threads are batch work beside the edge, like the builds.
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .start_handler(|_| crate::build::yield_cpu())
            .build_global()
        {
            tracing::warn!(error = %e, "recipe threads keep the default priority");
        }
        let sandbox = app_sandbox(settings.unsafe_no_sandbox)?;
        let ctx = worker::Context {
            store: store.clone(),
            github: GitHub::new(&settings)?,
            settings: settings.clone(),
            wake: wake.clone(),
            sandbox,
            events: Arc::new(crate::commands::Events),
        };
        tasks.push(tokio::spawn(worker::run(ctx, stop_rx.clone())));
    }
    if serve {
        let state = server::AppState::new(
            store.clone(),
            settings.webhook_secret.clone(),
            settings.app_slug.clone(),
            settings.max_attempts,
            wake,
        );
        let bind = |addr| async move {
            tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("cannot listen on {addr}"))
        };
        let listener = bind(settings.listen).await?;
        let metrics = bind(settings.metrics_listen).await?;
        tracing::info!(addr = %listener.local_addr()?, metrics = %metrics.local_addr()?, worker = work, "uplift serving");
        tasks.push(tokio::spawn(server::serve(
            listener,
            server::router(state.clone()),
            stop_rx.clone(),
        )));
        tasks.push(tokio::spawn(server::serve(
            metrics,
            server::metrics_router(state),
            stop_rx.clone(),
        )));
    } else {
        tracing::info!("uplift worker running");
    }
    shutdown_signal().await;
    tracing::info!("shutting down");
    let _ = stop_tx.send(true);
    for t in tasks {
        let _ = t.await;
    }
    Ok(0)
}

/// What to do with the credentials file: commands that read it, so no secret passes
/// through a command line, shell history or this output.
fn setup_summary(app: &server::setup::Registered) -> String {
    let file = app.out.display().to_string();
    let quoted = shlex::try_quote(&file).unwrap_or_else(|_| file.as_str().into());
    format!(
        "Registered GitHub App {name} ({url}).\n\
         Its credentials are in {file} (mode 0600); delete the file once they are set.\n\
         Fly.io:       fly secrets import --stage < {quoted}\n\
         One machine:  set -a; . {quoted}; set +a; uplift serve\n\
         Then install the app: {url}/installations/new\n",
        name = app.name,
        url = app.html_url,
    )
}

async fn shutdown_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

fn write_reports(
    journal: &Journal,
    json: Option<PathBuf>,
    md: Option<PathBuf>,
) -> anyhow::Result<()> {
    if let Some(p) = json {
        let mut report = render::json(journal);
        redact::redact_json(&mut report);
        std::fs::write(&p, serde_json::to_string_pretty(&report)?)
            .with_context(|| format!("cannot write {}", p.display()))?;
    }
    if let Some(p) = md {
        std::fs::write(&p, redact::redact(&render::markdown(journal)))
            .with_context(|| format!("cannot write {}", p.display()))?;
    }
    Ok(())
}

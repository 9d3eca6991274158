//! Run settings: the same file a repository keeps in `.github/uplift.yml`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// Where a repository keeps its settings.
pub const REPO_CONFIG_PATH: &str = ".github/uplift.yml";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Target Java feature release (17 or 21).
    pub target: u32,
    /// Module directories (relative to the project root) the migration must not edit.
    pub skip_modules: Vec<String>,
    /// Extra arguments for every Maven run.
    pub maven_args: Vec<String>,
    /// Installed JDKs by feature release; JAVA_HOME and /usr/lib/jvm are added when absent.
    pub jdks: BTreeMap<u32, PathBuf>,
    pub budgets: Budgets,
    pub catalog: Catalog,
    /// Move Spring Boot to this major line (only 3); unset keeps the project's Boot line.
    pub spring_boot: Option<u32>,
    /// Move Jakarta-EE-owned `javax.*` to `jakarta.*` and Jakarta EE 10 coordinates even when
    /// no platform requires it (a Jakarta EE application or library that is not Spring Boot).
    pub jakarta: bool,
    /// Modern idioms to rewrite (`all`, or names from [`IDIOMS`]); off by default, because
    /// a reviewer asked for a migration, not a restyle.
    pub modernize: Modernize,
    pub recipes: RecipeSettings,
    /// The LLM tier; without it a red validation ends the run (no fix loop).
    pub llm: Option<crate::llm::LlmSettings>,
    /// Web search for the LLM tier (Tavily-compatible); used from the second attempt on.
    pub search: Option<crate::llm::search::SearchSettings>,
    /// An OpenAI-compatible embeddings endpoint for semantic retrieval (`api` is ignored).
    pub embeddings: Option<crate::llm::LlmSettings>,
    /// US dollars per million tokens, by model.
    pub prices: crate::llm::pricing::PriceTable,
    /// Retrieval plan thresholds.
    pub retrieval: crate::knowledge::plan::Thresholds,
}

/// The modern idioms `modernize` can name; each is a recipe whose `when.idiom` says so.
pub const IDIOMS: &[&str] = &[
    "pattern-instanceof",
    "switch-expressions",
    "text-blocks",
    "var",
    "collection-factories",
    "stream-tolist",
    "string-formatted",
    "sequenced-collections",
    "optional-isempty",
    "path-of",
];

/// `modernize: all`, `modernize: true`, or a list of idioms.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(from = "ModernizeSpec", into = "Vec<String>")]
pub struct Modernize(Vec<String>);

#[derive(Deserialize)]
#[serde(untagged)]
enum ModernizeSpec {
    Flag(bool),
    One(String),
    List(Vec<String>),
}

impl From<ModernizeSpec> for Modernize {
    fn from(spec: ModernizeSpec) -> Self {
        Modernize(match spec {
            ModernizeSpec::Flag(true) => vec!["all".into()],
            ModernizeSpec::Flag(false) => Vec::new(),
            ModernizeSpec::One(s) => vec![s],
            ModernizeSpec::List(l) => l,
        })
    }
}

impl From<Modernize> for Vec<String> {
    fn from(m: Modernize) -> Self {
        m.0
    }
}

impl Modernize {
    pub fn new(idioms: Vec<String>) -> Self {
        Modernize(idioms)
    }

    /// Whether the run rewrites this idiom.
    pub fn includes(&self, idiom: &str) -> bool {
        self.0.iter().any(|m| m == "all" || m == idiom)
    }

    pub fn extend(&mut self, more: Vec<String>) {
        self.0.extend(more);
    }

    fn validate(&self) -> anyhow::Result<()> {
        for m in &self.0 {
            anyhow::ensure!(
                m == "all" || IDIOMS.contains(&m.as_str()),
                "modernize: unknown idiom {m:?}; known: all, {}",
                IDIOMS.join(", ")
            );
        }
        Ok(())
    }
}

/// Which recipes run, and where a repository's own recipes live.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct RecipeSettings {
    /// Opt-in recipes to turn on (style modernisations are off by default).
    pub enable: Vec<String>,
    /// Recipes never to run.
    pub disable: Vec<String>,
    /// Directory (relative to the project root) of declarative recipe files (`*.yml`).
    pub dir: PathBuf,
    /// Recipes written inline in this file, in the same format.
    pub custom: Vec<serde_json::Value>,
}

impl Default for RecipeSettings {
    fn default() -> Self {
        Self {
            enable: Vec::new(),
            disable: Vec::new(),
            dir: PathBuf::from(".uplift/recipes"),
            custom: Vec::new(),
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            target: 21,
            skip_modules: Vec::new(),
            maven_args: Vec::new(),
            jdks: BTreeMap::new(),
            budgets: Budgets::default(),
            catalog: Catalog::default(),
            spring_boot: None,
            jakarta: false,
            modernize: Modernize::default(),
            recipes: RecipeSettings::default(),
            llm: None,
            search: None,
            embeddings: None,
            prices: Default::default(),
            retrieval: Default::default(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Budgets {
    /// Wall-clock limit for the whole run.
    pub max_wall_secs: u64,
    /// Limit for one Maven run; a build that hangs is killed after this.
    pub build_timeout_secs: u64,
    /// Bytes of build output kept per run (the rest is dropped, the tail is kept).
    pub max_build_output_bytes: usize,
    /// Disk one Maven run may fill (work tree, its `/tmp` and home, its local repository),
    /// counted as allocated blocks, every file and directory at least one block; a build
    /// that writes more is killed ([`crate::build::disk`]).
    pub max_build_disk_bytes: u64,
    /// LLM limits, used by the fallback tier.
    pub max_llm_calls: u32,
    pub max_cost_usd: f64,
}

impl Default for Budgets {
    fn default() -> Self {
        Self {
            max_wall_secs: 3600,
            build_timeout_secs: 1800,
            max_build_output_bytes: 4 * 1024 * 1024,
            max_build_disk_bytes: 10 << 30,
            max_llm_calls: 500,
            max_cost_usd: 10.0,
        }
    }
}

impl Budgets {
    /// Each limit the lower of this one's and `ceiling`'s: a repository's budgets under the
    /// server's. A cost that is not a number or below zero counts as zero.
    pub fn within(&self, ceiling: &Budgets) -> Budgets {
        let cost = if self.max_cost_usd.is_nan() {
            0.0
        } else {
            self.max_cost_usd.max(0.0)
        };
        Budgets {
            max_wall_secs: self.max_wall_secs.min(ceiling.max_wall_secs),
            build_timeout_secs: self.build_timeout_secs.min(ceiling.build_timeout_secs),
            max_build_output_bytes: self
                .max_build_output_bytes
                .min(ceiling.max_build_output_bytes),
            max_build_disk_bytes: self.max_build_disk_bytes.min(ceiling.max_build_disk_bytes),
            max_llm_calls: self.max_llm_calls.min(ceiling.max_llm_calls),
            max_cost_usd: cost.min(ceiling.max_cost_usd),
        }
    }
}

/// The versions a migration writes into poms. Defaults are current releases for online
/// builds; an org or repository overrides any of them (offline tests pin Debian's).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Catalog {
    pub junit_jupiter: String,
    /// The JUnit Platform release that goes with `junit_jupiter` (`junit-platform-suite`).
    pub junit_platform: String,
    pub surefire: String,
    pub compiler_plugin: String,
    pub hamcrest: String,
    /// `group:artifact:version` of the API jars replacing Java EE modules removed in Java 11
    /// (javax namespace kept; the jakarta move is a separate migration).
    pub javax_annotation_api: String,
    pub jaxb_api: String,
    pub jaxb_runtime: String,
    pub activation_api: String,
    /// Spring Boot 3 release a Boot 2 project moves to, and the Spring Cloud train for it.
    pub spring_boot_3: String,
    pub spring_cloud: String,
}

impl Default for Catalog {
    fn default() -> Self {
        Self {
            junit_jupiter: "5.11.4".into(),
            junit_platform: "1.11.4".into(),
            surefire: "3.5.2".into(),
            compiler_plugin: "3.13.0".into(),
            hamcrest: "2.2".into(),
            javax_annotation_api: "jakarta.annotation:jakarta.annotation-api:1.3.5".into(),
            jaxb_api: "jakarta.xml.bind:jakarta.xml.bind-api:2.3.3".into(),
            jaxb_runtime: "org.glassfish.jaxb:jaxb-runtime:2.3.9".into(),
            activation_api: "jakarta.activation:jakarta.activation-api:1.2.2".into(),
            spring_boot_3: "3.3.5".into(),
            spring_cloud: "2023.0.3".into(),
        }
    }
}

/// A `group:artifact:version` triple from the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coordinates {
    pub group: String,
    pub artifact: String,
    pub version: String,
}

impl Coordinates {
    pub fn parse(gav: &str) -> anyhow::Result<Self> {
        let parts: Vec<&str> = gav.split(':').collect();
        match parts.as_slice() {
            [g, a, v] if !g.is_empty() && !a.is_empty() && !v.is_empty() => Ok(Self {
                group: g.to_string(),
                artifact: a.to_string(),
                version: v.to_string(),
            }),
            _ => anyhow::bail!("catalog entry {gav:?} is not group:artifact:version"),
        }
    }
}

impl Config {
    /// Reads a settings file; unknown keys are errors so typos do not pass silently.
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read config {}", path.display()))?;
        Self::parse(&text).with_context(|| format!("invalid config {}", path.display()))
    }

    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let config: Config = serde_saphyr::from_str(text)?;
        config.validate()?;
        Ok(config)
    }

    /// Removes what only the operator may set — model and search endpoints, the variables
    /// their keys are read from, prices, JDK homes — from a repository's own file, which
    /// could otherwise send the operator's key to any host, price calls at zero or have any
    /// host directory bound into the build sandbox as a JDK. Returns a notice naming what
    /// was ignored, if anything.
    pub fn drop_operator_settings(&mut self) -> Option<String> {
        let mut named = Vec::new();
        if self.llm.take().is_some() {
            named.push("llm");
        }
        if self.search.take().is_some() {
            named.push("search");
        }
        if self.embeddings.take().is_some() {
            named.push("embeddings");
        }
        if self.prices != crate::llm::pricing::PriceTable::default() {
            self.prices = Default::default();
            named.push("prices");
        }
        if !self.jdks.is_empty() {
            self.jdks.clear();
            named.push("jdks");
        }
        (!named.is_empty()).then(|| {
            format!(
                "`{REPO_CONFIG_PATH}` names {}: ignored, providers, prices and JDKs come from the operator only",
                named.join(", ")
            )
        })
    }

    pub fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            matches!(self.target, 17 | 21),
            "target must be 17 or 21, not {}",
            self.target
        );
        anyhow::ensure!(
            matches!(self.spring_boot, None | Some(3)),
            "spring_boot must be 3 when set"
        );
        self.modernize.validate()?;
        for gav in [
            &self.catalog.javax_annotation_api,
            &self.catalog.jaxb_api,
            &self.catalog.jaxb_runtime,
            &self.catalog.activation_api,
        ] {
            Coordinates::parse(gav)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_partial_yaml_over_defaults() {
        let c = Config::parse(
            "target: 17\nmaven_args: [\"-o\"]\njdks:\n  17: /opt/jdk17\ncatalog:\n  surefire: 2.22.3\n",
        )
        .unwrap();
        assert_eq!(c.target, 17);
        assert_eq!(c.maven_args, vec!["-o"]);
        assert_eq!(c.jdks[&17], PathBuf::from("/opt/jdk17"));
        assert_eq!(c.catalog.surefire, "2.22.3");
        assert_eq!(
            c.catalog.compiler_plugin,
            Catalog::default().compiler_plugin
        );
    }

    #[test]
    fn modernize_takes_all_a_flag_or_a_list_of_known_idioms() {
        let all = Config::parse("modernize: all\n").unwrap();
        assert!(all.modernize.includes("text-blocks"));
        assert!(
            Config::parse("modernize: true\n")
                .unwrap()
                .modernize
                .includes("var")
        );
        let some = Config::parse("modernize: [var, pattern-instanceof]\n").unwrap();
        assert!(some.modernize.includes("var") && !some.modernize.includes("text-blocks"));
        assert!(!Config::default().modernize.includes("var"));
        let err = Config::parse("modernize: [vars]\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown idiom \"vars\""), "{err}");
    }

    #[test]
    fn rejects_typos_and_bad_targets() {
        assert!(Config::parse("targte: 17\n").is_err());
        assert!(Config::parse("target: 15\n").is_err());
        assert!(Config::parse("catalog:\n  jaxb_api: nonsense\n").is_err());
    }

    #[test]
    fn a_repository_may_lower_every_limit_but_raise_none() {
        let server = Budgets {
            max_wall_secs: 600,
            build_timeout_secs: 300,
            max_build_output_bytes: 1000,
            max_build_disk_bytes: 4096,
            max_llm_calls: 5,
            max_cost_usd: 2.0,
        };
        let b = |w, t, o, d, c, usd| Budgets {
            max_wall_secs: w,
            build_timeout_secs: t,
            max_build_output_bytes: o,
            max_build_disk_bytes: d,
            max_llm_calls: c,
            max_cost_usd: usd,
        };
        // (the repository asks, it gets)
        for (asked, got) in [
            (Budgets::default(), b(600, 300, 1000, 4096, 5, 2.0)),
            (
                b(
                    u64::MAX,
                    u64::MAX,
                    usize::MAX,
                    u64::MAX,
                    u32::MAX,
                    f64::INFINITY,
                ),
                b(600, 300, 1000, 4096, 5, 2.0),
            ),
            (b(60, 30, 10, 20, 1, 0.5), b(60, 30, 10, 20, 1, 0.5)),
            (b(0, 0, 0, 0, 0, 0.0), b(0, 0, 0, 0, 0, 0.0)),
            (
                b(600, 301, 999, 4097, 6, 2.0),
                b(600, 300, 999, 4096, 5, 2.0),
            ),
            (
                b(600, 300, 1000, 4096, 5, f64::NAN),
                b(600, 300, 1000, 4096, 5, 0.0),
            ),
            (
                b(600, 300, 1000, 4096, 5, -1.0),
                b(600, 300, 1000, 4096, 5, 0.0),
            ),
        ] {
            assert_eq!(asked.within(&server), got, "{asked:?}");
        }
    }

    #[test]
    fn a_repository_file_cannot_name_providers_prices_or_jdks() {
        // A JDK home is bound into the build sandbox: `/` would show the build the host.
        let mut c = Config::parse(
            "target: 17\nllm:\n  api: openai_compatible\n  base_url: http://evil\n  model: m\n  api_key_env: OTHER\nprices:\n  m: {input_per_mtok: 0, output_per_mtok: 0}\njdks:\n  8: /\n  17: /root\n",
        )
        .unwrap();
        let notice = c.drop_operator_settings().unwrap();
        assert!(notice.contains("llm, prices, jdks"), "{notice}");
        assert_eq!(c.llm, None);
        assert_eq!(c.prices, Default::default());
        assert!(c.jdks.is_empty(), "{:?}", c.jdks);
        assert_eq!(c.target, 17);
        assert_eq!(c.drop_operator_settings(), None);
    }
}

//! GitHub's published OpenAPI description of api.github.com (npm `@octokit/openapi`, pinned in
//! `tests/openapi/`, installed by `scripts/setup-github-descriptions.sh`) as the referee of the
//! fake GitHub: every request it receives and every answer it gives is checked against the
//! operation the description names for that method and path, so the fake cannot drift from
//! GitHub's API while staying in step with our client.
//!
//! The description (13 MB) is read and prepared once per test process; the JSON Schema of each
//! request body, parameter and response is compiled the first time it is needed. OpenAPI 3.0's
//! `nullable` is rewritten to JSON Schema (draft 4, the dialect OpenAPI 3.0 extends).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use jsonschema::{Draft, Registry, Validator};
use serde_json::{Value, json};

/// Where the description is registered, so compiled schemas can `$ref` into its components.
const BASE: &str = "urn:uplift:github-openapi";

/// The npm cache directory `scripts/setup-github-descriptions.sh` installs into.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("UPLIFT_GITHUB_DESCRIPTIONS") {
        return PathBuf::from(dir);
    }
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .expect("HOME or XDG_CACHE_HOME names the cache directory")
        .join("uplift-github-descriptions")
}

/// The installed package `name` (under `@octokit/`), after checking it is the pinned version:
/// a missing or stale install fails the test with what to run.
pub fn package_dir(name: &str) -> PathBuf {
    installed_package(&cache_dir(), name)
}

/// [`package_dir`] in npm cache directory `cache`.
pub fn installed_package(cache: &Path, name: &str) -> PathBuf {
    let pins: Value = serde_json::from_str(include_str!("../openapi/package.json"))
        .expect("tests/openapi/package.json is JSON");
    let pinned = pins["dependencies"][format!("@octokit/{name}")]
        .as_str()
        .unwrap_or_else(|| panic!("tests/openapi/package.json pins no @octokit/{name}"));
    let dir = cache.join("node_modules/@octokit").join(name);
    let installed = std::fs::read_to_string(dir.join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|p| p["version"].as_str().map(str::to_owned));
    match installed {
        Some(version) if version == pinned => dir,
        found => panic!(
            "@octokit/{name} {pinned} is not installed in {} (found {found:?}): \
             run scripts/setup-github-descriptions.sh (scripts/test.sh does)",
            cache.display()
        ),
    }
}

/// The prepared description; every fake of the process shares it.
pub fn description() -> &'static Description {
    static DESCRIPTION: OnceLock<Description> = OnceLock::new();
    DESCRIPTION.get_or_init(Description::load)
}

pub struct Description {
    spec: &'static Value,
    registry: Registry<'static>,
    operations: Vec<Operation>,
    /// Compiled schemas by their JSON pointer into the description.
    validators: Mutex<HashMap<String, Arc<Validator>>>,
    /// Operations seen by any fake of this process, by `operationId`.
    exercised: Mutex<BTreeSet<String>>,
}

/// One operation of the description: a method on a path template.
struct Operation {
    method: String,
    segments: Vec<Segment>,
    id: String,
    /// JSON pointer of the operation object, `/paths/<template>/<method>`.
    pointer: String,
}

enum Segment {
    Literal(String),
    Param(String),
}

/// What the description says of one request: the operation it is (if any) and every way the
/// request breaks it.
pub struct RequestCheck {
    pub operation: Option<String>,
    pub violations: Vec<String>,
    pointer: Option<String>,
}

impl Description {
    fn load() -> Description {
        let path = package_dir("openapi").join("generated/api.github.com.json");
        let text = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("GitHub's OpenAPI description {}: {e}", path.display()));
        let mut spec: Value = serde_json::from_slice(&text)
            .unwrap_or_else(|e| panic!("GitHub's OpenAPI description is not JSON: {e}"));
        nullable_to_json_schema(&mut spec);
        let spec: &'static Value = Box::leak(Box::new(spec));
        let registry = Registry::new()
            .draft(Draft::Draft4)
            .add(BASE, spec)
            .and_then(|b| b.prepare())
            .expect("GitHub's OpenAPI description registers as a JSON Schema resource");
        let mut operations = Vec::new();
        for (template, item) in spec["paths"].as_object().expect("paths") {
            for (method, operation) in item.as_object().expect("path item") {
                let Some(id) = operation["operationId"].as_str() else {
                    continue; // `parameters`, `summary`: not an operation
                };
                operations.push(Operation {
                    method: method.to_ascii_uppercase(),
                    segments: template
                        .split('/')
                        .skip(1)
                        .map(
                            |s| match s.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                                Some(name) => Segment::Param(name.to_owned()),
                                None => Segment::Literal(s.to_owned()),
                            },
                        )
                        .collect(),
                    id: id.to_owned(),
                    pointer: format!("/paths/{}/{method}", escape(template)),
                });
            }
        }
        Description {
            spec,
            registry,
            operations,
            validators: Mutex::default(),
            exercised: Mutex::default(),
        }
    }

    /// Checks a request: its operation, path and query parameters, and JSON body.
    pub fn check_request(
        &self,
        method: &str,
        path: &str,
        query: Option<&str>,
        body: &[u8],
    ) -> RequestCheck {
        let Some((operation, path_params)) = self.operation(method, path) else {
            return RequestCheck {
                operation: None,
                violations: vec![format!(
                    "{method} {path}: GitHub's REST API has no such operation"
                )],
                pointer: None,
            };
        };
        self.exercised
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(operation.id.clone());
        let op = &self.spec.pointer(&operation.pointer).expect("operation");
        let mut violations = Vec::new();
        // A query the URL parser refuses counts as none (and its required parameters as missing).
        let query: Vec<(String, String)> = query
            .and_then(|q| reqwest::Url::parse(&format!("http://q/?{q}")).ok())
            .map(|url| {
                url.query_pairs()
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        let mut known_query = BTreeSet::new();
        let parameters = op["parameters"].as_array().map_or(&[][..], Vec::as_slice);
        for (i, parameter) in parameters.iter().enumerate() {
            let (parameter, pointer) =
                self.resolve(parameter, format!("{}/parameters/{i}", operation.pointer));
            let name = parameter["name"].as_str().unwrap_or_default();
            let values: Vec<&str> = match parameter["in"].as_str() {
                Some("path") => path_params
                    .iter()
                    .filter(|(n, _)| n == name)
                    .map(|(_, v)| v.as_str())
                    .collect(),
                Some("query") => {
                    known_query.insert(name);
                    query
                        .iter()
                        .filter(|(n, _)| n == name)
                        .map(|(_, v)| v.as_str())
                        .collect()
                }
                _ => continue, // headers and cookies: octocrab's own
            };
            if values.is_empty() && parameter["required"] == json!(true) {
                violations.push(format!("required parameter `{name}` is missing"));
            }
            for value in values {
                let schema = format!("{pointer}/schema");
                let typed = typed_parameter(
                    value,
                    &self.spec.pointer(&schema).unwrap_or(&Value::Null)["type"],
                );
                for error in self.validate(&schema, &typed) {
                    violations.push(format!("parameter `{name}`: {error}"));
                }
            }
        }
        for (name, _) in &query {
            if !known_query.contains(name.as_str()) {
                violations.push(format!(
                    "query parameter `{name}` is not one of the operation's"
                ));
            }
        }
        violations.extend(self.check_request_body(&operation.pointer, op, body));
        RequestCheck {
            operation: Some(operation.id.clone()),
            violations: violations
                .into_iter()
                .map(|v| format!("{method} {path} ({}): {v}", operation.id))
                .collect(),
            pointer: Some(operation.pointer.clone()),
        }
    }

    fn check_request_body(&self, pointer: &str, op: &Value, body: &[u8]) -> Vec<String> {
        let empty = body.iter().all(u8::is_ascii_whitespace);
        if op.get("requestBody").is_none() {
            return if empty {
                Vec::new()
            } else {
                vec!["the operation takes no request body".to_owned()]
            };
        }
        let (request_body, body_pointer) =
            self.resolve(&op["requestBody"], format!("{pointer}/requestBody"));
        if empty {
            return if request_body["required"] == json!(true) {
                vec!["the request body is required".to_owned()]
            } else {
                Vec::new()
            };
        }
        let Ok(value) = serde_json::from_slice::<Value>(body) else {
            return vec!["the request body is not JSON".to_owned()];
        };
        if request_body["content"].get("application/json").is_none() {
            return vec!["the operation takes no JSON body".to_owned()];
        }
        self.validate(
            &format!("{body_pointer}/content/application~1json/schema"),
            &value,
        )
        .into_iter()
        .map(|e| format!("request body: {e}"))
        .collect()
    }

    /// Checks the answer to a request `check_request` matched: a status the operation
    /// documents, with the body it describes; any other error status must at least be
    /// GitHub's error shape (`basic-error`).
    pub fn check_response(&self, request: &RequestCheck, status: u16, body: &[u8]) -> Vec<String> {
        let (Some(pointer), Some(id)) = (&request.pointer, &request.operation) else {
            return Vec::new(); // an unknown operation is refused already
        };
        let op = self.spec.pointer(pointer).expect("operation");
        let empty = body.iter().all(u8::is_ascii_whitespace);
        let value = if empty {
            None
        } else {
            match serde_json::from_slice::<Value>(body) {
                Ok(v) => Some(v),
                Err(_) => return vec![format!("{id}: a {status} answer whose body is not JSON")],
            }
        };
        let documented = op["responses"].get(status.to_string());
        let errors = match documented {
            Some(response) => {
                let (response, at) =
                    self.resolve(response, format!("{pointer}/responses/{status}"));
                let schema = response["content"]["application/json"].get("schema");
                match (response.get("content"), &value) {
                    (None, Some(_)) => vec!["GitHub answers this status with no body".to_owned()],
                    (Some(_), None) => vec!["the body is missing".to_owned()],
                    (Some(_), Some(value)) if schema.is_some() => {
                        self.validate(&format!("{at}/content/application~1json/schema"), value)
                    }
                    _ => Vec::new(),
                }
            }
            None if status < 300 => vec!["GitHub never answers this operation so".to_owned()],
            None => match &value {
                Some(value) => self.validate("/components/schemas/basic-error", value),
                None => vec!["an error answer without GitHub's error body".to_owned()],
            },
        };
        errors
            .into_iter()
            .map(|e| format!("{id} answered {status}: {e}"))
            .collect()
    }

    /// Distinct operations any fake of this process was asked for.
    pub fn exercised(&self) -> BTreeSet<String> {
        self.exercised
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The operation for `method` and `path`, and the path's parameters. A path matches a
    /// template segment by segment; a template's last parameter may span several segments (a
    /// file path, a ref), and the template with the most literal segments wins.
    fn operation(&self, method: &str, path: &str) -> Option<(&Operation, Vec<(String, String)>)> {
        let segments: Vec<&str> = path.trim_end_matches('/').split('/').skip(1).collect();
        self.operations
            .iter()
            .filter(|op| op.method == method)
            .filter_map(|op| {
                let mut params = Vec::new();
                for (i, segment) in op.segments.iter().enumerate() {
                    let last = i + 1 == op.segments.len();
                    match segment {
                        Segment::Literal(text) => {
                            if segments.get(i) != Some(&text.as_str()) {
                                return None;
                            }
                        }
                        Segment::Param(name) => {
                            let value = if last {
                                segments.get(i..).map(|rest| rest.join("/"))
                            } else {
                                segments.get(i).map(|s| s.to_string())
                            };
                            params.push((name.clone(), value.filter(|v| !v.is_empty())?));
                        }
                    }
                }
                let spans = segments.len() > op.segments.len();
                if spans && !matches!(op.segments.last(), Some(Segment::Param(_))) {
                    return None;
                }
                let literals = op
                    .segments
                    .iter()
                    .filter(|s| matches!(s, Segment::Literal(_)))
                    .count();
                Some(((literals, !spans), op, params))
            })
            .max_by_key(|(rank, _, _)| *rank)
            .map(|(_, op, params)| (op, params))
    }

    /// Follows an OpenAPI `$ref` (to a parameter, request body or response) within the
    /// description; returns the object and its pointer.
    fn resolve<'a>(&'a self, value: &'a Value, pointer: String) -> (&'a Value, String) {
        match value["$ref"].as_str().and_then(|r| r.strip_prefix('#')) {
            Some(target) => (
                self.spec
                    .pointer(target)
                    .unwrap_or_else(|| panic!("dangling $ref #{target} in the description")),
                target.to_owned(),
            ),
            None => (value, pointer),
        }
    }

    /// Validates `instance` against the schema at `pointer`, compiled on first use.
    fn validate(&self, pointer: &str, instance: &Value) -> Vec<String> {
        let validator = {
            let mut cache = self.validators.lock().unwrap_or_else(|e| e.into_inner());
            cache
                .entry(pointer.to_owned())
                .or_insert_with(|| Arc::new(self.compile(pointer)))
                .clone()
        };
        validator
            .iter_errors(instance)
            .map(|e| {
                // A large value is named by its place, not quoted.
                let message = if e.instance().to_string().len() > 80 {
                    e.masked().to_string()
                } else {
                    e.to_string()
                };
                let at = e.instance_path().to_string();
                format!("{message} (at `{}`)", if at.is_empty() { "/" } else { &at })
            })
            .collect()
    }

    fn compile(&self, pointer: &str) -> Validator {
        // A URI fragment: the path templates' braces percent-encoded.
        let fragment = pointer.replace('{', "%7B").replace('}', "%7D");
        let schema = json!({ "$ref": format!("{BASE}#{fragment}") });
        jsonschema::options()
            .with_draft(Draft::Draft4)
            .with_registry(&self.registry)
            .should_validate_formats(true)
            .build(&schema)
            .unwrap_or_else(|e| panic!("the description's schema at {pointer} compiles: {e}"))
    }
}

/// A path or query parameter's text as the JSON value its schema's `type` expects (text
/// that is no such value stays text, which the schema then refuses).
fn typed_parameter(text: &str, kind: &Value) -> Value {
    let parsed = match kind.as_str() {
        Some("integer") => text.parse::<i64>().ok().map(Value::from),
        Some("number") => text.parse::<f64>().ok().map(Value::from),
        Some("boolean") => text.parse::<bool>().ok().map(Value::from),
        _ => None,
    };
    parsed.unwrap_or_else(|| Value::String(text.to_owned()))
}

/// JSON pointer escaping of one reference token.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// OpenAPI 3.0's `nullable: true` in JSON Schema terms: `null` joins the `type` (and the
/// `enum`), or, for a schema without a `type` (`allOf`, `$ref`), becomes an alternative.
fn nullable_to_json_schema(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for child in map.values_mut() {
                nullable_to_json_schema(child);
            }
            if map.get("nullable") != Some(&Value::Bool(true)) {
                return;
            }
            map.remove("nullable");
            if let Some(Value::Array(choices)) = map.get_mut("enum")
                && !choices.contains(&Value::Null)
            {
                choices.push(Value::Null);
            }
            match map.get("type").cloned() {
                Some(Value::String(kind)) => {
                    map.insert("type".into(), json!([kind, "null"]));
                }
                _ => {
                    let schema = Value::Object(std::mem::take(map));
                    map.insert("anyOf".into(), json!([schema, { "type": "null" }]));
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(nullable_to_json_schema),
        _ => {}
    }
}

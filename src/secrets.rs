//! Secrets the process holds: a value type that never prints and is registered for
//! redaction the moment it exists, and the start-up hardening of `serve`/`worker` — their
//! secrets leave the environment, and the process is not dumpable, so nothing running as
//! the same user (a build, a test of a migrated repository) can read them from
//! `/proc/<pid>/environ` or `/proc/<pid>/mem`.

use std::collections::BTreeMap;
use std::sync::{LazyLock, Mutex};

/// A value that must never reach a log, comment or report.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    /// Wraps `s` and registers it with [`crate::redact`].
    pub fn new(s: impl Into<String>) -> Self {
        let s = s.into();
        crate::redact::register(&s);
        Self(s)
    }
    /// A credential that stops working at `expires`: redacted while it works and for a
    /// while after, then forgotten ([`crate::redact::register_until`]).
    pub fn expiring(s: impl Into<String>, expires: std::time::SystemTime) -> Self {
        let s = s.into();
        crate::redact::register_until(&s, Some(expires));
        Self(s)
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// Parsed secrets are wrapped (and registered) before anything else sees them.
impl<'de> serde::Deserialize<'de> for Secret {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Secret::new)
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret([REDACTED])")
    }
}

/// Secret variables taken out of the environment at start-up, by name.
static TAKEN: LazyLock<Mutex<BTreeMap<String, String>>> = LazyLock::new(Default::default);

/// The secret held by environment variable `name` (taken at start-up, or read now), or
/// None when unset or blank.
pub fn from_env(name: &str) -> Option<Secret> {
    let taken = TAKEN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(name)
        .cloned();
    taken
        .or_else(|| std::env::var(name).ok())
        .filter(|v| !v.trim().is_empty())
        .map(Secret::new)
}

/// A provider's API key from the variable `name`; empty (no credential sent) when unset.
pub fn api_key(name: &str) -> Secret {
    from_env(name).unwrap_or_else(|| Secret(String::new()))
}

/// Moves the variables `names` out of the environment into this process's memory (read
/// them with [`from_env`]), overwriting their bytes first: `/proc/<pid>/environ` shows the
/// environment block the process started with, which `remove_var` alone leaves intact.
///
/// # Safety
/// No other thread may exist: the environment is not thread-safe (call it first in `main`).
pub unsafe fn take_from_env(names: &[&str]) {
    let mut taken = TAKEN.lock().unwrap_or_else(|e| e.into_inner());
    for name in names {
        let Some(value) = std::env::var_os(name) else {
            continue;
        };
        let Ok(c_name) = std::ffi::CString::new(*name) else {
            continue;
        };
        taken.insert(name.to_string(), value.to_string_lossy().into_owned());
        // SAFETY: single-threaded (the caller's contract); getenv's pointer is the live
        // value, `strlen` bytes long, in writable memory (the initial stack or the heap).
        unsafe {
            let p = libc::getenv(c_name.as_ptr());
            if !p.is_null() {
                std::ptr::write_bytes(p, 0, libc::strlen(p));
            }
            std::env::remove_var(name);
        }
    }
}

/// Makes the process non-dumpable: no core dumps, and `/proc/<pid>/mem`, `environ` and
/// ptrace are closed to other processes of the same user.
pub fn not_dumpable() -> std::io::Result<()> {
    // SAFETY: PR_SET_DUMPABLE takes one integer argument and touches no memory of ours.
    if unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_never_prints_and_is_redacted_once_created() {
        let s = Secret::new("s3cR");
        assert_eq!(format!("{s:?}"), "Secret([REDACTED])");
        assert_eq!(
            crate::redact::redact("got s3cR back"),
            "got [REDACTED] back"
        );
    }

    #[test]
    fn blank_variables_are_no_secret() {
        assert!(from_env("UPLIFT_TEST_SURELY_UNSET_VARIABLE").is_none());
    }
}

//! Building and testing the project: JDK choice, the Maven runner, test reports, class files.

pub mod classfile;
pub mod jdk;
pub mod maven;
pub mod reports;

//! Before/after pairs for the pom recipes, on projects written to a temp dir.

use std::path::Path;

use uplift::analyze::analyze;
use uplift::config::Catalog;
use uplift::recipes::PomContext;
use uplift::recipes::build_plugins::{self, Needs};
use uplift::recipes::dependencies::{self, JunitMode};
use uplift::recipes::java_level;
use uplift::recipes::overlay::Overlay;

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

fn setup<'a>(
    dir: &tempfile::TempDir,
    fp: &'a uplift::analyze::Fingerprint,
    catalog: &'a Catalog,
    target: u32,
) -> (PomContext<'a>, Overlay) {
    (
        PomContext {
            fingerprint: fp,
            catalog,
            target,
        },
        Overlay::new(dir.path()),
    )
}

fn changed(overlay: &Overlay, path: &str) -> Option<String> {
    overlay
        .changed()
        .find(|(p, _, _)| *p == Path::new(path))
        .and_then(|(_, _, new)| new.map(str::to_string))
}

const PARENT: &str = "<project>\n  <groupId>g</groupId>\n  <artifactId>parent</artifactId>\n  <version>1</version>\n  <modules>\n    <module>child</module>\n    <module>legacy</module>\n  </modules>\n  <properties>\n    <jdk>1.8</jdk>\n    <surefire.version>2.12.4</surefire.version>\n  </properties>\n  <build>\n    <pluginManagement>\n      <plugins>\n        <plugin>\n          <artifactId>maven-surefire-plugin</artifactId>\n          <version>${surefire.version}</version>\n        </plugin>\n      </plugins>\n    </pluginManagement>\n  </build>\n</project>\n";
const CHILD: &str = "<project>\n  <parent>\n    <groupId>g</groupId>\n    <artifactId>parent</artifactId>\n    <version>1</version>\n  </parent>\n  <artifactId>child</artifactId>\n  <build>\n    <plugins>\n      <plugin>\n        <artifactId>maven-compiler-plugin</artifactId>\n        <configuration>\n          <source>${jdk}</source>\n          <target>${jdk}</target>\n        </configuration>\n      </plugin>\n    </plugins>\n  </build>\n</project>\n";
const LEGACY: &str = "<project>\n  <parent>\n    <groupId>g</groupId>\n    <artifactId>parent</artifactId>\n    <version>1</version>\n  </parent>\n  <artifactId>legacy</artifactId>\n  <properties>\n    <maven.compiler.source>1.7</maven.compiler.source>\n  </properties>\n</project>\n";

#[test]
fn level_is_raised_where_the_property_is_defined_and_skipped_modules_are_left() {
    let dir = project(&[
        ("pom.xml", PARENT),
        ("child/pom.xml", CHILD),
        ("legacy/pom.xml", LEGACY),
    ]);
    let fp = analyze(dir.path(), &["legacy".into()]).unwrap();
    assert_eq!(fp.java_level, Some(7));
    let catalog = Catalog::default();
    let (ctx, mut overlay) = setup(&dir, &fp, &catalog, 21);
    java_level::apply(&ctx, &mut overlay).unwrap();
    assert_eq!(
        changed(&overlay, "pom.xml").unwrap(),
        PARENT.replace("<jdk>1.8</jdk>", "<jdk>21</jdk>")
    );
    assert!(
        changed(&overlay, "child/pom.xml").is_none(),
        "uses ${{jdk}}, defined in the parent"
    );
    assert!(
        changed(&overlay, "legacy/pom.xml").is_none(),
        "skipped module"
    );
}

/// A `<release>` inside an execution (gson compiles module-info.java at release 9 that
/// way) overrides the plugin's level for that execution: it is raised too, else part of
/// the classes stay at the old major version.
#[test]
fn a_level_set_inside_a_compiler_execution_is_raised_too() {
    let pom = "<project>\n  <artifactId>a</artifactId>\n  <build>\n    <plugins>\n      <plugin>\n        <artifactId>maven-compiler-plugin</artifactId>\n        <executions>\n          <execution>\n            <id>default-compile</id>\n            <configuration>\n              <release>9</release>\n            </configuration>\n          </execution>\n          <execution>\n            <id>newer</id>\n            <configuration>\n              <release>21</release>\n            </configuration>\n          </execution>\n        </executions>\n        <configuration>\n          <source>1.6</source>\n          <target>1.6</target>\n        </configuration>\n      </plugin>\n    </plugins>\n  </build>\n</project>\n";
    let dir = project(&[("pom.xml", pom)]);
    let fp = analyze(dir.path(), &[]).unwrap();
    let catalog = Catalog::default();
    let (ctx, mut overlay) = setup(&dir, &fp, &catalog, 17);
    let change = java_level::apply(&ctx, &mut overlay).unwrap();
    assert!(
        change
            .changes
            .iter()
            .any(|c| c.contains("compiler execution default-compile <release> 9 -> 17")),
        "{:?}",
        change.changes
    );
    assert_eq!(
        changed(&overlay, "pom.xml").unwrap(),
        pom.replace("<release>9</release>", "<release>17</release>")
            .replace("<source>1.6</source>", "<source>17</source>")
            .replace("<target>1.6</target>", "<target>17</target>")
    );
}

#[test]
fn level_is_never_downgraded() {
    let pom = "<project>\n  <artifactId>a</artifactId>\n  <properties>\n    <maven.compiler.release>21</maven.compiler.release>\n  </properties>\n</project>\n";
    let dir = project(&[("pom.xml", pom)]);
    let fp = analyze(dir.path(), &[]).unwrap();
    let catalog = Catalog::default();
    let (ctx, mut overlay) = setup(&dir, &fp, &catalog, 17);
    let change = java_level::apply(&ctx, &mut overlay).unwrap();
    assert!(change.changes.is_empty());
    assert_eq!(overlay.changed().count(), 0);
}

#[test]
fn undeclared_level_gets_release_and_a_compiler_that_honours_it() {
    let pom = "<project>\n    <artifactId>a</artifactId>\n</project>\n";
    let dir = project(&[("pom.xml", pom)]);
    let fp = analyze(dir.path(), &[]).unwrap();
    let catalog = Catalog {
        compiler_plugin: "3.10.1".into(),
        ..Catalog::default()
    };
    let (ctx, mut overlay) = setup(&dir, &fp, &catalog, 17);
    let change = java_level::apply(&ctx, &mut overlay).unwrap();
    build_plugins::apply(
        &ctx,
        &mut overlay,
        &Needs {
            junit_platform: false,
            release_roots: change.added_release_to,
        },
    )
    .unwrap();
    assert_eq!(
        changed(&overlay, "pom.xml").unwrap(),
        "<project>\n    <artifactId>a</artifactId>\n    <properties>\n        <maven.compiler.release>17</maven.compiler.release>\n    </properties>\n    <build>\n        <plugins>\n            <plugin>\n                <groupId>org.apache.maven.plugins</groupId>\n                <artifactId>maven-compiler-plugin</artifactId>\n                <version>3.10.1</version>\n            </plugin>\n        </plugins>\n    </build>\n</project>\n"
    );
}

#[test]
fn old_surefire_is_raised_through_its_property_when_jupiter_arrives() {
    let dir = project(&[
        ("pom.xml", PARENT),
        ("child/pom.xml", CHILD),
        ("legacy/pom.xml", LEGACY),
    ]);
    let fp = analyze(dir.path(), &[]).unwrap();
    let catalog = Catalog::default();
    let (ctx, mut overlay) = setup(&dir, &fp, &catalog, 17);
    let changes = build_plugins::apply(
        &ctx,
        &mut overlay,
        &Needs {
            junit_platform: true,
            release_roots: vec![],
        },
    )
    .unwrap();
    assert_eq!(changes.len(), 1, "{changes:?}");
    let parent = changed(&overlay, "pom.xml").unwrap();
    assert!(parent.contains(&format!(
        "<surefire.version>{}</surefire.version>",
        catalog.surefire
    )));
    assert!(parent.contains("<version>${surefire.version}</version>"));
}

#[test]
fn removed_java_ee_modules_get_api_dependencies_once() {
    let pom = "<project>\n  <artifactId>a</artifactId>\n  <dependencies>\n  </dependencies>\n</project>\n";
    let java = "package p;\nimport javax.xml.bind.JAXBContext;\nimport javax.annotation.PostConstruct;\nimport javax.annotation.processing.Processor;\nclass A {}\n";
    let dir = project(&[("pom.xml", pom), ("src/main/java/p/A.java", java)]);
    let fp = analyze(dir.path(), &[]).unwrap();
    let catalog = Catalog::default();
    let (ctx, mut overlay) = setup(&dir, &fp, &catalog, 17);
    let changes = dependencies::removed_java_ee(&ctx, &mut overlay).unwrap();
    assert_eq!(
        changes.len(),
        3,
        "annotation api, jaxb api, jaxb runtime: {changes:?}"
    );
    let out = changed(&overlay, "pom.xml").unwrap();
    assert!(out.contains("<artifactId>jakarta.xml.bind-api</artifactId>"));
    assert!(out.contains("<artifactId>jaxb-runtime</artifactId>\n      <version>2.3.9</version>\n      <scope>runtime</scope>"));
    assert!(out.contains("<artifactId>jakarta.annotation-api</artifactId>"));

    // Already declared: nothing to add.
    std::fs::write(dir.path().join("pom.xml"), &out).unwrap();
    let fp = analyze(dir.path(), &[]).unwrap();
    let (ctx, mut overlay) = setup(&dir, &fp, &catalog, 17);
    assert!(
        dependencies::removed_java_ee(&ctx, &mut overlay)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn junit_dependency_is_replaced_or_joined_by_vintage() {
    let pom = "<project>\n  <artifactId>a</artifactId>\n  <dependencies>\n    <dependency>\n      <groupId>junit</groupId>\n      <artifactId>junit</artifactId>\n      <version>4.12</version>\n      <scope>test</scope>\n    </dependency>\n  </dependencies>\n</project>\n";
    let dir = project(&[("pom.xml", pom)]);
    let fp = analyze(dir.path(), &[]).unwrap();
    let catalog = Catalog::default();
    let (ctx, mut overlay) = setup(&dir, &fp, &catalog, 17);
    dependencies::junit(&ctx, &mut overlay, |_| JunitMode::Replace).unwrap();
    let v = &catalog.junit_jupiter;
    assert_eq!(
        changed(&overlay, "pom.xml").unwrap(),
        pom.replace(
            "<groupId>junit</groupId>",
            "<groupId>org.junit.jupiter</groupId>"
        )
        .replace(
            "<artifactId>junit</artifactId>",
            "<artifactId>junit-jupiter</artifactId>"
        )
        .replace(
            "<version>4.12</version>",
            &format!("<version>{v}</version>")
        )
    );
    let mut overlay = Overlay::new(dir.path());
    dependencies::junit(&ctx, &mut overlay, |_| JunitMode::Vintage).unwrap();
    let out = changed(&overlay, "pom.xml").unwrap();
    assert!(
        out.contains("<artifactId>junit</artifactId>")
            && out.contains("<artifactId>junit-vintage-engine</artifactId>")
    );
    assert_eq!(out.matches(&format!("<version>{v}</version>")).count(), 2);
}

#[test]
fn junit_from_a_parent_outside_the_repository_gets_jupiter_beside_it() {
    // org.codehaus.plexus:plexus declares junit:junit; this repository never does.
    let pom = "<project>\n  <parent>\n    <groupId>org.codehaus.plexus</groupId>\n    <artifactId>plexus</artifactId>\n    <version>5.1</version>\n  </parent>\n  <artifactId>a</artifactId>\n</project>\n";
    let test = "package p;\nimport junit.framework.TestCase;\npublic class ATest extends TestCase { public void testA() {} }\n";
    let dir = project(&[("pom.xml", pom), ("src/test/java/p/ATest.java", test)]);
    let fp = analyze(dir.path(), &[]).unwrap();
    let catalog = Catalog::default();
    let (ctx, mut overlay) = setup(&dir, &fp, &catalog, 17);
    let changes = dependencies::junit(&ctx, &mut overlay, |_| JunitMode::Vintage).unwrap();
    assert!(
        changes[0]
            .contains("from outside the repository, e.g. its parent org.codehaus.plexus:plexus"),
        "{changes:?}"
    );
    let v = &catalog.junit_jupiter;
    let out = changed(&overlay, "pom.xml").unwrap();
    assert_eq!(
        out,
        pom.replace(
            "  <artifactId>a</artifactId>\n",
            &format!(
                "  <artifactId>a</artifactId>\n  <dependencies>\n    <dependency>\n      <groupId>org.junit.jupiter</groupId>\n      <artifactId>junit-jupiter</artifactId>\n      <version>{v}</version>\n      <scope>test</scope>\n    </dependency>\n    <dependency>\n      <groupId>org.junit.vintage</groupId>\n      <artifactId>junit-vintage-engine</artifactId>\n      <version>{v}</version>\n      <scope>test</scope>\n    </dependency>\n  </dependencies>\n"
            )
        ),
        "{out}"
    );
    // A module whose own pom declares junit:junit is handled there, not twice.
    let own = "<project>\n  <artifactId>b</artifactId>\n  <dependencies>\n    <dependency>\n      <groupId>junit</groupId>\n      <artifactId>junit</artifactId>\n      <version>4.12</version>\n    </dependency>\n  </dependencies>\n</project>\n";
    let dir = project(&[("pom.xml", own), ("src/test/java/p/ATest.java", test)]);
    let fp = analyze(dir.path(), &[]).unwrap();
    let (ctx, mut overlay) = setup(&dir, &fp, &catalog, 17);
    let changes = dependencies::junit(&ctx, &mut overlay, |_| JunitMode::Replace).unwrap();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert!(!changes[0].contains("outside"), "{changes:?}");
}

const BOOT2: &str = r#"<project>
  <parent>
    <groupId>org.springframework.boot</groupId>
    <artifactId>spring-boot-starter-parent</artifactId>
    <version>2.7.18</version>
  </parent>
  <artifactId>app</artifactId>
  <properties>
    <lombok.version>1.18.12</lombok.version>
    <jacoco.version>0.8.12</jacoco.version>
  </properties>
  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>org.springframework.cloud</groupId>
        <artifactId>spring-cloud-dependencies</artifactId>
        <version>2021.0.8</version>
        <type>pom</type>
        <scope>import</scope>
      </dependency>
    </dependencies>
  </dependencyManagement>
  <dependencies>
    <!-- servlet API for the filters -->
    <dependency>
      <groupId>javax.servlet</groupId>
      <artifactId>javax.servlet-api</artifactId>
      <version>4.0.1</version>
      <scope>provided</scope>
    </dependency>
    <dependency>
      <groupId>javax.validation</groupId>
      <artifactId>validation-api</artifactId>
    </dependency>
    <dependency>
      <groupId>mysql</groupId>
      <artifactId>mysql-connector-java</artifactId>
      <scope>runtime</scope>
    </dependency>
    <dependency>
      <groupId>org.projectlombok</groupId>
      <artifactId>lombok</artifactId>
      <version>${lombok.version}</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.jacoco</groupId>
        <artifactId>jacoco-maven-plugin</artifactId>
        <version>${jacoco.version}</version>
      </plugin>
    </plugins>
  </build>
</project>
"#;

#[test]
fn spring_boot_3_jakarta_and_upgrade_versions_move_coordinates_in_place() {
    use uplift::recipes::coordinates::{self, Kind};
    use uplift::recipes::{jakarta, spring_boot, upgrade_versions};
    let dir = project(&[("pom.xml", BOOT2)]);
    let fp = analyze(dir.path(), &[]).unwrap();
    let catalog = Catalog::default();
    let (ctx, mut overlay) = setup(&dir, &fp, &catalog, 21);
    let boot = spring_boot::pom(&ctx, &mut overlay).unwrap();
    let ee = coordinates::apply(
        &ctx,
        &mut overlay,
        &jakarta::TABLE.artifacts,
        Kind::Dependency,
    )
    .unwrap();
    let up = upgrade_versions::apply(&ctx, &mut overlay).unwrap();
    let expected = BOOT2
        .replace(
            "<version>2.7.18</version>",
            &format!("<version>{}</version>", catalog.spring_boot_3),
        )
        .replace(
            "<version>2021.0.8</version>",
            &format!("<version>{}</version>", catalog.spring_cloud),
        )
        .replace(
            "<groupId>javax.servlet</groupId>\n      <artifactId>javax.servlet-api</artifactId>\n      <version>4.0.1</version>",
            "<groupId>jakarta.servlet</groupId>\n      <artifactId>jakarta.servlet-api</artifactId>\n      <version>6.0.0</version>",
        )
        .replace(
            "<groupId>javax.validation</groupId>\n      <artifactId>validation-api</artifactId>",
            "<groupId>jakarta.validation</groupId>\n      <artifactId>jakarta.validation-api</artifactId>",
        )
        .replace(
            "<groupId>mysql</groupId>\n      <artifactId>mysql-connector-java</artifactId>",
            "<groupId>com.mysql</groupId>\n      <artifactId>mysql-connector-j</artifactId>",
        )
        .replace("<lombok.version>1.18.12</lombok.version>", "<lombok.version>1.18.30</lombok.version>");
    assert_eq!(changed(&overlay, "pom.xml").unwrap(), expected);
    assert_eq!(boot.len(), 3, "{boot:?}");
    assert_eq!(ee.len(), 3, "{ee:?}");
    assert_eq!(up.len(), 1, "jacoco 0.8.12 is already new enough: {up:?}");
}

/// A Spring Boot 2.7 application's pom (its dependencies start on line 12) around
/// `dependencies`, the `<dependency>` elements.
fn boot_27_pom(dependencies: &str) -> String {
    format!(
        r#"<project>
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>org.springframework.boot</groupId>
    <artifactId>spring-boot-starter-parent</artifactId>
    <version>2.7.18</version>
  </parent>
  <groupId>g</groupId>
  <artifactId>a</artifactId>
  <version>1</version>
  <dependencies>
{dependencies}  </dependencies>
</project>
"#
    )
}

#[test]
fn springfox_moves_to_springdoc_at_its_own_version_sleuth_to_micrometer_tracing_and_r2dbc_postgresql_to_its_group()
 {
    use uplift::recipes::spring_boot;
    let pom: &str = &boot_27_pom(
        r#"    <dependency>
      <groupId>io.springfox</groupId>
      <artifactId>springfox-swagger2</artifactId>
      <version>2.9.2</version>
    </dependency>
    <dependency>
      <groupId>io.springfox</groupId>
      <artifactId>springfox-swagger-ui</artifactId>
      <version>2.9.2</version>
    </dependency>
    <dependency>
      <groupId>org.springframework.cloud</groupId>
      <artifactId>spring-cloud-starter-sleuth</artifactId>
    </dependency>
    <dependency>
      <groupId>io.r2dbc</groupId>
      <artifactId>r2dbc-postgresql</artifactId>
      <scope>runtime</scope>
    </dependency>
"#,
    );
    let dir = project(&[("pom.xml", pom)]);
    let fp = analyze(dir.path(), &[]).unwrap();
    let catalog = Catalog::default();
    let (ctx, mut overlay) = setup(&dir, &fp, &catalog, 17);
    let changes = spring_boot::pom(&ctx, &mut overlay).unwrap();
    let out = changed(&overlay, "pom.xml").unwrap();
    // springfox's 2.9.2 is no springdoc version: replaced, not compared (2.9.2 > 2.6.0).
    assert!(
        out.contains("<groupId>org.springdoc</groupId>\n      <artifactId>springdoc-openapi-starter-webmvc-ui</artifactId>\n      <version>2.6.0</version>"),
        "{out}"
    );
    assert!(!out.contains("springfox"), "{out}");
    assert!(
        out.contains("<groupId>io.micrometer</groupId>\n      <artifactId>micrometer-tracing-bridge-brave</artifactId>\n    </dependency>"),
        "{out}"
    );
    // Boot 3 manages the driver under its new group: no version is written.
    assert!(
        out.contains("<groupId>org.postgresql</groupId>\n      <artifactId>r2dbc-postgresql</artifactId>\n      <scope>runtime</scope>"),
        "{out}"
    );
    assert!(
        changes
            .iter()
            .any(|c| c.contains("io.springfox:springfox-swagger-ui removed")),
        "{changes:?}"
    );
}

#[test]
fn ehcache_2_is_reported_with_its_line_and_left_in_place() {
    use uplift::recipes::spring_boot;
    let pom: &str = &boot_27_pom(
        r#"    <dependency>
      <groupId>net.sf.ehcache</groupId>
      <artifactId>ehcache</artifactId>
    </dependency>
    <dependency>
      <groupId>org.ehcache</groupId>
      <artifactId>ehcache</artifactId>
    </dependency>
"#,
    );
    let dir = project(&[("pom.xml", pom)]);
    let fp = analyze(dir.path(), &[]).unwrap();
    let catalog = Catalog::default();
    let (ctx, mut overlay) = setup(&dir, &fp, &catalog, 17);
    let found = spring_boot::pom_findings(&ctx, &mut overlay).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, std::path::Path::new("pom.xml"));
    assert!(
        found[0]
            .1
            .starts_with("pom.xml line 12: net.sf.ehcache:ehcache has no Spring Boot 3 support; use Ehcache 3 through JCache"),
        "{found:?}"
    );
    assert!(changed(&overlay, "pom.xml").is_none());
}

#!/usr/bin/env bash
# Installs Debian's Java packages the offline tests build against (JUnit 4 and 5, Surefire,
# the default-lifecycle plugins, hamcrest, the javax/jakarta API jars). Maven then builds
# offline with tests/support/maven-settings-offline.xml (local repository /usr/share/maven-repo).
# Idempotent; needs root and Debian's package archive.
set -euo pipefail

PKGS=(
  maven maven-repo-helper libsurefire-java
  libmaven-compiler-plugin-java libmaven-resources-plugin-java libmaven-jar-plugin-java
  libmaven-install-plugin-java libmaven-clean-plugin-java libmaven-enforcer-plugin-java
  libmaven-source-plugin-java libmaven-dependency-plugin-java libbuild-helper-maven-plugin-java
  junit4 junit5 libopentest4j-java libapiguardian-java libhamcrest-java libmockito-java
  libassertj-core-java libeasymock-java
  libjakarta-annotation-api-java libjakarta-servlet-api-java libservlet-api-java
  libjakarta-activation-java libjakarta-validation-api-java libgeronimo-annotation-1.3-spec-java
  libcommons-lang3-java libcommons-io-java libslf4j-java libguava-java
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "Java packages ready; offline settings: $(cd "$(dirname "$0")/.." && pwd)/tests/support/maven-settings-offline.xml"

#!/bin/bash
# Proves that the architecture rules of .dependency-cruiser.cjs fire: each case adds one bad import to a source
# file, runs depcruise, puts the file back and checks that the named rule refused it. A rule that cannot fail is a
# defect like a test that cannot fail. Usage: bash scripts/prove-dependency-rules.sh (about a minute; touches no
# file for good — each one is restored from a copy, also on Ctrl-C).
set -u
cd "$(dirname "$0")/.."
backup=$(mktemp)
current=''
restore() { [ -n "$current" ] && cp "$backup" "$current"; current=''; }
trap 'restore; rm -f "$backup"' EXIT INT TERM
failures=0
check() {
  local rule=$1 file=$2 import=$3
  current=$file
  cp "$file" "$backup"
  echo "$import" >>"$file"
  local out
  out=$(npx depcruise src --config .dependency-cruiser.cjs --output-type err 2>&1)
  restore
  if grep -q "error $rule: $file" <<<"$out"; then
    echo "ok    $rule  ($file + $import)"
  else
    echo "MISS  $rule  ($file + $import)"
    failures=$((failures + 1))
  fi
}
check jobs-imports-no-other-context src/modules/jobs/domain/job.ts "import '../../screenshots/domain/capture-options';"
check jobs-imports-no-other-context src/modules/jobs/application/job-failure.ts "import '../../screenshots/application/capture.port';"
check context-jobs-imports src/modules/jobs/application/job-dispatcher.ts "import '../../metrics/metrics.module';"
check context-screenshots-imports src/modules/screenshots/application/capture-job.runner.ts "import '../../metrics/metrics.module';"
check context-websites-imports src/modules/websites/application/websites.service.ts "import '../../screenshots/application/screenshots.service';"
check application-imports-no-adapter src/modules/screenshots/application/capture-job.runner.ts "import '../../../adapters/capture/puppeteer-page-capturer';"
check config-imports-only-shared-kernel src/config/app-config.ts "import '../adapters/capture/capture-options';"
check config-imports-only-shared-kernel src/config/app-config.ts "import '../shared/secrets/secret-box';"
check no-controller-imports-controller src/modules/dashboard/http/playground.controller.ts "import '../../websites/http/websites.controller';"
check adapters-implement-application-ports src/adapters/capture/capture-run.ts "import '../../modules/screenshots/infrastructure/local-disk-storage';"
check shared-imports-no-context src/shared/metrics/metrics.ts "import '../../modules/jobs/domain/job';"
check domain-depends-on-domain src/modules/screenshots/domain/change.ts "import '../application/ports';"
[ "$failures" -eq 0 ] && echo "every rule fired" || { echo "$failures rule(s) did not fire"; exit 1; }

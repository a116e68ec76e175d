#!/usr/bin/env bash
# The cached environment of the real-Superset tier: Apache Superset 6 from PyPI in its own
# virtual environment (it pins hundreds of packages that must not meet Vitrina's), built once
# and reused between runs. The test suite starts it on 127.0.0.1 with a SQLite metadata
# database, a per-run secret key and a per-run admin password; nothing here holds either.
set -euo pipefail
ENV_DIR="${1:-$HOME/.cache/vitrina-superset}"
PYTHON="${PYTHON:-python3}"
SUPERSET="apache-superset==6.0.0"
# Superset 6 needs these (its CLI imports rich) but does not require them.
EXTRA="psycopg2-binary==2.9.10 rich==13.9.4"
STAMP="$ENV_DIR/.ready"
WANT="$SUPERSET $EXTRA"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ]; then
  echo "superset: using the cached environment $ENV_DIR"
  exit 0
fi
echo "superset: building $ENV_DIR ($WANT); minutes the first time"
rm -rf "$ENV_DIR"
"$PYTHON" -m venv "$ENV_DIR"
"$ENV_DIR/bin/pip" install --quiet --upgrade pip
"$ENV_DIR/bin/pip" install --quiet "$SUPERSET" $EXTRA
# the CLI refuses to start without a secret key; this one only proves that it starts
SUPERSET_SECRET_KEY="setup-check-$(date +%s%N)" "$ENV_DIR/bin/superset" --help >/dev/null
echo "$WANT" > "$STAMP"
echo "superset: ready in $ENV_DIR"

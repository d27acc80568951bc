#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (Ubuntu 22.04 base image). It installs Python 3.11, bubblewrap (the
# grader's jail, where Gradescope's container allows one) and the grader's
# pinned requirements, with CPU-only torch, into /autograder/venv.
set -euo pipefail
cd /autograder/source
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq bubblewrap ca-certificates
if ! command -v python3.11 >/dev/null; then
  apt-get install -y -qq python3.11 python3.11-venv || {
    apt-get install -y -qq software-properties-common
    add-apt-repository -y ppa:deadsnakes/ppa
    apt-get update -qq
    apt-get install -y -qq python3.11 python3.11-venv
  }
fi
python3.11 -m venv /autograder/venv
torch_pin="$(grep -E '^torch[[:space:]]*[=<>~!]' requirements.txt | head -n 1)"
/autograder/venv/bin/python -m pip install --quiet --disable-pip-version-check --index-url https://download.pytorch.org/whl/cpu "${torch_pin:-torch}"
/autograder/venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
/autograder/venv/bin/python -c "import torch, numpy; print('grader ready: torch', torch.__version__)"

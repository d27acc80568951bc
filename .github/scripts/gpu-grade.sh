#!/usr/bin/env bash
# Grade one student repository on the GPU runner: the "Grade with the GPU" step of gpu-grade.yml.
#
# python -m grader grade-commit fetches the one commit (REF: a branch, tag or
# full commit id; default the repository's HEAD) into a fresh repository,
# never cloned or checked out, reads its five contract files as blobs, and
# grades them with --gpu on; CLASSROOM_TOKEN goes to git for
# $GITHUB_SERVER_URL only. Writes $RUNNER_TEMP/gpu-report/grade.json and
# grade.md, and appends the Markdown to the run's Summary page.
#
# Without SEED, and with the course key in GRADER_SEED_KEY, the grading uses the
# student's secret seed of record (derived from the repository's name, as the
# class workflow does), kept out of grade.md and the Summary page.
#
# Environment: PYTHON, REPOSITORY (owner/name), REF, SEED, GRADER_SEED_KEY, CLASSROOM_TOKEN,
# GITHUB_SERVER_URL, RUNNER_TEMP, GITHUB_STEP_SUMMARY.
set -euo pipefail
if ! [[ "$REPOSITORY" =~ ^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$ ]]; then
  echo "::error::repository must be owner/name, not '$REPOSITORY'"
  exit 1
fi
if ! command -v bwrap >/dev/null; then
  echo "::error::bubblewrap is not installed on this runner: sudo apt-get install bubblewrap (grader/docs/grading.md, Isolation)"
  exit 1
fi
report="$RUNNER_TEMP/gpu-report"
rm -rf "$report" && mkdir -p "$report"
seed=()
if [ -n "${SEED:-}" ]; then seed=(--seed "$SEED"); else seed=(--student "${REPOSITORY#*/}"); fi
as_root=()
if [ "$(id -u)" != 0 ] && sudo -n true 2>/dev/null; then as_root=(sudo -E); fi
"${as_root[@]}" "$PYTHON" -m grader grade-commit "$GITHUB_SERVER_URL/$REPOSITORY.git" --ref "${REF:-HEAD}" \
  --gpu on --min-isolation jail "${seed[@]}" --json "$report/grade.json" --markdown "$report/grade.md"
cat "$report/grade.md" >> "$GITHUB_STEP_SUMMARY"

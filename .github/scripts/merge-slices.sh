#!/usr/bin/env bash
# Merge the graded slices into one gradebook: the "Merge" step of grade-class.yml.
# Environment: RUNNER_TEMP (the slices were downloaded to $RUNNER_TEMP/slices/slice-*),
# GITHUB_STEP_SUMMARY, ROSTER (optional: the roster's path, for canvas.csv). Writes
# gradebook/ (gradebook.csv, summary.md, canvas.csv with a roster, feedback/, results/).
set -euo pipefail
roster=()
if [ -n "${ROSTER:-}" ]; then roster=(--roster "$ROSTER"); fi
python -m grader merge "$RUNNER_TEMP"/slices/slice-* --out gradebook "${roster[@]}"
errors="$(grep -c ',grader error,' gradebook/gradebook.csv || true)"
if [ "${errors:-0}" != 0 ]; then
  echo "::warning::$errors repositories could not be graded: see the error column of gradebook.csv"
fi
cat gradebook/summary.md >> "$GITHUB_STEP_SUMMARY"

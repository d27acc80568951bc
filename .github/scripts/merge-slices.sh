#!/usr/bin/env bash
# Merge the graded slices into one gradebook: the "Merge" step of grade-class.yml.
# Environment: RUNNER_TEMP (the slices were downloaded to $RUNNER_TEMP/slices/slice-*),
# GITHUB_STEP_SUMMARY. Writes gradebook/ (gradebook.csv, summary.md, feedback/, results/).
set -euo pipefail
python -m grader merge "$RUNNER_TEMP"/slices/slice-* --out gradebook
errors="$(grep -c ',grader error,' gradebook/gradebook.csv || true)"
if [ "${errors:-0}" != 0 ]; then
  echo "::warning::$errors repositories could not be graded: see the error column of gradebook.csv"
fi
cat gradebook/summary.md >> "$GITHUB_STEP_SUMMARY"

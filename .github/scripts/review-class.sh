#!/usr/bin/env bash
# Review the whole class: the "Review" step of grade-class.yml's merge job.
#
# python -m grader review over the five files every slice graded (downloaded,
# merged, to $RUNNER_TEMP/files/<student>/), with the stubs of exercises/ and
# the reference of solutions/ subtracted as boilerplate, and the integrity
# flags of gradebook/results/. Writes review/ (review.md, pairs.csv,
# reference.csv, constructs.csv, flags.csv, similarity/<exercise>.html): private,
# for the instructor; it changes no score. Appends nothing to the step summary,
# which anyone who can read the run sees.
#
# Environment: RUNNER_TEMP.
set -euo pipefail
mkdir -p review
if [ ! -d "$RUNNER_TEMP/files" ]; then
  echo "::warning::no graded files to review (no slice uploaded any)"
  printf '# Review of the class\n\nNo graded files to review: no slice uploaded any.\n' > review/review.md
  exit 0
fi
python -m grader review "$RUNNER_TEMP/files" --results gradebook --reference solutions --out review

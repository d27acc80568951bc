#!/usr/bin/env bash
# Grade one slice of the class: the "Grade the slice" step of grade-class.yml.
#
# Asks GitHub which commit each repository held at the deadline (server
# times: python -m grader record-submissions, with GH_TOKEN), then grades
# exactly those commits: batch --from-server fetches each one alone into a
# fresh repository (nothing is cloned or checked out) and reads its five
# contract files as blobs; CLASSROOM_TOKEN goes to git for
# $GITHUB_SERVER_URL only, through a credential helper that checks the host.
# A repository that cannot be asked, fetched or read is an error row of the
# gradebook, never a failed step. Writes out/slice-$SLICE/.
#
# With the course key in GRADER_SEED_KEY each student gets a secret seed of
# record (batch drops the key from the graders' environment); the five files
# of every student read go to out/files-$SLICE/ for the merge job's review.
#
# Environment: REPOSITORIES (owner/name, space-separated), DEADLINE, SLICE,
# MIN_ISOLATION (default jail: batch refuses to grade below it), GH_TOKEN,
# CLASSROOM_TOKEN, GRADER_SEED_KEY, GITHUB_SERVER_URL, RUNNER_TEMP.
set -euo pipefail
read -r -a repositories <<< "$REPOSITORIES"
record="$RUNNER_TEMP/server-record-$SLICE.json"
python -m grader record-submissions "${repositories[@]}" --deadline "$DEADLINE" --out "$record"
# As root (GitHub's runners allow sudo), so that bwrap needs no user namespace
# and the students' code runs under a uid of its own. batch exits 0 whatever the scores.
as_root=()
if [ "$(id -u)" != 0 ] && sudo -n true 2>/dev/null; then as_root=(sudo -E); fi
"${as_root[@]}" "$(command -v python)" -m grader batch --from-server "$GITHUB_SERVER_URL" --deadline "$DEADLINE" \
  --server-record "$record" --out "out/slice-$SLICE" --files-out "out/files-$SLICE" --jobs 2 --min-isolation "${MIN_ISOLATION:-jail}"

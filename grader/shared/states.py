"""The states a dataset or sampler is put in before a judge meets what it yields: the names both sides agree on.

The probes inside the jail put an object in a state (grader/inside/probes/common.py, ``in_state``); the checks name
the states they judge and say each in words. Standard library only.
"""

from __future__ import annotations

#: fresh; after a whole pass, after a partial pass (two items, the iterator dropped) and after two iterators taken in
#: turns to the end, all in the main process; and a copy made by pickle, as a spawn or forkserver worker gets it. Real
#: workers are started after each of them (a reader's share cached on the first ``iter()`` shows only so).
STATES = ("fresh", "after_a_pass", "after_a_partial_pass", "after_interleaved_passes", "pickled")
#: Every state but ``fresh``.
LATER_STATES = STATES[1:]
#: Each state in words, for the student's feedback ("" for fresh).
STATE_WORDS = {"fresh": "", "after_a_pass": "after one pass over it in the main process",
               "after_a_partial_pass": "after a partial pass in the main process (two items taken, the iterator dropped)",
               "after_interleaved_passes": "after two iterators over it were taken in turns to the end in the main process",
               "pickled": "after a pickle round trip (what a spawn or forkserver worker gets)"}

"""Checks of exercise 2, ShardedRange and ShardedFiles: every promise of their docstrings, each check judging one.

A check looks only at what its promise needs. The integers of ShardedRange
are compared as ints whatever their type (that they are Python ints is
check_range_yields_python_ints's promise), and each pass is made on a fresh
dataset except in the checks of "every iter() starts afresh". The sharding
checks of ShardedFiles compare what a reader yields with what the same
submission yields for each of its files read alone, so that they prove which
files a reader reads and not how it reads a line; the line checks each read
files with only their own feature (line endings, a last line without
newline, a byte order mark).
"""

from __future__ import annotations

from collections import Counter

from grader.engine.checking import FORKING_METHODS, WORKER_TIMEOUT_S, ProbeProblem, expect, shared_probe, show
from grader.shared.states import STATE_WORDS

#: Files of plain lines, each ending in "\n": the sharding checks' data (their lines' reading is not what they judge).
PLAIN = ["a0\na1\na2\n", "b0\n", "c0\nc1\n", "d0\n", "e0\ne1\ne2\n", "f0\n", "g0\ng1\n", "h0\n", "i0\n", "j0\nj1\n"]
#: Every line ends in a line ending ("\n", "\r\n", a bare "\r"), and keeps its own blanks; an empty line; non-ASCII text.
LINE_ENDINGS = ["a0\na1\n", "c0\r\nc1\r\n", "e0\n\ne2\n", "f0 \u00e9\u4e2d\n", "  i0 \n\ti1\t\r\nj0\rj1\r"]
BOM = "\ufeff"
#: The other line boundaries of str.splitlines: all end a line, or all stay inside it.
OTHER_BOUNDARIES = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
EITHER_WAY = ["v0\x0bv1\x0cv2\n", "w0\x1cw1\x1dw2\x1ew3\n", "x0\x85x1\u2028x2\u2029x3\n"]
PLACEHOLDER = "#"  # stands in for each other boundary in the file that keeps them inside its lines


def lines_of(text):
    """The lines the docstring promises for one file's text (one without a BOM or other line boundaries)."""
    return text.splitlines()


def values(items):
    """The values of (type name, value) pairs, as the probes send them."""
    return [v for _, v in items]


def expect_a_reference(each_file, files, what):
    """Fail unless every non-empty file yields something when read alone: a sameness with nothing proves nothing."""
    silent = [i for i, (text, lines) in enumerate(zip(files, each_file)) if text and not lines]
    expect(not silent, f"ShardedFiles([path]) yields nothing for the files {silent} (contents {show([files[i] for i in silent])}), "
           f"so {what} could not be compared with anything")


def range_sizes(ctx):
    """The n of the in-process ShardedRange checks: the boundaries (empty, single, two, odd), then seeded ones."""
    return ctx.boundaries(n_0=0, n_1=1, n_2=2, n_5=5) + sorted(int(n) for n in ctx.rng("range").integers(3, 200, size=4))


def check_range_without_workers_yields_0_to_n_minus_1(ctx):
    """Proves ShardedRange(n) yields 0..n-1 in order without workers, iterated directly and through a DataLoader with num_workers=0.

    Judges the values as ints, each pass on a fresh dataset: their type and
    a second pass are the next checks' promises.
    """
    ns = range_sizes(ctx)
    for n, got in zip(ns, shared_probe(ctx, "sharding:range_in_process", ns=ns)):
        first = values(got["first"])
        expect(first == list(range(n)), f"list(ShardedRange({n})): expected {show(list(range(n)))}, got {show(first)}")
        loader = values(got["loader"])
        expect(loader == list(range(n)), f"list(DataLoader(ShardedRange({n}), batch_size=None, num_workers=0)): expected "
               f"{show(list(range(n)))}, got {show(loader)}")


def check_range_yields_python_ints(ctx):
    """Proves iterating ShardedRange(n) yields plain Python ints (not NumPy integers or tensors), without workers and in
    real fork workers (read from the pool of check_range_exactly_once_in_real_workers)."""
    ns = range_sizes(ctx)
    for n, got in zip(ns, shared_probe(ctx, "sharding:range_in_process", ns=ns)):
        expect(got["first"] or not n, f"ShardedRange({n}) yielded nothing, so the type of its items could not be seen")
        types = sorted({t for t, _ in got["first"]})
        expect(set(types) <= {"int"}, f"ShardedRange({n}) should yield Python ints, got items of type {types}")
    # Inside real workers too: the fork pool of check_range_exactly_once_in_real_workers (no pool of its own). A pool that
    # failed is that check's to judge.
    cases = range_cases(ctx)
    try:
        runs = shared_probe(ctx, "sharding:range_in_workers", timeout=WORKER_TIMEOUT_S, cases=cases, start_method="fork",
                            case="with fork workers, for " + ", ".join(f"n={n} with num_workers={k}" for n, k in cases))
    except ProbeProblem:
        return
    for run in runs:
        expect(set(run["types"]) <= {"int"}, f"DataLoader(ShardedRange({run['n']}), num_workers={run['k']}, batch_size=None): "
               f"the workers yielded items of type {run['types']}; expected Python ints there too (batch_size=None hands each "
               "item on as it is, so a NumPy integer reaches the training loop)")


def later_pass_problem(got, what):
    """What is wrong with the passes after the first over one dataset (see the probe's later_passes), or None."""
    first = got["first"]
    passes = {"a second iter()": got["second"], "an iter() after a partial pass (two items taken)": got["after_partial"],
              "the first of two iterators taken in turns": got["interleaved"][0],
              "the second of two iterators taken in turns": got["interleaved"][1],
              "an iter() over a pickled copy (as a spawn worker gets it)": got["after_pickle"]}
    for words, items in passes.items():
        if items != first:
            return (f"{words} over one {what} gave {show(values(items))}, the first pass {show(values(first))}: every iter() "
                    "must start afresh (keep a pass's position in the iterator, never on the dataset)")
    return None


def check_range_every_iter_starts_afresh(ctx):
    """Proves every iter() over the same ShardedRange yields what the first did: a second pass, a pass after a partial
    one, two iterators taken in turns, and a pass over a pickled copy.

    Compares the two passes with each other: what the first holds is
    check_range_without_workers_yields_0_to_n_minus_1's promise.
    """
    ns = range_sizes(ctx)
    for n, got in zip(ns, shared_probe(ctx, "sharding:range_in_process", ns=ns)):
        expect(got["first"] or not n, f"the first iter() over ShardedRange({n}) yielded nothing, so a second had nothing to repeat")
        problem = later_pass_problem(got, f"ShardedRange({n})")
        expect(problem is None, problem)


def range_cases(ctx):
    """(n, workers) pairs, smallest first: n below, equal to and above the worker count, remainders n % k != 0 with
    n < k and n >= k, and n = 0, then two longer streams. The same for every seed: these decide the promise, and a
    worker pool per seeded case would cost seconds."""
    cases = ctx.boundaries(empty=(0, 2), n_1_below_k_3=(1, 3), n_3_below_k_4=(3, 4), n_equals_k=(2, 2),
                           n_5_k_2_remainder=(5, 2), n_7_k_3_remainder=(7, 3), n_4_k_3_remainder=(4, 3),
                           longer_even=(64, 2), longer_remainder=(37, 3))
    return sorted(cases)


def check_range_exactly_once_in_real_workers(ctx):
    """Proves ShardedRange(n) under a DataLoader with k real workers (fork, forkserver) yields, over all workers, each
    integer it yields without workers exactly once, also when n < k.

    Compares with the same submission without workers (which integers that
    is, 0..n-1, is check_range_without_workers_yields_0_to_n_minus_1's
    promise). Which worker yields which integers, and in what order, is the
    student's choice (the docstring promises only the union), so the items
    are compared sorted, as ints. forkserver workers receive the dataset
    pickled, as spawn workers do; spawn itself would prove nothing more here
    (see checking.POOL_WORKERS).
    """
    cases = range_cases(ctx)
    for method in FORKING_METHODS:
        chosen = cases if method == "fork" else [(5, 2)]
        cases_in_words = ", ".join(f"n={n} with num_workers={k}" for n, k in chosen)
        for run in shared_probe(ctx, "sharding:range_in_workers", timeout=WORKER_TIMEOUT_S, cases=chosen, start_method=method,
                                case=f"with {method} workers, for {cases_in_words}"):
            n, k = run["n"], run["k"]
            got, want = sorted(v for _, _, v in run["items"]), sorted(run["alone"])
            expect(want or not n, f"ShardedRange({n}) yields nothing without workers, so what its workers yield could not be "
                   "compared with anything")
            expect(got == want, f"DataLoader(ShardedRange({n}), num_workers={k}, batch_size=None) with {method} workers:\n"
                   f"  expected each integer it yields without workers, {show(want)}, exactly once over all workers\n"
                   f"  got (sorted) {show(got)}")
            expect(all(pid != run["probe_pid"] for _, pid, _ in run["items"]), "items came from the main process, not from workers")
    # Real fork workers after each state of the dataset in the main process: nothing yielded twice or from outside.
    (after_states,) = ctx.boundaries(n_5_k_2_after_each_state=(5, 2))
    for state in ctx.states("sharding"):
        for run in ctx.probe("sharding:range_in_workers", timeout=WORKER_TIMEOUT_S, cases=[after_states], start_method="fork",
                             state=state, case=f"with fork workers {STATE_WORDS[state]}"):
            if not state_kept(run):
                continue
            expect(not (p := extra_items(sorted(v for _, _, v in run["items"]), sorted(run["alone"]))),
                   f"DataLoader(ShardedRange({run['n']}), num_workers={run['k']}, batch_size=None) with fork workers, the "
                   f"dataset {STATE_WORDS[state]}:\n  {p}\n  (read which worker runs in every __iter__; keep nothing of it "
                   "on the dataset)")
    # Worker counts a pool per case would make costly, and a dataset in every state before the workers get it: the
    # workers are simulated in one process (torch's worker information set for one worker after the other).
    simulated = [{"n": n, "k": k, "state": "fresh"} for n, k in ctx.boundaries(
        n_9_k_6_rounded_blocks=(9, 6), n_10_k_4_rounded_blocks=(10, 4), n_11_k_6_rounded_blocks=(11, 6))]
    (n_4_k_2,) = ctx.boundaries(n_4_k_2_after_each_state=(4, 2))
    simulated += [{"n": n_4_k_2[0], "k": n_4_k_2[1], "state": state} for state in ctx.states("sharding")]
    huge = [{"n": n, "k": k, "bounds_only": True} for n, k in ctx.boundaries(
        n_2_53_plus_1_k_1=(2**53 + 1, 1), n_2_53_plus_1_k_3=(2**53 + 1, 3))]
    for run in ctx.probe("sharding:range_in_simulated_workers", cases=simulated + huge, case="with simulated workers"):
        n, k = run["n"], run["k"]
        if run.get("bounds_only"):
            problem = huge_range_problem(n, run["shares"])
            expect(problem is None, f"{k} workers (simulated) over ShardedRange({n}), their range iterators read without "
                   f"iterating: {problem}; compute the bounds with integers (// and %), never with float division")
            continue
        got, want = sorted(v for share in run["shares"] for v in share), sorted(run["alone"])
        if run["state"] != "fresh":
            # after a state only a share fixed there shows (an integer twice); a pass that yields less is fresh-iter's
            if not state_kept(run):
                continue
            expect(not (p := extra_items(got, want)), f"{k} workers (simulated) over ShardedRange({n}), the dataset "
                   f"{STATE_WORDS[run['state']]}:\n  {p}, worker by worker {show(run['shares'])}\n  (read which worker runs "
                   "in every __iter__; keep nothing of it on the dataset)")
            continue
        expect(got == want, f"{k} workers (worker information read with get_worker_info() in each) over ShardedRange({n}):\n"
               f"  expected each integer it yields without workers, {show(want)}, exactly once over all workers\n"
               f"  got (sorted) {show(got)}, worker by worker {show(run['shares'])}")


def state_kept(run):
    """Whether a pass without workers over the dataset in the run's state yields what a fresh one does (``alone``).

    Where it does not, the state changed the dataset itself (an iterator
    kept on it, say): that is the fresh-iter checks' promise, and the worker
    judges say nothing of that state.
    """
    return run.get("alone_in_state") is not None and sorted(run["alone_in_state"]) == sorted(run["alone"])


def extra_items(got, want):
    """What ``got`` holds more often than ``want`` (an item twice, or one from outside), in words, or None.

    The judge of a state after which items may be missing: a pass that
    yields less than a fresh one is the fresh-iter checks' promise.
    """
    extra = Counter(got) - Counter(want)
    if not extra:
        return None
    return (f"expected each item at most as often as without workers ({show(want)}), got {show(sorted(extra.elements()))} "
            f"more (all: {show(got)})")


def huge_range_problem(n, shares):
    """Why the workers' ranges ([start, stop, step] each) do not hold each integer of 0..n-1 exactly once, or None; also
    None when a worker's iterator is no range iterator (only iterating it, 2**53 items, could tell)."""
    if any(share is None for share in shares):
        return None
    ranges = [range(*share) for share in shares]
    if sum(len(r) for r in ranges) != n:
        return f"together they hold {sum(len(r) for r in ranges):,} integers, not n = {n:,}"
    outside = [r for r in ranges if len(r) and (min(r[0], r[-1]) < 0 or max(r[0], r[-1]) >= n)]
    if outside:
        return f"{outside[0]} reaches outside 0..n-1"
    for x in sorted({0, 1, n - 2, n - 1, *(r[0] for r in ranges if len(r)), *(r[-1] for r in ranges if len(r))}):
        holders = sum(x in r for r in ranges)
        if holders != 1:
            return f"{x:,} is in {holders} workers' ranges"
    return None


def check_files_remove_only_the_line_ending(ctx):
    """Proves ShardedFiles yields every line of UTF-8 files, in file order, with only its line ending removed: "\\n",
    "\\r\\n" or a bare "\\r"; a line keeps its own blanks, and an empty line is a line.

    Every line of these files ends in a line ending: a last line without
    one, an empty file, a byte order mark and the other boundaries of
    str.splitlines are the next checks' promises.
    """
    (contents,) = ctx.boundaries(line_endings_blanks_empty_line_non_ascii=LINE_ENDINGS)
    got = ctx.probe("sharding:files_in_process", contents=contents, scenarios=[{"rank": 0, "world": 1}])
    want = [line for text in LINE_ENDINGS for line in lines_of(text)]
    have = values(got["scenarios"][0]["first"])
    if have != want:
        first_bad = next((i for i, (a, b) in enumerate(zip(want, have)) if a != b), min(len(want), len(have)))
        expect(False, f"ShardedFiles(paths) over files with contents {show(LINE_ENDINGS)}:\n  expected {show(want)}\n"
               f"  got      {show(have)}\n  (first difference at line {first_bad})")


def check_files_last_line_and_empty_file(ctx):
    """Proves a last line without a trailing newline is still yielded, and an empty file yields nothing.

    Reads each file alone and judges how many lines come back and the last
    one's text, then a file without a final newline followed by another (its
    last line is not joined to the next file's first): how a line ending is
    removed is check_files_remove_only_the_line_ending's promise.
    """
    contents = ctx.boundaries(no_final_newline="x0\nx1", empty_file="")
    unterminated, empty = ctx.probe("sharding:files_each", contents=contents, case="over a file 'x0\\nx1' and an empty file")
    expect(len(unterminated) == 2 and unterminated[-1] == "x1", f"ShardedFiles([path]) over a file holding 'x0\\nx1' (no "
           f"newline after the last line): expected 2 lines, the last 'x1', got {show(unterminated)}")
    expect(empty == [], f"ShardedFiles([path]) over an empty file: expected no line, got {show(empty)}")
    (then_another,) = ctx.boundaries(no_final_newline_then_another_file=["x0\nx1", "y0\n"])
    got = ctx.probe("sharding:files_in_process", contents=then_another, scenarios=[{"rank": 0, "world": 1}])
    have = values(got["scenarios"][0]["first"])
    joined = not (len(have) == 3 and have[1] == "x1" and str(have[2]).rstrip("\r\n") == "y0")  # endings are another check's
    expect(not joined, f"ShardedFiles(paths) over files {show(then_another)}: expected ['x0', 'x1', 'y0'] "
           f"(a file's last line ends with its file, also without a newline), got {show(have)}")


def either_way_controls(files):
    """For each file: the same text with every other line boundary made a "\\n", and with each made a placeholder letter."""
    table_split = {ord(c): "\n" for c in OTHER_BOUNDARIES}
    table_keep = {ord(c): PLACEHOLDER for c in OTHER_BOUNDARIES}
    return [text.translate(table_split) for text in files], [text.translate(table_keep) for text in files]


def restore(lines, files):
    """Lines read from the placeholder files, with each placeholder put back as the boundary it stood for."""
    stood_for = iter(c for text in files for c in text if c in OTHER_BOUNDARIES)
    return ["".join(next(stood_for) if c == PLACEHOLDER else c for c in line) for line in lines]


def check_files_bom_and_other_boundaries_either_way(ctx):
    """Proves a byte order mark at a file's start is kept on its first line or removed (one inside the file is kept, as
    any character), and the other line boundaries of
    str.splitlines (\\v, \\f, \\x1c-\\x1e, \\x85, \\u2028, \\u2029) all end a line or all stay inside it.

    Compares each file with the same submission reading a control file (no
    BOM; the boundaries made line endings, or plain letters): how lines and
    line endings are read otherwise is the other line checks' promise.
    """
    split, keep = either_way_controls(EITHER_WAY)
    bom, either_way, bom_inside = ctx.boundaries(bom=BOM + "b0\nb1\n", every_other_boundary=EITHER_WAY,
                                                 bom_inside_a_file="b0\n" + BOM + "b1\n")
    contents = [bom, "b0\nb1\n", *either_way, *split, *keep, bom_inside]
    got = ctx.probe("sharding:files_each", contents=contents, case="over files with a byte order mark and other line boundaries")
    with_bom, control = got[0], got[1]
    expect(all(got[1:2] + got[2 + len(EITHER_WAY) :]), f"ShardedFiles([path]) yields nothing for some of the plain files "
           f"{show(contents[1:2] + contents[2 + len(EITHER_WAY) :])}, so these had nothing to be compared with")
    bom_readings = [control, [BOM + control[0], *control[1:]] if control else control]
    expect(with_bom in bom_readings, f"ShardedFiles([path]) over a file holding {show(contents[0])}: expected what the same file "
           f"without its byte order mark gives, {show(control)}, with or without the mark on the first line; got {show(with_bom)}")
    inside = got.pop()
    want_inside = [control[0], BOM + control[1]] if len(control) == 2 else None
    expect(want_inside is None or inside == want_inside, f"ShardedFiles([path]) over a file holding {show(bom_inside)}: expected "
           f"{show(want_inside)}: only a mark at the start of a file may be removed, one inside it is a character of its line; "
           f"got {show(inside)}")
    k = len(EITHER_WAY)
    have = [line for lines in got[2 : 2 + k] for line in lines]
    readings = [[line for lines in got[2 + k : 2 + 2 * k] for line in lines],
                restore([line for lines in got[2 + 2 * k :] for line in lines], EITHER_WAY)]
    expect(have in readings, f"ShardedFiles over files with contents {show(EITHER_WAY)}:\n  expected the other line boundaries "
           f"all to end a line, {show(readings[0])},\n  or all to stay inside their line, {show(readings[1])}\n  got {show(have)}")


def check_files_every_iter_starts_afresh(ctx):
    """Proves every iter() over the same ShardedFiles yields what the first did, from the first of its files: a second
    pass, a pass after a partial one, two iterators taken in turns, and a pass over a pickled copy.

    Compares the two passes with each other: what the first holds is the
    other checks' promise.
    """
    scenarios = ctx.boundaries(rank_0_of_1={"rank": 0, "world": 1}, last_rank_of_2={"rank": 1, "world": 2})
    got = ctx.probe("sharding:files_in_process", contents=PLAIN, scenarios=scenarios)
    for scenario, run in zip(("ShardedFiles(paths)", "ShardedFiles(paths, rank=1, world_size=2)"), got["scenarios"]):
        expect(run["first"], f"the first iter() over {scenario} yielded nothing, so a second had nothing to repeat")
        problem = later_pass_problem(run, scenario)
        expect(problem is None, problem)


def check_files_read_line_by_line(ctx):
    """Proves ShardedFiles reads a file line by line, never whole: peak memory stays flat over a 60 MB file of 1 MiB lines.

    Peak memory is measured from outside the student's process (the
    sandbox's zygote, from the kernel's accounting). Not judged here: the
    lines' values (check_files_without_workers); only that some came back,
    since code that reads nothing shows nothing about how it reads.
    """
    (file_mb,) = ctx.boundaries(file_of_60_one_mib_lines=60)
    result = ctx.run_probe("sharding:files_memory", file_mb=file_mb, case="over one 60 MB file of 60 lines")
    expect(result.data["lines"] > 0, "iterating ShardedFiles over one 60 MB file of 60 lines (1 MiB each) yielded no line, "
           "so nothing shows that it reads the file line by line: yield each line as you read it")
    expect(result.rss_growth_mb < 30, f"iterating ShardedFiles over one 60 MB file of 60 lines (1 MiB each) raised peak memory by "
           f"{result.rss_growth_mb} MB: the file was read whole (f.read(), readlines(), list(f)); iterate the open file "
           "line by line (for line in f) and yield as you go")


def reads(each_file, listing):
    """What a reader of the files ``listing`` (indices, in order) yields, from what each file yields alone."""
    return [line for i in listing for line in each_file[i]]


def check_files_in_the_order_given(ctx):
    """Proves ShardedFiles uses paths as given (pathlib.Path objects here): in the listed order, not sorted, and a
    path listed twice is read twice.

    Compares the lines with the same submission's reading of each file
    alone: how a line is read is the line checks' promise, and which files
    a rank reads is check_files_ranks_split_by_file's.
    """
    files = ["p0a\np0b\n", "p1a\n", "p2a\np2b\n", "p3a\n", "p4a\n"]
    names = ["d.txt", "b.txt", "e.txt", "a.txt", "c.txt"]  # sorted by name: files 3, 1, 4, 0, 2
    (listing,) = ctx.boundaries(unsorted_names_one_listed_twice=[0, 1, 2, 3, 4, 1])  # b.txt listed twice
    words = f"paths = [{', '.join(names[i] for i in listing)}] (Path objects; b.txt listed twice)"
    got = ctx.probe("sharding:files_in_process", contents=files, names=names, listing=listing, pathlike=True,
                    scenarios=[{"rank": 0, "world": 1}], case=f"with {words}")
    expect_a_reference(got["each_file"], files, "the order of the lines")
    want, have = reads(got["each_file"], listing), values(got["scenarios"][0]["first"])
    expect(have == want, f"ShardedFiles(paths) with {words}:\n  expected the lines of the files in that order: {show(want)}\n"
           f"  got {show(have)}\n  use the list as given: do not sort it or drop repeats")


def check_files_ranks_split_by_file(ctx):
    """Proves that without workers rank r of world_size w reads exactly the files paths[r::w], in order.

    Compares each rank's lines with the same submission's reading of each
    file alone: how a line is read is the line checks' promise.
    """
    # 11 files leave a remainder for both world sizes (11 % 2, 11 % 3): the last ranks read one file less
    files = PLAIN + ctx.boundaries(remainder_for_every_world=["r0a\nr0b\n"])[0]
    files += [f"r{i}a\nr{i}b\n" for i in range(1, int(ctx.rng("ranks").integers(1, 3)))]
    for world in ctx.boundaries(world_2=2, world_3=3):
        scenarios = [{"rank": r, "world": world} for r in range(world)]
        got = ctx.probe("sharding:files_in_process", contents=files, scenarios=scenarios,
                        case=f"with {len(files)} files and world_size={world}")
        expect_a_reference(got["each_file"], files, "what each rank reads")
        for s, run in zip(scenarios, got["scenarios"]):
            listing = list(range(len(files)))[s["rank"] :: world]
            want, have = reads(got["each_file"], listing), values(run["first"])
            expect(have == want, f"ShardedFiles(paths, rank={s['rank']}, world_size={world}) with {len(files)} files:\n"
                   f"  expected the lines of paths[{s['rank']}::{world}] (files {listing}): {show(want)}\n  got {show(have)}")


def check_files_readers_in_real_workers(ctx):
    """Proves that with k real fork workers per rank, reader rank*k + worker_id reads exactly paths[reader::world_size*k].

    Compares each worker's lines with the same submission's reading of each
    file alone, in the main process. Not proved here: the same under
    forkserver, which check_range_exactly_once_in_real_workers covers for
    get_worker_info-based sharding; several world sizes with fork pools
    prove more per second.
    """
    # 11 files leave a remainder for 3, 4 and 6 readers
    files = PLAIN + ctx.boundaries(remainder_for_every_reader_count=["w0\n"])[0]
    plans = [(*plan, "fresh") for plan in ctx.boundaries(world_1_k_3=("fork", 1, 3), world_2_k_2=("fork", 2, 2),
                                                          world_3_k_2=("fork", 3, 2))]
    (after_states,) = ctx.boundaries(world_1_k_2_after_each_state=("fork", 1, 2))
    plans += [(*after_states, state) for state in ctx.states("sharding")]
    for method, world, k, state in plans:
        before = f", the dataset {STATE_WORDS[state]}" if state != "fresh" else ""
        got = ctx.probe("sharding:files_in_workers", timeout=WORKER_TIMEOUT_S, contents=files, world=world, k=k, start_method=method,
                        state=state, case=f"with {len(files)} files, world_size={world} and num_workers={k} ({method} workers){before}")
        expect_a_reference(got["each_file"], files, "what each worker reads")
        for run in got["ranks"]:
            rank = run["rank"]
            expect(all(pid != run["probe_pid"] for _, pid, _ in run["items"]), "lines came from the main process, not from workers")
            for w in range(k):
                reader = rank * k + w
                listing = list(range(len(files)))[reader :: world * k]
                want = reads(got["each_file"], listing)
                have = [v for ww, _, v in run["items"] if ww == w]
                if state != "fresh":  # after a state only a share fixed there shows; fewer lines are fresh-iter's
                    if not state_kept(run):
                        continue
                    expect(not (p := extra_items(have, want)), f"{method} workers, world_size={world}, rank={rank}, worker "
                           f"{w} of {k} (reader {reader}){before}:\n  reader {reader} reads paths[{reader}::{world * k}] "
                           f"(files {listing}): {p}\n  (read which worker runs in every __iter__; keep nothing of it on "
                           "the dataset)")
                    continue
                expect(have == want, f"{method} workers, world_size={world}, rank={rank}, worker {w} of {k} (reader {reader}):\n"
                       f"  expected the lines of paths[{reader}::{world * k}] (files {listing}): {show(want)}\n  got {show(have)}")

"""Checks of exercise 2, ShardedRange and ShardedFiles: every promise of their docstrings."""

from __future__ import annotations

from grader.engine.checks.support import FORKING_METHODS, WORKER_TIMEOUT_S, expect, show

# Text files as bytes: trailing newline or not, CRLF, an empty file, an empty line, non-ASCII, and
# lines with their own leading/trailing blanks (only the line ending is removed) and bare "\r" endings.
FILES = ["a0\na1\na2", "", "c0\r\nc1\r\n", "d0\n", "e0\n\ne2\n", "f0 \u00e9\u4e2d", "g0\ng1\n", "h0\n",
         "  i0 \n\ti1\t\r\nj0\rj1"]


#: Files where the docstring allows two readings each: a byte order mark kept or removed, and the other line
#: boundaries of str.splitlines all ending a line or all staying inside it.
EITHER_WAY = ["\ufeffb0\nb1\n", "v0\x0bv1\x0cv2\n", "w0\x1cw1\x1dw2\x1ew3\n", "x0\x85x1\u2028x2\u2029x3"]
BOM = "\ufeff"


def lines_of(text):
    """The lines the docstring promises for one file's text (one without a BOM or other line boundaries)."""
    return text.splitlines()


def universal_lines(text):
    """The lines of ``text`` split only at "\\n", "\\r\\n" and "\\r" (as open() reads text), line endings removed."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    return lines[:-1] if text.endswith("\n") or not text else lines


def allowed_readings(files):
    """Every list of lines the docstring allows for ``files``: BOM kept or removed, times the other boundaries split or not."""
    readings = []
    for strip_bom in (False, True):
        texts = [t.removeprefix(BOM) if strip_bom else t for t in files]
        for split in (universal_lines, str.splitlines):
            readings.append([line for text in texts for line in split(text)])
    return readings


def random_files(rng, count):
    files = []
    for f in range(count):
        lines = [f"f{f}l{i}" for i in range(int(rng.integers(0, 6)))]
        text = "\n".join(lines) + ("\n" if lines and rng.random() < 0.5 else "")
        files.append(text)
    return files


def check_range_without_workers(ctx):
    """Proves ShardedRange(n) yields the ints 0..n-1 in order without workers (directly and through a DataLoader with
    num_workers=0), and every iter() starts afresh."""
    ns = [0, 1, 2, 5, *sorted(int(n) for n in ctx.rng("range").integers(3, 200, size=4))]
    for n, got in zip(ns, ctx.probe("sharding:range_in_process", ns=ns)):
        values = [v for _, v in got["first"]]
        expect(values == list(range(n)), f"list(ShardedRange({n})): expected {show(list(range(n)))}, got {show(values)}")
        types = {t for t, _ in got["first"]}
        expect(types <= {"int"}, f"ShardedRange({n}) should yield Python ints, got {sorted(types)}")
        second = show([v for _, v in got["second"]])
        expect(got["second"] == got["first"], f"a second iter(ShardedRange({n})) gave {second}: every iter() must start afresh")
        loader = [v for _, v in got["loader"]]
        expect(loader == list(range(n)), f"list(DataLoader(ShardedRange({n}), batch_size=None, num_workers=0)): expected "
               f"{show(list(range(n)))}, got {show(loader)}")


def range_cases(rng):
    """(n, workers) pairs, smallest first: n below, equal to and above the worker count, and n = 0."""
    cases = [(0, 2), (1, 3), (3, 4), (2, 2), (5, 2), (7, 3)]
    cases += [(int(rng.integers(10, 120)), int(k)) for k in (2, 3)]
    return sorted(cases)


def check_range_exactly_once_in_real_workers(ctx):
    """Proves ShardedRange(n) under a DataLoader with k real workers (fork, forkserver) yields each int exactly once, also when n < k.

    Which worker yields which integers, and in what order, is the student's
    choice (the docstring promises only the union), so the items are
    compared sorted. forkserver workers receive the dataset pickled, as
    spawn workers do; spawn itself would prove nothing more here (see
    support.POOL_WORKERS).
    """
    rng = ctx.rng("range_workers")
    cases = range_cases(rng)
    for method in FORKING_METHODS:
        chosen = cases if method == "fork" else [c for c in cases if c[1] == 2][-1:]
        cases_in_words = ", ".join(f"n={n} with num_workers={k}" for n, k in chosen)
        for run in ctx.probe("sharding:range_in_workers", timeout=WORKER_TIMEOUT_S, cases=chosen, start_method=method,
                             case=f"with {method} workers, for {cases_in_words}"):
            n, k = run["n"], run["k"]
            values = sorted(v for _, _, v in run["items"])
            expect(values == list(range(n)), f"DataLoader(ShardedRange({n}), num_workers={k}, batch_size=None) with {method} workers:\n"
                   f"  expected each of 0..{n - 1} exactly once\n  got (sorted) {show(values)}")
            expect(all(pid != run["probe_pid"] for _, pid, _ in run["items"]), "items came from the main process, not from workers")


def check_files_without_workers(ctx):
    """Proves ShardedFiles yields every line of the files in order with line endings removed (also without a final
    newline, CRLF, empty files), and every iter() starts afresh; a byte order mark and the other line boundaries of
    str.splitlines may go either way the docstring allows, and no other."""
    files = FILES
    (got,) = ctx.probe("sharding:files_in_process", contents=files, scenarios=[{"rank": 0, "world": 1}])
    want = [line for text in files for line in lines_of(text)]
    have = [v for _, v in got["first"]]
    if have != want:
        first_bad = next((i for i, (a, b) in enumerate(zip(want, have)) if a != b), min(len(want), len(have)))
        expect(False, f"ShardedFiles(paths) over files with contents {show(files)}:\n  expected {show(want)}\n  got      {show(have)}\n"
               f"  (first difference at line {first_bad})")
    expect(got["second"] == got["first"], "a second iter() gave different lines: every iter() must start afresh")
    (got,) = ctx.probe("sharding:files_in_process", contents=EITHER_WAY, scenarios=[{"rank": 0, "world": 1}],
                       case="over files with a byte order mark and other line boundaries")
    have, readings = [v for _, v in got["first"]], allowed_readings(EITHER_WAY)
    expect(have in readings, f"ShardedFiles(paths) over files with contents {show(EITHER_WAY)}:\n  expected one of the readings the "
           f"docstring allows (BOM kept or removed; \\v, \\f, \\x1c-\\x1e, \\x85, \\u2028, \\u2029 all ending a line or none):\n"
           f"  {show(readings[0])}\n  or {show(readings[-1])} (or the other two combinations)\n  got {show(have)}")


def check_files_read_line_by_line(ctx):
    """Proves ShardedFiles reads a file line by line, never whole: peak memory stays flat over a 60 MB file of 1 MiB lines.

    Peak memory is measured from outside the student's process (the
    sandbox's zygote, from the kernel's accounting). Not judged here: the
    lines' values (check_files_without_workers); only that some came back,
    since code that reads nothing shows nothing about how it reads.
    """
    result = ctx.run_probe("sharding:files_memory", file_mb=60, case="over one 60 MB file of 60 lines")
    expect(result.data["lines"] > 0, "iterating ShardedFiles over one 60 MB file of 60 lines (1 MiB each) yielded no line, "
           "so nothing shows that it reads the file line by line: yield each line as you read it")
    expect(result.rss_growth_mb < 30, f"iterating ShardedFiles over one 60 MB file of 60 lines (1 MiB each) raised peak memory by "
           f"{result.rss_growth_mb} MB: the file was read whole (f.read(), readlines(), list(f)); iterate the open file "
           "line by line (for line in f) and yield as you go")


def listed_lines(files, listing, rank, world):
    """The lines rank ``rank`` of ``world`` reads when ``paths`` is the files in ``listing`` order (repeats included)."""
    return [line for i in listing[rank::world] for line in lines_of(files[i])]


def check_files_in_the_order_given(ctx):
    """Proves ShardedFiles uses paths as given (pathlib.Path objects here): in the listed order, not sorted, and a
    path listed twice is read twice, also when ranks split the list."""
    files = ["p0a\np0b\n", "p1a\n", "p2a\np2b", "p3a\n", "p4a\n"]
    names = ["d.txt", "b.txt", "e.txt", "a.txt", "c.txt"]  # sorted by name: files 3, 1, 4, 0, 2
    listing = [0, 1, 2, 3, 4, 1]  # b.txt listed twice
    words = f"paths = [{', '.join(names[i] for i in listing)}] (Path objects; b.txt listed twice)"
    for world in (1, 2, 3):
        scenarios = [{"rank": r, "world": world} for r in range(world)]
        runs = ctx.probe("sharding:files_in_process", contents=files, names=names, listing=listing, pathlike=True,
                         scenarios=scenarios, case=f"with {words}")
        for s, got in zip(scenarios, runs):
            want = listed_lines(files, listing, s["rank"], world)
            have = [v for _, v in got["first"]]
            expect(have == want, f"ShardedFiles(paths, rank={s['rank']}, world_size={world}) with {words}:\n"
                   f"  expected the lines of paths[{s['rank']}::{world}], in that order: {show(want)}\n  got {show(have)}\n"
                   "  use the list as given: do not sort it or drop repeats")


def check_files_ranks_split_by_file(ctx):
    """Proves that without workers rank r of world_size w reads exactly files[r::w], so simulated ranks together yield every line once."""
    rng = ctx.rng("ranks")
    files = FILES + random_files(rng, 5)
    for world in (2, 3):
        scenarios = [{"rank": r, "world": world} for r in range(world)]
        for s, got in zip(scenarios, ctx.probe("sharding:files_in_process", contents=files, scenarios=scenarios)):
            want = [line for text in files[s["rank"] :: world] for line in lines_of(text)]
            have = [v for _, v in got["first"]]
            expect(have == want, f"ShardedFiles(paths, rank={s['rank']}, world_size={world}) with {len(files)} files:\n"
                   f"  expected the lines of files[{s['rank']}::{world}]: {show(want)}\n  got {show(have)}")


def check_files_readers_in_real_workers(ctx):
    """Proves that with k real fork workers per rank, reader rank*k + worker_id reads exactly files[reader::world_size*k], every line once overall.

    Not proved here: the same under forkserver, which
    check_range_exactly_once_in_real_workers covers for get_worker_info-based
    sharding; several world sizes with fork pools prove more per second.
    """
    rng = ctx.rng("files_workers")
    files = FILES + random_files(rng, 4)
    plans = [("fork", 1, 3), ("fork", 2, 2), ("fork", 3, 2)]
    for method, world, k in plans:
        runs = ctx.probe("sharding:files_in_workers", timeout=WORKER_TIMEOUT_S, contents=files, world=world, k=k, start_method=method,
                         case=f"with {len(files)} files, world_size={world} and num_workers={k} ({method} workers)")
        everything = []
        for run in runs:
            rank = run["rank"]
            workers = {w for w, _, _ in run["items"]}
            expect(all(pid != run["probe_pid"] for _, pid, _ in run["items"]), "lines came from the main process, not from workers")
            for w in range(k):
                reader = rank * k + w
                want = [line for text in files[reader :: world * k] for line in lines_of(text)]
                have = [v for ww, _, v in run["items"] if ww == w]
                expect(have == want, f"{method} workers, world_size={world}, rank={rank}, worker {w} of {k} (reader {reader}):\n"
                       f"  expected the lines of files[{reader}::{world * k}]: {show(want)}\n  got {show(have)}")
            everything += [v for _, _, v in run["items"]]
            expect(len(workers) >= 1, "no worker yielded anything")
        all_lines = sorted(line for text in files for line in lines_of(text))
        expect(sorted(everything) == all_lines, f"{method}, world_size={world}, {k} workers: not every line exactly once overall")

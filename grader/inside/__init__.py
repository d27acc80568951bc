"""What runs inside the jail: the zygote, the probe child, the kernel's layers and the probes.

* :mod:`~grader.inside.zygote`: the protocol server; :mod:`~grader.inside.probe_life`:
  one probe child's life (fork, lock down, clean up), :mod:`~grader.inside.probe_wait`
  waiting for it and reading what it left, :mod:`~grader.inside.stack_dumps` where a hung one was;
* :mod:`~grader.inside.lockdown`: limits, environment and identity of a probe child;
* :mod:`~grader.inside.layers` with :mod:`~grader.inside.landlock` and
  :mod:`~grader.inside.seccomp`: the kernel's layers, applied before the first fork;
* :mod:`~grader.inside.quota`: what a probe wrote where no tmpfs caps it; :mod:`~grader.inside.ipc`: the
  System V IPC objects and POSIX queues a probe's uid left;
* :mod:`~grader.inside.child`: inside a probe child, imports the submission and runs the probe;
* :mod:`~grader.inside.integrity`, :mod:`~grader.inside.encode`: what the child watches and how it answers;
* :mod:`~grader.inside.tracebacks`: the student's frames of an error or a hang;
* :mod:`~grader.inside.forkserver`: the zygote's shared multiprocessing forkserver;
* :mod:`grader.inside.probes`: per exercise, the functions that run the student's code (and
  :mod:`grader.inside.probes.throughput`, the grader's throughput figure, timed by the zygote's
  clock marks: :data:`grader.inside.probe_life.CLOCK_FD`).

This package and :mod:`grader.shared` are all the grader code the jail sees
(staged by :func:`grader.sandbox.files.stage_modules`); nothing here imports
the host side or the engine (grader/tests/test_house.py).
"""

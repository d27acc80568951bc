"""Probes: trusted grader functions that run *inside* a sandbox child.

A probe imports the student's module with ``load_submission``, exercises it
on the inputs the check (in the grading process) sends as JSON arguments,
and returns plain data: lists, dicts, numbers, strings. Probes never judge:
every assertion runs in the parent, on what the probe returned. A probe lets
the student's exceptions escape, so the sandbox reports them as "error" with
their type and message.

Everything a DataLoader worker must unpickle (datasets, collate wrappers,
worker_init_fns) is defined at module level here, so spawn and forkserver
workers can import it.
"""

"""Hostile: error messages and output carrying terminal escapes and CI workflow commands (row 10)."""
import sys

_PAYLOAD = ("\x1b[2J\x1b[31mRED\x1b]0;title\x07\r"
            "\n::error file=grader/runner.py,line=1::grader broken"
            "\n  ::add-mask::secret"
            "\n::stop-commands::pwned"
            "\n##[error]azure says hi"
            "\n##vso[task.setvariable variable=x]1")

print(_PAYLOAD)
print(_PAYLOAD, file=sys.stderr)


class BucketBatchSampler:
    def __init__(self, lengths, batch_size, pool_batches=50, drop_last=False, generator=None):
        raise ValueError(_PAYLOAD)

    def __iter__(self):
        raise ValueError(_PAYLOAD)

    def __len__(self):
        raise ValueError(_PAYLOAD)

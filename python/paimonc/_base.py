"""Small pieces shared by the pure-Python modules (not public API)."""


class Closing:
    """A context manager whose exit calls ``self.close()``."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def commit_once(obj, what):
    """pypaimon's batch writes and commits commit once: the first call marks
    ``obj.batch_committed``, a second raises RuntimeError naming ``what``."""
    if obj.batch_committed:
        raise RuntimeError("{} only supports one-time committing.".format(what))
    obj.batch_committed = True

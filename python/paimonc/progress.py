"""Progress bars for long reads, writes, back-fills and index builds.

``progress=True`` on a call shows a bar on stderr: tqdm's when tqdm is
installed, else a plain one-line bar (redrawn at most 5 times a second);
``progress=None`` (the default) shows one only when the environment variable
``PAIMONC_PROGRESS`` is ``1`` and stderr is a terminal; a callable
``progress(done, total)`` receives the counts instead (total may be None
when unknown). ``progress=False`` never shows anything.
"""

import os
import sys
import time

__all__ = ["make_progress"]


class _Null:
    def update(self, done, total=None):
        pass

    def close(self):
        pass


class _Callback:
    def __init__(self, fn):
        self._fn = fn

    def update(self, done, total=None):
        self._fn(done, total)

    def close(self):
        pass


class _Tqdm:
    def __init__(self, tqdm, label, total, unit):
        self._bar = tqdm(total=total, desc=label, unit=unit, unit_scale=True, leave=True, file=sys.stderr)
        self._done = 0

    def update(self, done, total=None):
        if total is not None and total != self._bar.total:
            self._bar.total = total
        if done > self._done:
            self._bar.update(done - self._done)
            self._done = done

    def close(self):
        self._bar.close()


class _Plain:
    WIDTH = 30

    def __init__(self, label, total, unit):
        self._label, self._total, self._unit = label, total, unit
        self._t = 0.0
        self._start = time.monotonic()
        self._last = None

    def _draw(self, done, final=False):
        total = self._total
        rate = done / max(1e-9, time.monotonic() - self._start)
        if total:
            frac = min(1.0, done / total)
            bar = "#" * int(frac * self.WIDTH)
            line = "\r{} [{:<{w}}] {}/{} {} ({:.0f}/s)".format(self._label, bar, done, total, self._unit, rate,
                                                             w=self.WIDTH)
        else:
            line = "\r{} {} {} ({:.0f}/s)".format(self._label, done, self._unit, rate)
        sys.stderr.write(line + ("\n" if final else ""))
        sys.stderr.flush()

    def update(self, done, total=None):
        if total is not None:
            self._total = total
        self._last = done
        now = time.monotonic()
        if now - self._t >= 0.2:
            self._t = now
            self._draw(done)

    def close(self):
        if self._last is not None:
            self._draw(self._last, final=True)


def make_progress(progress, label, total=None, unit="rows"):
    """A progress sink with ``update(done, total=None)`` and ``close()``."""
    if progress is False:
        return _Null()
    if callable(progress) and progress is not True:
        return _Callback(progress)
    if progress is None:
        if os.environ.get("PAIMONC_PROGRESS") != "1" or not sys.stderr.isatty():
            return _Null()
    elif progress is not True:
        raise TypeError("progress must be True, False, None or a callable (done, total), not {!r}".format(
            type(progress).__name__))
    try:
        from tqdm import tqdm
    except ImportError:
        return _Plain(label, total, unit)
    return _Tqdm(tqdm, label, total, unit)

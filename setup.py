"""The optional C accelerator of the tick batch path (toolkit/load/_tickscan.c, issue 38).

Everything else about the package is in pyproject.toml. The extension is optional: a
machine without a C compiler (or Python's headers) installs the pure-Python path, which
is the reference the accelerator is tested against (docs/performance.md).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "toolkit.load._tickscan",
            ["toolkit/load/_tickscan.c"],
            optional=True,
        ),
        Extension(
            "toolkit.io._readpack",
            ["toolkit/io/_readpack.c"],
            optional=True,
        ),
        Extension(
            "toolkit.rubrics.simulation._rowsjson",
            ["toolkit/rubrics/simulation/_rowsjson.c"],
            optional=True,
        ),
    ]
)

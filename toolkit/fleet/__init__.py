"""Finding runs in folders and mapping work over them: "what is in this folder, and in
what order do we score it" lives here.

- :mod:`toolkit.fleet.find`: the one finder every command uses, on a
  :class:`~toolkit.io.source.Source` (every run of every family, the one family of a
  folder, the runs of a fleet, the iteration logs under a folder);
- :mod:`toolkit.fleet.families`: the naming rules that tell a family from names only;
- :mod:`toolkit.fleet.pairing`: the pairing keys of simulation runs;
- :mod:`toolkit.fleet.engine`: one load-and-score function mapped over partitions, here
  or on a Dask cluster; :mod:`toolkit.fleet.outcome`: the same for iteration logs;
  :mod:`toolkit.fleet.eval_runs`: dot-agents eval-harness runs, read and scored;
- :mod:`toolkit.fleet.compare` (``tk.compare``, ``toolkit compare``) and
  :mod:`toolkit.fleet.view` (``toolkit view``): what those faces do with folders.

Nothing is imported here, so a command that needs one module (``rate`` asks
:func:`~toolkit.fleet.find.detect_family`) loads no other.
"""

"""How fast can it go: the speed ladder read against the device's own ceilings, and the backend
settings it runs under measured rather than assumed.

Three runs, all on the benchmark's harness (same models, rows, interleaved rounds and faults):

- ``ladder``: from eager one step at a time (``ladder``), with the device's matmul rate and copy
  bandwidth measured first (``roofline``), the bytes each call must move recorded per row, and
  the fastest rung of each (model, batch size) profiled (``snippets.core.profile``), and for an
  autotuned rung what autotuning measured while it chose (``autotune``, read by ``choices``);
- ``settings``: the cuDNN autotuner and TF32, on and off, per mode (``settings``), from which
  ``settings.chosen`` picks each mode's settings, which a ladder run may then apply;
- ``freezing``: freezing asked for as a compile option alone against the option with Inductor's
  switch on, beside no freezing, and on a GPU what each CUDA-graph replay copies (``freezing``).

``runs`` holds the runs' config and documents; ``python -m snippets.speed`` runs them
(``__main__``); ``tables`` and ``plots`` draw them.
"""

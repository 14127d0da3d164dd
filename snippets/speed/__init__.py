"""How fast can it go: the speed ladder read against the device's own ceilings, and the backend
settings it runs under measured rather than assumed. Three runs on the benchmark's harness:

- ``ladder``: eager, then one step at a time (``ladder``), against the measured matmul rate and
  copy bandwidth (``roofline``), the fastest rung profiled, and what autotuning measured while it
  chose (``autotune``, read by ``choices``);
- ``settings``: the cuDNN autotuner and TF32, on and off, per mode (``settings``);
- ``freezing``: freezing as a compile option alone, with Inductor's switch, and none (``freezing``).

``runs`` holds their config and documents, ``__main__`` the command, ``tables`` and ``plots`` the
page's drawing.
"""

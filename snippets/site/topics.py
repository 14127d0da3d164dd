"""Every results kind the site reads, gathered from the topics that declare them.

Each topic declares its own kinds, once, in its package's ``kinds`` module
(``snippets.core.results.declare``); the core lists none. Importing this module imports them
all, so that whatever reads any committed file (the pages, the Results page, the site check,
``snippets.site.migrate``) finds its kind.
"""

from __future__ import annotations

from snippets.bench import kinds as bench
from snippets.core import results
from snippets.cpu import kinds as cpu
from snippets.debug import kinds as debug
from snippets.diagnose import kinds as diagnose
from snippets.dynamic import kinds as dynamic
from snippets.explain import kinds as explain
from snippets.generate import kinds as generate
from snippets.production import kinds as production
from snippets.scale import kinds as scale
from snippets.site import buildtime
from snippets.speed import kinds as speed
from snippets.train import kinds as train
from snippets.zoo import kinds as zoo

# The packages whose kinds are gathered, by the name each is imported under above.
PACKAGES = (bench, cpu, debug, diagnose, dynamic, explain, generate, production, scale, speed,
            train, zoo)
SITE_KIND = buildtime.KIND  # the site's own: a build's time
KINDS = results.KINDS  # every kind, now that all are declared

"""Every topic's record (``snippets.core.topic``), gathered for the site. Importing this module
declares every kind, so that whatever reads a committed file finds its kind.
"""

from __future__ import annotations

from snippets.bench import topic as bench
from snippets.core import results
from snippets.core.topic import gather
from snippets.cpu import topic as cpu
from snippets.debug import topic as debug
from snippets.diagnose import topic as diagnose
from snippets.dynamic import topic as dynamic
from snippets.explain import topic as explain
from snippets.generate import topic as generate
from snippets.production import topic as production
from snippets.scale import topic as scale
from snippets.site import buildtime
from snippets.speed import topic as speed
from snippets.train import topic as train
from snippets.zoo import topic as zoo

TOPICS = tuple(m.TOPIC for m in (bench, cpu, debug, diagnose, dynamic, explain, generate,
                                 production, scale, speed, train, zoo))
SITE_KIND = buildtime.KIND  # the site's own: a build's time
KINDS = results.KINDS  # every kind, now that all are declared
PRODUCERS = gather(TOPICS, "producers")  # results kind -> what the produce step runs
FINDINGS = gather(TOPICS, "findings")  # the name a page asks for -> its findings
TABLES = gather(TOPICS, "tables")  # results kind -> how the Results page draws its files

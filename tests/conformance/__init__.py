"""One storage contract suite, run against every backend registered in ``conftest.BACKENDS``."""

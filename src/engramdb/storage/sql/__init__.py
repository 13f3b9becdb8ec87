"""SQL both backends run, written once: units of work over the dialect.

A *unit* (:mod:`.unit`) is a generator that yields statements (:class:`.unit.Sql`) and receives
their results, so the same logic serves sqlite3's blocking connection (driven in a worker
thread) and psycopg's async one (driven on the event loop); each backend's ``database`` module
has the driver, ``run_unit``. Values are bound as Python values (``UUID``, ``datetime``,
``bool``); the SQLite driver stores them as text and integers. Rows are read back with the
tolerant converters of :mod:`.values`, which accept either backend's representation.
"""

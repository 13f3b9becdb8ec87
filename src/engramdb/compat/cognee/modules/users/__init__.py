"""``cognee.modules.users`` over engramdb: :mod:`.methods`, :mod:`.roles`, :mod:`.tenants`,
:mod:`.permissions` and :mod:`.exceptions` (users, roles, tenants and dataset permissions as
cognee has them, on engramdb's own -- ``docs/permissions.md``)."""

"""``cognee.modules.tools.resolve_skills``: a dataset's skills by name or id.

They read as the user of the current database scope
(``set_database_global_context_variables(dataset_id, user_id)``; without one, the default user),
who must be allowed to read the dataset (PermissionDeniedError). A skill is engramdb's
:class:`~engramdb.models.skills.Skill` (``id``, ``name``, ``description``, ``tags``,
``procedure``).
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from engramdb.access.permissions import dataset_for_read
from engramdb.artifacts.skills import find_skill
from engramdb.compat.cognee.context_global_variables import current_scope
from engramdb.compat.cognee.modules.users._engine import ready_engine, user_by_id
from engramdb.errors import EngramValidationError
from engramdb.models.skills import Skill

__all__ = ["find_skill_by_id", "find_skill_by_name", "resolve_skills"]


async def find_skill_by_name(name: str, *, dataset_id: UUID) -> Skill | None:
    """The skill of the dataset with this name, with its procedure, or None."""
    return await _find(str(name), dataset_id)


async def find_skill_by_id(skill_id: str | UUID, *, dataset_id: UUID) -> Skill | None:
    """The skill of the dataset with this id, or None."""
    return await _find(str(skill_id), dataset_id)


async def resolve_skills(
    skills: Sequence[str | Skill] | None = None, *, dataset_id: UUID | None = None
) -> list[Skill]:
    """The named skills of the dataset (names that match none are left out), each once."""
    if dataset_id is None:
        raise EngramValidationError("Skill lookup requires one explicit dataset.")
    found: dict[UUID, Skill] = {}
    for item in skills or []:
        skill = await _find(item.name if isinstance(item, Skill) else str(item), dataset_id)
        if skill is not None:
            found.setdefault(skill.id, skill)
    return list(found.values())


async def _find(name_or_id: str, dataset_id: UUID) -> Skill | None:
    engine = await ready_engine()
    scope = current_scope()
    if scope is not None and scope.user_id is not None:
        user = await user_by_id(scope.user_id)
    else:
        user = await engine.resolve_user(None)
    dataset = await dataset_for_read(engine.store, user, dataset_id)
    return await find_skill(engine.store, dataset, name_or_id)

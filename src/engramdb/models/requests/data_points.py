"""The request model of ``add_data_points()``: custom graph models written into a dataset."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar
from uuid import UUID

from pydantic import Field, SkipValidation

from engramdb.models.requests.common import LOCAL, UserOption, VerbRequest

__all__ = ["AddDataPointsRequest"]


class AddDataPointsRequest(VerbRequest):
    """``add_data_points()``: store DataPoint instances (and every model reachable from them)
    as graph nodes and edges of a dataset, in one transaction."""

    positional: ClassVar[tuple[str, ...]] = ("data_points",)

    data_points: SkipValidation[Any] = Field(
        description="A list of DataPoint (or pydantic model) instances.", json_schema_extra=LOCAL
    )
    dataset_name: Annotated[str, Field(min_length=1, max_length=128)] | UUID = "main_dataset"
    user: UserOption = None

"""What a verb is: one request model, one handler, and everything derived from the model.

A verb's options are declared ONCE, as the fields of its request model (a
:class:`VerbRequest`): name, type, default, limits, description, and whether the option can
cross HTTP. From that model come

* the Python signature of the SDK function and of the :class:`~engramdb.Engine` method
  (:func:`signature_for`; unknown keywords are the usual ``TypeError``),
* the validated request object a call builds (:meth:`Verb.build`; a bad value is an
  :class:`~engramdb.errors.EngramValidationError` naming the option),
* the REST body and the MCP tool schema (:meth:`Verb.wire_model`: the model without its
  local-only fields, plus the wire-only ones the verb declares),
* the remote client's payload (:meth:`VerbRequest.wire_payload`).

A handler is ``async def handler(engine, request) -> result``; it is imported lazily (by dotted
path) so that ``import engramdb`` stays fast.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
import warnings
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from pydantic.fields import FieldInfo

from engramdb.errors import EngramValidationError
from engramdb.models.verb_request import LOCAL, VerbRequest
from engramdb.observability.instrument import instrument_verb
from engramdb.validation import MAX_DATASET_NAME

if TYPE_CHECKING:
    from engramdb.engine import Engine

__all__ = ["API_PREFIX", "LOCAL", "Http", "HttpMethod", "Verb", "VerbRequest", "signature_for"]

Req = TypeVar("Req", bound=VerbRequest)
Res = TypeVar("Res")


def signature_for(
    model: type[VerbRequest], returns: Any = inspect.Signature.empty
) -> inspect.Signature:
    """The Python signature a request model stands for: its ``positional`` options first (in
    that order, positional-or-keyword), then every other option keyword-only, with the model's
    defaults and annotations."""
    fields = model.model_fields
    params: list[inspect.Parameter] = []
    for name in model.positional:
        params.append(_parameter(name, fields[name], inspect.Parameter.POSITIONAL_OR_KEYWORD))
    for name, info in fields.items():
        if name not in model.positional:
            params.append(_parameter(name, info, inspect.Parameter.KEYWORD_ONLY))
    return inspect.Signature(params, return_annotation=returns)


def _parameter(name: str, info: FieldInfo, kind: inspect._ParameterKind) -> inspect.Parameter:
    default = (
        inspect.Parameter.empty
        if info.is_required()
        else info.get_default(call_default_factory=True)
    )
    return inspect.Parameter(name, kind, default=default, annotation=info.annotation)


#: The HTTP methods a verb's route uses.
#: Where every REST route of the API lives (the verbs' and the hand-written ones).
API_PREFIX = "/api/v1"

HttpMethod = Literal["GET", "POST", "DELETE"]


@dataclass(frozen=True)
class Http:
    """A verb's REST route. Options named in ``path`` travel in it; the others in the JSON
    body (POST) or as query parameters (GET, DELETE)."""

    method: HttpMethod
    path: str
    #: Success status; 204 means no body (the verb returns None).
    status: int = 200
    tags: tuple[str, ...] = ()
    #: The route is written by hand in ``server/`` (multipart bodies, background runs).
    custom: bool = False
    #: A 404 answer means the verb's ``None`` result (``get_node``).
    none_on_404: bool = False

    @property
    def path_fields(self) -> tuple[str, ...]:
        return tuple(re.findall(r"{(\w+)}", self.path))

    @property
    def has_body(self) -> bool:
        return self.method == "POST"


@dataclass(frozen=True)
class Verb(Generic[Req, Res]):
    """One public verb: its name, request model, handler and result type."""

    name: str
    request: type[Req]
    #: ``"module:function"`` of ``async def handler(engine, request) -> result``.
    handler_path: str
    #: What the verb returns (for the OpenAPI document and the remote client's decoding).
    result: Any = None
    #: Wire-only fields of the REST body: name -> (annotation, FieldInfo).
    wire_extra: Mapping[str, tuple[Any, Any]] = field(default_factory=dict)
    #: Local-only options the remote client knows how to send (encoded by its own code).
    encoded_locals: frozenset[str] = frozenset()
    #: The REST route (None: the verb does not cross HTTP; remote mode refuses it).
    http: Http | None = None
    #: The option that takes a dataset name or UUID: over HTTP a UUID travels as
    #: ``dataset_id`` beside it.
    dataset_field: str | None = None
    #: Where the verb shows up: ``"engramdb"`` (top level) or ``"engramdb.session"``.
    namespace: str = "engramdb"

    @functools.cached_property
    def signature(self) -> inspect.Signature:
        return signature_for(self.request, self.result or inspect.Signature.empty)

    @property
    def handler(self) -> Callable[[Engine, Req], Awaitable[Res]]:
        """The handler, wrapped with the verb's span and latency metric
        (:func:`engramdb.observability.instrument_verb`)."""
        module, _, attr = self.handler_path.partition(":")
        found: Callable[[Engine, Req], Awaitable[Res]] = getattr(
            importlib.import_module(module), attr
        )
        # Every caller gets the handler through here: the one place verbs are instrumented.
        return instrument_verb(self, found)

    def bind(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Req:
        """The request a call ``verb(*args, **kwargs)`` makes (TypeError for unknown or missing
        arguments, exactly as a plain function; EngramValidationError for bad values)."""
        bound = self.signature.bind(*args, **kwargs)
        return self.build(bound.arguments)

    def build(self, values: Mapping[str, Any]) -> Req:
        """Validate ``values`` into the request model; a deprecated option that is set warns
        (FutureWarning; see :meth:`VerbRequest.deprecation_warning`)."""
        try:
            request = self.request.model_validate(dict(values))
        except ValidationError as exc:
            raise EngramValidationError(describe(self.name, exc)) from exc
        message = request.deprecation_warning(self.name)
        if message is not None:
            warnings.warn(message, FutureWarning, stacklevel=4)
        return request

    @functools.cached_property
    def wire_model(self) -> type[BaseModel]:
        """The REST body / MCP tool input: the request without its local-only options, plus the
        verb's wire-only fields. Named like the request model, so the OpenAPI components keep
        their names."""
        local = self.request.local_fields()
        fields: dict[str, Any] = {
            name: (info.annotation, info)
            for name, info in self.request.model_fields.items()
            if name not in local
        }
        fields.update(self.wire_extra)
        if self.dataset_field is not None and "dataset_id" not in fields:
            fields["dataset_id"] = (
                UUID | None,
                Field(default=None, description="A dataset by id (instead of by name)."),
            )
            info = self.request.model_fields[self.dataset_field]
            if self.dataset_field not in self.wire_extra:
                fields[self.dataset_field] = (
                    str | None if info.default is None else str,
                    Field(default=info.default, min_length=1, max_length=MAX_DATASET_NAME),
                )
        wire: type[BaseModel] = create_model(
            self.request.__name__,
            __config__=ConfigDict(extra="forbid"),
            __doc__=self.request.__doc__,
            __module__="engramdb.server.bodies",
            **fields,
        )
        return wire

    @functools.cached_property
    def body_model(self) -> type[BaseModel]:
        """The JSON body of a POST route: the wire model without the options in the path."""
        in_path = set(self.http.path_fields) if self.http is not None else set()
        wire = self.wire_model
        fields: dict[str, Any] = {
            name: (info.annotation, info)
            for name, info in wire.model_fields.items()
            if name not in in_path
        }
        if not in_path:
            return wire
        body: type[BaseModel] = create_model(
            _body_name(self.name),
            __config__=ConfigDict(extra="forbid"),
            __doc__=self.request.__doc__,
            __module__="engramdb.server.bodies",
            **fields,
        )
        return body

    @functools.cached_property
    def result_adapter(self) -> TypeAdapter[Any]:
        return TypeAdapter(self.result)


def _body_name(verb: str) -> str:
    return "".join(part.capitalize() for part in verb.split("_")) + "Body"


def describe(verb: str, exc: ValidationError) -> str:
    """One clause per invalid option: ``recall(top_k=...): Input should be ... (got 0)``."""
    parts = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(p) for p in error.get("loc", ())) or "arguments"
        message = error.get("msg", "invalid value")
        if error.get("type") == "extra_forbidden":
            message = "unknown option"
        value = error.get("input")
        shown = repr(value)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        parts.append(f"{verb}({where}=...): {message} (got {shown})")
    return "; ".join(parts)

"""``Task``: one step of a custom pipeline (cognee's ``Task``, ``task()`` and ``Drop``).

A Task wraps a function, a coroutine function, a generator function or an async generator
function, with arguments bound ahead (``Task(fn, *args, **kwargs)``) and a ``task_config``
whose ``batch_size`` says how many items of the PREVIOUS step's stream it receives at once
(a generator's items are grouped into lists of that size; a function's single result is
passed as it is). A step returning or yielding :data:`Drop` removes that item from the stream;
``enriches=True`` passes the input on when the function returns None. A function with a
parameter named ``ctx`` receives the run's :class:`~engramdb.pipelines.run_info.PipelineContext`.

``task(fn, batch_size=...)`` (or ``@task``) makes a :class:`TaskSpec`; calling it binds keyword
arguments into a :class:`BoundTask` for :func:`engramdb.pipelines.run_steps`.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable
from typing import Any

__all__ = ["BoundTask", "Drop", "Task", "TaskSpec", "task", "task_summary"]


class _Drop:
    """Return or yield ``Drop`` from a step to remove that item from the pipeline."""

    _instance: _Drop | None = None

    def __new__(cls) -> _Drop:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "Drop"

    def __bool__(self) -> bool:
        return False


Drop = _Drop()


class Task:
    """One pipeline step (see the module docstring)."""

    def __init__(
        self,
        executable: Callable[..., Any],
        *args: Any,
        task_config: dict[str, Any] | None = None,
        batch_size: int | None = None,
        enriches: bool = False,
        needs_llm: bool = True,
        **kwargs: Any,
    ) -> None:
        self.executable = executable
        self.default_params: dict[str, Any] = {"args": args, "kwargs": kwargs}
        self.enriches = enriches
        self.needs_llm = needs_llm
        if inspect.isasyncgenfunction(executable):
            self.task_type = "Async Generator"
        elif inspect.isgeneratorfunction(executable):
            self.task_type = "Generator"
        elif inspect.iscoroutinefunction(executable):
            self.task_type = "Coroutine"
        elif inspect.isfunction(executable) or inspect.ismethod(executable) or callable(executable):
            self.task_type = "Function"
        else:
            raise ValueError(f"Unsupported task type: {executable!r}")
        self.task_config: dict[str, Any] = dict(task_config) if task_config else {}
        self.task_config.setdefault("batch_size", 1)
        if batch_size is not None:
            self.task_config["batch_size"] = batch_size
        try:
            self.accepts_ctx = "ctx" in inspect.signature(executable).parameters
        except (TypeError, ValueError):
            self.accepts_ctx = False

    @property
    def name(self) -> str:
        return getattr(self.executable, "__name__", type(self.executable).__name__)

    def __repr__(self) -> str:
        return f"Task({self.name}, batch_size={self.task_config['batch_size']})"

    def with_config(self, **overrides: Any) -> Task:
        """A copy with ``batch_size`` / ``enriches`` / ``needs_llm`` or bound keyword
        arguments overridden."""
        batch_size = overrides.pop("batch_size", self.task_config["batch_size"])
        enriches = overrides.pop("enriches", self.enriches)
        needs_llm = overrides.pop("needs_llm", self.needs_llm)
        return Task(
            self.executable,
            *self.default_params["args"],
            batch_size=batch_size,
            enriches=enriches,
            needs_llm=needs_llm,
            **{**self.default_params["kwargs"], **overrides},
        )

    def run(self, *args: Any, **kwargs: Any) -> Any:
        """Call the function with the bound arguments after ``args`` (the pipeline's input)."""
        return self.executable(
            *args, *self.default_params["args"], **{**self.default_params["kwargs"], **kwargs}
        )

    async def execute(
        self, args: list[Any], kwargs: dict[str, Any], next_batch_size: int | None = None
    ) -> AsyncIterator[Any]:
        """Run the step and yield what it passes on: a generator's items in lists of
        ``next_batch_size``, a function's result as it is."""
        batch = next_batch_size or 1
        if self.task_type in ("Async Generator", "Generator"):
            results: list[Any] = []
            produced = self.run(*args, **kwargs)
            items = _aiter_sync(produced) if self.task_type == "Generator" else produced
            async for item in items:
                if item is Drop:
                    continue
                results.append(item)
                if len(results) == batch:
                    yield results
                    results = []
            if results:
                yield results
            return
        result = self.run(*args, **kwargs)
        if inspect.isawaitable(result):
            result = await result
        if result is Drop:
            return
        if self.enriches and result is None:
            yield args[0] if args else None
            return
        yield result


async def _aiter_sync(iterable: Any) -> AsyncIterator[Any]:
    for item in iterable:
        yield item


class BoundTask:
    """A :class:`Task` with keyword arguments bound for :func:`~engramdb.pipelines.run_steps`
    (made by calling a :class:`TaskSpec`)."""

    def __init__(self, inner_task: Task, **kwargs: Any) -> None:
        self.task = inner_task
        self.kwargs = kwargs

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items())
        size = self.task.task_config["batch_size"]
        return f"BoundTask({self.task.name}({params}), batch_size={size})"


class TaskSpec:
    """What ``task(fn)`` / ``@task`` returns: call it to bind arguments (a :class:`BoundTask`);
    ``.direct(...)`` calls the function itself."""

    def __init__(
        self,
        fn: Callable[..., Any],
        batch_size: int | None = None,
        enriches: bool = False,
        needs_llm: bool = True,
        **default_params: Any,
    ) -> None:
        self._fn = fn
        self._default_params = default_params
        self._base_task = Task(
            fn, batch_size=batch_size, enriches=enriches, needs_llm=needs_llm, **default_params
        )
        self.__name__ = getattr(fn, "__name__", "task")
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn

    def __call__(self, **kwargs: Any) -> BoundTask:
        config = {k: kwargs.pop(k) for k in ("batch_size", "enriches", "needs_llm") if k in kwargs}
        inner = self._base_task.with_config(**config) if config else self._base_task
        return BoundTask(inner, **kwargs)

    @property
    def task(self) -> Task:
        return self._base_task

    def direct(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(*args, **{**self._default_params, **kwargs})

    def __repr__(self) -> str:
        return f"TaskSpec({self.__name__}, batch_size={self._base_task.task_config['batch_size']})"


def task(
    fn: Callable[..., Any] | None = None,
    *,
    batch_size: int | None = None,
    enriches: bool = False,
    needs_llm: bool = True,
    **default_params: Any,
) -> Any:
    """``@task``, ``@task(batch_size=20)`` or ``task(fn, batch_size=20)``: a :class:`TaskSpec`."""

    def decorator(func: Callable[..., Any]) -> TaskSpec:
        return TaskSpec(
            func, batch_size=batch_size, enriches=enriches, needs_llm=needs_llm, **default_params
        )

    return decorator(fn) if fn is not None else decorator


def task_summary(template: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Attach a result summary template (``"Stored {n} item(s)"``) to a task function."""

    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        func.__task_summary__ = template  # type: ignore[attr-defined]
        return func

    return decorator

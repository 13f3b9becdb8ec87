"""``cognee.api.v1.visualize``: ``visualize_graph`` (and ``visualize``, its other name)."""

from engramdb import facade

from .visualize import visualize_graph

# Bound after the submodule import above, which sets the package's ``visualize`` attribute to
# the submodule; the function wins, whichever of the two a program imports first.
visualize = facade.visualize

__all__ = ["visualize", "visualize_graph"]

"""improve()'s machinery: the stage registry, the runner, and the stages themselves.

(Named ``improvement`` rather than ``improve`` so the package never shadows the public
``engramdb.improve`` function.)
"""

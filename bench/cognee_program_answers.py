ANSWERS: dict[str, tuple[str, ...]] = {}

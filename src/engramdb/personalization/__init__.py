"""Per-user preference personalization: weights (pure math), the improve stage, the lookup."""

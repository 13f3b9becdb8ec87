"""The rule-based extractor's parts: tokens and sentences, mentions and their types,
relations, and the bounded assembly shared with the spaCy extractor. Pure Python; the word
lists are hand-written and small."""

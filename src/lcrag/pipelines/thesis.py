"""The thesis (Lu, 2024): BAMBOO multiple-choice prompts, Full / RAG / Evidence settings.

Prompts are verbatim from the inventory (``../shared/papers/thesis.md`` §1.5): BAMBOO's own ``prompt.json``
(system "You are a helpful assistant.") and the thesis's chunked variant, where each retrieved chunk fills
"Article part n°i" in rank order.
"""

from __future__ import annotations

SYSTEM = "You are a helpful assistant."

# BAMBOO repo prompt.json (meetingqa and paperqa are identical), typo "responsing" kept.
BAMBOO_INSTRUCTION = (
    "You are given an article or a long dialogue, a multiple-choice question with four optional answer(marked by "
    "A, B, C, D). Please choose the best answer to the question based on the given content by responsing its "
    "corresponding letter (either A, B, C, or D). Do not provide any explanation."
)
BAMBOO_TAIL = "Answer(Only give the corresponding letter (either A, B, C, or D)): "


def bamboo_prompt(question: str, options: list[str], parts: list[str]) -> str:
    """BAMBOO's user prompt. One part: the original ``Article: ```…``` ``; several: "Article part n°i"."""
    if len(parts) == 1:
        article = f"Article: ```{parts[0]}```"
    else:
        article = "\n\n".join(f"Article part n°{i}: ```{p}```" for i, p in enumerate(parts, 1))
    return (
        f"{BAMBOO_INSTRUCTION}\n\n{article}\n\nQuestion: {question}\nOptions: {chr(9).join(options)}\n\n"
        f"{BAMBOO_TAIL}"
    )

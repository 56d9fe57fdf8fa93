"""The thesis's three prompts (BAMBOO, CTX1, CTX2), and its system message: BAMBOO's as its repository has it (the
thesis's Fig. 5.3 prints "responding" and quoted, comma-separated options: :func:`format_options`), CTX1 and CTX2
verbatim.

Inventory ``../shared/papers/thesis.md`` §1.5: BAMBOO's own prompt (its repository's ``prompt.json``), the thesis's
Fig. 5.4 (CTX1) and Fig. 5.5 (CTX2). :func:`build_prompt` fills one of them for a case and a setting (Full and
Evidence: the whole document or the evidence in one part; RAG: the retrieved chunks as "Article part n°i").
These strings key the recorded responses: a changed byte is a new request.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

SYSTEM = "You are a helpful assistant."

# BAMBOO repo prompt.json (meetingqa and paperqa are identical), typo "responsing" kept.
BAMBOO_INSTRUCTION = (
    "You are given an article or a long dialogue, a multiple-choice question with four optional answer(marked by "
    "A, B, C, D). Please choose the best answer to the question based on the given content by responsing its "
    "corresponding letter (either A, B, C, or D). Do not provide any explanation."
)
BAMBOO_TAIL = "Answer(Only give the corresponding letter (either A, B, C, or D)): "

OPTIONS_FORMATS = ("tab", "thesis")


def format_options(options: Sequence[str], options_format: str = "tab") -> str:
    """BAMBOO's options line: ``"tab"`` joins them with tabs (BAMBOO's code), ``"thesis"`` quotes them and
    separates them with commas, as the thesis's Fig. 5.3 prints: ``"A. …", "B. …"``."""
    if options_format == "tab":
        return "\t".join(options)
    if options_format == "thesis":
        return ", ".join(f'"{o}"' for o in options)
    raise ValueError(f"options_format must be one of {OPTIONS_FORMATS}, not {options_format!r}")


def bamboo_prompt(
    question: str,
    options: list[str],
    parts: list[str],
    *,
    numbered: bool | None = None,
    options_format: str = "tab",
) -> str:
    """BAMBOO's user prompt. One part: the original ``Article: ```…``` ``; several: "Article part n°i".

    ``numbered=True`` numbers even a single part (a RAG run that retrieved one chunk).
    """
    if numbered is None:
        numbered = len(parts) > 1
    if not numbered:
        article = f"Article: ```{parts[0]}```"
    else:
        article = "\n\n".join(f"Article part n°{i}: ```{p}```" for i, p in enumerate(parts, 1))
    return (
        f"{BAMBOO_INSTRUCTION}\n\n{article}\n\nQuestion: {question}\nOptions: "
        f"{format_options(options, options_format)}\n\n{BAMBOO_TAIL}"
    )


# Thesis Fig. 5.4 (CTX1), verbatim; the LaTeX quotes ““…““ are triple backticks, as in BAMBOO.
CTX1_INSTRUCTION = (
    "Your task is to read a paper or an interview between people, after which a question with several choice is "
    "given, please answer to the best of your ability by a giving the letter corresponding to the right answer.\n\n"
    'First, the interview follows AFTER the disclaimer "CONTENT HERE:".\n\n'
    'Second, the question follows AFTER the disclaimer "QUESTION HERE:".\n\n'
    'Third, the choices follow AFTER the disclaimer "CHOICES HERE:".\n\n'
    "Lastly, the answer you will provide MUST be one of the letter provided in the choices and follows AFTER the "
    'disclaimer "ANSWER HERE:"'
)
CTX1_TAIL = "ANSWER HERE (Only give the corresponding letter (either A, B, C, or D)) :"


def ctx1_prompt(question: str, options: list[str], parts: list[str], **_) -> str:
    """The thesis's CTX1 prompt: labelled sections, each part as "Part n°i", one option per paragraph."""
    content = "\n\n".join(f"Part n°{i}: ```{p}```" for i, p in enumerate(parts, 1))
    choices = "\n\n".join(options)
    return (
        f"{CTX1_INSTRUCTION}\n\nCONTENT HERE:\n\n{content}\n\nQUESTION HERE:\n\n{question}\n\n"
        f"CHOICES HERE:\n\n{choices}\n\n{CTX1_TAIL}"
    )


# Thesis Fig. 5.5 (CTX2), as extracted: the "#####" pairs are kept as two lines (inventory §4.2 item 9).
CTX2_SEP = "#####\n#####"
CTX2_MUST = (
    "The answer MUST be the LETTER of the choice you have picked and best responds to the question even if you "
    "cannot find evidences in the provided information."
)
CTX2_TAIL = "What is the answer? (Only give the corresponding letter (either A, B, C, or D))"


def ctx2_prompt(question: str, options: list[str], parts: list[str], **_) -> str:
    """The thesis's CTX2 prompt: '#####' separators, the choices twice (the second time '\\n'-joined)."""
    sep = CTX2_SEP
    article = "\n\n".join(f"Article part n°{i}: ```{p}```" for i, p in enumerate(parts, 1))
    spaced, joined = "\n\n".join(options), "\n".join(options)
    choices_intro = "Here are all possible choices you can pick to answer the question:"
    return (
        "Act as a helpful assistant, a question is provided and you must respond to the question by picking an "
        f"answer among multiple choices.\n\n{CTX2_MUST}\n\n"
        f"Here is the question you have to answer :\n\n{sep}\n{question}\n\n{sep}\n\n"
        f"{choices_intro}\n\n{sep}\n\n{spaced}\n\n{sep}\n\n"
        "Here are the information you are provided to answer the question, this is either a paper or a "
        f"discussion between several people:\n\n{sep}\n\n{article}\n\n{sep}\n\n"
        f"{CTX2_MUST}\n\n{choices_intro}\n\n{sep}\n\n{joined}\n\n{sep}\n\n{CTX2_TAIL}"
    )


PromptBuilder = Callable[..., str]
PROMPTS: dict[str, PromptBuilder] = {"BAMBOO": bamboo_prompt, "CTX1": ctx1_prompt, "CTX2": ctx2_prompt}


def build_prompt(
    name: str,
    question: str,
    options: list[str],
    parts: list[str],
    *,
    setting: str = "rag",
    options_format: str = "tab",
    builders: dict[str, PromptBuilder] | None = None,
) -> str:
    """The user prompt ``name`` (BAMBOO, CTX1, CTX2, or one of ``builders``) for one case and setting.

    BAMBOO's Full and Evidence prompts use its original un-numbered "Article: ```…```"; a RAG prompt always
    numbers its parts. CTX1 and CTX2 put a Full or Evidence text in a single part n°1 (inventory §4.2 item 6).
    """
    table = {**PROMPTS, **(builders or {})}
    if name not in table:
        raise ValueError(f"unknown prompt {name!r}; use one of {', '.join(table)}")
    if name == "BAMBOO":
        return bamboo_prompt(
            question, options, parts, numbered=setting == "rag", options_format=options_format
        )
    return table[name](question, list(options), list(parts))

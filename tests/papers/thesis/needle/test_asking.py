"""How the needle chapter asks its question (lcrag.papers.thesis.needle.asking): Kamradt's prompts, as chat
messages or as one completion prompt."""

from __future__ import annotations

from lcrag.models import get_model
from lcrag.papers.thesis.needle import asking
from lcrag.papers.thesis.needle import needles as needle_texts

SMOL, GEMMA = "local/smollm2-135m-instruct", "local/gemma3-270m"


def test_prompts_are_kamradts(essays):
    msgs = asking.needle_messages("HAY", needle_texts.SIMPLE_QUESTION)
    assert msgs == [
        {"role": "system", "content": "You are a helpful AI bot that answers questions for a user. Keep your "
                                      "response short and direct"},
        {"role": "user", "content": "HAY"},
        {"role": "user", "content": "What is the best thing to do in San Francisco? Don't give information "
                                    "outside the document or repeat your findings"},
    ]
    method, kwargs = asking.request_for(get_model(GEMMA), "HAY", needle_texts.SIMPLE_QUESTION, 64)
    assert method == "complete" and kwargs["prompt"].startswith(asking.SYSTEM + "\n\nHAY\n\n")
    assert kwargs["prompt"].endswith("repeat your findings\nAnswer:")
    assert asking.request_for(get_model(SMOL), "HAY", needle_texts.SIMPLE_QUESTION, 64)[0] == "chat"
    assert needle_texts.NEEDLES["complex"].question_by == "ours" and needle_texts.NEEDLES["simple"].question_by == "Kamradt"

"""The prompts of the chapter: the released summarization prompts (verbatim), and ours for the synthetic haystack
(the paper's are not released). Filled by :func:`lcrag.papers.summhay.live_contexts.summary_prompt` and
:mod:`lcrag.papers.summhay.synthetic`. The released evaluation prompt is the insight judge's,
:data:`lcrag.judges.insight.EVAL_PROMPT`.
"""

from __future__ import annotations

#: ``prompts/summarization_news.txt`` and ``prompts/summarization_conv.txt`` of the released repository, verbatim
#: (the news prompt's "conversation(s)" is in the original).
SUMMARIZATION_PROMPTS = {
    "news": """You are given [N_articles] news articles about the main subject "[TOPIC]."

```
[ARTICLES]
```

In some of the conversation the following topic is discussed: "[SUBTOPIC]".
Your objective is to summarize the [N_insights] main insights from the conversations regarding that topic.
Careful:
- [Format] You should format your summary as a bullet point list, where each bullet point is a different insight consisting of a single sentence.
- [References] For each insight, you should refer to the relevant articles by using the IDs given in the article list. For example: "Increased demand for vaccines may strain already fragile supply chains [1][4]" which means that the insight is supported by Document 1 and Document 4. No need to say "Article 14", you can just use the following structure: "[14]".
- [Length] Your summary should be no longer than 300 words in total.""",  # noqa: E501
    "conv": """You are given [N_conversations] conversations within the following scenario: "[SCENARIO]".
The conversations involve the following participants: [PARTICIPANTS]. In each conversation, the participants might be different, with different names, but all the conversations fall into the same scenario.

```
[CONVERSATIONS]
```

Your objective is to produce a summary of all the document with [N_insights] bullet points covering the main insights regarding the following query: [QUERY].
Careful:
- [Format] You should format your summary as a bullet point list, where each bullet point is a different insight.
- [References] For each insight, you should refer to the relevant conversations by using the IDs given in the conversation list. For example: "some of the doctors ask patients for their medical history[1][4]" which means that the insight is supported by Document 1 and Document 4. No need to say "Conversation 14", you can just use the following structure: "[14]".
- [Length] Your summary should be no longer than 300 words in total.""",  # noqa: E501
}


#: Our synthesis prompts (the paper's are not released; these follow the steps of its §3.2 and A.1).
SYNTHESIS_PROMPTS = {
    "subtopics": (
        'You are planning a collection of news articles about the topic "[TOPIC]".\n'
        "List [N] distinct subtopics that articles about this topic could discuss. The subtopics must not "
        "overlap, and each must be specific enough to hold at least three distinct facts.\n"
        'Answer with one subtopic per line, each line starting with "- ", and nothing else.'
    ),
    "insights": (
        'Topic: "[TOPIC]". Subtopic: "[SUBTOPIC]".\n'
        "Write [N] specific insights about this subtopic. Each insight is one sentence stating a concrete fact "
        "that mentions a number, a date or a named entity. The insights must be different from each other"
        '[AVOID].\nAnswer with one insight per line, each line starting with "- ", and nothing else.'
    ),
    "document": (
        'Write a news article of about [WORDS] words about "[TOPIC]".\n'
        "The article must state every one of the following facts, in your own words but keeping their numbers, "
        "dates and names:\n[FACTS]\nDo not add other specific numbers or facts about these subjects. "
        "Write only the article text."
    ),
    "repair": (
        "Here is a news article:\n\n[DOCUMENT]\n\nRewrite the article so that it also states the following "
        "facts, keeping their numbers, dates and names:\n[FACTS]\nWrite only the article text."
    ),
    "query": (
        'Topic: "[TOPIC]". Subtopic: "[SUBTOPIC]".\n'
        "Write one short question that asks whether this subtopic is discussed in a collection of articles, "
        'for example "Are financial results for Q4 2022 discussed?". Answer with the question only.'
    ),
}

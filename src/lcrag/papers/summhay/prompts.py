"""The prompts of the chapter: the released evaluation and summarization prompts (verbatim), and ours for the
synthetic haystack (the paper's are not released). Filled by :func:`lcrag.papers.summhay.llm_judge.judge_prompt`,
:func:`lcrag.papers.summhay.live_contexts.summary_prompt` and :mod:`lcrag.papers.summhay.synthetic`.
"""

from __future__ import annotations

#: ``prompts/eval_summhay.txt`` of salesforce/summary-of-a-haystack (commit 3e2007f), byte for byte: the paper's
#: A.2 prompt with the three released doctor-patient examples inline. ``[[INSIGHT]]`` and ``[[BULLETS]]`` are
#: filled by :func:`~lcrag.papers.summhay.llm_judge.judge_prompt`.
EVAL_PROMPT = """You are given a list of bullet points (each with a unique number), and a specific reference insight. Your objective is to determine whether the reference insight is covered in any of the bullet points. You must further determine if the insight is partially covered ("PARTIAL_COVERAGE") or fully covered ("FULL_COVERAGE") by the bullet points. If the insight is not covered at all, you must return "NO_COVERAGE". See examples below:

Example Reference Insight 1: "The doctor asks the patient about their medical history".

Example Bullet Points 1:
{"bullets": [
    {"bullet_id": 1, "text": "The patient often mention that they are worried about medication side-effect[12][14]."},
    {"bullet_id": 2, "text": "The doctor and patient spend time going over symptoms [3][8], particularly the initial symptoms and the progression in the last few months[5]."},
    {"bullet_id": 3, "text": "The doctor and patient discuss medical history within the patient's family[1][5], with the patient often unaware that some of the conditions are hereditary[2]."}
]
}

Example Output 1:
{"coverage": "FULL_COVERAGE", "bullet_id": 3}

Example Reference Insight 2: "The doctor asks the patient about their medical history".

Example Bullet Points 2:
{"bullets": [
    {"bullet_id": 1, "text": "The patient often mention that they are worried about medication side-effect[12][14]."},
    {"bullet_id": 2, "text": "The doctor and patient spend time going over symptoms [3][8], particularly the initial symptoms and the progression in the last few months[5]."}
]
}

Example Output 2:
{"coverage": "NO_COVERAGE", "bullet_id": "NA"}

Example Reference Insight 3: "The doctor asks the patient about their medical history".

Example Bullet Points 3:
{"bullets": [
    {"bullet_id": 1, "text": "The patient often mention that they are worried about medication side-effect[12][14]."},
    {"bullet_id": 2, "text": "The doctor and patient catch up after a long time, with the patient mentioning feeling unwell for a while, and knowing of other family member's similar experiences[20]."},
    {"bullet_id": 3, "text": "The doctor and patient spend time going over symptoms [3][8], particularly the initial symptoms and the progression in the last few months[5]."}
]
}

Example Output 3:
{"coverage": "PARTIAL_COVERAGE", "bullet_id": 2}

Now complete the task for the following insight and bullet points:

Reference Insight:
[[INSIGHT]]

Bullet Points:
[[BULLETS]]


Requirements:
- Do not hallucinate that the insight is covered by the bullet points if it is not.
- Your response should only be the JSON output in the format above, such that it can directly parsed by Python's json module. DO NOT OUTPUT ANY EXPLANATION OR ANYTHING THAT IS NOT THE JSON RESPONSE.
"""  # noqa: E501


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

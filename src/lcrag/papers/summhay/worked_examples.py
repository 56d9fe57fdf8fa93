"""The paper's worked examples (Fig. 2 and Fig. 4), scored with our metrics next to the printed scores.

The summaries and the judgments (the figures' colours) are here; the printed scores and each insight's reference
documents are the tables ``worked_example_scores.csv`` and ``worked_example_documents.csv``.
"""

from __future__ import annotations

import pandas as pd

from lcrag.metrics.summhay import summary_scores
from lcrag.papers.summhay.paper_numbers import WORKED_EXAMPLE_DOCUMENTS, WORKED_EXAMPLE_SCORES

#: The paper's worked examples (Fig. 2 and Fig. 4, the exam-stress subtopic of the study-group haystack): the
#: summary's bullets, the evaluator's judgments as the figure colours them, the reference documents of each
#: insight as printed, and the scores printed in the figure. In Fig. 4 bullet k covers insight k (the figure's
#: colours); which covered insights are full and which partial follows from the printed Coverage (Oracle-GPT-4o:
#: I2 and I1 full, I3-I5 partial gives 70 / 46; Random-Gemini: I1, I4, I2 partial on bullets 1, 2, 3).
_FIG4_GOLD = WORKED_EXAMPLE_DOCUMENTS["Fig. 4"]


def _judge(*items: tuple[str, str, object]) -> list[dict]:
    return [{"insight_id": i, "coverage": c, "bullet_id": b} for i, c, b in items]


WORKED_EXAMPLES: dict[str, dict] = {
    "Fig. 2 (exam stress tips)": {
        "summary": (
            "Here are the main insights regarding exam stress tips:\n"
            "- Students shared various methods for handling stress, including the use of meditation apps such as "
            "'Calm' to promote relaxation and focus [79,11,46,53,54].\n"
            "- The 25-5 minute Pomodoro Technique was discussed for its structure and possible positive impact on "
            "productivity and well-being [79,80].\n"
            "- A structured schedule for study and breaks was discussed as crucial for preventing stress and "
            "promoting effective exam preparation [80,23]."
        ),
        "judgments": _judge(
            ("pomodoro", "FULL_COVERAGE", 3),
            ("calm", "PARTIAL_COVERAGE", 2),
            ("breathing", "NO_COVERAGE", "NA"),
        ),
        "gold": WORKED_EXAMPLE_DOCUMENTS["Fig. 2"],
        "paper": WORKED_EXAMPLE_SCORES["Fig. 2 (exam stress tips)"],
    },
    "Fig. 4 Oracle - GPT-4o": {
        "summary": (
            "- They discussed various relaxation techniques to manage stress, such as deep breathing exercises, "
            "which were mentioned as beneficial for reducing anxiety and improving focus [8][11][46][53][91].\n"
            "- Walking and physical activity were commonly recommended as stress-relief strategies, with multiple "
            "participants highlighting the benefits of taking short walks to clear their minds and reduce stress "
            "levels [11][53][54][80][91].\n"
            "- The Pomodoro technique, where one studies for a set time (typically 25 minutes) followed by a short "
            "break, was suggested as a useful method to maintain concentration and prevent burnout "
            "[8][11][37][53][54][79][83][95].\n"
            "- Mindfulness and meditation practices, particularly using apps like 'Calm,' were shared as effective "
            "ways to manage stress before and during exam preparation [11][53][79][83][91].\n"
            "- The importance of taking regular breaks and incorporating positive affirmations into daily routines "
            "to boost morale and reduce stress was emphasized, as these small adjustments can make a significant "
            "difference in maintaining a positive mindset [37][46][83][13]."
        ),
        "judgments": _judge(
            ("I1", "FULL_COVERAGE", 1),
            ("I2", "FULL_COVERAGE", 2),
            ("I3", "PARTIAL_COVERAGE", 3),
            ("I4", "PARTIAL_COVERAGE", 4),
            ("I5", "PARTIAL_COVERAGE", 5),
        ),
        "gold": _FIG4_GOLD,
        "paper": WORKED_EXAMPLE_SCORES["Fig. 4 Oracle - GPT-4o"],
    },
    "Fig. 4 Random - Gemini-1.5-pro": {
        "summary": (
            "* Deep breathing exercises can help clear the mind and reduce anxiety. [4][46][95]\n"
            "* Meditation apps like 'Calm' can promote relaxation and focus. [46][53][80]\n"
            "* Short walks outside or stretching provide a refreshing break from studying. [46][74][80]\n"
            "* Mindfulness practices can set a positive tone for the day and help manage stress. [53]\n"
            "* Engaging in enjoyable activities like reading, watching movies, or spending time with friends and "
            "roommates offers a healthy distraction from exam preparation. [53][95]"
        ),
        "judgments": _judge(
            ("I1", "PARTIAL_COVERAGE", 1),
            ("I2", "PARTIAL_COVERAGE", 3),
            ("I3", "NO_COVERAGE", "NA"),
            ("I4", "PARTIAL_COVERAGE", 2),
            ("I5", "NO_COVERAGE", "NA"),
        ),
        "gold": _FIG4_GOLD,
        "paper": WORKED_EXAMPLE_SCORES["Fig. 4 Random - Gemini-1.5-pro"],
    },
}


def worked_examples(partial: float = 0.5) -> pd.DataFrame:
    """The paper's worked examples scored with our metrics, next to the scores printed in the figures. Each is named
    by the paper's figure in the ``paper_figure`` column ("Fig. 2 ..."): the book numbers figures of its own."""
    rows = []
    for name, ex in WORKED_EXAMPLES.items():
        ours = summary_scores(ex["summary"], ex["judgments"], ex["gold"], partial=partial)
        row = {"paper_figure": name}
        for metric in ("coverage", "citation", "joint"):
            row[f"paper_{metric}"] = ex["paper"][metric]
            row[metric] = ours[metric]
        row["match"] = all(round(ours[m]) == ex["paper"][m] for m in ("coverage", "citation", "joint"))
        rows.append(row)
    return pd.DataFrame(rows)

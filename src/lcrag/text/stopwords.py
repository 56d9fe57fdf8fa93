"""Standard English stop-word lists, in one place: NLTK's (what SummHay's released keyword retriever removes from
its query) and scikit-learn's (what the needle chapter removes before counting how common a needle's words are).

Two lists, not one, because each is part of a result: SummHay's keyword scores follow NLTK's 179 words exactly,
and the needle test of the thesis's explanation needs a list that also drops function words such as "one" (NLTK
keeps it). The lexical recall (:func:`lcrag.text.words.word_recall`: the needle's deterministic scorer, the lexical
judge) has its own small list, :data:`RECALL_STOP_WORDS`: it decides which words an answer must bring, and changing
it would change every recorded recall.
"""

from __future__ import annotations

from lcrag.text.words import content_words

#: The lexical recall's small English stop-word list (:func:`lcrag.text.words.word_recall`; the needle's
#: :data:`lcrag.metrics.needle.STOP_WORDS`): function words carry no evidence that a text states a reference.
RECALL_STOP_WORDS = frozenset(
    "a an and are as at be by do for from has have in is it its of on or that the this to was were with "
    "what which who when where why how best thing".split()
)

#: NLTK's English stop-word list (``nltk.corpus.stopwords.words("english")``, the classic 179 words), which the
#: released KWs retriever of SummHay removes from the query. Written out because NLTK's data cannot be downloaded
#: here.
NLTK_STOPWORDS = frozenset(
    """i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves he him
    his himself she she's her hers herself it it's its itself they them their theirs themselves what which who
    whom this that that'll these those am is are was were be been being have has had having do does did doing a
    an the and but if or because as until while of at by for with about against between into through during
    before after above below to from up down in out on off over under again further then once here there when
    where why how all any both each few more most other some such no nor not only own same so than too very s t
    can will just don don't should should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't
    doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't mustn mustn't needn needn't
    shan shan't shouldn shouldn't wasn wasn't weren weren't won won't wouldn wouldn't""".split()
)


def english_stop_words() -> frozenset[str]:
    """scikit-learn's English stop-word list (``ENGLISH_STOP_WORDS``, the 318 words of the Glasgow Information
    Retrieval Group's list); imported on demand, scikit-learn takes a second to load."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def english_content_words(text: str) -> list[str]:
    """The lowercase word tokens (:func:`lcrag.text.words.word_tokens`: "cost-effective" is two) of ``text`` that
    are not in :func:`english_stop_words`, each once, in order.

    >>> english_content_words("A laser diode can amplify only one sideband, up to 15 GHz.")
    ['laser', 'diode', 'amplify', 'sideband', '15', 'ghz']
    """
    return content_words(text, english_stop_words())

"""Long²RAG's prompts: P0-P8 verbatim from the paper (inventory §1.8), and ours where the paper gives none.

The paper's prompts are :data:`PAPER_PROMPTS` (P0 generation instruction, P1 ELI5 filter, P2 / P3 question
evolution, P4 decomposition, P5 key-point extraction, P6 entailment, P7 de-duplication, P8 AutoDS). The prompts the
paper does not give (the generation template around P0, the separator, the snippet and summary prompts, the
one-shot demonstrations of P5 / P7) are ours, named ``OUR_*``, and say so. Byte-identical to what the response
store was recorded with: do not edit.
"""

from __future__ import annotations

# ============================================================================================ prompts (verbatim)

P0_GENERATION = (
    "Your answer should incorporate as many important points from the documents as possible that help in "
    "answering the question."
)

P1_FILTER_ELI5 = """Please evaluate and score a given query based on the following criteria. Each satisfied criterion earns one point, with a maximum score of 5 points:
1. Exclude common sense questions: Filter out any queries that can be answered with basic common knowledge or a simple search engine query. Example: "What is the boiling point of water?" or "What is the highest mountain in the world?"
2. Ensure clarity: Filter out any queries that are unclear or have a vague scope. Example: "Tell me something interesting." or "Explain this."
3. Ensure no ambiguity: Filter out any queries that could have multiple interpretations, ensuring the query has one clear answer or direction. Example: "How do you do this?" (needs to specify what "this" refers to)
4. Complexity requirement: Select queries that require deep thinking, detailed explanation, or multi-step reasoning. Example: "How can graph neural networks be used to optimize recommendation algorithms in social networks?"
5. Subjective opinion: Select queries that require the user to provide personal insights or subjective opinions. Example: "What are your thoughts on the future of artificial intelligence in healthcare?"
Please score the given query based on these criteria, with a range of 1 to 5 points. You should output the score wrapped with [], like [score].
Here is the query:
{query}
Your score is:"""

_EVOLVE_REQUIREMENTS = """The #Created Question# must meet the following requirements:
1. The question should require a long-form response that includes several specific details.
2. Do not generate commonsense, vague, or ambiguous questions.
3. The question should be reasonable and can be responded to by humans.
4. You are encouraged to generate questions that require deep thinking, detailed explanations, or multi-step reasoning.
5. The #Created Question# should be very specific and niche within the topic of {topic}. The created question must be closely related to the topic of {topic}.
6. Follow the question styles in the #Given Question#. The #Given Question# belongs to type {question_type}.
7. Wrap the #Created Question# in square brackets, like [created question]. You can generate multiple questions once a time and wrap each question in square brackets, like created question i: [question i].
#Given Question#:
{seed_question}
#Created Question#:"""

P2_IN_WIDTH = (
    "You are a question generator. Your goal is to draw inspiration from the #Given Question# to create a brand new "
    "question.\nThis new question should belong to the same question category as the #Given Question#. But "
    "remember, the #Created Question# should be closely related to {topic} topic.\nThe LENGTH and difficulty level "
    "of the #Created Question# should be similar to that of the #Given Question#.\n" + _EVOLVE_REQUIREMENTS
)

P3_IN_DEPTH = (
    "You are a question generator. Your goal is to draw inspiration from the #Given Question# to create a brand new "
    "question. This new question should become the more complex version of the #Given Question# to make those "
    "famous AI systems (e.g., ChatGPT and GPT4) a bit harder to handle. But remember, the #Created Question# should "
    "be closely related to {topic} topic.\nYou can complicate the given prompt using the following methods: "
    "deepening, concretizing, increasing reasoning steps, and complicating input.\nYou should try your best not to "
    "make the #Created Question# become verbose, #Created Question# can only add 10 to 20 words into #Given "
    "Question#.\nThis new question should belong to the same question category as the #Given Question#.\n"
    + _EVOLVE_REQUIREMENTS
)

P4_DECOMPOSE = """You are a language analysis assistant capable of analyzing user questions to determine if and how to decompose the question.
**Problem Definition**
1. Simple question: Direct questions that only require simple information and do not include metaphors, multi-hop, multi-entity, or other complex logic questions;
2. Complex question: Includes multi-hop, metaphors, multi-entity, complex conditions, etc., requiring in-depth analysis and thought, as well as support from various types of information;
3. Vague question: Refers to questions with unclear intent, lacking a query subject, or ambiguously expressed content.
**Task Requirements**
1. For simple questions, there is no need to decompose the question;
2. For complex questions, decompose the complex question into multiple sub-questions based on the specific content of the question, ensuring the sub-question has a complete intent. Sub-questions need to be more concise and easier to search;
3. For vague questions, reasonably expand based on the information provided in the question, generating multiple related questions, each covering different aspects of the query subject.
Analyze user questions according to the given requirements and provide results. The results should be output in the format of an inline JSON.
Output format:
```json
"Question Type": "Simple/Complex/Vague",
"Sub-questions": ["..."]
```
Question: {query}"""

P5_EXTRACT = """Based on the text provided, identify key points in the text that directly help in responding to the query. Format your response as follows: each point should start with "Point [number]:", followed by its content and spans in the text that entails the key point.
IMPORTANT: The output must be of the format " Point [number]: <point_start>[content of point]<point_end><span_start>[span1]<span_end><span_start>[span2]<span_end>"
IMPORTANT: Ensure each point is helpful in responding to the query. Keep the point using the original language and do not add explanations.
IMPORTANT: Each span must be a single consecutive verbatim span from the corresponding passages. Copy verbatim the spans, don't modify any word!
Here is an example:
{demonstration}
Remember:
- key points can be abstracted or summarized, but the span must be a copy of the original text. The content of the key point does NOT need to be the same as that of the span.
- These key points must be helpful in responding to the query.
- Copy verbatim the spans, don't modify any word! If there are multiple spans for a point, separate them with <span_start> and <span_end> tokens.
[Query]: {query}
[Text]: {text}
[Key Point]"""

P6_ENTAILMENT = """Your task is to determine whether a claim is entailed with a document.
You should evaluate whether the information in the document supports or describes the claim provided.
You must provide an answer based on whether the document does entail the claim, does not entail the claim, or is neutral.
If the claim is entailed, you should provide snippets from the document that support this claim.
Document: {document}
Claim: {claim}
Provide your answer as [yes], [no], or [neutral]. State your reason behind the answer and provide snippets from the document that support this claim if your answer is [yes]."""

P7_DEDUPLICATE = """Based on the points extracted from a piece of text, identify and remove any duplicate points to streamline the list.
REMEMBER:
- The de-duplicated points need to contain all the original points.
- An original point cannot exist in two different de-duplicated points at the same time.
- Format your response as follows: each unique point should start with "Point [number]:", followed by its content and corresponding original point numbers. The corresponding original point numbers should be wrapped with [].
Here is an example:
{demonstration}
Remember to not add any new points, only de-duplicate the existing ones. And do not add any explanations.
[Original Points]
{points}
[De-duplicate Points]"""

P8_AUTODS = """You are a helpful AI assistant. Your role is to evaluate whether a piece of information can serve as a key point in answering the question.
question: {question}
information: {point}
Can the above information directly help in addressing the question (thus being a key point)? You must respond with YES or NO."""

PAPER_PROMPTS: dict[str, str] = {
    "P0": P0_GENERATION,
    "P1": P1_FILTER_ELI5,
    "P2": P2_IN_WIDTH,
    "P3": P3_IN_DEPTH,
    "P4": P4_DECOMPOSE,
    "P5": P5_EXTRACT,
    "P6": P6_ENTAILMENT,
    "P7": P7_DEDUPLICATE,
    "P8": P8_AUTODS,
}

# ============================================================================================ prompts (ours)

#: Ours (the paper's "clear separators" are unstated): the line before each document.
OUR_SEPARATOR = "\n\n===== Document {i} =====\n"
#: Ours: documents first (the paper's q ‖ d^q concatenation with P0 "appended"), then the question and P0.
OUR_GENERATION = "{documents}\n\n===== End of documents =====\n\nQuestion: {question}\n\n" + P0_GENERATION
#: Ours (the paper's GPT-4o snippet / summary prompts are not given): per document, capped by max_tokens.
OUR_SNIPPET = (
    "Copy, word for word, the one or two passages of the document below that are most relevant to the question. "
    "Output only the copied passages.\n\nQuestion: {question}\n\nDocument:\n{document}"
)
OUR_SUMMARY = (
    "Summarize the document below in a few sentences, keeping the information that helps answer the question.\n\n"
    "Question: {question}\n\nDocument:\n{document}"
)
#: Ours: the one-shot demonstrations of P5 and P7 (the paper's are not given), on the paper's Fig. 1 example.
OUR_P5_DEMONSTRATION = (
    "[Query]: How do the complex song structures of a nightingale compare to the simpler calls of a common sparrow?\n"
    "[Text]: Calls are generally genetic, while songs are both inherited and learned. The nightingale's song is "
    "complex and beautiful, while the sparrow's chirp is simpler and more straightforward.\n"
    "[Key Point]\n"
    "Point 1: <point_start>Calls are inherited, while songs are learned.<point_end><span_start>Calls are generally "
    "genetic, while songs are both inherited and learned.<span_end>\n"
    "Point 2: <point_start>The nightingale's song is complex while the sparrow's chirp is simple.<point_end>"
    "<span_start>The nightingale's song is complex and beautiful, while the sparrow's chirp is simpler and more "
    "straightforward.<span_end>"
)
OUR_P7_DEMONSTRATION = (
    "[Original Points]\nPoint 1: Calls are inherited, while songs are learned.\nPoint 2: Songs are learned and "
    "calls are genetic.\nPoint 3: The nightingale's song is complex.\n[De-duplicate Points]\n"
    "Point 1: Calls are inherited, while songs are learned. [1, 2]\nPoint 2: The nightingale's song is complex. [3]"
)

"""The dataset's shape (lcrag.papers.summhay.dataset_shape) on the released haystacks, against the paper's §3.4."""

from __future__ import annotations

from lcrag.papers.summhay import dataset_shape


def test_shape_matches_section_3_4(summhay_data):
    shape = dataset_shape.shape_table(summhay_data[0])
    check = dataset_shape.shape_summary(shape).set_index("quantity")
    assert check.loc["subtopics", "ours"] == 92 and shape["insights"].sum() == 621
    assert str(check.loc["subtopics", "ours"]) == "92" and str(check.loc["haystacks", "paper"]) == "10"  # not 92.00
    assert check.loc["subtopics per haystack", "match"] and check.loc["insights per subtopic", "match"]
    assert check.loc["minimum documents per insight", "ours"] == 4  # news3 breaks "5+"
    assert shape.set_index("haystack").loc["news3", "insights_in_fewer_than_5_docs"] == 17
    notes = dataset_shape.shape_notes(shape).splitlines()
    assert notes == [
        "news: 8.00 insights per subtopic, each in 9.9 documents on average",  # 336 / 42; 3,324 placements / 336
        "conversation: 5.70 insights per subtopic, each in 6.1 documents on average",  # 285 / 50
        "in fewer than 5 documents: news3, 17 of 79 insights (minimum 4)",
    ]
    fine = shape[shape["haystack"] != "news3"]
    assert dataset_shape.shape_notes(fine).splitlines()[-1] == "every insight is in 5 or more documents"
    # tokens: the paper's "about 93k" is compared only in its own tokenizer (cl100k_base: 93,237 on these files)
    tokens = "tokens per haystack (mean; released code: cl100k_base, ours: {})"
    for name, mean, match in (("tiktoken:cl100k_base", 93237.1, True), ("tiktoken:cl100k_base", 94600.0, False),
                              ("SmolLM2-135M-Instruct.Q4_1.gguf", 93237.1, None)):
        counted = dataset_shape.shape_summary(shape.assign(tokens=mean, tokenizer=name)).set_index("quantity")
        assert counted.loc[tokens.format(name), "match"] is match

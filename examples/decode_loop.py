"""decode_loop.py — grammar-constrained greedy decoding with the Python binding.

    python3 decode_loop.py GRAMMAR.gbnf VOCAB.hex EOS_ID N_LOGITS TARGET

Compiles the grammar in-process, then decodes with a stand-in model whose
logits row is padded past the vocabulary (as many models' are) and which
prefers the token spelling the most of TARGET, then EOS; the padding gets
the highest score of all, so only the mask keeps it out.
"""
import sys

import numpy as np

import gcg


def fake_logits(art, rest, n_logits):
    logits = np.full(n_logits, -1.0, dtype=np.float32)
    logits[art.vocab_size:] = 100.0  # padding: never a real token
    for t in range(art.vocab_size):
        b = art.token_bytes(t)
        if b and rest.startswith(b):
            logits[t] = len(b)
    logits[list(art.eos)] = -2.0 if rest else 50.0
    return logits


def decode(art, n_logits, target):
    m = art.matcher()
    mask = m.new_mask(n_logits)  # zeroed once; fill_mask writes mask_words words
    written = b""
    while not m.is_terminated:
        m.fill_mask(mask)
        logits = gcg.apply_mask(fake_logits(art, target[len(written):], n_logits), mask)
        token = int(np.argmax(logits))
        if np.isneginf(logits[token]):
            raise RuntimeError("no token allowed")
        m.commit(token)
        b = art.token_bytes(token)
        print(f"token {token} {b.decode() if b is not None else 'EOS'}")
        written += b or b""
    return written


def main(argv):
    grammar, vocab_path, eos, n_logits, target = argv[1:6]
    vocab = gcg.Vocab.from_hex(vocab_path, eos=[int(eos)])
    try:
        art = gcg.compile(open(grammar).read(), vocab, name=grammar)
    except gcg.CompileError as e:
        print(e, file=sys.stderr)
        return 1
    print(f"libgcg {gcg.version()}: {art.vocab_size} tokens, {n_logits} logits")
    print("decoded", decode(art, int(n_logits), target.encode()).decode())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""test_gcg.py — the Python binding against the built libgcg and libgcgc.

Run by `meson test --suite python` with GCG_LIBRARY, GCGC_LIBRARY and
GCG_EXAMPLES (the examples/ directory: list.gbnf and its 18-token vocabulary,
ids 0 "[", 1 "]", 2 ",", 3..12 "0".."9", 13 "12", 14 "[1", 15 "7]", 16 "ab",
17 EOS) set.
"""
import os
import unittest

import numpy as np

import gcg

EXAMPLES = os.environ["GCG_EXAMPLES"]
GRAMMAR = open(os.path.join(EXAMPLES, "list.gbnf")).read()


def allowed(mask):
    return list(np.flatnonzero(np.unpackbits(mask.view(np.uint8), bitorder="little")))


class BindingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.vocab = gcg.Vocab.from_hex(os.path.join(EXAMPLES, "list.vocab.hex"), eos=[17])
        cls.art = gcg.compile(GRAMMAR, cls.vocab)

    def test_versions(self):
        self.assertEqual(gcg.version(), "0.1.0")
        self.assertEqual(gcg.format_versions(), (2, 2))

    def test_artifact(self):
        self.assertEqual(self.vocab.size, 18)
        self.assertEqual(self.art.vocab_size, 18)
        self.assertEqual(self.art.mask_words, 1)
        self.assertEqual(self.art.eos, (17,))
        self.assertEqual(self.art.token_bytes(14), b"[1")
        self.assertIsNone(self.art.token_bytes(17))
        self.assertIsNone(self.art.token_bytes(99))

    def test_same_artifact_from_file(self):
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"gcg-py-{os.getpid()}.gcg")
        with open(path, "wb") as f:
            f.write(gcg.compile_bytes(GRAMMAR, self.vocab))
        try:
            art = gcg.Artifact.from_file(path)
            m = art.matcher()
            m.commit_bytes(b"[1,2]")
            self.assertTrue(m.is_complete)
        finally:
            os.unlink(path)

    def test_vocabulary_by_reference(self):
        data = self.vocab.to_gcgv()
        vocabulary = gcg.Vocabulary.from_bytes(data)
        self.assertEqual(vocabulary.size, 18)
        self.assertEqual(vocabulary.fingerprint, self.vocab.fingerprint)
        ref = gcg.compile_bytes(GRAMMAR, self.vocab, vocab_ref=True)
        self.assertLess(len(ref), len(gcg.compile_bytes(GRAMMAR, self.vocab)))
        with self.assertRaises(gcg.GcgError) as cm:
            gcg.Artifact.from_bytes(ref)
        self.assertEqual(cm.exception.status, gcg.ERR_VOCAB_MISMATCH)
        self.assertEqual(cm.exception.message,
                         f"this artifact was compiled against vocabulary fingerprint "
                         f"{self.vocab.fingerprint:016x}; open it with gcg_artifact_open_file_vocab")
        art = gcg.Artifact.from_bytes(ref, vocabulary)
        self.assertEqual(art.vocab_fingerprint, (self.vocab.fingerprint, False))
        self.assertEqual(self.art.vocab_fingerprint, (self.vocab.fingerprint, True))
        a, b = art.matcher(), self.art.matcher()
        for token in (0, 3, 2, 13):  # "[", "1", ",", "12"
            ma, mb = a.new_mask(), b.new_mask()
            self.assertEqual(list(a.fill_mask(ma)), list(b.fill_mask(mb)))
            a.commit(token)
            b.commit(token)
        other = gcg.Vocabulary.from_bytes(gcg.Vocab.bytes256().to_gcgv())
        with self.assertRaises(gcg.GcgError) as cm:
            gcg.Artifact.from_bytes(ref, other)
        self.assertEqual(cm.exception.status, gcg.ERR_VOCAB_MISMATCH)
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"gcg-py-{os.getpid()}.gcgv")
        with open(path, "wb") as f:
            f.write(data)
        try:
            self.assertEqual(gcg.Vocab.from_gcgv(path).fingerprint, self.vocab.fingerprint)
            self.assertEqual(gcg.Vocabulary.from_file(path).fingerprint, self.vocab.fingerprint)
        finally:
            os.unlink(path)

    def test_mask_is_filled_in_place(self):
        m = self.art.matcher()
        mask = m.new_mask(64)  # padded row: two words, the second all padding
        self.assertEqual((mask.dtype, mask.shape), (np.int32, (2,)))
        mask[1] = -1  # fill_mask leaves words past mask_words alone
        self.assertIs(m.fill_mask(mask), mask)
        self.assertEqual(list(mask), [(1 << 0) | (1 << 14), -1])
        m.commit(14)  # "[1"
        m.fill_mask(mask[:1])  # a view: written through, no copy
        self.assertEqual(allowed(mask[:1]), [1, 2] + list(range(3, 14)) + [15])

    def test_apply_mask_padded_logits(self):
        m = self.art.matcher()
        m.commit_bytes(b"[12")
        mask = m.new_mask(151)
        m.fill_mask(mask)
        logits = np.arange(151, dtype=np.float32)
        gcg.apply_mask(logits, mask)
        self.assertEqual(list(np.flatnonzero(np.isfinite(logits))),
                         [1, 2] + list(range(3, 14)) + [15])
        self.assertEqual(logits[15], 15.0)
        self.assertTrue(np.all(np.isneginf(logits[18:])))
        short = m.new_mask()  # mask_words only: positions past it are disallowed
        m.fill_mask(short)
        logits = np.zeros((2, 100), dtype=np.float32)
        gcg.apply_mask(logits, short)
        self.assertEqual(int(np.isfinite(logits).sum()), 2 * 14)

    def test_commit_eos_rollback(self):
        m = self.art.matcher()
        for t in (14, 2, 15):  # "[1" "," "7]"
            m.commit(t)
        self.assertTrue(m.is_complete)
        self.assertEqual(m.rollback_depth, 3)
        m.commit(17)
        self.assertTrue(m.is_terminated)
        mask = m.new_mask()
        m.fill_mask(mask)
        self.assertEqual(list(mask), [0])
        with self.assertRaises(gcg.GcgError) as cm:
            m.commit(3)
        self.assertEqual(cm.exception.status, gcg.ERR_TERMINATED)
        m.rollback(2)
        self.assertFalse(m.is_terminated)
        self.assertFalse(m.is_complete)
        m.commit_bytes(b"0]")
        m.commit_eos()
        self.assertTrue(m.is_terminated)
        m.reset()
        self.assertEqual(m.rollback_depth, 0)

    def test_errors(self):
        m = self.art.matcher(max_rollback=1)
        with self.assertRaises(gcg.GcgError) as cm:
            m.commit(16)  # "ab"
        self.assertEqual((cm.exception.status, str(cm.exception)),
                         (gcg.ERR_REJECTED, "rejected by the grammar"))
        with self.assertRaises(gcg.GcgError) as cm:
            m.commit(18)
        self.assertEqual(cm.exception.status, gcg.ERR_TOKEN_RANGE)
        with self.assertRaises(gcg.GcgError) as cm:
            m.commit_bytes(b"[1x")
        self.assertEqual((cm.exception.status, cm.exception.offset), (gcg.ERR_REJECTED, 2))
        with self.assertRaises(gcg.GcgError) as cm:
            m.rollback(2)
        self.assertEqual(cm.exception.status, gcg.ERR_ROLLBACK)
        with self.assertRaises(gcg.GcgError) as cm:
            self.art.matcher(max_nodes=0)
        self.assertEqual(str(cm.exception), "invalid argument: matcher: max_nodes is 0")
        with self.assertRaises(gcg.GcgError) as cm:
            gcg.Artifact.from_bytes(b"xx")
        self.assertEqual((cm.exception.status, cm.exception.offset), (gcg.ERR_FORMAT, 2))
        self.assertEqual(cm.exception.message, "truncated: need 48 bytes of header, have 2")
        with self.assertRaises(gcg.GcgError) as cm:
            gcg.Artifact.from_file("/nonexistent/x.gcg")
        self.assertEqual(cm.exception.status, gcg.ERR_IO)
        with self.assertRaises(TypeError):
            m.fill_mask(np.zeros(1, dtype=np.int64))

    def test_compile_error_has_diagnostics(self):
        with self.assertRaises(gcg.CompileError) as cm:
            gcg.compile('root ::= "a\n', name="g.gbnf")
        self.assertEqual(cm.exception.status, gcg.ERR_FORMAT)
        self.assertEqual(str(cm.exception), "g.gbnf:1:10: error: unterminated literal")

    def test_bytes_vocabulary(self):
        art = gcg.compile('root ::= "hi"\n', gcg.Vocab.bytes256(eos=[256]))
        self.assertEqual((art.vocab_size, art.eos), (257, (256,)))
        m = art.matcher()
        mask = m.new_mask()
        m.fill_mask(mask)
        self.assertEqual(allowed(mask), [ord("h")])
        art_default = gcg.compile('root ::= "hi"\n')  # no vocabulary: 256 bytes
        self.assertEqual(art_default.vocab_size, 256)


class LazyAndTagsTest(unittest.TestCase):
    """Compile options tags and triggers, and the lazy matcher (gcg.h section 6)."""

    ALL = list(range(18))

    @classmethod
    def setUpClass(cls):
        cls.vocab = gcg.Vocab.from_hex(os.path.join(EXAMPLES, "list.vocab.hex"), eos=[17])
        cls.lazy_art = gcg.compile(GRAMMAR, cls.vocab, triggers=[("word", "[")])

    def masks(self, lz):
        """The lazy mask, checked against the brute-force one."""
        got = allowed(lz.fill_mask(lz.new_mask()))
        self.assertEqual(got, allowed(lz.fill_mask_bruteforce(lz.new_mask())))
        return got

    def test_trigger_word(self):
        self.assertTrue(self.lazy_art.is_lazy)
        self.assertFalse(gcg.compile(GRAMMAR, self.vocab).is_lazy)
        lz = self.lazy_art.lazy()
        self.assertEqual(lz.mode, gcg.LAZY_FREE)
        self.assertIsNone(lz.grammar_start)
        self.assertEqual(self.masks(lz), self.ALL)
        lz.commit(16)  # "ab": free text
        lz.commit(14)  # "[1": the trigger fires at "["
        self.assertEqual(lz.mode, gcg.LAZY_GRAMMAR)
        self.assertEqual(lz.grammar_start, 2)
        self.assertEqual(self.masks(lz), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15])
        lz.commit(15)  # "7]"
        self.assertTrue(lz.is_complete)
        self.assertEqual(self.masks(lz), [17])
        lz.commit_eos()
        self.assertTrue(lz.is_terminated)
        lz.rollback(3)  # back across the switch
        self.assertEqual(lz.mode, gcg.LAZY_FREE)
        self.assertIsNone(lz.grammar_start)
        self.assertEqual(self.masks(lz), self.ALL)
        lz.commit_bytes(b"x[12")  # after "ab": the grammar starts at offset 3
        self.assertEqual(lz.grammar_start, 3)
        with self.assertRaises(gcg.GcgError) as cm:
            lz.commit(16)  # "ab" inside the list
        self.assertEqual(cm.exception.status, gcg.ERR_REJECTED)
        lz.reset()
        self.assertEqual(lz.mode, gcg.LAZY_FREE)

    def test_budget_forces_the_trigger(self):
        lz = self.lazy_art.lazy(budget_tokens=1)
        lz.commit(16)
        self.assertEqual(lz.mode, gcg.LAZY_FORCING)
        self.assertEqual(self.masks(lz), [0])
        self.assertFalse(lz.is_complete)
        with self.assertRaises(gcg.GcgError):
            lz.commit(14)
        lz.commit(0)
        self.assertEqual(lz.mode, gcg.LAZY_GRAMMAR)

    def test_trigger_token(self):
        lz = gcg.compile(GRAMMAR, self.vocab, triggers=[("token", 0)]).lazy()
        lz.commit(3)  # "0" stays free text
        lz.commit(0)
        self.assertEqual(lz.mode, gcg.LAZY_GRAMMAR)
        self.assertEqual(lz.grammar_start, 1)
        self.assertEqual(self.masks(lz), [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15])

    def test_lazy_needs_triggers(self):
        with self.assertRaises(gcg.GcgError) as cm:
            gcg.compile(GRAMMAR, self.vocab).lazy()
        self.assertEqual(cm.exception.status, gcg.ERR_ARG)
        with self.assertRaises(gcg.GcgError) as cm:
            self.lazy_art.lazy(budget_tokens=1)  # a word to force: fine
            gcg.compile(GRAMMAR, self.vocab, triggers=[("pattern", "x+")]).lazy(budget_tokens=1)
        self.assertEqual(cm.exception.status, gcg.ERR_ARG)

    def test_bad_trigger_and_tag_arguments(self):
        with self.assertRaisesRegex(ValueError, "trigger 1: kind 'words' is not one of"):
            gcg.compile(GRAMMAR, self.vocab, triggers=[("words", "[")])
        with self.assertRaisesRegex(ValueError, r"tag 1: expected \(begin, rule, end\)"):
            gcg.compile(GRAMMAR, self.vocab, tags=[("[", "num")])
        with self.assertRaisesRegex(gcg.CompileError, "trigger 1: token id past the vocabulary"):
            gcg.compile(GRAMMAR, self.vocab, triggers=[("token", 99)])

    def test_tagged_regions(self):
        art = gcg.compile("num ::= [0-9]+\n", self.vocab, tags=[("[", "num", "]")])
        self.assertFalse(art.is_lazy)
        m = art.matcher()
        m.commit(16)  # "ab"
        m.commit(2)   # ","
        m.commit(14)  # "[1": the region opens
        # digits, "]" / "7]" closing, EOS (the rule is complete); no "[", ",", "ab"
        self.assertEqual(allowed(m.fill_mask(m.new_mask())), [1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 17])
        m.commit(1)
        self.assertEqual(allowed(m.fill_mask(m.new_mask())), self.ALL)
        closed = gcg.compile("num ::= [0-9]+\n", self.vocab, tags=[("[", "num", "]")],
                             tags_eos_free_only=True).matcher()
        closed.commit(14)
        self.assertNotIn(17, allowed(closed.fill_mask(closed.new_mask())))


if __name__ == "__main__":
    unittest.main()

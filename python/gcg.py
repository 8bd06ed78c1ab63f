"""gcg.py — Python binding of libgcg (runtime/gcg.h) and libgcgc (compiler/gcgc.h).

ctypes over the shared libraries; no build step. Needs NumPy for masks.

    import gcg
    art = gcg.Artifact.from_file("json.gcg")          # or gcg.compile(text, vocab)
    m = art.matcher()
    mask = m.new_mask(len(logits))                    # int32, zeroed, padded
    m.fill_mask(mask)                                 # in place, no copy
    gcg.apply_mask(logits, mask)                      # disallowed -> -inf
    m.commit(token)

Lazy grammars and tagged regions (gcg.h section 6, gcgc.h section 2):

    art = gcg.compile(text, vocab, triggers=[("word", "<tool_call>")])
    lz = art.lazy(budget_tokens=0)                    # free text until a trigger
    art = gcg.compile(text, vocab, tags=[("<tool_call>", "call", "</tool_call>")])

The libraries are found from GCG_LIBRARY / GCGC_LIBRARY (paths) when set,
else by the dynamic loader as libgcg.so.0 / libgcgc.so.0. Errors raise
GcgError (status code, name and message); a failed compile raises
CompileError with the compiler's diagnostics text.
"""
import ctypes
import os

import numpy as np

__all__ = ["GcgError", "CompileError", "Artifact", "Matcher", "Lazy", "Vocab", "Vocabulary", "compile",
           "apply_mask", "version", "format_versions", "LAZY_FREE", "LAZY_FORCING", "LAZY_GRAMMAR"]

# Status codes (gcg.h section 1); fixed values.
OK, ERR_NOMEM, ERR_IO, ERR_FORMAT, ERR_VERSION, ERR_ARG = 0, 1, 2, 3, 4, 5
ERR_TOKEN_RANGE, ERR_REJECTED, ERR_TERMINATED, ERR_ROLLBACK = 6, 7, 8, 9
ERR_LIMIT, ERR_NO_VOCAB, ERR_VOCAB_MISMATCH = 10, 11, 12

# gcg_lazy_mode (gcg.h section 6).
LAZY_FREE, LAZY_FORCING, LAZY_GRAMMAR = 0, 1, 2


class _Error(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("offset", ctypes.c_uint64),
                ("msg", ctypes.c_char * 256)]


class _MatcherOptions(ctypes.Structure):
    _fields_ = [("max_rollback", ctypes.c_uint32), ("initial_nodes", ctypes.c_uint32),
                ("max_nodes", ctypes.c_uint32), ("max_commit_work", ctypes.c_uint64),
                ("max_mask_work", ctypes.c_uint32)]


class _LazyOptions(ctypes.Structure):
    _fields_ = [("matcher", _MatcherOptions), ("budget_tokens", ctypes.c_uint32),
                ("initial_text", ctypes.c_size_t)]


class _Tag(ctypes.Structure):
    _fields_ = [("begin", ctypes.c_char_p), ("rule", ctypes.c_char_p), ("end", ctypes.c_char_p)]


class _Trigger(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("text", ctypes.c_char_p), ("token", ctypes.c_uint32)]


# gcgc_trigger_kind, by the names compile() takes.
_TRIGGER_KINDS = {"word": 0, "pattern": 1, "pattern_full": 2, "token": 3}


class _CompileOptions(ctypes.Structure):
    _fields_ = [("root", ctypes.c_char_p), ("grammar_name", ctypes.c_char_p),
                ("vocab_name", ctypes.c_char_p), ("strict_latency", ctypes.c_bool),
                ("no_automaton", ctypes.c_bool), ("max_repeat", ctypes.c_uint32),
                ("max_grammar_symbols", ctypes.c_uint32), ("max_lr_states", ctypes.c_uint32),
                ("max_automaton_states", ctypes.c_uint32), ("max_sim_stacks", ctypes.c_uint32),
                ("tags", ctypes.POINTER(_Tag)), ("n_tags", ctypes.c_uint32),
                ("tags_eos_free_only", ctypes.c_bool),
                ("triggers", ctypes.POINTER(_Trigger)), ("n_triggers", ctypes.c_uint32),
                ("vocab_by_reference", ctypes.c_bool)]


_P = ctypes.c_void_p
_U32P = ctypes.POINTER(ctypes.c_uint32)
_RUNTIME = {
    "gcg_version": (ctypes.c_char_p, []),
    "gcg_artifact_format_versions": (None, [_U32P, _U32P]),
    "gcg_status_str": (ctypes.c_char_p, [ctypes.c_int]),
    "gcg_artifact_open_file": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_P), ctypes.POINTER(_Error)]),
    "gcg_artifact_open_memory": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(_P),
                                                ctypes.POINTER(_Error)]),
    "gcg_artifact_free": (None, [_P]),
    "gcg_artifact_open_file_vocab": (ctypes.c_int, [ctypes.c_char_p, _P, ctypes.POINTER(_P),
                                                    ctypes.POINTER(_Error)]),
    "gcg_artifact_open_memory_vocab": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t, _P,
                                                      ctypes.POINTER(_P), ctypes.POINTER(_Error)]),
    "gcg_artifact_vocab_fingerprint": (ctypes.c_uint64, [_P, ctypes.POINTER(ctypes.c_bool)]),
    "gcg_vocabulary_open_file": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_P), ctypes.POINTER(_Error)]),
    "gcg_vocabulary_open_memory": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(_P),
                                                  ctypes.POINTER(_Error)]),
    "gcg_vocabulary_free": (None, [_P]),
    "gcg_vocabulary_size": (ctypes.c_uint32, [_P]),
    "gcg_vocabulary_fingerprint": (ctypes.c_uint64, [_P]),
    "gcg_artifact_vocab_size": (ctypes.c_uint32, [_P]),
    "gcg_artifact_mask_words": (ctypes.c_size_t, [_P]),
    "gcg_artifact_eos": (_U32P, [_P, _U32P]),
    "gcg_artifact_token_bytes": (ctypes.POINTER(ctypes.c_uint8), [_P, ctypes.c_uint32, _U32P]),
    "gcg_matcher_options_default": (None, [ctypes.POINTER(_MatcherOptions)]),
    "gcg_matcher_new": (ctypes.c_int, [_P, ctypes.POINTER(_MatcherOptions), ctypes.POINTER(_P),
                                       ctypes.POINTER(_Error)]),
    "gcg_matcher_free": (None, [_P]),
    "gcg_matcher_commit": (ctypes.c_int, [_P, ctypes.c_uint32]),
    "gcg_matcher_commit_bytes": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_size_t,
                                                ctypes.POINTER(ctypes.c_size_t)]),
    "gcg_matcher_commit_eos": (ctypes.c_int, [_P]),
    "gcg_matcher_rollback": (ctypes.c_int, [_P, ctypes.c_uint32]),
    "gcg_matcher_rollback_depth": (ctypes.c_uint32, [_P]),
    "gcg_matcher_reset": (None, [_P]),
    "gcg_matcher_is_complete": (ctypes.c_bool, [_P]),
    "gcg_matcher_is_terminated": (ctypes.c_bool, [_P]),
    "gcg_matcher_fill_mask": (ctypes.c_int, [_P, _U32P, ctypes.c_size_t]),
    "gcg_artifact_is_lazy": (ctypes.c_bool, [_P]),
    "gcg_lazy_options_default": (None, [ctypes.POINTER(_LazyOptions)]),
    "gcg_lazy_new": (ctypes.c_int, [_P, ctypes.POINTER(_LazyOptions), ctypes.POINTER(_P),
                                    ctypes.POINTER(_Error)]),
    "gcg_lazy_free": (None, [_P]),
    "gcg_lazy_commit": (ctypes.c_int, [_P, ctypes.c_uint32]),
    "gcg_lazy_commit_bytes": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_size_t]),
    "gcg_lazy_commit_eos": (ctypes.c_int, [_P]),
    "gcg_lazy_rollback": (ctypes.c_int, [_P, ctypes.c_uint32]),
    "gcg_lazy_reset": (None, [_P]),
    "gcg_lazy_get_mode": (ctypes.c_int, [_P]),
    "gcg_lazy_grammar_start": (ctypes.c_size_t, [_P]),
    "gcg_lazy_fill_mask": (ctypes.c_int, [_P, _U32P, ctypes.c_size_t]),
    "gcg_lazy_fill_mask_bruteforce": (ctypes.c_int, [_P, _U32P, ctypes.c_size_t]),
    "gcg_lazy_is_complete": (ctypes.c_bool, [_P]),
    "gcg_lazy_is_terminated": (ctypes.c_bool, [_P]),
}
_COMPILER = {
    "gcgc_vocab_load_hf": (ctypes.c_int, [ctypes.c_char_p, _U32P, ctypes.c_uint32, ctypes.POINTER(_P),
                                          ctypes.POINTER(_Error)]),
    "gcgc_vocab_load_hex": (ctypes.c_int, [ctypes.c_char_p, _U32P, ctypes.c_uint32, ctypes.POINTER(_P),
                                           ctypes.POINTER(_Error)]),
    "gcgc_vocab_bytes256": (ctypes.c_int, [_U32P, ctypes.c_uint32, ctypes.POINTER(_P),
                                           ctypes.POINTER(_Error)]),
    "gcgc_vocab_free": (None, [_P]),
    "gcgc_vocab_load_gcgv": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_P), ctypes.POINTER(_Error)]),
    "gcgc_vocab_write": (ctypes.c_int, [_P, ctypes.POINTER(_P), ctypes.POINTER(ctypes.c_size_t)]),
    "gcgc_vocab_fingerprint": (ctypes.c_uint64, [_P]),
    "gcgc_vocab_size": (ctypes.c_uint32, [_P]),
    "gcgc_options_default": (None, [ctypes.POINTER(_CompileOptions)]),
    "gcgc_compile": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(_CompileOptions),
                                    ctypes.POINTER(_P)]),
    "gcgc_result_free": (None, [_P]),
    "gcgc_result_artifact": (ctypes.POINTER(ctypes.c_uint8), [_P, ctypes.POINTER(ctypes.c_size_t)]),
    "gcgc_result_messages_text": (ctypes.c_char_p, [_P]),
}


def _load(env, soname, table):
    lib = ctypes.CDLL(os.environ.get(env) or soname)
    for name, (restype, argtypes) in table.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


_rt = _load("GCG_LIBRARY", "libgcg.so.0", _RUNTIME)
_cc = None  # the compile library, loaded on first use


def _compiler():
    global _cc
    if _cc is None:
        _cc = _load("GCGC_LIBRARY", "libgcgc.so.0", _COMPILER)
    return _cc


class GcgError(Exception):
    """A gcg call failed: `status` is the code, `message` the details."""

    def __init__(self, status, message="", offset=None):
        self.status, self.message, self.offset = status, message, offset
        name = _rt.gcg_status_str(status).decode()
        super().__init__(f"{name}: {message}" if message else name)


class CompileError(GcgError):
    """gcgc_compile failed; `message` (and str()) is its `name:line:col: error: ...` text."""

    def __init__(self, status, message):
        super().__init__(status, message)
        self.args = (message or _rt.gcg_status_str(status).decode(),)


def _check(status, err=None):
    if status != OK:
        if err is not None:
            offset = None if err.offset == 2**64 - 1 else err.offset
            raise GcgError(status, err.msg.decode(errors="replace"), offset)
        raise GcgError(status)


def version():
    """The loaded libgcg's version, e.g. "0.1.0"."""
    return _rt.gcg_version().decode()


def format_versions():
    """(oldest, newest) artifact format versions the loaded libgcg reads."""
    lo, hi = ctypes.c_uint32(), ctypes.c_uint32()
    _rt.gcg_artifact_format_versions(ctypes.byref(lo), ctypes.byref(hi))
    return lo.value, hi.value


class Vocabulary:
    """A prepared vocabulary (.gcgv, from `gcgc vocab` or Vocab.to_gcgv()), held
    once for every artifact compiled by reference against it."""

    def __init__(self, handle):
        self._h = handle

    @classmethod
    def from_file(cls, path):
        h, err = _P(), _Error()
        _check(_rt.gcg_vocabulary_open_file(os.fsencode(path), ctypes.byref(h), ctypes.byref(err)), err)
        return cls(h)

    @classmethod
    def from_bytes(cls, data):
        data = bytes(data)
        h, err = _P(), _Error()
        _check(_rt.gcg_vocabulary_open_memory(data, len(data), ctypes.byref(h), ctypes.byref(err)), err)
        return cls(h)

    @property
    def size(self):
        return _rt.gcg_vocabulary_size(self._h)

    @property
    def fingerprint(self):
        return _rt.gcg_vocabulary_fingerprint(self._h)

    def close(self):
        if self._h:
            _rt.gcg_vocabulary_free(self._h)
            self._h = None

    def __del__(self):
        self.close()


class Artifact:
    """A loaded .gcg artifact; immutable, shareable by many matchers. An
    artifact compiled by reference needs its Vocabulary, which it keeps alive."""

    def __init__(self, handle, vocabulary=None):
        self._h = handle
        self._vocabulary = vocabulary

    @classmethod
    def from_file(cls, path, vocabulary=None):
        h, err = _P(), _Error()
        v = vocabulary._h if vocabulary else None
        _check(_rt.gcg_artifact_open_file_vocab(os.fsencode(path), v, ctypes.byref(h), ctypes.byref(err)), err)
        return cls(h, vocabulary)

    @classmethod
    def from_bytes(cls, data, vocabulary=None):
        data = bytes(data)
        h, err = _P(), _Error()
        v = vocabulary._h if vocabulary else None
        _check(_rt.gcg_artifact_open_memory_vocab(data, len(data), v, ctypes.byref(h), ctypes.byref(err)),
               err)
        return cls(h, vocabulary)

    @property
    def vocab_fingerprint(self):
        """(fingerprint, embedded): the vocabulary's fingerprint (0: none) and
        whether the artifact holds it (False: compiled by reference)."""
        embedded = ctypes.c_bool()
        fp = _rt.gcg_artifact_vocab_fingerprint(self._h, ctypes.byref(embedded))
        return fp, embedded.value

    def close(self):
        if self._h:
            _rt.gcg_artifact_free(self._h)
            self._h = None
        self._vocabulary = None

    def __del__(self):
        self.close()

    @property
    def vocab_size(self):
        return _rt.gcg_artifact_vocab_size(self._h)

    @property
    def mask_words(self):
        return _rt.gcg_artifact_mask_words(self._h)

    @property
    def eos(self):
        n = ctypes.c_uint32()
        p = _rt.gcg_artifact_eos(self._h, ctypes.byref(n))
        return tuple(p[i] for i in range(n.value))

    def token_bytes(self, token):
        """The bytes of a token; None for a special token or an id out of range."""
        n = ctypes.c_uint32()
        p = _rt.gcg_artifact_token_bytes(self._h, token, ctypes.byref(n))
        return ctypes.string_at(p, n.value) if p else None

    @property
    def is_lazy(self):
        """True iff the artifact was compiled with triggers (see Lazy)."""
        return bool(_rt.gcg_artifact_is_lazy(self._h))

    def matcher(self, max_rollback=None, initial_nodes=None, max_nodes=None):
        return Matcher(self, max_rollback, initial_nodes, max_nodes)

    def lazy(self, budget_tokens=0, max_rollback=None, initial_nodes=None, max_nodes=None):
        return Lazy(self, budget_tokens, max_rollback, initial_nodes, max_nodes)


def _set_matcher_options(opt, max_rollback, initial_nodes, max_nodes):
    for field, value in (("max_rollback", max_rollback), ("initial_nodes", initial_nodes),
                         ("max_nodes", max_nodes)):
        if value is not None:
            setattr(opt, field, value)


def _check_mask(mask):
    if mask.dtype not in (np.int32, np.uint32) or not mask.flags.c_contiguous or mask.ndim != 1:
        raise TypeError("mask must be a 1-d C-contiguous int32 array")
    if not mask.flags.writeable:
        raise ValueError("mask is read-only")
    return mask.ctypes.data_as(_U32P)


class Matcher:
    """One sequence's parse state over an Artifact (kept alive by the matcher)."""

    def __init__(self, artifact, max_rollback=None, initial_nodes=None, max_nodes=None):
        opt = _MatcherOptions()
        _rt.gcg_matcher_options_default(ctypes.byref(opt))
        _set_matcher_options(opt, max_rollback, initial_nodes, max_nodes)
        self._art, self._h, err = artifact, _P(), _Error()
        _check(_rt.gcg_matcher_new(artifact._h, ctypes.byref(opt), ctypes.byref(self._h),
                                   ctypes.byref(err)), err)

    def close(self):
        if self._h:
            _rt.gcg_matcher_free(self._h)
            self._h = None

    def __del__(self):
        self.close()

    def commit(self, token):
        """Commits one token (EOS ends the sentence); atomic, raises GcgError."""
        _check(_rt.gcg_matcher_commit(self._h, token))

    def commit_bytes(self, data):
        """Commits raw bytes; on rejection GcgError.offset is the first bad byte."""
        data = bytes(data)
        consumed = ctypes.c_size_t()
        st = _rt.gcg_matcher_commit_bytes(self._h, data, len(data), ctypes.byref(consumed))
        if st != OK:
            raise GcgError(st, f"at byte {consumed.value}" if st == ERR_REJECTED else "",
                           consumed.value if st == ERR_REJECTED else None)

    def commit_eos(self):
        _check(_rt.gcg_matcher_commit_eos(self._h))

    def rollback(self, n=1):
        _check(_rt.gcg_matcher_rollback(self._h, n))

    def reset(self):
        _rt.gcg_matcher_reset(self._h)

    @property
    def rollback_depth(self):
        return _rt.gcg_matcher_rollback_depth(self._h)

    @property
    def is_complete(self):
        return bool(_rt.gcg_matcher_is_complete(self._h))

    @property
    def is_terminated(self):
        return bool(_rt.gcg_matcher_is_terminated(self._h))

    def new_mask(self, n_logits=None):
        """A zeroed int32 mask for a logits row of n_logits (default: the vocabulary)."""
        n = self._art.vocab_size if n_logits is None else n_logits
        return np.zeros(max((n + 31) // 32, self._art.mask_words), dtype=np.int32)

    def fill_mask(self, mask):
        """Fills `mask` (C-contiguous int32 or uint32, at least mask_words long) in
        place: bit i % 32 of word i // 32 is set iff token i may come next.
        Words past mask_words are left as they are: zero them once (new_mask does)."""
        _check(_rt.gcg_matcher_fill_mask(self._h, _check_mask(mask), mask.shape[0]))
        return mask


class Lazy:
    """A lazy grammar over an Artifact compiled with triggers (gcg.h section 6):
    free text, where every token is allowed, until a trigger fires; then the
    grammar's masks. With budget_tokens = N > 0, after N free tokens the mask
    forces the first trigger word (or token). `mode` is LAZY_FREE,
    LAZY_FORCING or LAZY_GRAMMAR. Commits are atomic."""

    def __init__(self, artifact, budget_tokens=0, max_rollback=None, initial_nodes=None, max_nodes=None):
        opt = _LazyOptions()
        _rt.gcg_lazy_options_default(ctypes.byref(opt))
        _set_matcher_options(opt.matcher, max_rollback, initial_nodes, max_nodes)
        opt.budget_tokens = budget_tokens
        self._art, self._h, err = artifact, _P(), _Error()
        _check(_rt.gcg_lazy_new(artifact._h, ctypes.byref(opt), ctypes.byref(self._h), ctypes.byref(err)), err)

    def close(self):
        if self._h:
            _rt.gcg_lazy_free(self._h)
            self._h = None

    def __del__(self):
        self.close()

    def commit(self, token):
        _check(_rt.gcg_lazy_commit(self._h, token))

    def commit_bytes(self, data):
        """Commits raw bytes as one step (all or nothing)."""
        data = bytes(data)
        _check(_rt.gcg_lazy_commit_bytes(self._h, data, len(data)))

    def commit_eos(self):
        _check(_rt.gcg_lazy_commit_eos(self._h))

    def rollback(self, n=1):
        _check(_rt.gcg_lazy_rollback(self._h, n))

    def reset(self):
        _rt.gcg_lazy_reset(self._h)

    @property
    def mode(self):
        return _rt.gcg_lazy_get_mode(self._h)

    @property
    def grammar_start(self):
        """In LAZY_GRAMMAR mode, the offset in the committed text where the grammar
        started; None otherwise."""
        v = _rt.gcg_lazy_grammar_start(self._h)
        return None if v == ctypes.c_size_t(-1).value else v

    @property
    def is_complete(self):
        return bool(_rt.gcg_lazy_is_complete(self._h))

    @property
    def is_terminated(self):
        return bool(_rt.gcg_lazy_is_terminated(self._h))

    def new_mask(self, n_logits=None):
        n = self._art.vocab_size if n_logits is None else n_logits
        return np.zeros(max((n + 31) // 32, self._art.mask_words), dtype=np.int32)

    def fill_mask(self, mask):
        """As Matcher.fill_mask, in the current mode."""
        _check(_rt.gcg_lazy_fill_mask(self._h, _check_mask(mask), mask.shape[0]))
        return mask

    def fill_mask_bruteforce(self, mask):
        """The same mask computed the naive way (for tests)."""
        _check(_rt.gcg_lazy_fill_mask_bruteforce(self._h, _check_mask(mask), mask.shape[0]))
        return mask


def apply_mask(logits, mask):
    """Sets logits[i] = -inf, in place, for every token i the mask does not
    allow. `logits` may be longer than the vocabulary (padded rows): positions
    past the mask's bits count as disallowed. Returns logits."""
    n = logits.shape[-1]
    bits = np.unpackbits(np.ascontiguousarray(mask).view(np.uint8), bitorder="little")
    allowed = np.zeros(n, dtype=bool)
    k = min(n, bits.shape[0])
    allowed[:k] = bits[:k].astype(bool)
    logits[..., ~allowed] = -np.inf
    return logits


class Vocab:
    """A prepared tokenizer vocabulary for compile(); build once per model."""

    def __init__(self, loader, *args, eos=()):
        eos = list(eos)
        arr = (ctypes.c_uint32 * len(eos))(*eos)
        self._h, err = _P(), _Error()
        _check(loader(*args, arr, len(eos), ctypes.byref(self._h), ctypes.byref(err)), err)

    @classmethod
    def from_hf(cls, path, eos=()):
        return cls(_compiler().gcgc_vocab_load_hf, os.fsencode(path), eos=eos)

    @classmethod
    def from_hex(cls, path, eos=()):
        return cls(_compiler().gcgc_vocab_load_hex, os.fsencode(path), eos=eos)

    @classmethod
    def bytes256(cls, eos=()):
        return cls(_compiler().gcgc_vocab_bytes256, eos=eos)

    @classmethod
    def from_gcgv(cls, path):
        """A prepared vocabulary file (.gcgv): no tokenizer needed."""
        self = cls.__new__(cls)
        self._h, err = _P(), _Error()
        _check(_compiler().gcgc_vocab_load_gcgv(os.fsencode(path), ctypes.byref(self._h), ctypes.byref(err)),
               err)
        return self

    @property
    def size(self):
        return _compiler().gcgc_vocab_size(self._h)

    @property
    def fingerprint(self):
        return _compiler().gcgc_vocab_fingerprint(self._h)

    def to_gcgv(self):
        """The .gcgv bytes of this vocabulary (open them with Vocabulary)."""
        p, n = _P(), ctypes.c_size_t()
        _check(_compiler().gcgc_vocab_write(self._h, ctypes.byref(p), ctypes.byref(n)))
        try:
            return ctypes.string_at(p, n.value)
        finally:
            _libc.free(p)

    def close(self):
        if self._h:
            _compiler().gcgc_vocab_free(self._h)
            self._h = None

    def __del__(self):
        self.close()


_libc = ctypes.CDLL(None)
_libc.free.restype, _libc.free.argtypes = None, [_P]


def _enc(text):
    return text.encode() if isinstance(text, str) else bytes(text)


def _tag_array(tags):
    """[(begin, rule, end), ...] as gcgc_tag structs."""
    arr = (_Tag * len(tags))()
    for i, t in enumerate(tags):
        if len(t) != 3:
            raise ValueError(f"tag {i + 1}: expected (begin, rule, end), got {t!r}")
        arr[i] = _Tag(*(_enc(x) for x in t))
    return arr


def _trigger_array(triggers):
    """[("word", "</think>"), ("pattern", RE), ("pattern_full", RE), ("token", ID)]
    as gcgc_trigger structs."""
    arr = (_Trigger * len(triggers))()
    for i, t in enumerate(triggers):
        kind, value = t
        if kind not in _TRIGGER_KINDS:
            raise ValueError(f"trigger {i + 1}: kind {kind!r} is not one of {', '.join(_TRIGGER_KINDS)}")
        if kind == "token":
            arr[i] = _Trigger(_TRIGGER_KINDS[kind], None, int(value))
        else:
            arr[i] = _Trigger(_TRIGGER_KINDS[kind], _enc(value), 0)
    return arr


def compile_bytes(grammar, vocab=None, root=None, name=None, strict_latency=False, tags=(),
                  tags_eos_free_only=False, triggers=(), vocab_ref=False):
    """Compiles GBNF text in-process; returns the .gcg bytes or raises CompileError.
    vocab_ref: store only the vocabulary's fingerprint (open with a Vocabulary);
    tags: [(begin, rule, end), ...] tagged regions in free text (gcgc --tag);
    triggers: [(kind, value), ...] with kind "word", "pattern", "pattern_full"
    or "token" (gcgc --trigger-*): the artifact is then lazy (Artifact.lazy)."""
    cc = _compiler()
    src = _enc(grammar)
    opt = _CompileOptions()
    cc.gcgc_options_default(ctypes.byref(opt))
    opt.root = root.encode() if root else None
    opt.grammar_name = name.encode() if name else None
    opt.strict_latency = strict_latency
    opt.vocab_by_reference = vocab_ref
    tag_arr, trig_arr = _tag_array(list(tags)), _trigger_array(list(triggers))  # alive until the compile ends
    opt.tags, opt.n_tags, opt.tags_eos_free_only = tag_arr, len(tag_arr), tags_eos_free_only
    opt.triggers, opt.n_triggers = trig_arr, len(trig_arr)
    res = _P()
    st = cc.gcgc_compile(vocab._h if vocab else None, src, len(src), ctypes.byref(opt), ctypes.byref(res))
    try:
        if st != OK:
            text = cc.gcgc_result_messages_text(res).decode() if res else ""
            raise CompileError(st, text.rstrip("\n"))
        size = ctypes.c_size_t()
        p = cc.gcgc_result_artifact(res, ctypes.byref(size))
        return ctypes.string_at(p, size.value)
    finally:
        cc.gcgc_result_free(res)


def compile(grammar, vocab=None, vocabulary=None, **kw):
    """Compiles GBNF text in-process and opens the artifact (with `vocabulary`,
    a Vocabulary, for vocab_ref=True)."""
    return Artifact.from_bytes(compile_bytes(grammar, vocab, **kw), vocabulary)

#!/usr/bin/env python3
"""Writes the JSON test texts of tests/data/json/ (read by tests/test_json.c).

File names carry the expected answer of grammars/json.gbnf (RFC 8259):
  y_NAME.json       a complete JSON text
  p_NAME.json       a proper prefix of a JSON text (not complete)
  n_OFF_NAME.json   rejected: OFF is the offset of the first byte that
                    cannot be consumed (bytes before it are a valid prefix)
The expected values are written here by hand, from the RFC. Run from the
repository root: python3 tests/tools/make_json_cases.py
"""
import os
import re
import sys

Y = [  # complete JSON texts
    ("empty_object", b"{}"),
    ("empty_array", b"[]"),
    ("nested_arrays", b"[[[]]]"),
    ("object_in_array", b'[{"a":{}}]'),
    ("mixed_array", b'[1,"a",true,false,null,{},[]]'),
    ("whitespace_all_kinds", b" \t\n\r[ \t\n\r1 \t\n\r] \t\n\r"),
    ("whitespace_around_colon", b'{"a" : 1 , "b" :2}'),
    ("duplicate_keys", b'{"a":1,"a":2}'),
    ("empty_key", b'{"":0}'),
    ("deep_object", b'{"a":{"b":{"c":{"d":[{"e":null}]}}}}'),
    ("deep_500", b"[" * 500 + b"]" * 500),
    ("scalar_zero", b"0"),
    ("scalar_minus_zero", b"-0"),
    ("scalar_string", b'""'),
    ("scalar_true", b"true"),
    ("scalar_false", b"false"),
    ("scalar_null", b"null"),
    ("scalar_with_spaces", b"  42  "),
    ("number_int", b"123"),
    ("number_negative", b"-1"),
    ("number_big_int", b"123456789012345678901234567890"),
    ("number_fraction", b"1.5"),
    ("number_minus_zero_fraction", b"-0.0"),
    ("number_zero_exp", b"0e0"),
    ("number_exp_plus", b"0E+1"),
    ("number_exp_minus", b"1e-7"),
    ("number_huge_exp", b"1E400"),
    ("number_tiny_exp", b"-1e-400"),
    ("number_many_exp_digits", b"1e0000000000000000000001"),
    ("number_small_fraction", b"0.000001"),
    ("number_double_max", b"1.7976931348623157e+308"),
    ("number_fraction_exp", b"0.5e1"),
    ("number_in_array", b"[-0.25E-2, 10, 0]"),
    ("string_escapes", b'"\\"\\\\\\/\\b\\f\\n\\r\\t"'),
    ("string_unicode_escape", b'"\\u0041"'),
    ("string_unicode_ffff", b'"\\uFFFF"'),
    ("string_unicode_mixed_case", b'"\\uaBcD"'),
    ("string_surrogate_pair", b'"\\uD83D\\uDE00"'),
    ("string_lone_high_surrogate", b'"\\uD800"'),
    ("string_lone_low_surrogate", b'"\\uDC00"'),
    ("string_reversed_surrogates", b'"\\uDC00\\uD800"'),
    ("string_escaped_nul", b'"\\u0000"'),
    ("string_utf8_2byte", "\"é\"".encode()),
    ("string_utf8_3byte", "\"€\"".encode()),
    ("string_utf8_4byte", "\"😀\"".encode()),
    ("string_utf8_max", b'"\xf4\x8f\xbf\xbf"'),
    ("string_utf8_before_surrogates", b'"\xed\x9f\xbf"'),
    ("string_utf8_after_surrogates", b'"\xee\x80\x80"'),
    ("string_utf8_uffff", b'"\xef\xbf\xbf"'),
    ("string_noncharacter", b'"\xef\xb7\x90"'),
    ("string_line_separator", b'"\xe2\x80\xa8"'),
    ("string_del", b'"\x7f"'),
    ("string_slash_unescaped", b'"a/b"'),
    ("string_spaces", b'" a b "'),
    ("string_key_unicode", '{"ключ":"значение"}'.encode()),
    ("string_bom_inside", b'"\xef\xbb\xbf"'),
]

P = [  # proper prefixes
    ("empty", b""),
    ("only_whitespace", b" \n"),
    ("open_array", b"["),
    ("open_object", b"{"),
    ("key_only", b'{"a"'),
    ("key_colon", b'{"a":'),
    ("member_no_close", b'{"a":1'),
    ("member_comma", b'{"a":1,'),
    ("array_comma", b"[1,"),
    ("string_open", b'"abc'),
    ("string_backslash", b'"\\'),
    ("string_u", b'"\\u'),
    ("string_u_two_digits", b'"\\u00'),
    ("minus", b"-"),
    ("number_dot", b"1."),
    ("number_e", b"1e"),
    ("number_e_minus", b"1e-"),
    ("number_E_plus", b"1E+"),
    ("zero_dot", b"0."),
    ("t", b"t"),
    ("fals", b"fals"),
    ("nu", b"nu"),
    ("utf8_2byte_cut", b'"\xc3'),
    ("utf8_3byte_cut", b'"\xe2\x82'),
    ("utf8_4byte_cut", b'"\xf0\x9f\x98'),
    ("utf8_4byte_cut_after_lead", b'"\xf4'),
    ("deep_open", b"[[["),
    ("nested_open", b'{"a":[{"b":'),
]

N = [  # (name, text, offset of the first byte that cannot be consumed)
    ("array_trailing_comma", b"[1,]", 3),
    ("object_trailing_comma", b'{"a":1,}', 7),
    ("array_leading_comma", b"[,1]", 1),
    ("array_double_comma", b"[1,,2]", 3),
    ("object_only_comma", b"{,}", 1),
    ("object_key_no_value", b'{"a"}', 4),
    ("object_colon_no_value", b'{"a":}', 5),
    ("object_missing_colon", b'{"a" "b"}', 5),
    ("object_unquoted_key", b"{a:1}", 1),
    ("object_single_quoted_key", b"{'a':1}", 1),
    ("object_number_key", b"{1:1}", 1),
    ("object_double_colon", b'{"a":1:2}', 6),
    ("object_missing_comma", b'{"a":1 "b":2}', 7),
    ("object_key_without_value_after_comma", b'{"a":1,"b"}', 10),
    ("array_missing_comma", b"[1 2]", 3),
    ("array_colon", b"[1:2]", 2),
    ("extra_close_array", b"[1]]", 3),
    ("extra_close_object", b"{}}", 2),
    ("mismatched_close_1", b"[}", 1),
    ("mismatched_close_2", b"{]", 1),
    ("mismatched_nested", b"[{]", 2),
    ("mismatched_nested_2", b'{"a":[}', 6),
    ("two_values", b"1 2", 2),
    ("two_arrays", b"[] []", 3),
    ("trailing_garbage", b"[1]x", 3),
    ("trailing_garbage_object", b'{"a":1}}', 7),
    ("string_then_garbage", b'"a"b', 3),
    ("array_string_trailing_comma", b'["a",]', 5),
    ("literal_capital", b"True", 0),
    ("literal_extra_letter", b"nulll", 4),
    ("literal_concatenated", b"truefalse", 4),
    ("literal_nan", b"NaN", 0),
    ("literal_infinity", b"Infinity", 0),
    ("literal_minus_infinity", b"-Infinity", 1),
    ("literal_undefined", b"undefined", 0),
    ("literal_split", b"tru e", 3),
    ("literal_truncated_in_array", b"[null, nul]", 10),
    ("number_leading_zero", b"01", 1),
    ("number_minus_leading_zero", b"-01", 2),
    ("number_double_zero", b"00", 1),
    ("number_leading_zero_in_array", b"[01]", 2),
    ("number_plus", b"+1", 0),
    ("number_leading_dot", b".5", 0),
    ("number_leading_dot_in_array", b"[.5]", 1),
    ("number_dot_exp", b"1.e5", 2),
    ("number_two_dots", b"1.5.", 3),
    ("number_fraction_in_exp", b"1e5.5", 3),
    ("number_exp_then_dot", b"1e1.0", 3),
    ("number_hex", b"0x1F", 1),
    ("number_exp_two_signs", b"1e+-2", 3),
    ("number_double_minus", b"--1", 1),
    ("number_minus_space", b"- 1", 1),
    ("number_space_fraction", b"1 .5", 2),
    ("number_empty_exp_in_array", b"[1e]", 3),
    ("number_minus_only_in_array", b"[-]", 2),
    ("number_underscore", b"1_000", 1),
    ("number_fullwidth_digit", "１".encode(), 0),
    ("number_minus_letter", b"-a", 1),
    ("string_raw_nul", b'"\x00"', 1),
    ("string_raw_unit_separator", b'"\x1f"', 1),
    ("string_raw_newline", b'"a\nb"', 2),
    ("string_raw_tab", b'"\t"', 1),
    ("string_raw_cr", b'"\r"', 1),
    ("string_escape_a", b'"\\a"', 2),
    ("string_escape_x", b'"\\x41"', 2),
    ("string_escape_capital_u", b'"\\U0041"', 2),
    ("string_escape_single_quote", b'"\\\'"', 2),
    ("string_escape_space", b'"\\ "', 2),
    ("string_escape_newline", b'"\\\n"', 2),
    ("string_escape_bad_hex", b'"\\u00G0"', 5),
    ("string_escape_short_hex", b'"\\u12"', 5),
    ("string_single_quotes", b"'a'", 0),
    ("utf8_overlong_2byte_c0", b'"\xc0\xaf"', 1),
    ("utf8_overlong_2byte_c1", b'"\xc1\xbf"', 1),
    ("utf8_overlong_3byte", b'"\xe0\x80\xaf"', 2),
    ("utf8_overlong_4byte", b'"\xf0\x80\x80\xaf"', 2),
    ("utf8_surrogate_high", b'"\xed\xa0\x80"', 2),
    ("utf8_surrogate_low", b'"\xed\xbf\xbf"', 2),
    ("utf8_surrogate_pair_encoded", b'"\xed\xa0\xbd\xed\xb8\x80"', 2),
    ("utf8_lone_continuation", b'"\x80"', 1),
    ("utf8_lone_continuation_bf", b'"\xbf"', 1),
    ("utf8_continuation_after_ascii", b'"a\x80"', 2),
    ("utf8_f5", b'"\xf5\x80\x80\x80"', 1),
    ("utf8_fe", b'"\xfe"', 1),
    ("utf8_ff", b'"\xff"', 1),
    ("utf8_above_max", b'"\xf4\x90\x80\x80"', 2),
    ("utf8_truncated_2byte", b'"\xc3"', 2),
    ("utf8_truncated_3byte", b'"\xe2\x82"', 3),
    ("utf8_truncated_4byte", b'"\xf0\x9f\x98"', 4),
    ("utf8_latin1_e_acute", b'"\xe9"', 2),
    ("utf8_extra_continuation", b'"\xc3\xa9\xa9"', 3),
    ("utf8_lead_then_lead", b'"\xc3\xc3"', 2),
    ("utf8_outside_string", "é".encode(), 0),
    ("bom_then_object", b"\xef\xbb\xbf{}", 0),
    ("bom_alone", b"\xef\xbb\xbf", 0),
    ("whitespace_vertical_tab", b"\x0b1", 0),
    ("whitespace_form_feed", b"\x0c[]", 0),
    ("whitespace_form_feed_in_array", b"[\x0c]", 1),
    ("whitespace_nbsp", b"\xc2\xa01", 0),
    ("whitespace_nbsp_in_array", b"[1\xc2\xa0]", 2),
    ("whitespace_line_separator", b"\xe2\x80\xa81", 0),
    ("whitespace_ideographic_space", b"[\xe3\x80\x80]", 1),
    ("nul_before", b"\x001", 0),
    ("nul_after", b"1\x00", 1),
    ("comment_line", b"[1] // c", 4),
    ("comment_block_before", b"/* */ 1", 0),
    ("comment_block_inside", b"[1 /* */]", 3),
]


def safe(name):
    if not re.fullmatch(r"[A-Za-z0-9_]+", name):
        sys.exit("bad case name: " + name)
    return name


def main():
    out = os.path.join("tests", "data", "json")
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        if f.endswith(".json"):
            os.remove(os.path.join(out, f))
    files = [("y_%s.json" % safe(n), t) for n, t in Y]
    files += [("p_%s.json" % safe(n), t) for n, t in P]
    files += [("n_%d_%s.json" % (o, safe(n)), t) for n, t, o in N]
    for name, text in files:
        with open(os.path.join(out, name), "wb") as f:
            f.write(text)
    print("%d files: %d y, %d p, %d n" % (len(files), len(Y), len(P), len(N)))


if __name__ == "__main__":
    main()

/*
 * schema_formats.c — the `format` values gcg enforces, as GBNF over the
 * characters between a JSON string's quotes. Each is one expression (naming
 * at most the DNS label's rule, below) built from the grammars of the
 * standards the JSON Schema validation spec (section 7.3) cites: RFC 3339
 * (date, time, date-time, duration per its appendix A), RFC 5321/1123
 * shapes as ajv-formats checks them (email, hostname), RFC 2673 / RFC 4291
 * (ipv4, ipv6), RFC 3986 (uri, uri-reference), RFC 4122 (uuid). The
 * characters used need no escape in JSON except "/", written raw or as \/.
 *
 * A format is one rule (json-format-NAME), written once however many
 * strings use it: inline, each use had LR states of its own (a schema with
 * nine `uri` strings and two `email`s: 8,038 states, 6,700 shared).
 */
#include <string.h>

#include "schema_internal.h"

#define DIGIT "[0-9]"
#define HEX "[0-9a-fA-F]"
#define SLASH "( \"/\" | \"\\\\/\" )"

/* date-fullyear "-" date-month "-" date-mday, with the day range of each
 * month and February 29 only in leap years (divisible by 4, not by 100
 * unless by 400: decided by the last two digits, or the first two when
 * those are 00). */
#define LEAP_YEAR                                                                                      \
    "( " DIGIT "{2} ( \"0\" [48] | [2468] [048] | [13579] [26] ) | ( [02468] [048] | [13579] [26] ) \"00\" )"
#define FULL_DATE                                                                                      \
    "( " DIGIT "{4} \"-\" ( ( \"0\" [13578] | \"1\" [02] ) \"-\" ( \"0\" [1-9] | [12] " DIGIT " | \"3\" [01] ) " \
    "| ( \"0\" [469] | \"11\" ) \"-\" ( \"0\" [1-9] | [12] " DIGIT " | \"30\" ) "                        \
    "| \"02-\" ( \"0\" [1-9] | \"1\" " DIGIT " | \"2\" [0-8] ) ) | " LEAP_YEAR " \"-02-29\" )"
#define TIME_OFFSET "( [zZ] | [+-] ( [01] " DIGIT " | \"2\" [0-3] ) \":\" [0-5] " DIGIT " )"
/* A leap second (second 60) is valid only at 23:59 UTC; with other offsets
 * the set of local times is large, so only the UTC spellings are accepted
 * (narrower, never wider). */
#define FULL_TIME                                                                                      \
    "( ( [01] " DIGIT " | \"2\" [0-3] ) \":\" [0-5] " DIGIT " \":\" [0-5] " DIGIT " ( \".\" " DIGIT      \
    "+ )? " TIME_OFFSET " | \"23:59:60\" ( \".\" " DIGIT "+ )? ( [zZ] | [+-] \"00:00\" ) )"
#define DATE_TIME "( " FULL_DATE " [tT] " FULL_TIME " )"

/* RFC 3339 appendix A. */
#define DUR_SECOND "( " DIGIT "+ \"S\" )"
#define DUR_MINUTE "( " DIGIT "+ \"M\" " DUR_SECOND "? )"
#define DUR_HOUR "( " DIGIT "+ \"H\" " DUR_MINUTE "? )"
#define DUR_TIME "( \"T\" ( " DUR_HOUR " | " DUR_MINUTE " | " DUR_SECOND " ) )"
#define DUR_DAY "( " DIGIT "+ \"D\" )"
#define DUR_MONTH "( " DIGIT "+ \"M\" " DUR_DAY "? )"
#define DUR_YEAR "( " DIGIT "+ \"Y\" " DUR_MONTH "? )"
#define DURATION                                                                                       \
    "( \"P\" ( ( " DUR_DAY " | " DUR_MONTH " | " DUR_YEAR " ) " DUR_TIME "? | " DUR_TIME " | " DIGIT "+ \"W\" ) )"

#define DEC_OCTET "( \"25\" [0-5] | \"2\" [0-4] " DIGIT " | \"1\" " DIGIT "{2} | [1-9]? " DIGIT " )"
#define IPV4 "( " DEC_OCTET " ( \".\" " DEC_OCTET " ){3} )"
#define H16 "( " HEX "{1,4} )"
#define H16C "( " H16 " \":\" )"
#define LS32 "( " H16 " \":\" " H16 " | " IPV4 " )"
/* RFC 3986 section 3.2.2, IPv6address: the nine forms of "::" placement. */
#define IPV6                                                                                           \
    "( " H16C "{6} " LS32 " | \"::\" " H16C "{5} " LS32 " | " H16 "? \"::\" " H16C "{4} " LS32           \
    " | ( " H16C "{0,1} " H16 " )? \"::\" " H16C "{3} " LS32 " | ( " H16C "{0,2} " H16 " )? \"::\" " H16C \
    "{2} " LS32 " | ( " H16C "{0,3} " H16 " )? \"::\" " H16C " " LS32 " | ( " H16C "{0,4} " H16           \
    " )? \"::\" " LS32 " | ( " H16C "{0,5} " H16 " )? \"::\" " H16 " | ( " H16C "{0,6} " H16 " )? \"::\" )"

/* A DNS label, a rule of its own: hostname and email name it twice each. */
#define LABEL "json-format-label"
#define LABEL_BODY "[a-zA-Z0-9] ( [a-zA-Z0-9-]{0,61} [a-zA-Z0-9] )?"
#define HOSTNAME "( " LABEL " ( \".\" " LABEL " )* \".\"? )"
#define EMAIL_ATOM "[a-zA-Z0-9!#$%&'*+=?\\x5E_`{|}~-]"
#define EMAIL_LOCAL "( ( " EMAIL_ATOM " | " SLASH " )+ ( \".\" ( " EMAIL_ATOM " | " SLASH " )+ )* )"
#define EMAIL "( " EMAIL_LOCAL " \"@\" ( " LABEL " \".\" )+ " LABEL " )"

/* RFC 3986 section 3 and appendix A. */
#define UNRESERVED "[a-zA-Z0-9._~-]"
#define PCT "( \"%\" " HEX " " HEX " )"
#define SUB_DELIMS "[!$&'()*+,;=]"
#define PCHAR "( " UNRESERVED " | " PCT " | " SUB_DELIMS " | [:@] )"
#define SCHEME "( [a-zA-Z] [a-zA-Z0-9+.-]* )"
#define USERINFO "( ( " UNRESERVED " | " PCT " | " SUB_DELIMS " | \":\" )* \"@\" )"
#define IPVFUTURE "( [vV] " HEX "+ \".\" ( " UNRESERVED " | " SUB_DELIMS " | \":\" )+ )"
#define HOST \
    "( \"[\" ( " IPV6 " | " IPVFUTURE " ) \"]\" | " IPV4 " | ( " UNRESERVED " | " PCT " | " SUB_DELIMS " )* )"
#define AUTHORITY "( " USERINFO "? " HOST " ( \":\" " DIGIT "* )? )"
#define SEGMENT PCHAR "*"
#define SEGMENT_NZ PCHAR "+"
#define SEGMENT_NZ_NC "( " UNRESERVED " | " PCT " | " SUB_DELIMS " | \"@\" )+"
#define PATH_ABEMPTY "( " SLASH " " SEGMENT " )*"
#define PATH_ABSOLUTE "( " SLASH " ( " SEGMENT_NZ " " PATH_ABEMPTY " )? )"
#define PATH_ROOTLESS "( " SEGMENT_NZ " " PATH_ABEMPTY " )"
#define PATH_NOSCHEME "( " SEGMENT_NZ_NC " " PATH_ABEMPTY " )"
#define QUERY "( \"?\" ( " PCHAR " | " SLASH " | \"?\" )* )"
#define FRAGMENT "( \"#\" ( " PCHAR " | " SLASH " | \"?\" )* )"
#define HIER_PART \
    "( " SLASH " " SLASH " " AUTHORITY " " PATH_ABEMPTY " | " PATH_ABSOLUTE " | " PATH_ROOTLESS " | \"\" )"
#define URI "( " SCHEME " \":\" " HIER_PART " " QUERY "? " FRAGMENT "? )"
#define RELATIVE_PART \
    "( " SLASH " " SLASH " " AUTHORITY " " PATH_ABEMPTY " | " PATH_ABSOLUTE " | " PATH_NOSCHEME " | \"\" )"
#define RELATIVE_REF "( " RELATIVE_PART " " QUERY "? " FRAGMENT "? )"

#define UUID "( " HEX "{8} \"-\" " HEX "{4} \"-\" " HEX "{4} \"-\" " HEX "{4} \"-\" " HEX "{12} )"

#define NO_END UINT64_MAX

/* Each format with its rule's name, and the least and greatest length of
 * its strings; then the rules the formats name (no format of their own),
 * after every format that names them. */
static const struct { const char *name, *rule, *body; uint64_t min, max; } formats[] = {
    {"date", "json-format-date", FULL_DATE, 10, 10},
    {"time", "json-format-time", FULL_TIME, 9, NO_END},
    {"date-time", "json-format-date-time", DATE_TIME, 20, NO_END},
    {"duration", "json-format-duration", DURATION, 3, NO_END},
    {"email", "json-format-email", EMAIL, 3, NO_END},
    {"hostname", "json-format-hostname", HOSTNAME, 1, NO_END},
    {"ipv4", "json-format-ipv4", IPV4, 7, 15},
    {"ipv6", "json-format-ipv6", IPV6, 2, 45},
    {"uri", "json-format-uri", URI, 2, NO_END},
    {"uri-reference", "json-format-uri-reference", "( " URI " | " RELATIVE_REF " )", 0, NO_END},
    {"uuid", "json-format-uuid", UUID, 36, 36},
    {NULL, LABEL, LABEL_BODY, 0, 0},
};

void sx_format_lengths(const char *format, uint64_t *min, uint64_t *max)
{
    *min = 0, *max = NO_END;
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (formats[i].name && strcmp(formats[i].name, format) == 0)
            *min = formats[i].min, *max = formats[i].max;
}

const char *sx_format_rule(const char *format)
{
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (formats[i].name && strcmp(formats[i].name, format) == 0)
            return formats[i].rule;
    return NULL;
}

_Static_assert(sizeof formats / sizeof *formats <= SX_FORMATS_MAX, "SX_FORMATS_MAX is too small");

bool sx_format_nth(size_t i, const char **rule, const char **body)
{
    if (i >= sizeof formats / sizeof *formats)
        return false;
    *rule = formats[i].rule, *body = formats[i].body;
    return true;
}

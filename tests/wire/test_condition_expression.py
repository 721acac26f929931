"""ConditionExpression on PutItem / UpdateItem / DeleteItem.

Expectations come from the DynamoDB developer guide ("Condition expressions",
"Comparison operator and function reference", "Expression attribute names /
values", "Reserved words") and from error texts observed on the real service
as pinned by independent emulators' suites (scylladb alternator
test/alternator/test_condition_expression.py, architect/dynalite
db/conditionParser.pegjs and test/*.js). Exact messages that are not pinned by
two sources are marked "message uncertain".

Most semantic checks re-put an identical item with a ConditionExpression: a
true condition succeeds (the item is unchanged), a false one raises
ConditionalCheckFailedException.
"""

import json

import pytest
from botocore.exceptions import ClientError

from conftest import (COND_FAILED, COND_FAILED_MSG, ERROR_TYPE_PREFIX, expect_condition_failed,
                      expect_error, fresh_key, get_wire_item)

VE = "ValidationException"
# PutItem, UpdateItem and DeleteItem answer ConditionExpression errors in the request-validation
# envelope (the service since 2026; TransactWriteItems still answers them bare).
VED = "1 validation error detected: "
CE = VED + "Invalid ConditionExpression: "


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def _base_item(pk):
    return {
        "pk": {"S": pk},
        "s": {"S": "hello"},
        "s2": {"S": "hello"},
        "empty_s": {"S": ""},
        "n": {"N": "42"},
        "n2": {"N": "42"},
        "neg": {"N": "-3.5"},
        "b": {"B": b"\x01\x02\x03"},
        "t": {"BOOL": True},
        "f": {"BOOL": False},
        "nul": {"NULL": True},
        "ss": {"SS": ["a", "b", "c"]},
        "ns": {"NS": ["1", "2", "3"]},
        "bs": {"BS": [b"\x01", b"\x02"]},
        "l": {"L": [{"S": "x"}, {"N": "5"}, {"L": [{"S": "deep"}]}]},
        "m": {"M": {"inr": {"S": "v"}, "num": {"N": "7"},
                    "lst": {"L": [{"N": "1"}, {"N": "2"}]}}},
        "dotted.name": {"S": "dot"},
    }


@pytest.fixture(scope="module")
def cond_item(ddb, expr_table):
    """(table, item) with one item holding every attribute type."""
    item = _base_item(fresh_key())
    ddb.put_item(TableName=expr_table, Item=item)
    return expr_table, item


def holds(ddb, table, item, cond, values=None, names=None):
    """Re-put `item` under `cond`; True if the condition held, False if it failed."""
    kw = {"TableName": table, "Item": item, "ConditionExpression": cond}
    if values:
        kw["ExpressionAttributeValues"] = values
    if names:
        kw["ExpressionAttributeNames"] = names
    try:
        ddb.put_item(**kw)
        return True
    except ClientError as e:
        err = e.response["Error"]
        if err.get("Code") == COND_FAILED:
            assert err.get("Message") == COND_FAILED_MSG
            return False
        raise


def N(x):
    return {"N": str(x)}


def S(x):
    return {"S": x}


def B(x):
    return {"B": x}


# ---------------------------------------------------------------------------
# Comparators on every type
# ---------------------------------------------------------------------------

COMPARISONS = [
    # equality, every type
    ("n = :v", {":v": N(42)}, True),
    ("n = :v", {":v": N("42.000")}, True),           # numeric, not textual, equality
    ("n = :v", {":v": N("4.2E1")}, True),
    ("n = :v", {":v": N(41)}, False),
    ("n = :v", {":v": S("42")}, False),              # cross-type: false, not an error
    ("s = :v", {":v": S("hello")}, True),
    ("s = :v", {":v": S("Hello")}, False),
    ("empty_s = :v", {":v": S("")}, True),
    ("b = :v", {":v": B(b"\x01\x02\x03")}, True),
    ("b = :v", {":v": S("\x01\x02\x03")}, False),
    ("t = :v", {":v": {"BOOL": True}}, True),
    ("t = :v", {":v": {"BOOL": False}}, False),
    ("f = :v", {":v": {"BOOL": False}}, True),
    ("nul = :v", {":v": {"NULL": True}}, True),
    ("ss = :v", {":v": {"SS": ["c", "a", "b"]}}, True),  # set equality ignores order
    ("ss = :v", {":v": {"SS": ["a", "b"]}}, False),
    ("ns = :v", {":v": {"NS": ["3", "1", "2"]}}, True),
    ("ns = :v", {":v": {"SS": ["1", "2", "3"]}}, False),
    ("bs = :v", {":v": {"BS": [b"\x02", b"\x01"]}}, True),
    ("l = :v", {":v": {"L": [S("x"), N(5), {"L": [S("deep")]}]}}, True),
    ("l = :v", {":v": {"L": [N(5), S("x"), {"L": [S("deep")]}]}}, False),  # lists are ordered
    ("m = :v", {":v": {"M": {"num": N(7), "inr": S("v"),
                             "lst": {"L": [N(1), N(2)]}}}}, True),
    ("m = :v", {":v": {"M": {"inr": S("v")}}}, False),
    ("s = s2", None, True),                            # two item attributes
    ("n = n2", None, True),
    ("s = n", None, False),
    ("absent = :v", {":v": N(1)}, False),
    ("absent = other_absent", None, False),          # unset is never equal to anything
    # inequality
    ("n <> :v", {":v": N(41)}, True),
    ("n <> :v", {":v": N(42)}, False),
    ("n <> :v", {":v": S("42")}, True),               # different types are "not equal"
    ("absent <> :v", {":v": N(1)}, True),
    ("absent <> other_absent", None, True),
    ("ss <> :v", {":v": {"SS": ["b", "c", "a"]}}, False),
    # ordering: numbers are compared numerically
    ("n < :v", {":v": N(43)}, True),
    ("n < :v", {":v": N(42)}, False),
    ("n < :v", {":v": N(100)}, True),                 # 42 < 100 (not "42" < "100")
    ("n <= :v", {":v": N(42)}, True),
    ("n <= :v", {":v": N(41)}, False),
    ("n > :v", {":v": N(41)}, True),
    ("n > :v", {":v": N(42)}, False),
    ("n >= :v", {":v": N("42.0")}, True),
    ("n >= :v", {":v": N("42.0000000000000000000000000000000001")}, False),
    ("neg < :v", {":v": N("-3.4")}, True),
    ("neg > :v", {":v": N("-3.6")}, True),
    ("neg < :v", {":v": N("-1E+2")}, False),
    (":v < n", {":v": N(1)}, True),
    # strings: UTF-8 byte order
    ("s < :v", {":v": S("help")}, True),
    ("s > :v", {":v": S("Hello")}, True),             # 'h' (0x68) > 'H' (0x48)
    ("s > :v", {":v": S("hell")}, True),              # prefix sorts first
    ("s >= :v", {":v": S("hello")}, True),
    ("s < :v", {":v": S("hello")}, False),
    ("s < :v", {":v": S("\u00e9")}, True),            # non-ASCII sorts after ASCII
    # binary: unsigned bytes
    ("b < :v", {":v": B(b"\x01\x02\x04")}, True),
    ("b > :v", {":v": B(b"\x01\x02")}, True),
    ("b < :v", {":v": B(b"\xff")}, True),             # 0x01 < 0xff when unsigned
    ("b >= :v", {":v": B(b"\x01\x02\x03")}, True),
    # cross-type ordering is false, never an error
    ("n < :v", {":v": S("zzz")}, False),
    ("n > :v", {":v": S("0")}, False),
    ("s < :v", {":v": N(1)}, False),
    ("s > :v", {":v": B(b"\x00")}, False),
    ("b < :v", {":v": S("zzz")}, False),
    # item attributes of non-orderable types: comparison is simply false
    ("l < :v", {":v": N(1)}, False),
    ("m > :v", {":v": N(1)}, False),
    ("t >= :v", {":v": N(0)}, False),
    ("ss > :v", {":v": S("a")}, False),
    # absent attributes
    ("absent < :v", {":v": N(1)}, False),
    ("absent >= :v", {":v": N(1)}, False),
    (":v > absent", {":v": N(1)}, False),
    ("absent < other_absent", None, False),
]


@pytest.mark.parametrize("cond,values,expected", COMPARISONS,
                         ids=[f"{c}|{v}" for c, v, _ in COMPARISONS])
def test_comparison(ddb, cond_item, cond, values, expected):
    table, item = cond_item
    assert holds(ddb, table, item, cond, values) is expected


BETWEENS = [
    ("n BETWEEN :lo AND :hi", N(40), N(42), True),
    ("n BETWEEN :lo AND :hi", N(42), N(50), True),     # inclusive bounds
    ("n BETWEEN :lo AND :hi", N(42), N(42), True),
    ("n BETWEEN :lo AND :hi", N(43), N(50), False),
    ("n BETWEEN :lo AND :hi", N(-100), N(41), False),
    ("neg BETWEEN :lo AND :hi", N("-3.6"), N("-3.4"), True),
    ("s BETWEEN :lo AND :hi", S("a"), S("z"), True),
    ("s BETWEEN :lo AND :hi", S("hello"), S("hello"), True),
    ("s BETWEEN :lo AND :hi", S("i"), S("z"), False),
    ("b BETWEEN :lo AND :hi", B(b"\x01"), B(b"\x02"), True),
    ("b BETWEEN :lo AND :hi", B(b"\x01\x02\x04"), B(b"\xff"), False),
    ("n BETWEEN :lo AND :hi", S("a"), S("z"), False),  # cross-type: false
    ("s BETWEEN :lo AND :hi", N(1), N(100), False),
    ("absent BETWEEN :lo AND :hi", N(1), N(100), False),
    ("l BETWEEN :lo AND :hi", N(1), N(100), False),
    ("size(s) BETWEEN :lo AND :hi", N(1), N(5), True),
    ("n between :lo and :hi", N(1), N(100), True),     # keywords are case-insensitive
]


@pytest.mark.parametrize("cond,lo,hi,expected", BETWEENS,
                         ids=[f"{c}|{lo}|{hi}" for c, lo, hi, _ in BETWEENS])
def test_between(ddb, cond_item, cond, lo, hi, expected):
    table, item = cond_item
    assert holds(ddb, table, item, cond, {":lo": lo, ":hi": hi}) is expected


INS = [
    ("n IN (:a, :b)", {":a": N(1), ":b": N(42)}, True),
    ("n IN (:a)", {":a": N("42.0")}, True),
    ("n IN (:a, :b)", {":a": N(1), ":b": N(2)}, False),
    ("n IN (:a)", {":a": S("42")}, False),
    ("s IN (:a, :b)", {":a": N(42), ":b": S("hello")}, True),  # mixed types are allowed
    ("b IN (:a)", {":a": B(b"\x01\x02\x03")}, True),
    ("ss IN (:a)", {":a": {"SS": ["c", "b", "a"]}}, True),
    ("m.num IN (:a, :b)", {":a": N(6), ":b": N(7)}, True),
    ("absent IN (:a, :b)", {":a": N(1), ":b": N(42)}, False),
    ("n in (:a)", {":a": N(42)}, True),
    ("size(l) IN (:a, :b)", {":a": N(3), ":b": N(4)}, True),
]


@pytest.mark.parametrize("cond,values,expected", INS, ids=[c + str(v) for c, v, _ in INS])
def test_in(ddb, cond_item, cond, values, expected):
    table, item = cond_item
    assert holds(ddb, table, item, cond, values) is expected


def test_in_99_operands_allowed(ddb, cond_item):
    table, item = cond_item
    values = {f":v{i}": N(i) for i in range(99)}
    assert holds(ddb, table, item, f"n IN ({', '.join(values)})", values) is True
    values = {f":v{i}": N(i + 100) for i in range(99)}
    assert holds(ddb, table, item, f"n IN ({', '.join(values)})", values) is False


def test_in_too_many_operands(ddb, cond_item):
    # The developer guide allows at most 100 values in an IN list. Text as
    # pinned by independent emulators' suites (also used by DynamoDB's PartiQL).
    # Whether DynamoDB counts the left operand too is disputed (an alternator
    # comment says only 99 list values work), so exactly 100 values is not tested.
    table, item = cond_item
    values = {f":v{i}": N(i) for i in range(101)}
    expect_error(lambda: ddb.put_item(TableName=table, Item=item,
                                      ConditionExpression=f"n IN ({', '.join(values)})",
                                      ExpressionAttributeValues=values),
                 VE, CE + "The IN operator is provided with too many operands; "
                          "number of operands: 101")


# ---------------------------------------------------------------------------
# Boolean logic, precedence, parentheses
# ---------------------------------------------------------------------------

T_ = "n = :n42"      # true
F_ = "s = :nope"     # false
LOGIC_VALUES = {":n42": N(42), ":nope": S("nope")}

LOGIC = [
    (f"{T_} AND {T_}", True),
    (f"{T_} AND {F_}", False),
    (f"{F_} AND {T_}", False),
    (f"{T_} OR {F_}", True),
    (f"{F_} OR {T_}", True),
    (f"{F_} OR {F_}", False),
    (f"NOT {F_}", True),
    (f"NOT {T_}", False),
    # NOT binds tighter than AND: (NOT T) AND F -> F   (NOT (T AND F) would be T)
    (f"NOT {T_} AND {F_}", False),
    # AND binds tighter than OR
    (f"{T_} OR {F_} AND {F_}", True),     # T OR (F AND F)
    (f"{F_} AND {F_} OR {T_}", True),     # (F AND F) OR T
    (f"{F_} AND {T_} OR {T_} AND {F_}", False),
    # parentheses override precedence
    (f"({T_} OR {F_}) AND {F_}", False),
    (f"{F_} AND ({F_} OR {T_})", False),
    (f"NOT ({T_} AND {F_})", True),
    (f"NOT ({F_} OR {T_})", False),
    (f"({T_})", True),
    (f"(({T_}) AND ({T_})) OR ({F_})", True),
    # keywords are case-insensitive
    (f"{T_} and not {F_}", True),
    (f"{F_} oR {T_}", True),
]


@pytest.mark.parametrize("cond,expected", LOGIC, ids=[c for c, _ in LOGIC])
def test_logic(ddb, cond_item, cond, expected):
    table, item = cond_item
    values = {k: v for k, v in LOGIC_VALUES.items() if k in cond}   # unused values are errors
    assert holds(ddb, table, item, cond, values) is expected


# ---------------------------------------------------------------------------
# Functions
# ---------------------------------------------------------------------------

FUNCTIONS = [
    ("attribute_exists(s)", None, True),
    ("attribute_exists(absent)", None, False),
    ("attribute_exists(nul)", None, True),             # a NULL attribute exists
    ("attribute_exists(m.inr)", None, True),
    ("attribute_exists(m.nope)", None, False),
    ("attribute_exists(s.nope)", None, False),
    ("attribute_exists(l[0])", None, True),
    ("attribute_exists(l[2][0])", None, True),
    ("attribute_exists(l[3])", None, False),
    ("attribute_exists(m[0])", None, False),
    ("attribute_exists(pk)", None, True),
    ("attribute_not_exists(absent)", None, True),
    ("attribute_not_exists(s)", None, False),
    ("attribute_not_exists(m.nope)", None, True),
    ("attribute_not_exists(l[9])", None, True),
    ("NOT attribute_exists(absent)", None, True),
    ("attribute_exists (s)", None, True),               # space before '(' is fine
    # begins_with: strings and binaries
    ("begins_with(s, :v)", {":v": S("hel")}, True),
    ("begins_with(s, :v)", {":v": S("hello")}, True),
    ("begins_with(s, :v)", {":v": S("help")}, False),
    ("begins_with(s, :v)", {":v": S("hello!")}, False),
    ("begins_with(s, :v)", {":v": S("Hel")}, False),
    ("begins_with(b, :v)", {":v": B(b"\x01\x02")}, True),
    ("begins_with(b, :v)", {":v": B(b"\x02")}, False),
    ("begins_with(m.inr, :v)", {":v": S("v")}, True),
    ("begins_with(n, :v)", {":v": S("4")}, False),      # N attribute: false, not an error
    ("begins_with(ss, :v)", {":v": S("a")}, False),
    ("begins_with(absent, :v)", {":v": S("a")}, False),
    ("begins_with(s, :v)", {":v": B(b"he")}, False),    # type mismatch: false
    # contains: substring of S/B, membership of sets and lists
    ("contains(s, :v)", {":v": S("ell")}, True),
    ("contains(s, :v)", {":v": S("hello")}, True),
    ("contains(s, :v)", {":v": S("xyz")}, False),
    ("contains(s, :v)", {":v": S("ELL")}, False),
    ("contains(b, :v)", {":v": B(b"\x02\x03")}, True),
    ("contains(b, :v)", {":v": B(b"\x03\x02")}, False),
    ("contains(ss, :v)", {":v": S("b")}, True),
    ("contains(ss, :v)", {":v": S("z")}, False),
    ("contains(ss, :v)", {":v": S("ab")}, False),       # membership, not substring
    ("contains(ns, :v)", {":v": N(2)}, True),
    ("contains(ns, :v)", {":v": N("2.0")}, True),
    ("contains(ns, :v)", {":v": S("2")}, False),
    ("contains(ns, :v)", {":v": N(4)}, False),
    ("contains(bs, :v)", {":v": B(b"\x01")}, True),
    ("contains(bs, :v)", {":v": B(b"\x03")}, False),
    ("contains(l, :v)", {":v": S("x")}, True),
    ("contains(l, :v)", {":v": N(5)}, True),
    ("contains(l, :v)", {":v": S("5")}, False),
    ("contains(l, :v)", {":v": {"L": [S("deep")]}}, True),  # element that is a list
    ("contains(l, :v)", {":v": S("deep")}, False),          # no recursion
    ("contains(m.lst, :v)", {":v": N(2)}, True),
    ("contains(n, :v)", {":v": N(4)}, False),
    ("contains(m, :v)", {":v": S("inr")}, False),     # maps: not a container for contains
    ("contains(absent, :v)", {":v": S("a")}, False),
    ("NOT contains(ss, :v)", {":v": S("z")}, True),
    # attribute_type
    ("attribute_type(s, :t)", {":t": S("S")}, True),
    ("attribute_type(n, :t)", {":t": S("N")}, True),
    ("attribute_type(b, :t)", {":t": S("B")}, True),
    ("attribute_type(t, :t)", {":t": S("BOOL")}, True),
    ("attribute_type(nul, :t)", {":t": S("NULL")}, True),
    ("attribute_type(ss, :t)", {":t": S("SS")}, True),
    ("attribute_type(ns, :t)", {":t": S("NS")}, True),
    ("attribute_type(bs, :t)", {":t": S("BS")}, True),
    ("attribute_type(l, :t)", {":t": S("L")}, True),
    ("attribute_type(m, :t)", {":t": S("M")}, True),
    ("attribute_type(m.num, :t)", {":t": S("N")}, True),
    ("attribute_type(l[2], :t)", {":t": S("L")}, True),
    ("attribute_type(s, :t)", {":t": S("N")}, False),
    ("attribute_type(n, :t)", {":t": S("S")}, False),
    ("attribute_type(ss, :t)", {":t": S("L")}, False),
    ("attribute_type(l, :t)", {":t": S("SS")}, False),
    ("attribute_type(absent, :t)", {":t": S("S")}, False),
    ("attribute_type(absent, :t)", {":t": S("NULL")}, False),
    # size() in comparisons
    ("size(s) = :v", {":v": N(5)}, True),
    ("size(empty_s) = :v", {":v": N(0)}, True),
    ("size(b) = :v", {":v": N(3)}, True),
    ("size(ss) = :v", {":v": N(3)}, True),
    ("size(ns) = :v", {":v": N(3)}, True),
    ("size(bs) = :v", {":v": N(2)}, True),
    ("size(l) = :v", {":v": N(3)}, True),
    ("size(m) = :v", {":v": N(3)}, True),
    ("size(m.lst) = :v", {":v": N(2)}, True),
    ("size(l[2]) = :v", {":v": N(1)}, True),
    ("size(s) > :v", {":v": N(4)}, True),
    ("size(s) < :v", {":v": N(5)}, False),
    ("size(s) <> :v", {":v": N(5)}, False),
    ("size(s) >= :v", {":v": N(5)}, True),
    ("size(s) <= :v", {":v": N(4)}, False),
    (":v < size(l)", {":v": N(2)}, True),
    ("size(s) = size(s2)", None, True),
    ("size(l) = size(ss)", None, True),
    ("size(absent) = :v", {":v": N(0)}, False),
    ("size(s) = :v", {":v": S("5")}, False),
]


@pytest.mark.parametrize("cond,values,expected", FUNCTIONS,
                         ids=[f"{c}|{v}" for c, v, _ in FUNCTIONS])
def test_function(ddb, cond_item, cond, values, expected):
    table, item = cond_item
    assert holds(ddb, table, item, cond, values) is expected


def test_size_of_a_string_counts_utf16_code_units(ddb, expr_table):
    # As observed on the service: size() of "é𝄞" is 3 (é is one unit, 𝄞 a surrogate pair),
    # not its 6 UTF-8 bytes nor its 2 code points.
    item = {"pk": S(fresh_key()), "u": S("é𝄞"), "cjk": S("中文"), "emoji": S("😀😀a")}
    ddb.put_item(TableName=expr_table, Item=item)
    assert holds(ddb, expr_table, item, "size(u) = :v", {":v": N(3)})
    assert not holds(ddb, expr_table, item, "size(u) = :v", {":v": N(6)})
    assert holds(ddb, expr_table, item, "size(cjk) = :v", {":v": N(2)})
    assert holds(ddb, expr_table, item, "size(emoji) = :v", {":v": N(5)})


def test_function_on_key_attribute(ddb, cond_item):
    table, item = cond_item
    pk = item["pk"]["S"]
    assert holds(ddb, table, item, "begins_with(pk, :p)", {":p": S(pk[:4])})
    assert holds(ddb, table, item, "size(pk) = :n", {":n": N(len(pk))})


# ---------------------------------------------------------------------------
# Names, values, nested paths
# ---------------------------------------------------------------------------

def test_nested_paths(ddb, cond_item):
    table, item = cond_item
    assert holds(ddb, table, item, "m.num = :v", {":v": N(7)})
    assert holds(ddb, table, item, "m.lst[1] = :v", {":v": N(2)})
    assert holds(ddb, table, item, "l[1] = :v", {":v": N(5)})
    assert holds(ddb, table, item, "l[2][0] = :v", {":v": S("deep")})
    assert not holds(ddb, table, item, "l[7] = :v", {":v": S("deep")})
    assert not holds(ddb, table, item, "m.nope.deeper = :v", {":v": S("deep")})
    assert not holds(ddb, table, item, "s[0] = :v", {":v": S("h")})   # index into a string


def test_expression_attribute_names(ddb, cond_item):
    table, item = cond_item
    assert holds(ddb, table, item, "#a = :v", {":v": S("hello")}, {"#a": "s"})
    assert holds(ddb, table, item, "#m.#k = :v", {":v": N(7)}, {"#m": "m", "#k": "num"})
    assert holds(ddb, table, item, "#m.num = :v AND #m.inr = :w",
                 {":v": N(7), ":w": S("v")}, {"#m": "m"})
    # A name containing a dot is one attribute name, not a path.
    assert holds(ddb, table, item, "#d = :v", {":v": S("dot")}, {"#d": "dotted.name"})
    assert holds(ddb, table, item, "attribute_exists(#d)", None, {"#d": "dotted.name"})
    # #placeholder names may start with a digit or underscore.
    assert holds(ddb, table, item, "#1 = :_v", {":_v": S("hello")}, {"#1": "s"})


def test_reserved_word_via_placeholder(ddb, expr_table):
    k = fresh_key()
    ddb.put_item(TableName=expr_table, Item={"pk": S(k), "status": S("active")})
    ddb.put_item(TableName=expr_table, Item={"pk": S(k), "status": S("done")},
                 ConditionExpression="#st = :a",
                 ExpressionAttributeNames={"#st": "status"},
                 ExpressionAttributeValues={":a": S("active")})
    assert get_wire_item(ddb, expr_table, {"pk": S(k)})["status"] == S("done")


def test_value_placeholder_reused(ddb, cond_item):
    table, item = cond_item
    assert holds(ddb, table, item, "n = :v AND n2 = :v AND NOT s = :v", {":v": N(42)})


# ---------------------------------------------------------------------------
# Conditions on absent items, and the three write operations
# ---------------------------------------------------------------------------

def test_put_if_not_exists(ddb, expr_table):
    k = fresh_key()
    key = {"pk": S(k)}
    ddb.put_item(TableName=expr_table, Item={**key, "v": N(1)},
                 ConditionExpression="attribute_not_exists(pk)")
    expect_condition_failed(lambda: ddb.put_item(
        TableName=expr_table, Item={**key, "v": N(2)},
        ConditionExpression="attribute_not_exists(pk)"))
    assert get_wire_item(ddb, expr_table, key) == {**key, "v": N(1)}


def test_conditions_on_missing_item(ddb, expr_table):
    key = {"pk": S(fresh_key())}
    item = {**key, "v": N(1)}
    # Every attribute is absent: comparisons are false, <> and not-exists are true.
    for cond, values in [("attribute_exists(pk)", None), ("v = :v", {":v": N(1)}),
                         ("v < :v", {":v": N(1)}), ("contains(v, :v)", {":v": N(1)}),
                         ("begins_with(v, :v)", {":v": S("a")}),
                         ("attribute_type(v, :v)", {":v": S("N")}),
                         ("v BETWEEN :v AND :v", {":v": N(1)}), ("v IN (:v)", {":v": N(1)})]:
        kw = {"ExpressionAttributeValues": values} if values else {}
        expect_condition_failed(lambda: ddb.put_item(TableName=expr_table, Item=item,
                                                     ConditionExpression=cond, **kw))
        assert get_wire_item(ddb, expr_table, key) is None
    for cond, values in [("attribute_not_exists(pk)", None), ("attribute_not_exists(v)", None),
                         ("v <> :v", {":v": N(1)}), ("NOT attribute_exists(v)", None)]:
        kw = {"ExpressionAttributeValues": values} if values else {}
        ddb.delete_item(TableName=expr_table, Key=key)
        ddb.put_item(TableName=expr_table, Item=item, ConditionExpression=cond, **kw)
        assert get_wire_item(ddb, expr_table, key) == item


def test_update_missing_item_condition_fails_no_create(ddb, expr_table):
    key = {"pk": S(fresh_key())}
    expect_condition_failed(lambda: ddb.update_item(
        TableName=expr_table, Key=key, UpdateExpression="SET v = :v",
        ConditionExpression="attribute_exists(pk)", ExpressionAttributeValues={":v": N(1)}))
    assert get_wire_item(ddb, expr_table, key) is None


def test_update_missing_item_condition_holds_creates(ddb, expr_table):
    key = {"pk": S(fresh_key())}
    ddb.update_item(TableName=expr_table, Key=key, UpdateExpression="SET v = :v",
                    ConditionExpression="attribute_not_exists(pk)",
                    ExpressionAttributeValues={":v": N(1)})
    assert get_wire_item(ddb, expr_table, key) == {**key, "v": N(1)}


def test_put_condition_false_leaves_item(ddb, expr_table):
    key = {"pk": S(fresh_key())}
    old = {**key, "v": N(1), "w": S("x")}
    ddb.put_item(TableName=expr_table, Item=old)
    expect_condition_failed(lambda: ddb.put_item(
        TableName=expr_table, Item={**key, "v": N(2)}, ConditionExpression="v = :v",
        ExpressionAttributeValues={":v": N(5)}))
    assert get_wire_item(ddb, expr_table, key) == old
    resp = ddb.put_item(TableName=expr_table, Item={**key, "v": N(2)},
                        ConditionExpression="v = :v", ExpressionAttributeValues={":v": N(1)},
                        ReturnValues="ALL_OLD")
    assert resp["Attributes"] == old
    assert get_wire_item(ddb, expr_table, key) == {**key, "v": N(2)}


def test_delete_with_condition(ddb, expr_table):
    key = {"pk": S(fresh_key())}
    item = {**key, "state": S("open")}
    ddb.put_item(TableName=expr_table, Item=item)
    expect_condition_failed(lambda: ddb.delete_item(
        TableName=expr_table, Key=key, ConditionExpression="#s = :closed",
        ExpressionAttributeNames={"#s": "state"}, ExpressionAttributeValues={":closed": S("closed")}))
    assert get_wire_item(ddb, expr_table, key) == item
    resp = ddb.delete_item(TableName=expr_table, Key=key, ConditionExpression="#s = :open",
                           ExpressionAttributeNames={"#s": "state"},
                           ExpressionAttributeValues={":open": S("open")}, ReturnValues="ALL_OLD")
    assert resp["Attributes"] == item
    assert get_wire_item(ddb, expr_table, key) is None


def test_delete_missing_item_with_condition(ddb, expr_table):
    key = {"pk": S(fresh_key())}
    expect_condition_failed(lambda: ddb.delete_item(
        TableName=expr_table, Key=key, ConditionExpression="attribute_exists(pk)"))
    ddb.delete_item(TableName=expr_table, Key=key, ConditionExpression="attribute_not_exists(pk)")
    assert get_wire_item(ddb, expr_table, key) is None


def test_update_condition_sees_old_value(ddb, expr_table):
    key = {"pk": S(fresh_key())}
    ddb.put_item(TableName=expr_table, Item={**key, "v": N(1)})
    # The condition is evaluated on the item before the update.
    ddb.update_item(TableName=expr_table, Key=key, UpdateExpression="SET v = :two",
                    ConditionExpression="v = :one",
                    ExpressionAttributeValues={":one": N(1), ":two": N(2)})
    expect_condition_failed(lambda: ddb.update_item(
        TableName=expr_table, Key=key, UpdateExpression="SET v = :two",
        ConditionExpression="v = :one", ExpressionAttributeValues={":one": N(1), ":two": N(2)}))
    assert get_wire_item(ddb, expr_table, key) == {**key, "v": N(2)}


def test_soft_delete_flag(ddb, expr_table):
    """Soft delete: mark deleted once; later writes are guarded by the flag."""
    key = {"pk": S(fresh_key())}
    ddb.put_item(TableName=expr_table, Item={**key, "name": S("a"), "deleted": {"BOOL": False}})
    guard = "attribute_exists(pk) AND deleted = :f"
    ddb.update_item(TableName=expr_table, Key=key, UpdateExpression="SET deleted = :t",
                    ConditionExpression=guard,
                    ExpressionAttributeValues={":t": {"BOOL": True}, ":f": {"BOOL": False}})
    # A second soft delete, and a normal edit, both fail now.
    expect_condition_failed(lambda: ddb.update_item(
        TableName=expr_table, Key=key, UpdateExpression="SET deleted = :t",
        ConditionExpression=guard,
        ExpressionAttributeValues={":t": {"BOOL": True}, ":f": {"BOOL": False}}))
    expect_condition_failed(lambda: ddb.update_item(
        TableName=expr_table, Key=key, UpdateExpression="SET #n = :n",
        ConditionExpression="attribute_not_exists(deleted) OR deleted = :f",
        ExpressionAttributeNames={"#n": "name"},
        ExpressionAttributeValues={":n": S("b"), ":f": {"BOOL": False}}))
    assert get_wire_item(ddb, expr_table, key) == {**key, "name": S("a"), "deleted": {"BOOL": True}}
    # A hard delete guarded by the flag succeeds.
    ddb.delete_item(TableName=expr_table, Key=key, ConditionExpression="deleted = :t",
                    ExpressionAttributeValues={":t": {"BOOL": True}})
    assert get_wire_item(ddb, expr_table, key) is None


def test_condition_on_range_key_table(ddb, expr_table_sn):
    key = {"pk": S(fresh_key()), "sk": N(1)}
    ddb.put_item(TableName=expr_table_sn, Item={**key, "v": S("a")},
                 ConditionExpression="attribute_not_exists(pk) AND attribute_not_exists(sk)")
    expect_condition_failed(lambda: ddb.put_item(
        TableName=expr_table_sn, Item={**key, "v": S("b")},
        ConditionExpression="attribute_not_exists(sk)"))
    # A different sort key is a different item.
    ddb.put_item(TableName=expr_table_sn, Item={"pk": key["pk"], "sk": N(2)},
                 ConditionExpression="attribute_not_exists(sk)")
    ddb.put_item(TableName=expr_table_sn, Item={**key, "v": S("c")},
                 ConditionExpression="sk = :one", ExpressionAttributeValues={":one": N(1)})


# ---------------------------------------------------------------------------
# ReturnValuesOnConditionCheckFailure (raw JSON: boto3 1.26 lacks the parameter)
# ---------------------------------------------------------------------------

def _raw_body_error(resp):
    assert resp.status == 400, (resp.status, resp.body)
    body = resp.json()
    assert body["__type"] == ERROR_TYPE_PREFIX + COND_FAILED, body
    assert body.get("message", body.get("Message")) == COND_FAILED_MSG, body
    return body


def _b64(b):
    import base64
    return base64.b64encode(b).decode()


def test_return_values_on_condition_check_failure_put(ddb, raw, expr_table):
    k = fresh_key()
    old = {"pk": S(k), "v": N(1), "bin": B(b"\x00\xff"), "l": {"L": [S("x")]}}
    ddb.put_item(TableName=expr_table, Item=old)
    old_json = {"pk": {"S": k}, "v": {"N": "1"}, "bin": {"B": _b64(b"\x00\xff")},
                "l": {"L": [{"S": "x"}]}}
    resp = raw("PutItem", {"TableName": expr_table, "Item": {"pk": {"S": k}, "v": {"N": "9"}},
                           "ConditionExpression": "attribute_not_exists(pk)",
                           "ReturnValuesOnConditionCheckFailure": "ALL_OLD"})
    body = _raw_body_error(resp)
    assert body["Item"] == old_json
    assert get_wire_item(ddb, expr_table, {"pk": S(k)}) == old


def test_return_values_on_condition_check_failure_update_delete(ddb, raw, expr_table):
    k = fresh_key()
    ddb.put_item(TableName=expr_table, Item={"pk": S(k), "v": N(1)})
    resp = raw("UpdateItem", {"TableName": expr_table, "Key": {"pk": {"S": k}},
                              "UpdateExpression": "SET v = :n",
                              "ConditionExpression": "v = :x",
                              "ExpressionAttributeValues": {":n": {"N": "2"}, ":x": {"N": "5"}},
                              "ReturnValuesOnConditionCheckFailure": "ALL_OLD"})
    assert _raw_body_error(resp)["Item"] == {"pk": {"S": k}, "v": {"N": "1"}}
    resp = raw("DeleteItem", {"TableName": expr_table, "Key": {"pk": {"S": k}},
                              "ConditionExpression": "attribute_not_exists(v)",
                              "ReturnValuesOnConditionCheckFailure": "ALL_OLD"})
    assert _raw_body_error(resp)["Item"] == {"pk": {"S": k}, "v": {"N": "1"}}
    assert get_wire_item(ddb, expr_table, {"pk": S(k)}) == {"pk": S(k), "v": N(1)}


def test_return_values_on_condition_check_failure_none_or_missing_item(raw, expr_table, ddb):
    k = fresh_key()
    ddb.put_item(TableName=expr_table, Item={"pk": S(k), "v": N(1)})
    resp = raw("PutItem", {"TableName": expr_table, "Item": {"pk": {"S": k}},
                           "ConditionExpression": "attribute_not_exists(pk)",
                           "ReturnValuesOnConditionCheckFailure": "NONE"})
    assert "Item" not in _raw_body_error(resp)
    resp = raw("PutItem", {"TableName": expr_table, "Item": {"pk": {"S": k}},
                           "ConditionExpression": "attribute_not_exists(pk)"})
    assert "Item" not in _raw_body_error(resp)
    # No old item: nothing to return.
    resp = raw("UpdateItem", {"TableName": expr_table, "Key": {"pk": {"S": fresh_key()}},
                              "UpdateExpression": "SET v = :n",
                              "ConditionExpression": "attribute_exists(pk)",
                              "ExpressionAttributeValues": {":n": {"N": "2"}},
                              "ReturnValuesOnConditionCheckFailure": "ALL_OLD"})
    assert "Item" not in _raw_body_error(resp)


def test_return_values_on_condition_check_failure_invalid(raw, expr_table):
    resp = raw("PutItem", {"TableName": expr_table, "Item": {"pk": {"S": "x"}},
                           "ConditionExpression": "attribute_not_exists(pk)",
                           "ReturnValuesOnConditionCheckFailure": "ALL_NEW"})
    assert resp.status == 400
    body = resp.json()
    assert body["__type"].endswith("ValidationException"), body
    msg = body.get("message", body.get("Message"))
    # Message shape follows the other enum checks (1 validation error detected: ...); the
    # exact member name / enum list is uncertain.
    assert "ALL_NEW" in msg and "failed to satisfy constraint" in msg, msg


# ---------------------------------------------------------------------------
# Validation errors
# ---------------------------------------------------------------------------

def _put_cond(ddb, table, cond, values=None, names=None, item=None):
    kw = {"TableName": table, "Item": item or {"pk": S(fresh_key())}, "ConditionExpression": cond}
    if values is not None:
        kw["ExpressionAttributeValues"] = values
    if names is not None:
        kw["ExpressionAttributeNames"] = names
    return lambda: ddb.put_item(**kw)


EXACT_ERRORS = [
    # (condition, values, names, exact message)
    ("", None, None, CE + "The expression can not be empty;"),
    ("status = :v", {":v": N(1)}, None,
     CE + "Attribute name is a reserved keyword; reserved keyword: status"),
    ("Size = :v", {":v": N(1)}, None,
     CE + "Attribute name is a reserved keyword; reserved keyword: Size"),
    ("m.status = :v", {":v": N(1)}, None,
     CE + "Attribute name is a reserved keyword; reserved keyword: status"),
    ("a = :nope", {":v": N(1)}, None,
     CE + "An expression attribute value used in expression is not defined; attribute value: :nope"),
    ("a = :nope", None, None,
     CE + "An expression attribute value used in expression is not defined; attribute value: :nope"),
    ("#nope = :v", {":v": N(1)}, {"#a": "a"},
     CE + "An expression attribute name used in the document path is not defined; "
          "attribute name: #nope"),
    ("a = :v", {":v": N(1), ":x": N(2)}, None,
     "1 validation error detected: Value provided in ExpressionAttributeValues unused in expressions: keys: {:x}"),
    ("#a = :v", {":v": N(1)}, {"#a": "a", "#x": "x"},
     "1 validation error detected: Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}"),
    ("foo(a)", None, None, CE + "Invalid function name; function: foo"),
    ("ATTRIBUTE_EXISTS(a)", None, None, CE + "Invalid function name; function: ATTRIBUTE_EXISTS"),
    ("attribute_exists(a, b)", None, None,
     CE + "Incorrect number of operands for operator or function; "
          "operator or function: attribute_exists, number of operands: 2"),
    ("begins_with(a)", None, None,
     CE + "Incorrect number of operands for operator or function; "
          "operator or function: begins_with, number of operands: 1"),
    ("attribute_exists(:v)", {":v": N(1)}, None,
     CE + "Operator or function requires a document path; operator or function: attribute_exists"),
    ("attribute_not_exists(:v)", {":v": N(1)}, None,
     CE + "Operator or function requires a document path; "
          "operator or function: attribute_not_exists"),
    ("attribute_type(a, :t)", {":t": S("DOG")}, None,
     CE + "Invalid attribute type name found; type: DOG, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}"),
    ("begins_with(a, :v)", {":v": N(2)}, None,
     CE + "Incorrect operand type for operator or function; "
          "operator or function: begins_with, operand type: N"),
    ("size(a)", None, None,
     CE + "The function is not allowed to be used this way in an expression; function: size"),
    ("attribute_exists(a) = :v", {":v": {"BOOL": True}}, None,
     CE + "The function is not allowed to be used this way in an expression; "
          "function: attribute_exists"),
    ("a BETWEEN :hi AND :lo", {":hi": N(10), ":lo": N(1)}, None,
     CE + "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "
          "lower bound operand: AttributeValue: {N:10}, upper bound operand: AttributeValue: {N:1}"),
    ("a BETWEEN :lo AND :hi", {":lo": N(1), ":hi": S("z")}, None,
     CE + "The BETWEEN operator requires same data type for lower and upper bounds; "
          "lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:z}"),
    ("((a = :v))", {":v": N(1)}, None, CE + "The expression has redundant parentheses;"),
    ("a = a", None, None,
     CE + "The first operand must be distinct from the remaining operands for this operator "
          "or function; operator: =, first operand: [a]"),
]


@pytest.mark.parametrize("cond,values,names,message", EXACT_ERRORS,
                         ids=[e[0] or "<empty>" for e in EXACT_ERRORS])
def test_condition_error_exact(ddb, expr_table, cond, values, names, message):
    expect_error(_put_cond(ddb, expr_table, cond, values, names), VE, message)


def test_error_messages_on_update_and_delete(ddb, expr_table):
    key = {"pk": S(fresh_key())}
    expect_error(lambda: ddb.update_item(TableName=expr_table, Key=key,
                                         UpdateExpression="SET a = :v",
                                         ConditionExpression="status = :v",
                                         ExpressionAttributeValues={":v": N(1)}),
                 VE, CE + "Attribute name is a reserved keyword; reserved keyword: status")
    expect_error(lambda: ddb.delete_item(TableName=expr_table, Key=key,
                                         ConditionExpression=""),
                 VE, CE + "The expression can not be empty;")
    assert get_wire_item(ddb, expr_table, key) is None


SYNTAX_ERRORS = [
    # (condition, values, expected token)
    ("a = = :v", {":v": N(1)}, "="),
    ("a =", None, "<EOF>"),
    ("a", None, "<EOF>"),                       # a bare path is not a condition
    ("a = :v AND", {":v": N(1)}, "<EOF>"),
    ("(a = :v", {":v": N(1)}, "<EOF>"),
    ("a = :v)", {":v": N(1)}, ")"),
    ("_a = :v", {":v": N(1)}, "_"),             # names cannot start with '_'
    ("a IN ()", None, ")"),
    ("a ! :v", {":v": N(1)}, "!"),
    ("a == :v", {":v": N(1)}, "="),
]


@pytest.mark.parametrize("cond,values,token", SYNTAX_ERRORS, ids=[c for c, _, _ in SYNTAX_ERRORS])
def test_condition_syntax_error(ddb, expr_table, cond, values, token):
    # Format: Invalid ConditionExpression: Syntax error; token: "<tok>", near: "<ctx>".
    # The token is pinned; the exact "near" context is not (message uncertain).
    e = expect_error(_put_cond(ddb, expr_table, cond, values), VE)
    msg = e.response["Error"]["Message"]
    prefix = f'{CE}Syntax error; token: "{token}", near: "'
    assert msg.startswith(prefix) and msg.endswith('"'), msg


def test_syntax_error_near_context(ddb, expr_table):
    # Real DynamoDB (via LowVoltage's exploration tests): 'foo' ->
    # token "<EOF>", near "foo".
    expect_error(_put_cond(ddb, expr_table, "foo"), VE,
                 CE + 'Syntax error; token: "<EOF>", near: "foo"')


def test_constant_of_unorderable_type_is_validation_error(ddb, expr_table):
    # A constant whose type cannot be ordered is rejected up front (alternator
    # test_update_condition_lt); message uncertain beyond its prefix.
    for cond in ["a < :v", ":v <= a", "a > :v", "a >= :v"]:
        expect_error(_put_cond(ddb, expr_table, cond, {":v": {"L": [N(1)]}}), VE,
                     match=r"^1 validation error detected: Invalid ConditionExpression: Incorrect operand type for operator "
                           r"or function; operator or function: (<|<=|>|>=), operand type: L$")


def test_attribute_type_second_operand_must_be_value(ddb, expr_table):
    expect_error(_put_cond(ddb, expr_table, "attribute_type(a, b)"), VE,
                 match=r"^1 validation error detected: Invalid ConditionExpression: ")


def test_names_without_expression(ddb, expr_table):
    expect_error(lambda: ddb.put_item(TableName=expr_table, Item={"pk": S(fresh_key())},
                                      ExpressionAttributeNames={"#a": "a"}),
                 VE, VED + "ExpressionAttributeNames can only be specified when using expressions")
    expect_error(lambda: ddb.delete_item(TableName=expr_table, Key={"pk": S(fresh_key())},
                                         ExpressionAttributeNames={"#a": "a"}),
                 VE, VED + "ExpressionAttributeNames can only be specified when using expressions")


def test_values_without_expression(ddb, expr_table):
    # The 2026 text no longer names the missing expressions (": ConditionExpression is null").
    for call in (lambda: ddb.put_item(TableName=expr_table, Item={"pk": S(fresh_key())},
                                      ExpressionAttributeValues={":v": N(1)}),
                 lambda: ddb.delete_item(TableName=expr_table, Key={"pk": S(fresh_key())},
                                         ExpressionAttributeValues={":v": N(1)})):
        expect_error(call, VE,
                     VED + "ExpressionAttributeValues can only be specified when using expressions")


def test_empty_names_and_values_maps(ddb, expr_table):
    expect_error(_put_cond(ddb, expr_table, "attribute_exists(a)", names={}), VE,
                 VED + "ExpressionAttributeNames must not be empty")
    expect_error(_put_cond(ddb, expr_table, "attribute_exists(a)", values={}), VE,
                 VED + "ExpressionAttributeValues must not be empty")


def test_invalid_placeholder_keys(ddb, expr_table):
    expect_error(_put_cond(ddb, expr_table, "attribute_exists(a)", names={"a": "a"}), VE,
                 'ExpressionAttributeNames contains invalid key: Syntax error; key: "a"')
    expect_error(_put_cond(ddb, expr_table, "attribute_exists(a)", values={"v": N(1)}), VE,
                 'ExpressionAttributeValues contains invalid key: Syntax error; key: "v"')


def test_errors_do_not_write(ddb, expr_table):
    key = {"pk": S(fresh_key())}
    with pytest.raises(ClientError):
        ddb.put_item(TableName=expr_table, Item=key, ConditionExpression="a = = b")
    assert get_wire_item(ddb, expr_table, key) is None


def test_raw_condition_failed_type(raw, expr_table, ddb):
    k = fresh_key()
    ddb.put_item(TableName=expr_table, Item={"pk": S(k)})
    resp = raw("PutItem", json.dumps({"TableName": expr_table, "Item": {"pk": {"S": k}},
                                      "ConditionExpression": "attribute_not_exists(pk)"}))
    _raw_body_error(resp)

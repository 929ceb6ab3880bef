"""Parser: every official bundle file parses and round-trips; constructs map to the
right nodes; broken files give exact positions; bad input never crashes or hangs."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from snapframe.plugins.openplx import ast as A
from snapframe.plugins.openplx.edit import SourceEditor
from snapframe.plugins.openplx.lexer import Kind, tokenize
from snapframe.plugins.openplx.parser import parse, parse_expression

from .conftest import DATA


def test_bundle_files_are_the_expected_release(bundle_files: list[Path]) -> None:
    # openplx-bundles 0.19.0 ships 465 files, 212,394 bytes (research notes, section 1.1).
    assert len(bundle_files) == 465
    assert sum(f.stat().st_size for f in bundle_files) == 212_394


def test_every_bundle_file_parses_without_problems(bundle_files: list[Path]) -> None:
    failures = {}
    for f in bundle_files:
        source = parse(f.read_bytes().decode("utf-8"), str(f))
        if source.problems:
            failures[f.name] = [str(p) for p in source.problems]
    assert failures == {}


def test_every_bundle_file_round_trips_byte_for_byte(bundle_files: list[Path]) -> None:
    for f in bundle_files:
        data = f.read_bytes()
        source = parse(data.decode("utf-8"), str(f))
        # The text is rebuilt from the statement tree, not from a stored copy.
        assert SourceEditor(source, data.decode()).text().encode("utf-8") == data, f


def test_tree_text_is_built_from_statements() -> None:
    text = "A:\n    x is Real: 1  # one\n\n    # about y\n    y is Real: 2\n"
    source = parse(text)
    model = source.statements[0]
    assert [type(c).__name__ for c in model.children] == ["AttrDecl", "AttrDecl"]
    assert model.children[0].trailing_comment == "# one"
    assert "".join(t.text for t in model.children[1].leading) == "\n    # about y\n"
    model.children.pop(0)
    assert source.to_text() == "A:\n\n    # about y\n    y is Real: 2\n"


@pytest.mark.parametrize("text", [
    "A:\r\n    x is Real: 1\r\n",                        # CRLF line ends
    "A:\n\tx is Real: 1\n\ty is Real: 2",               # tabs, no final newline
    "\ufeffA:\n    x is Real: 1\n",                      # byte order mark
    "A:\n    s is String: \"\"\"two\n  lines\"\"\"\n",    # triple-quoted string
    "   \n# only trivia\n",
    "",
])
def test_unusual_layouts_round_trip(text: str) -> None:
    source = parse(text)
    assert source.problems == []
    assert source.to_text() == text


def test_lexer_keeps_every_character() -> None:
    text = 'A is B:  # c\n    x: @"p/q" + $"r" - 1.5e-3 * (y[0].z) -> {1, 2}\n'
    tokens = tokenize(text)
    assert "".join(t.text for t in tokens) == text
    strings = [t for t in tokens if t.kind is Kind.STRING]
    assert [t.value for t in strings] == ["p/q", "r"]
    number = next(t for t in tokens if t.kind is Kind.NUMBER and "e" in t.text)
    assert number.value == pytest.approx(1.5e-3) and (number.line, number.col) == (2, 24)


def _member(text: str) -> A.Stmt:
    source = parse("M:\n" + text + "\n")
    assert source.problems == [], source.problems
    return source.statements[0].children[0]


def test_declarations_and_types() -> None:
    d = _member("    optional reference_body is Physics3D.Bodies.Body reference")
    assert isinstance(d, A.AttrDecl) and d.optional and d.type.reference
    assert d.path.parts == ("reference_body",)
    assert d.type.options[0].name.parts == ("Physics3D", "Bodies", "Body")

    u = _member("    chassis is Physics3D.Bodies.RigidBody or Physics3D.System")
    assert [str(o) for o in u.type.options] == ["Physics3D.Bodies.RigidBody", "Physics3D.System"]

    w = _member("    engine is Interaction1DOF with Traits.A, Traits.B:\n        x: 1")
    assert [str(t) for t in w.type.traits] == ["Traits.A", "Traits.B"] and w.has_block
    assert isinstance(w.children[0], A.Assign)

    b = _member("    s becomes LidarSensingDistortion[]: []")
    assert isinstance(b, A.Becomes) and b.type.options[0].array
    assert isinstance(b.value, A.ArrayLit) and b.value.items == []

    dotted = _member("    chassis.front_left is Vehicles.Connector")
    assert isinstance(dotted, A.AttrDecl) and dotted.path.parts == ("chassis", "front_left")


def test_methods_annotations_traits_and_operators() -> None:
    source = parse(
        "trait T is U\n"
        "operator -(operand: Vec3) -> Vec3\n"
        "PI is Real: 3.14\n"
        "import @\"parts/arm.openplx\" as parts.arm\n"
        "const World is MateConnector:\n"
        "    with Signals.A, Signals.B\n"
        "    .doc: \"\"\"text\n\"\"\"\n"
        "    .agx_terrain_material: \"DIRT_1\"\n"
        "    static fn from(p: Vec3, r: Quat) -> AffineTransform\n"
        "    fn on_init()\n")
    assert source.problems == []
    trait, op, pi, imp, world = source.statements
    assert isinstance(trait, A.ModelDecl) and trait.is_trait and str(trait.base) == "U"
    assert isinstance(op, A.OperatorDecl) and op.op == "-" and [p.name for p in op.params] == ["operand"]
    assert isinstance(pi, A.GlobalDecl) and pi.value.value == 3.14
    assert isinstance(imp, A.Import) and imp.path.kind == "at" and imp.alias.parts == ("parts", "arm")
    assert world.is_const
    use, doc, mat, fn_from, fn_init = world.children
    assert isinstance(use, A.TraitUse) and [str(q) for q in use.traits] == ["Signals.A", "Signals.B"]
    assert isinstance(doc, A.Annotation) and doc.value.value == "text\n"
    assert mat.name == "agx_terrain_material" and mat.value.value == "DIRT_1"
    assert isinstance(fn_from, A.MethodDecl) and fn_from.static and str(fn_from.returns) == "AffineTransform"
    assert not fn_init.static and fn_init.returns is None


def test_multi_line_array_is_one_statement() -> None:
    s = _member("    fields: [\n        A.x,\n        A.y\n    ]")
    assert isinstance(s, A.Assign) and len(s.value.items) == 2


def test_expression_precedence_and_postfix() -> None:
    e = parse_expression("-a.b(1, 2)[0].c * 2 + 3 / 4")
    assert isinstance(e, A.Binary) and e.op == "+"
    mul, div = e.left, e.right
    assert mul.op == "*" and div.op == "/"
    neg = mul.left
    assert isinstance(neg, A.Unary) and isinstance(neg.operand, A.Member)
    assert neg.operand.name == "c" and isinstance(neg.operand.target, A.Index)
    assert A.unparse_expr(e) == "-a.b(1, 2)[0].c * 2 + 3 / 4"
    assert isinstance(parse_expression("{0, 0, 1}"), A.InitLit)


def test_positions_are_recorded_on_nodes() -> None:
    source = parse("A:\n    x is Real: foo.bar + 1\n", "f.openplx")
    decl = source.statements[0].children[0]
    assert (decl.file, decl.line, decl.col) == ("f.openplx", 2, 5)
    plus = decl.value
    assert (plus.line, plus.col) == (2, 24)
    member = plus.left
    assert (member.name, member.line, member.col) == ("bar", 2, 20)


# -- broken files -------------------------------------------------------------------

BROKEN = {
    "unterminated_string": (2, 22, "unterminated string"),
    "unterminated_triple_string": (2, 11, "unterminated triple-quoted string"),
    "comparison_operator": (2, 19, "unexpected character '<'"),
    "trailing_comma": (2, 31, "trailing comma in the array"),
    "trailing_comma_call": (2, 36, "trailing comma in the argument list"),
    "missing_block": (1, 24, "expected an indented block"),
    "unexpected_indent": (3, 9, "unexpected indentation"),
    "inconsistent_dedent": (4, 7, "indentation does not match any outer block"),
    "unclosed_bracket": (2, 23, "'[' is never closed"),
    "unclosed_initializer_eol": (2, 21, "'{' is never closed"),
    "annotation_not_constant": (2, 11, "an annotation value must be a constant"),
    "keyword_as_name": (2, 5, "'with' is a keyword and cannot be used as a name"),
    "missing_operand": (2, 22, "expected a value, found end of line"),
    "single_quotes": (2, 22, "single quotes do not delimit strings"),
    "dotted_top_level_name": (1, 4, "a top-level declaration needs a plain name"),
    "extra_token": (2, 21, "unexpected '2' after the value"),
    "static_without_fn": (2, 12, "expected 'fn' after 'static'"),
    "bad_operator": (1, 10, "unexpected character '%'"),
    "import_without_string": (1, 8, "expected a file name string after 'import'"),
    "bad_parameter": (2, 13, "expected ':' after parameter 'x'"),
    "double_colon": (2, 15, "expected a value, found ':'"),
    "becomes_without_type": (2, 17, "expected a type name, found end of line"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_file_reports_exact_position(name: str) -> None:
    path = DATA / "syntax" / f"{name}.openplx"
    text = path.read_text(encoding="utf-8")
    source = parse(text, str(path))
    line, col, message = BROKEN[name]
    assert len(source.problems) == 1, [str(p) for p in source.problems]
    p = source.problems[0]
    assert (p.file, p.line, p.col) == (str(path), line, col)
    assert message in p.message
    assert source.to_text() == text  # a broken file is still kept verbatim


def test_all_broken_files_are_covered() -> None:
    names = {p.stem for p in (DATA / "syntax").glob("*.openplx")}
    assert names == set(BROKEN)


def test_errors_are_reported_per_statement_and_parsing_goes_on() -> None:
    text = "A:\n    x is Real: 1 +\n    y is Real: 2\n    z is: 3\nB:\n    w is Real: ]\n"
    source = parse(text)
    assert [(p.line, p.col) for p in source.problems] == [(2, 19), (4, 9), (6, 16)]
    a, b = source.statements
    assert [type(c).__name__ for c in a.children] == ["ErrorStmt", "AttrDecl", "ErrorStmt"]
    assert isinstance(b, A.ModelDecl)


def test_mutated_bundle_files_never_crash(bundle_files: list[Path]) -> None:
    rng = random.Random(4)
    alphabet = ' \t\n:.,()[]{}"#@$-+*/<\'abcIs0123456789'
    for f in rng.sample(bundle_files, 40):
        text = f.read_text(encoding="utf-8")
        for _ in range(6):
            chars = list(text)
            for _ in range(rng.randint(1, 4)):
                i = rng.randrange(len(chars) + 1)
                op = rng.random()
                if op < 0.4 and i < len(chars):
                    del chars[i]
                elif op < 0.8:
                    chars.insert(i, rng.choice(alphabet))
                else:
                    chars[i:i] = rng.choice(['"""', "[", "{", "\n        ", ":"])
            mutated = "".join(chars)
            source = parse(mutated, f.name)
            assert source.to_text() == mutated
            n_lines = mutated.count("\n") + 1
            for p in source.problems:
                assert 1 <= p.line <= n_lines and p.col >= 1


@pytest.mark.parametrize("nl", ["\n", "\r\n", "\r"])
def test_positions_after_a_multi_line_string_with_any_line_break(nl: str) -> None:
    # The tokenizer breaks lines at CR too; a triple-quoted string must count them alike.
    text = f'A:{nl}    .doc: """a{nl}b"""{nl}    x: ]{nl}    y: """c{nl}de""" +{nl}'
    source = parse(text)
    assert [(p.line, p.col) for p in source.problems] == [(4, 8), (6, 8)]
    assert source.statements[0].end_line == 6
    assert source.to_text() == text


@pytest.mark.parametrize("text, line, col, message", [
    ("A is Physics3D.System[]:\n    x is Real: 1\n", 1, 6, "cannot extend an array type"),
    ("A is B reference:\n    x is Real: 1\n", 1, 6, "cannot extend a reference"),
    ("A is B or C:\n    x is Real: 1\n", 1, 11, "extends one model, not a union"),
    ("trait T is U with V\n", 1, 19, "a trait cannot use 'with'"),
    ("trait T:\n    with U\n    x is Real: 1\n", 2, 5, "a trait cannot use 'with'"),
])
def test_invalid_model_and_trait_bases_are_syntax_errors(text, line, col, message) -> None:
    # Spec section 2.3: a model extends one model; traits extend traits with 'is' and
    # cannot themselves use 'with'.
    source = parse(text, "f.openplx")
    [p] = source.problems
    assert (p.line, p.col) == (line, col) and message in p.message
    assert source.to_text() == text


def test_array_and_union_typed_top_level_values_stay_valid() -> None:
    source = parse("XS is Real[]: [1, 2]\nY is Real\nZ is Math.Vec3 or Math.Vec2: {1, 2}\n")
    assert source.problems == []

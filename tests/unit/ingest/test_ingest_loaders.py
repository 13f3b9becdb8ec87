"""load_inputs: input kinds, path-vs-text, formats, normalisation and every validation error."""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path

import pypdf
import pytest

from engramdb.errors import EngramValidationError
from engramdb.ingest.loaders import Text, load_inputs, looks_like_path

LIMIT = 10 * 1024 * 1024


def make_pdf(pages: list[str | None]) -> bytes:
    """A minimal valid PDF, written by hand: one Helvetica text line per input line.

    ``None`` makes a page without any text (what a scanned page looks like to a text extractor).
    """
    count = len(pages)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(count))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for i, text in enumerate(pages):
        content = b""
        if text is not None:
            ops = []
            for line_no, line in enumerate(text.split("\n")):
                escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
                ops.append(f"BT /F1 12 Tf 72 {720 - 16 * line_no} Td ({escaped}) Tj ET")
            content = "\n".join(ops).encode("latin-1")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def fails(data: object, *fragments: str, max_file_bytes: int = LIMIT) -> str:
    """Assert load_inputs raises EngramValidationError whose message holds every fragment."""
    with pytest.raises(EngramValidationError) as info:
        load_inputs(data, max_file_bytes=max_file_bytes)  # type: ignore[arg-type]
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


# -- texts ------------------------------------------------------------------------------------
def test_text_string_becomes_one_plain_document() -> None:
    text = "Alice moved to Paris in 2010."
    [doc] = load_inputs(text, max_file_bytes=LIMIT)
    digest = sha(text.encode())
    assert doc.text == text
    assert doc.content_hash == digest
    assert doc.name == f"text_{digest[:12]}"
    assert doc.mime_type == "text/plain"
    assert doc.size_bytes == len(text.encode())
    assert doc.source_path is None


def test_list_of_texts_keeps_order() -> None:
    docs = load_inputs(["first", "second", "third"], max_file_bytes=LIMIT)
    assert [d.text for d in docs] == ["first", "second", "third"]
    docs = load_inputs(("a tuple works", "too"), max_file_bytes=LIMIT)
    assert [d.text for d in docs] == ["a tuple works", "too"]


def test_text_is_normalised_but_hash_is_of_the_raw_utf8() -> None:
    raw = "Cafe\u0301\r\nline two end  "
    [doc] = load_inputs(raw, max_file_bytes=LIMIT)
    assert doc.text == "Café\nline two end  "  # NFC, LF, trailing spaces kept
    assert doc.content_hash == sha(raw.encode("utf-8"))


def test_identical_content_has_identical_hash(tmp_path: Path) -> None:
    payload = "same bytes in two places\n"
    (tmp_path / "a.txt").write_text(payload, encoding="utf-8")
    (tmp_path / "b.md").write_text(payload, encoding="utf-8")
    a, b, text = load_inputs([tmp_path / "a.txt", tmp_path / "b.md", payload], max_file_bytes=LIMIT)
    assert a.content_hash == b.content_hash == text.content_hash == sha(payload.encode())
    [other] = load_inputs("different bytes", max_file_bytes=LIMIT)
    assert other.content_hash != a.content_hash


# -- path or text -----------------------------------------------------------------------------
def test_existing_file_as_str_is_a_path(tmp_path: Path) -> None:
    path = tmp_path / "note.txt"
    path.write_text("from a file", encoding="utf-8")
    [doc] = load_inputs(str(path), max_file_bytes=LIMIT)
    assert doc.text == "from a file"
    assert doc.name == "note.txt"
    assert doc.source_path == str(path.absolute())


def test_relative_str_path_resolves_against_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "rel.md").write_text("# relative", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    [doc] = load_inputs("rel.md", max_file_bytes=LIMIT)
    assert doc.mime_type == "text/markdown"
    assert doc.text == "# relative"


def test_path_looking_str_that_does_not_exist_is_refused_unless_wrapped_in_text(
    tmp_path: Path,
) -> None:
    missing = str(tmp_path / "missing.txt")
    with pytest.raises(EngramValidationError, match=r"looks like a path.*engramdb\.Text\("):
        load_inputs(missing, max_file_bytes=LIMIT)
    [doc] = load_inputs(Text(missing), max_file_bytes=LIMIT)
    assert doc.text == missing
    assert doc.mime_type == "text/plain"
    assert doc.source_path is None


@pytest.mark.parametrize(
    "item", ["./notes/", "../x", "/no/such/dir", "~/no-such-engramdb-file", "report.pdf", "a.docx"]
)
def test_strings_that_look_like_paths(item: str) -> None:
    assert looks_like_path(item)
    with pytest.raises(EngramValidationError, match=r"no such file or directory exists"):
        load_inputs(item, max_file_bytes=LIMIT)


@pytest.mark.parametrize(
    "item", ["see ./notes/", "Node.js", "e.g.", "hello", "~ 5 items", "v1.2", "50/50 odds ok"]
)
def test_strings_that_do_not_look_like_paths_are_text(item: str) -> None:
    assert not looks_like_path(item)
    [doc] = load_inputs(item, max_file_bytes=LIMIT)
    assert doc.text == item


def test_multiline_or_very_long_str_is_text_even_if_it_names_a_file(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_text("file content", encoding="utf-8")
    [doc] = load_inputs(f"{path}\n", max_file_bytes=LIMIT)
    assert doc.text == f"{path}\n"
    long_text = str(path) + " " * 4096
    [doc] = load_inputs(long_text, max_file_bytes=LIMIT)
    assert doc.text == long_text


def test_file_url_is_a_path(tmp_path: Path) -> None:
    path = tmp_path / "with space.txt"
    path.write_text("via url", encoding="utf-8")
    [doc] = load_inputs(path.as_uri(), max_file_bytes=LIMIT)
    assert doc.text == "via url"
    assert doc.name == "with space.txt"


def test_file_url_that_does_not_exist_is_an_error(tmp_path: Path) -> None:
    fails((tmp_path / "gone.txt").as_uri(), "does not exist", "check the path")
    fails("file://example.com/x.txt", "only local files", "file:///absolute/path")


def test_path_object_that_does_not_exist_is_an_error(tmp_path: Path) -> None:
    fails(tmp_path / "nope.txt", "does not exist", "check the path", "as a str")


def test_mixed_list_of_texts_files_and_directories(tmp_path: Path) -> None:
    (tmp_path / "one.txt").write_text("one", encoding="utf-8")
    folder = tmp_path / "dir"
    folder.mkdir()
    (folder / "two.md").write_text("two", encoding="utf-8")
    docs = load_inputs(
        ["plain text", tmp_path / "one.txt", str(folder), Path(folder)], max_file_bytes=LIMIT
    )
    assert [d.text for d in docs] == ["plain text", "one", "two", "two"]


# -- directories ------------------------------------------------------------------------------
def test_directory_is_recursive_sorted_and_skips_hidden(tmp_path: Path) -> None:
    files = {
        "b.txt": "b",
        "a.md": "a",
        "sub/c.txt": "c",
        "sub/deeper/d.json": '{"d": 1}',
        "a/z.txt": "az",
        ".hidden.txt": "hidden file",
        ".git/config.txt": "hidden dir",
        "sub/.secret/e.txt": "nested hidden dir",
        "image.png": "not text",
        "UPPER.TXT": "upper-case suffix",
    }
    for rel, content in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    docs = load_inputs(tmp_path, max_file_bytes=LIMIT)
    relative = [d.metadata["relative_path"] for d in docs]
    assert relative == ["UPPER.TXT", "a/z.txt", "a.md", "b.txt", "sub/c.txt", "sub/deeper/d.json"]
    assert [d.text for d in docs][:2] == ["upper-case suffix", "az"]
    assert all("hidden" not in d.text for d in docs)


def test_directory_with_nothing_ingestible_names_dir_types_and_skipped(tmp_path: Path) -> None:
    (tmp_path / "report.docx").write_bytes(b"PK\x03\x04")
    (tmp_path / "photo.png").write_bytes(b"\x89PNG")
    (tmp_path / ".notes.txt").write_text("hidden", encoding="utf-8")
    fails(tmp_path, str(tmp_path), "nothing ingestible", "photo.png", "report.docx", ".pdf", ".txt")
    empty = tmp_path / "empty"
    empty.mkdir()
    fails(empty, "nothing ingestible", "supported types")


# -- formats ----------------------------------------------------------------------------------
def test_markdown_and_bom(tmp_path: Path) -> None:
    path = tmp_path / "doc.markdown"
    path.write_bytes(b"\xef\xbb\xbf# Title\r\n\r\nBody")
    [doc] = load_inputs(path, max_file_bytes=LIMIT)
    assert doc.text == "# Title\n\nBody"
    assert doc.mime_type == "text/markdown"
    assert doc.content_hash == sha(path.read_bytes())
    assert doc.size_bytes == path.stat().st_size


def test_csv_keeps_text_and_records_header(tmp_path: Path) -> None:
    raw = 'name,notes,age\nAda,"line one\nline two",36\nBob,"says ""hi""",41\n'
    path = tmp_path / "people.csv"
    path.write_text(raw, encoding="utf-8")
    [doc] = load_inputs(path, max_file_bytes=LIMIT)
    assert doc.text == raw
    assert doc.mime_type == "text/csv"
    assert doc.metadata["csv_header"] == ["name", "notes", "age"]
    assert doc.metadata["csv_rows"] == 2  # the quoted newline does not make a third row
    assert doc.metadata["csv_delimiter"] == ","


def test_csv_semicolon_delimiter_is_sniffed(tmp_path: Path) -> None:
    path = tmp_path / "semi.csv"
    path.write_text("a;b;c\n1;2;3\n4;5;6\n", encoding="utf-8")
    [doc] = load_inputs(path, max_file_bytes=LIMIT)
    assert doc.metadata["csv_header"] == ["a", "b", "c"]
    assert doc.metadata["csv_delimiter"] == ";"


def test_json_is_rendered_as_key_value_lines(tmp_path: Path) -> None:
    value = {
        "name": "engram",
        "version": 2,
        "owner": {"team": "memory", "active": True, "lead": None},
        "tags": ["a", "b"],
        "items": [{"id": 1}, {"id": 2, "extra": {}}],
        "empty": [],
    }
    path = tmp_path / "data.json"
    path.write_text(json.dumps(value), encoding="utf-8")
    [doc] = load_inputs(path, max_file_bytes=LIMIT)
    lines = doc.text.split("\n")
    for expected in [
        "name: engram",
        "version: 2",
        "owner.team: memory",
        "owner.active: true",
        "owner.lead: null",
        "tags[0]: a",
        "tags[1]: b",
        "items[0].id: 1",
        "items[1].extra: {}",
        "empty: []",
    ]:
        assert expected in lines
    assert "{" not in doc.text.replace("{}", "")
    assert doc.mime_type == "application/json"
    assert doc.metadata["json_keys"] == ["name", "version", "owner", "tags", "items", "empty"]


def test_json_array_records_become_paragraphs(tmp_path: Path) -> None:
    path = tmp_path / "records.json"
    path.write_text(json.dumps([{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]), encoding="utf-8")
    [doc] = load_inputs(path, max_file_bytes=LIMIT)
    assert doc.text == "[0].a: 1\n[0].b: x\n\n[1].a: 2\n[1].b: y"
    assert doc.metadata["json_records"] == 2


def test_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text('{"event": "start"}\n\n{"event": "stop", "ok": true}\n', encoding="utf-8")
    [doc] = load_inputs(path, max_file_bytes=LIMIT)
    assert doc.text == "[0].event: start\n\n[1].event: stop\n[1].ok: true"
    assert doc.mime_type == "application/x-ndjson"


def test_invalid_json_names_position_and_fix(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"a": 1,,}', encoding="utf-8")
    fails(path, "bad.json", "not valid JSON", "line 1", "rename the file to .txt")
    lines = tmp_path / "bad.jsonl"
    lines.write_text('{"ok": 1}\n{oops}\n', encoding="utf-8")
    fails(lines, "line 2", "fix that line")


def test_html_visible_text_only(tmp_path: Path) -> None:
    markup = """<!DOCTYPE html><html><head><title>The  Title</title>
    <style>body { color: red }</style><script>var hidden = 1;</script></head>
    <body><h1>Heading</h1><p>First   paragraph with <b>bold</b> and &amp; entity &eacute;.</p>
    <p>Line one<br>Line two</p><script>alert("no")</script>
    <ul><li>item 1</li><li>item 2</li></ul>
    <table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>
    <pre>  keep   spacing</pre><!-- a comment --></body></html>"""
    path = tmp_path / "page.htm"
    path.write_text(markup, encoding="utf-8")
    [doc] = load_inputs(path, max_file_bytes=LIMIT)
    assert doc.text == (
        "Heading\n\nFirst paragraph with bold and & entity é.\n\nLine one\nLine two\n\n"
        "item 1\nitem 2\n\nk | v\na | 1\n\n  keep   spacing"
    )
    assert doc.mime_type == "text/html"
    assert doc.metadata["html_title"] == "The Title"


def test_html_unclosed_head_still_yields_body(tmp_path: Path) -> None:
    path = tmp_path / "sloppy.html"
    path.write_text("<html><head><title>x</title><body><p>visible</p>", encoding="utf-8")
    [doc] = load_inputs(path, max_file_bytes=LIMIT)
    assert doc.text == "visible"


def test_pdf_pages_joined_with_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "paper.pdf"
    path.write_bytes(make_pdf(["Page one text.\nSecond line (x).", None, "Page three."]))
    [doc] = load_inputs(path, max_file_bytes=LIMIT)
    assert doc.text == "Page one text.\nSecond line (x).\n\nPage three."
    assert doc.mime_type == "application/pdf"
    assert doc.metadata["pdf_pages"] == 3
    offsets = doc.metadata["pdf_page_offsets"]
    assert doc.text[offsets[0] :].startswith("Page one")
    assert doc.text[offsets[2] :] == "Page three."
    assert doc.content_hash == sha(path.read_bytes())


def test_pdf_helper_is_a_real_pdf() -> None:
    reader = pypdf.PdfReader(io.BytesIO(make_pdf(["hello"])))
    assert reader.pages[0].extract_text() == "hello"


# -- validation -------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["", "   ", "\n\t \r\n", "\u200b\u2060", "\x01\x7f"])
def test_empty_or_whitespace_text_is_rejected(text: str) -> None:
    fails(text, "empty or whitespace-only", "pass some text")
    fails(["fine", text], "data[1]", "drop the empty item")


def test_empty_list_is_rejected() -> None:
    fails([], "list is empty", "pass at least one")


@pytest.mark.parametrize(
    ("item", "type_name"),
    [(42, "int"), (b"bytes", "bytes"), ({"a": 1}, "dict"), (None, "NoneType")],
)
def test_item_of_wrong_type_is_rejected(item: object, type_name: str) -> None:
    message = fails(["ok", item], "data[1]", f"'{type_name}'", "pass a str")
    if isinstance(item, bytes):
        assert "decode" in message
    fails(item, f"'{type_name}'", "pathlib.Path")


def test_unsupported_file_type_names_supported_list(tmp_path: Path) -> None:
    path = tmp_path / "x.docx"
    path.write_bytes(b"PK\x03\x04")
    fails(path, "x.docx", "unsupported type '.docx'", ".txt", ".md", ".pdf", "convert it")
    bare = tmp_path / "README"
    bare.write_text("no suffix", encoding="utf-8")
    fails(bare, "no file extension", "rename it")


def test_invalid_utf8_names_offset_and_reencode(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes(b"caf\xe9 au lait")
    fails(path, "latin.txt", "byte offset 3", "0xe9", "re-encode it as UTF-8")
    html = tmp_path / "latin.html"
    html.write_bytes(b"<p>\xff</p>")
    fails(html, "byte offset 3", "UTF-8")


def test_file_over_max_file_bytes_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_text("x" * 101, encoding="utf-8")
    fails(path, "101 bytes", "limit of 100 bytes", "max_file_bytes", max_file_bytes=100)
    fails(tmp_path, "big.txt", "max_file_bytes", max_file_bytes=100)  # also inside a directory
    assert load_inputs(path, max_file_bytes=101)[0].size_bytes == 101


def test_unreadable_file_is_rejected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "secret.txt"
    path.write_text("top secret", encoding="utf-8")

    def deny(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    with monkeypatch.context() as patch:
        patch.setattr(Path, "read_bytes", deny)
        fails(path, "secret.txt", "permission denied", "chmod")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can read anything")
def test_unreadable_file_real_permissions(tmp_path: Path) -> None:
    path = tmp_path / "locked.txt"
    path.write_text("locked", encoding="utf-8")
    path.chmod(0)
    try:
        fails(path, "permission denied", "chmod")
    finally:
        path.chmod(0o600)


def test_pdf_without_text_suggests_ocr(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    path.write_bytes(make_pdf([None, None]))
    fails(path, "scan.pdf", "no extractable text", "scanned image", "OCR")


def test_damaged_pdf_is_a_validation_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.4\nthis is not really a pdf")
    fails(path, "broken.pdf", "could not be read as a PDF", "re-export")


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("empty.txt", ""),
        ("blank.md", "  \n\n\t"),
        ("scripts.html", "<html><script>only()</script><style>p{}</style></html>"),
        ("empty.json", "{}"),
        ("nul.txt", "\x00\x00"),
    ],
)
def test_file_with_no_extracted_text_is_rejected(tmp_path: Path, name: str, content: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    fails(path, name, "contains no text", "add content")


def test_one_bad_item_fails_the_whole_call(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("good", encoding="utf-8")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\xfe")
    fails([good, "text", bad], "bad.txt", "UTF-8")
    fails([good, tmp_path / "missing.md"], "data[1]", "does not exist")


def test_unpaired_surrogate_in_text_is_rejected() -> None:
    fails("bad \ud800 text", "surrogate", "fix how the text was decoded")


def test_max_file_bytes_must_be_positive() -> None:
    fails("text", "max_file_bytes must be positive", max_file_bytes=0)


def test_html_fragment_title_is_metadata_not_text(tmp_path: Path) -> None:
    path = tmp_path / "fragment.html"
    path.write_text("<title>T</title><p>a&nbsp;b &lt;tag&gt;</p>", encoding="utf-8")
    [doc] = load_inputs(path, max_file_bytes=LIMIT)
    assert doc.text == "a\xa0b <tag>"
    assert doc.metadata["html_title"] == "T"

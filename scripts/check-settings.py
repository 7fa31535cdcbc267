#!/usr/bin/env python3
"""check.settings: nothing silt accepts is left unread (docs/settings.md).

Walks the settings registry of src/sql/settings.c (every key SET accepts,
with the file that reads it), the table properties a
spark.databricks.delta.properties.defaults.<name> setting may give, and the
Delta reader options of src/sql/source_options.c, and fails when

  - an honoured key is not read in the consumer file its entry names,
  - a key silt reads (sql_session_get, sql_exec_setting_true) is not in
    the registry,
  - a default property is not read anywhere in src/delta or src/sql,
  - a Delta reader option silt accepts is not read where the table says.

Usage: check-settings.py <repository root>
"""

from __future__ import annotations

import re
import sys
from pathlib import Path


def defines(root: Path) -> dict[str, str]:
    """#define NAME "text" / NAME number of every header under src/."""
    out: dict[str, str] = {}
    pat = re.compile(r'^#define\s+([A-Z0-9_]+)\s+("(?:[^"\\]|\\.)*"|-?\d+)\s*$', re.M)
    for h in sorted((root / "src").rglob("*.h")):
        for name, value in pat.findall(h.read_text()):
            out[name] = value.strip('"')
    return out


def without_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def registry(root: Path, macros: dict[str, str]) -> list[dict]:
    """The entries of sql_settings_registry[] as dicts."""
    text = without_comments((root / "src/sql/settings.c").read_text())
    start = text.index("sql_settings_registry[] = {")
    end = text.index("{NULL, 0, 0", start)
    body = text[start:end]
    entry = re.compile(
        r'\{\s*("(?:[^"\\]|\\.)*"|[A-Z0-9_]+)\s*,\s*(\d)\s*,\s*([A-Z0-9_]+|\d)\s*,\s*'
        r'(SQL_SETTING_[A-Z]+)\s*,\s*"([^"]+)"')
    out = []
    for key, prefix, honoured, _type, consumer in entry.findall(body):
        macro = None
        if key.startswith('"'):
            key = key.strip('"')
        else:
            macro, key = key, macros.get(key)
            if key is None:
                raise SystemExit(f"check-settings: unknown macro {macro} in the registry")
        honoured = macros.get(honoured, honoured)
        out.append({"key": key, "macro": macro, "prefix": prefix == "1",
                    "honoured": honoured == "1", "consumer": consumer})
    if not out:
        raise SystemExit("check-settings: found no registry entries in src/sql/settings.c")
    return out


def names_of(key: str, macros: dict[str, str]) -> list[str]:
    """How source code may name a key: its literal and every macro defined as it."""
    return [f'"{key}"'] + [m for m, v in macros.items() if v == key]


def read_keys(root: Path, macros: dict[str, str]) -> set[tuple[str, str]]:
    """(key, file) for every key silt reads from the session."""
    call = re.compile(r'(?:sql_session_get|sql_exec_setting_true)\s*\(\s*[^,]+,\s*'
                      r'("(?:[^"\\]|\\.)*"|[A-Z0-9_]+)\s*\)')
    out = set()
    for c in sorted((root / "src").rglob("*.c")):
        for arg in call.findall(without_comments(c.read_text())):
            key = arg.strip('"') if arg.startswith('"') else macros.get(arg)
            if key is not None:
                out.add((key, str(c.relative_to(root))))
    return out


def source_texts(root: Path, dirs: list[str], skip: set[str]) -> dict[str, str]:
    out = {}
    for d in dirs:
        for c in sorted((root / d).rglob("*.c")):
            rel = str(c.relative_to(root))
            if rel not in skip:
                out[rel] = without_comments(c.read_text())
    return out


def check_registry(root: Path, macros: dict[str, str], entries: list[dict]) -> list[str]:
    problems = []
    for e in entries:
        if not e["honoured"]:
            continue
        path = root / e["consumer"]
        if not path.is_file():
            problems.append(f'{e["key"]}: consumer {e["consumer"]} does not exist')
            continue
        text = without_comments(path.read_text())
        if not any(n in text for n in names_of(e["key"], macros)):
            problems.append(f'{e["key"]} is accepted by SET but {e["consumer"]} does not read it')
    for key, where in sorted(read_keys(root, macros)):
        if not any(key == e["key"] or (e["prefix"] and key.startswith(e["key"])) for e in entries):
            problems.append(f"{where} reads the setting {key}, which the registry does not list")
    return problems


def string_list(text: str, name: str) -> list[str]:
    start = text.index(name)
    body = text[start:text.index("NULL}", start)]
    return re.findall(r'"([^"]+)"', body)


def check_default_properties(root: Path) -> list[str]:
    text = without_comments((root / "src/sql/settings.c").read_text())
    names = string_list(text, "sql_settings_default_properties[] = {")
    others = source_texts(root, ["src/delta", "src/sql"], {"src/sql/settings.c"})
    problems = []
    for name in names:
        if not any(f'"delta.{name}"' in t for t in others.values()):
            problems.append(f"properties.defaults.{name} is accepted but nothing reads delta.{name}")
    return problems


def check_reader_options(root: Path) -> list[str]:
    path = root / "src/sql/source_options.c"
    if not path.is_file():
        return []
    text = without_comments(path.read_text())
    start = text.index("delta_reader_options[] = {")
    body = text[start:text.index("{NULL", start)]
    problems = []
    for option, accepted, reader in re.findall(r'\{\s*"([^"]+)"\s*,\s*(\d)\s*,\s*"([^"]+)"', body):
        if accepted != "1":
            continue
        reader_path = root / reader
        if not reader_path.is_file():
            problems.append(f"Delta option {option}: reader {reader} does not exist")
        elif f'"{option}"' not in without_comments(reader_path.read_text()).replace(
                text[start:start + len(body)], ""):
            problems.append(f"the Delta reader option {option} is accepted but {reader} does "
                            "not read it")
    return problems


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    macros = defines(root)
    entries = registry(root, macros)
    problems = check_registry(root, macros, entries)
    problems += check_default_properties(root)
    problems += check_reader_options(root)
    for p in problems:
        print(f"check-settings: {p}", file=sys.stderr)
    honoured = sum(e["honoured"] for e in entries)
    print(f"check-settings: {len(entries)} registered keys ({honoured} honoured), "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

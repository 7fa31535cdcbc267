"""An independent replay of a Delta log (Python, not silt), for the crash and fault tests:
the versions, the live files, the live files after each version, and what is wrong."""
import json
import os


def replay(table):
    """The live files after each version, from the JSON commits alone."""
    log = os.path.join(table, "_delta_log")
    versions = sorted(int(n[:20]) for n in os.listdir(log)
                      if n.endswith(".json") and len(n) == 25 and n[:20].isdigit())
    problems = []
    if versions != list(range(len(versions))):
        problems.append("versions are not dense: %s" % versions)
    live, at = {}, {}
    for v in versions:
        with open(os.path.join(log, "%020d.json" % v), encoding="utf-8") as f:
            text = f.read()
        if not text.endswith("\n"):
            problems.append("commit %d does not end with a new line (torn)" % v)
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                action = json.loads(line)
            except ValueError:
                problems.append("commit %d holds a line that is not JSON" % v)
                continue
            if "add" in action:
                live[action["add"]["path"]] = action["add"]
            elif "remove" in action:
                live.pop(action["remove"]["path"], None)
        at[v] = set(live)
    for path in live:
        if not os.path.exists(os.path.join(table, path)):
            problems.append("live file %s is missing" % path)
    return versions, live, at, problems

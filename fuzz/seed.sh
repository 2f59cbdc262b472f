#!/bin/sh
# Seeds the fuzz corpora from the project's fixtures and examples (run from fuzz/).
set -eu
mkdir -p corpus/document corpus/append corpus/import corpus/http corpus/http_request
cp ../tests/fixtures/import/*/* corpus/import/
cp ../examples/histories/*.json ../tests/fixtures/valid/*.json ../tests/fixtures/invalid/*.json corpus/document/
split -l 1 -d ../tests/fixtures/invalid/one-bad-line.jsonl corpus/document/jsonl-line-
cp seeds/http/*.http corpus/http/
python3 - <<'PY'
import json, glob
for path in glob.glob("../examples/histories/*.json") + glob.glob("../tests/fixtures/valid/*.json"):
    document = json.load(open(path))
    for position, turn in enumerate(document["Turns"]):
        name = path.split("/")[-1].removesuffix(".json")
        with open(f"corpus/append/{name}-{position}.json", "w") as out:
            json.dump(turn, out)
PY

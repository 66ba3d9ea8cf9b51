"""What CPython says, for the differential test of src/dialects/native/python.ts.

Reads one JSON object from stdin and answers, as JSON on stdout, for each entry:
  repr: JSON texts            -> repr(json.loads(text))
  floats: float literals      -> repr(float(literal))
  strip: strings              -> s.strip()
  json_errors: JSON texts     -> str(JSONDecodeError) or the RecursionError message; None if it parses
and the interpreter's version.
"""
import json
import sys


def json_error(text):
    try:
        json.loads(text)
        return None
    except json.JSONDecodeError as error:
        return str(error)
    except RecursionError as error:
        return str(error)


def main():
    table = json.loads(sys.stdin.read())
    answer = {
        "version": list(sys.version_info[:3]),
        "repr": [repr(json.loads(text)) for text in table["repr"]],
        "floats": [repr(float(literal)) for literal in table["floats"]],
        "strip": [s.strip() for s in table["strip"]],
        "json_errors": [json_error(text) for text in table["json_errors"]],
    }
    sys.stdout.write(json.dumps(answer))


main()

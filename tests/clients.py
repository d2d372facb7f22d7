"""What the official-client scripts share: the served model's name, the
check counter, and the two demo tools in each API's form.

Imported by tests/openai_client.py, tests/openai_responses.py and
tests/anthropic_client.py (Python puts the script's folder on its path).
"""

import sys

MODEL = "tool-use-mini"
_checks = 0


def check(ok, what):
    """Fails the script with `what` unless `ok`; counts the checks made."""
    global _checks
    if not ok:
        raise AssertionError(what)
    _checks += 1


def checks():
    """How many checks have passed."""
    return _checks


def connect(client_class):
    """A `client_class` (OpenAI's or Anthropic's client) for the server the
    script was given on its command line (base URL, API key), with no retries
    and a two-minute timeout; and that base URL."""
    base_url, key = sys.argv[1], sys.argv[2]
    return client_class(base_url=base_url, api_key=key, max_retries=0, timeout=120), base_url


FUNCTIONS = [
    {
        "name": "get_current_temperature",
        "description": "Get the current temperature at a location.",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {
                    "type": "string",
                    "description": 'The location to get the temperature for, in the format "City, Country"',
                },
                "unit": {
                    "type": "string",
                    "enum": ["celsius", "fahrenheit"],
                    "description": "The unit to return the temperature in.",
                },
            },
            "required": ["location", "unit"],
        },
    },
    {
        "name": "get_current_wind_speed",
        "description": "Get the current wind speed in km/h at a given location.",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {
                    "type": "string",
                    "description": 'The location to get the wind speed for, in the format "City, Country"',
                }
            },
            "required": ["location"],
        },
    },
]

# Chat Completions: each function under `function`.
CHAT_TOOLS = [{"type": "function", "function": f} for f in FUNCTIONS]
# Responses: the function's keys beside `type`.
RESPONSES_TOOLS = [{"type": "function", **f} for f in FUNCTIONS]
# Messages: the schema is `input_schema`.
MESSAGES_TOOLS = [
    {"name": f["name"], "description": f["description"], "input_schema": f["parameters"]} for f in FUNCTIONS
]

// JSON that keeps key order, for the Node example subject (see subject.js).
//
// A JavaScript object lists integer-like keys ("0", "12") first, whatever order they came
// in, so JSON.parse then JSON.stringify moves them: a byte change the harness catches
// (history-inherited). Such keys are marked before parsing and unmarked when written.
'use strict';

const KEY_MARK = '\uE000#';
const TOKEN = /"(?:[^"\\]|\\.)*"|[^"]+/g;
const INTEGER_KEY = /^"(?:0|[1-9][0-9]*)"$/;

function parseOrdered(text) {
  const tokens = text.match(TOKEN) || [];
  const marked = tokens.map((token, i) =>
    INTEGER_KEY.test(token) && /^\s*:/.test(tokens[i + 1] || '') ? `"${KEY_MARK}${token.slice(1)}` : token,
  );
  return JSON.parse(marked.join(''));
}

function stringify(value) {
  return JSON.stringify(value).replaceAll(`"${KEY_MARK}`, '"');
}

module.exports = { parseOrdered, stringify };

'use strict';
// Order-preserving JSON for request bodies.
//
// JSON.parse loses what a prompt cache sees: objects with integer-like keys are reordered,
// "__proto__" keys vanish, 1.0 becomes 1 and large integers are rounded. Request bodies
// must repeat a scenario's bytes, so this runtime keeps objects as Maps (insertion order,
// any key) and numbers as their source text.

class JNum {
  constructor(raw) {
    this.raw = raw;
  }
}

function parse(text) {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const fail = (what) => {
    throw new SyntaxError(`invalid JSON at offset ${i}: ${what}`);
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const m = new Map();
      ws();
      if (text[i] === '}') {
        i++;
        return m;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a key');
        const k = string();
        ws();
        if (text[i] !== ':') fail('expected ":"');
        i++;
        m.set(k, value());
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return m;
        }
        fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      i++;
      const a = [];
      ws();
      if (text[i] === ']') {
        i++;
        return a;
      }
      for (;;) {
        a.push(value());
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return a;
        }
        fail('expected "," or "]"');
      }
    }
    if (c === '"') return string();
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail('unexpected character');
    i += m[0].length;
    return new JNum(m[0]);
  };
  const string = () => {
    // text[i] is the opening quote; find the closing one and let JSON.parse decode escapes.
    let j = i + 1;
    while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    if (j >= text.length) fail('unterminated string');
    const s = JSON.parse(text.slice(i, j + 1));
    i = j + 1;
    return s;
  };
  const v = value();
  ws();
  if (i !== text.length) fail('trailing characters');
  return v;
}

// Compact JSON text; Maps and plain objects keep their insertion order.
function stringify(v) {
  if (v === null || v === undefined) return 'null';
  if (v instanceof JNum) return v.raw;
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(stringify).join(',') + ']';
  const entries = v instanceof Map ? [...v.entries()] : Object.entries(v);
  return (
    '{' +
    entries
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => JSON.stringify(k) + ':' + stringify(x))
      .join(',') +
    '}'
  );
}

const isObject = (v) => v instanceof Map;

// Field access on a parsed object, with a default for an absent key.
function get(m, key, dflt) {
  return m instanceof Map && m.has(key) ? m.get(key) : dflt;
}

module.exports = { JNum, parse, stringify, isObject, get };

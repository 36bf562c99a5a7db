#!/usr/bin/env node
'use strict';
// An independent fork-capable agent runtime, driven over the prefix-harness subject
// protocol (version 1): JSON lines on stdin, one reply line per request on stdout.
//
// INDEPENDENT_SUBJECT_BUG=date|sorted-tools|whitespace plants a known defect in the fork
// children (see README.md); unset, the runtime is correct.

const readline = require('readline');
const { JNum, parse, stringify, get } = require('./json');
const { scenario } = require('./model');
const { assemble } = require('./runtime');
const { DIALECTS } = require('./dialects');

const VERSION = 1;
const BUG = process.env.INDEPENDENT_SUBJECT_BUG || '';
const BUGS = ['', 'date', 'sorted-tools', 'whitespace'];

function reply(obj) {
  process.stdout.write(stringify(obj) + '\n');
}

function onStart(msg) {
  const version = get(msg, 'version');
  if (version instanceof JNum && Number(version.raw) === VERSION) {
    reply({
      ok: true,
      version: VERSION,
      implementation: {
        name: 'independent-runtime',
        language: 'javascript',
        version: '0.1.0',
        dialects: DIALECTS,
        lifecycles: ['one-shot', 'continuable', 'spawn'],
      },
    });
  } else {
    reply({ ok: false, error: `this runtime speaks protocol version ${VERSION} only` });
  }
}

function onAssemble(msg) {
  const seq = get(msg, 'seq');
  try {
    const out = assemble(scenario(get(msg, 'scenario')), get(msg, 'dialect'), BUG);
    reply({ seq, ...out });
  } catch (err) {
    process.stderr.write(`${err.stack || err}\n`);
    reply({ seq, status: 'errored', message: String(err.message || err) });
  }
}

function main() {
  if (!BUGS.includes(BUG)) {
    process.stderr.write(`unknown INDEPENDENT_SUBJECT_BUG ${JSON.stringify(BUG)}\n`);
    process.exit(2);
  }
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => {
    if (!line.trim()) return;
    let msg;
    try {
      msg = parse(line);
    } catch (err) {
      process.stderr.write(`unreadable line: ${err.message}\n`);
      return;
    }
    const cmd = get(msg, 'cmd');
    if (cmd === 'start') onStart(msg);
    else if (cmd === 'assemble') onAssemble(msg);
    else if (cmd === 'stop') {
      lines.close();
    } else process.stderr.write(`ignored command ${JSON.stringify(cmd)}\n`);
  });
  lines.on('close', () => process.exit(0));
}

main();
